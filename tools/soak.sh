#!/bin/bash
# make soak: the fuzzer and the stress test together on one kernel for
# MINUTES, with a summary every 5 minutes (selftests/soak_guest.sh), and
# a last line "N passed, N failed" with the totals.  KERNEL is a debug
# flavour (kasan, kcsan, kmsan: built first if missing, with its module)
# or a matrix kernel (6.1, 6.12, 6.1-rt, 6.12-rt).  The guest's output is
# kept in build/soak-KERNEL.log, its summaries in bench/results/SOAK-KERNEL.md.
# usage: tools/soak.sh KERNEL MINUTES
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-$PWD/build}
k=${1:-kasan}
minutes=${2:-30}
case $minutes in
''|*[!0-9]*|0) echo "soak: MINUTES must be a positive number, not '$minutes'" >&2; exit 2 ;;
esac
mem=2048 append="syscall.x32=y"
case $k in
kasan|kcsan|kmsan)
	rel=$(tools/debug-kernel/build.sh "$BUILD" "$k" | tail -n1) || exit 1
	kcc=$(cat "$BUILD/debug-kernel/$k/current/cc" 2>/dev/null || echo gcc)
	make --no-print-directory module KDIR="$BUILD/debug-kernel/$k/current/obj" \
		KVER="$rel" KCC="$kcc" >"$BUILD/module-$k.log" 2>&1 ||
		{ tail -20 "$BUILD/module-$k.log"; echo "soak: the module did not build for $rel" >&2; exit 1; }
	vmk=debug-$k
	[ "$k" = kmsan ] && mem=4096
	# KMSAN's 6.1 with 5-level paging (QEMU's -cpu max has LA57): the
	# shadow of the IRQ stacks was not mapped in the page tables at times,
	# and the page fault's entry code, unpoisoning its own frame there,
	# faulted again until the stack overflowed (2 of 3 boots; 0 of 3
	# with no5lvl).  4-level paging, as most machines run it.
	[ "$k" = kmsan ] && append="$append no5lvl"
	;;
*)
	vmk=$k ;;
esac
log=$BUILD/soak-$k.log
start=$(date +%s)
# what the module was built from, before anything else changes the tree
built=$(git describe --always --dirty 2>/dev/null || echo unknown)
echo "==== soak on $k for $minutes min"
# the guest's own budget plus its boot and the last scans
tools/vm/run --kernel "$vmk" --smp 2 --mem $mem --timeout $((minutes * 60 + 900)) \
	--append "$append" --nmi-hz 20 \
	-- selftests/soak_guest.sh "$BUILD" "$minutes" 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
[ "$rc" -eq 0 ] || echo "not ok - soak guest on $k ended with status $rc" | tee -a "$log"
p=$(grep -cE '^ok ' "$log")
f=$(grep -cE '^not ok ' "$log")
reports=$(sed -n 's/^# reports: //p' "$log" | tail -n1)
inputs=$(sed -n 's/^# fuzz inputs: //p' "$log" | tail -n1)
secs=$(sed -n 's/^# stress seconds: //p' "$log" | tail -n1)
if [ -z "$reports" ]; then
	echo "not ok - the guest never counted its checker reports"
	f=$((f + 1))
fi
echo "==== soak on $k: $minutes min in $(( $(date +%s) - start )) s; fuzz inputs ${inputs:-0}," \
     "stress seconds ${secs:-0}, reports found ${reports:-unknown}"
echo "$p passed, $f failed"
# the summaries, kept with the other measurements (bench/results/)
res=bench/results/SOAK-$k.md
{
	echo "# make soak KERNEL=$k MINUTES=$minutes"
	echo
	echo "$(date -u +%Y-%m-%d), perfregs $built," \
	     "host $(nproc) CPUs; the guest: 2 vCPUs under QEMU TCG, $mem MiB, NMIs at 20 Hz."
	echo "A summary every 5 minutes, then the end of the run (tools/soak.sh)."
	echo
	echo '```'
	grep -E '^# soak|^# reports during boot|^# the kernel|^#   |^# fuzz inputs|^# stress seconds|^# reports:|^(not )?ok |^# not ok|^# # never reached|^# dmesg' "$log"
	echo "==== $minutes min in $(( $(date +%s) - start )) s: $p passed, $f failed"
	echo '```'
} > "$res"
echo "soak: summaries in $res"
[ "$f" -eq 0 ]
