#!/bin/bash
# Runs inside a guest under QEMU -icount shift=0 on one CPU (bench/regsets
# starts it): what each register set costs per sample inside the kernel.
# function_graph times perfregs' handler (prf_sample) and perf's sample
# output for the same general registers (perf_event_output_forward);
# under -icount a guest nanosecond is one executed instruction.  Lines
# "set=NAME tool=T calls=N bytes=B" in $OUT/raw.txt, the durations in
# $OUT/cost-NAME.txt.
#
# usage: bench/guest_regsets.sh OUT ITER [SET,...]   (no sets: every one)
set -u
OUT=$1 ITER=$2 SETS=${3:-}
B=build
T=/sys/kernel/tracing
PERF=$(ls /usr/bin/perf_* 2>/dev/null | sort -V | tail -1)
PERF=${PERF:-/usr/bin/perf}
REGS=ip,sp,bp,bx,r12,r13,r14,r15
PREGS=IP,SP,BP,BX,R12,R13,R14,R15
raw=$OUT/raw.txt
: > "$raw"
insmod $B/kmod/$(uname -r)/module/perfregs.ko || exit 1
echo "kernel=$(uname -r)" >> "$raw"
echo "cpu_flags_simd=$(grep -m1 '^flags' /proc/cpuinfo | grep -oE '\b(xsave|xsaveopt|xsavec|avx|avx2|avx512f)\b' | tr '\n' ' ')" >> "$raw"
# the workloads run from tmpfs: the guest's root is 9p
W=/tmp/perfregs-regsets
mkdir -p $W
cp $B/bench/work $B/selftests/xmagic_64 $B/selftests/fpchain_64 $W/ || exit 1

if ! grep -qw function_graph $T/available_tracers 2>/dev/null; then
	echo "error=no function_graph tracer" >> "$raw"
	exit 0
fi
cost() {	# set-name tool function recording command...
	local set=$1 tool=$2 fn=$3 rec=$4 n
	shift 4
	case ",${SETS:-$set}," in *",$set,"*) ;; *) return ;; esac
	echo 0 > $T/tracing_on
	echo nop > $T/current_tracer
	if ! echo "$fn" > $T/set_ftrace_filter 2>/dev/null; then
		echo "set=$set tool=$tool error=no_function_$fn" >> "$raw"
		return
	fi
	echo function_graph > $T/current_tracer
	echo 8192 > $T/buffer_size_kb
	echo > $T/trace
	echo 1 > $T/tracing_on
	"$@" > /dev/null 2>&1
	echo 0 > $T/tracing_on
	grep -oE '[0-9]+\.[0-9]+ us' $T/trace | awk '{print $1}' > "$OUT/cost-$set.txt"
	echo nop > $T/current_tracer
	echo > $T/set_ftrace_filter
	n=0
	if [ "$tool" = ours ]; then
		n=$($B/perfregs-dump -q --summary -f json -i "$rec" 2>/dev/null |
			sed -n 's/.*"samples":\([0-9]*\).*/\1/p')
	else
		n=$($PERF report -i "$rec" --stats 2>/dev/null |
			awk '$1 == "SAMPLE" && $2 == "events:" {v = $3} END {print v + 0}')
	fi
	echo "set=$set tool=$tool calls=$(wc -l < "$OUT/cost-$set.txt") samples=${n:-0}" \
	     "bytes=$(stat -c %s "$rec")" >> "$raw"
	rm -f "$rec"
}
ours() {	# set-name workload options...
	local set=$1 work=$2
	shift 2
	cost "$set" ours prf_sample "$OUT/$set.prf" $B/perfregs-dump -q -c 250000 \
		--iregs=$REGS "$@" -o "$OUT/$set.prf" -- $work
}
# perf's sample of the same general registers, user and interrupt
cost perf_gp perf perf_event_output_forward "$OUT/perf.data" $PERF record -q \
	-e cpu-clock -c 250000 --user-regs=$PREGS --intr-regs=$PREGS \
	-o "$OUT/perf.data" -- $W/work "$ITER"
ours gp "$W/work $ITER" --uregs=$REGS
ours gp_selectors "$W/work $ITER" --uregs=$REGS,ds,es,fs,gs
ours gp_bases "$W/work $ITER" --uregs=$REGS,fs_base,gs_base
ours gp_xmm "$W/work $ITER" --uregs=$REGS --simd xmm
ours gp_xmm_ymm "$W/work $ITER" --uregs=$REGS --simd xmm,ymm
# a workload whose AVX state is in use (XSAVE writes what is not in
# its initial state), every sample in its user-mode loop
ours avx_gp "$W/xmagic_64 spin 3" --uregs=$REGS
ours avx_xmm_ymm "$W/xmagic_64 spin 3" --uregs=$REGS --simd xmm,ymm
# call chains: -g of each tool (perf: the kernel chain and the user
# chain through the frame pointers; ours the same, and 256 bytes of
# stack for the leaf's CFI) on selftests/fpchain.c, main > fp_a > fp_b
# > fp_c with frame pointers: spinning in fp_c (user-mode samples, a
# user chain of 5 frames) and in read() of /dev/zero under it (nearly
# every sample in the kernel: a kernel chain of about 10 frames and the
# user chain from the entry frame); without -g the same, for the cost
# of the chains alone
for mode in spin read; do
	cost perf_gp_$mode perf perf_event_output_forward "$OUT/perf.data" $PERF record -q \
		-e cpu-clock -c 250000 --user-regs=$PREGS --intr-regs=$PREGS \
		-o "$OUT/perf.data" -- $W/fpchain_64 $mode 3
	cost perf_g_$mode perf perf_event_output_forward "$OUT/perf.data" $PERF record -q \
		-e cpu-clock -c 250000 --user-regs=$PREGS --intr-regs=$PREGS -g \
		-o "$OUT/perf.data" -- $W/fpchain_64 $mode 3
	ours gp_$mode "$W/fpchain_64 $mode 3" --uregs=$REGS
	ours g_$mode "$W/fpchain_64 $mode 3" --uregs=$REGS -g
done
rmmod perfregs
echo "done=1" >> "$raw"
