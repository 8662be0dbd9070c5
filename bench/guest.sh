#!/bin/bash
# Runs inside the guest (bench/run starts it): every measurement of one
# boot, side by side, perfregs and perf under the same conditions.
# Writes KEY=VALUE lines to $OUT/raw.txt.  usage: bench/guest.sh OUT ITER REPS
set -u
OUT=$1 ITER=$2 REPS=$3
B=build
PERF=$(ls /usr/bin/perf_* 2>/dev/null | sort -V | tail -1)
PERF=${PERF:-/usr/bin/perf}
REGS=ip,sp,bp,bx,r12,r13,r14,r15
PREGS=IP,SP,BP,BX,R12,R13,R14,R15
raw=$OUT/raw.txt
: > "$raw"
insmod $B/kmod/$(uname -r)/module/perfregs.ko || exit 1
echo "kernel=$(uname -r)" >> "$raw"
echo "perf=$($PERF --version 2>&1)" >> "$raw"
echo "cpus=$(nproc)" >> "$raw"
echo "max_sample_rate_start=$(cat /proc/sys/kernel/perf_event_max_sample_rate)" >> "$raw"

ns() { sed -n 's/^work_ns=//p'; }
perf_samples() {	# perf.data -> samples and lost
	$PERF report -i "$1" --stats 2>/dev/null | awk '
		/SAMPLE events:/ {s=$NF} /LOST events:/ {l+=$NF} /LOST_SAMPLES events:/ {l+=$NF}
		END {printf "%d %d\n", s, l}'
}
ours_samples() {	# summary line -> samples and lost
	sed -n 's/.*"samples":\([0-9]*\).*"full":\([0-9]*\),"nested":\([0-9]*\).*/\1 \2 \3/p' "$1" |
		awk '{print $1, $2 + $3}'
}

# 1. overhead: unsampled, perf, perfregs, at several periods, repeated
for period in 1000000 250000 100000; do
	for rep in $(seq "$REPS"); do
		t=$($B/bench/work "$ITER" | ns)
		echo "base period=$period rep=$rep ns=$t" >> "$raw"
		t=$($PERF record -q -e cpu-clock -c "$period" --user-regs=$PREGS --intr-regs=$PREGS \
			-o "$OUT/perf-$period.data" -- $B/bench/work "$ITER" 2>/dev/null | ns)
		read -r s l < <(perf_samples "$OUT/perf-$period.data")
		echo "perf period=$period rep=$rep ns=$t samples=$s lost=$l" >> "$raw"
		t=$($B/perfregs-dump -q -c "$period" --iregs=$REGS --uregs=$REGS \
			-o "$OUT/ours-$period.prf" -- $B/bench/work "$ITER" | ns)
		$B/perfregs-dump -q --summary -f json -i "$OUT/ours-$period.prf" > "$OUT/sum.json"
		read -r s l < <(ours_samples "$OUT/sum.json")
		echo "ours period=$period rep=$rep ns=$t samples=$s lost=$l" >> "$raw"
	done
done

# 1b. cost per sample inside the kernel: function_graph durations of
# perfregs' handler (prf_sample) and of perf's sample output for the same
# registers (perf_event_output_forward), one run of each
T=/sys/kernel/tracing
kcost() {	# tool function command...
	local tool=$1 fn=$2
	shift 2
	echo 0 > $T/tracing_on
	echo nop > $T/current_tracer
	if ! echo "$fn" > $T/set_ftrace_filter 2>/dev/null; then
		echo "kcost tool=$tool error=no_function" >> "$raw"
		"$@" > /dev/null 2>&1
		return
	fi
	echo function_graph > $T/current_tracer
	echo 4096 > $T/buffer_size_kb
	echo > $T/trace
	echo 1 > $T/tracing_on
	"$@" > /dev/null 2>&1
	echo 0 > $T/tracing_on
	grep -oE '[0-9]+\.[0-9]+ us' $T/trace | awk '{print $1}' > "$OUT/kcost-$tool.txt"
	echo "kcost tool=$tool calls=$(wc -l < "$OUT/kcost-$tool.txt")" >> "$raw"
	echo nop > $T/current_tracer
	echo > $T/set_ftrace_filter
}
if [ -w $T/current_tracer ] && grep -qw function_graph $T/available_tracers; then
	kcost perf perf_event_output_forward $PERF record -q -e cpu-clock -c 250000 \
		--user-regs=$PREGS --intr-regs=$PREGS -o "$OUT/perf-kcost.data" -- $B/bench/work "$ITER"
	kcost ours prf_sample $B/perfregs-dump -q -c 250000 --iregs=$REGS --uregs=$REGS \
		-o "$OUT/ours-kcost.prf" -- $B/bench/work "$ITER"
else
	echo "kcost tool=none error=no_function_graph_tracer" >> "$raw"
fi

# 2. the highest rate with no loss, each tool
for period in 50000 20000 10000 5000; do
	$PERF record -q -e cpu-clock -c "$period" --user-regs=$PREGS --intr-regs=$PREGS \
		-o "$OUT/perf-rate.data" -- $B/bench/work "$ITER" > /dev/null 2>&1
	read -r s l < <(perf_samples "$OUT/perf-rate.data")
	echo "rate tool=perf period=$period samples=$s lost=$l" >> "$raw"
	$B/perfregs-dump -q -c "$period" --iregs=$REGS --uregs=$REGS \
		-o "$OUT/ours-rate.prf" -- $B/bench/work "$ITER" > /dev/null
	$B/perfregs-dump -q --summary -f json -i "$OUT/ours-rate.prf" > "$OUT/sum.json"
	read -r s l < <(ours_samples "$OUT/sum.json")
	echo "rate tool=ours period=$period samples=$s lost=$l" >> "$raw"
done

# 3. DWARF unwinding success on the same call chain, each tool starting
# it.  (perf record -p PID -- sleep N recorded no sample of PID at all
# here, on the host too; perf's unwinding of this static non-PIE binary
# gives one-frame chains either way, and why is not established.)
for rep in 1; do
	$PERF record -q -e cpu-clock --call-graph dwarf,4096 -o "$OUT/perf-chain.data" \
		-- $B/selftests/chain_64 2 > /dev/null 2>&1
	$PERF script -i "$OUT/perf-chain.data" -F ip,sym 2>/dev/null > "$OUT/perf-chain.txt"
	$B/perfregs-dump -q -f json --call-graph dwarf,4096 -m 256 -o "$OUT/ours-chain.prf" \
		-- sh -c "exec $B/selftests/chain_64 2 > /dev/null" > "$OUT/ours-chain.jsonl"
done
rmmod perfregs
echo "max_sample_rate_end=$(cat /proc/sys/kernel/perf_event_max_sample_rate)" >> "$raw"
dmesg | grep -c 'lowering kernel.perf_event_max_sample_rate' | sed 's/^/rate_lowered=/' >> "$raw"
echo "done=1" >> "$raw"
