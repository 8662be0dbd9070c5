#!/bin/bash
# make check-debug: the selftest suite, a long fuzz run and a long stress
# run in a guest on the debug kernel (KASAN, lockdep, UBSAN, kmemleak,
# fault injection), then a summary.  Any checker report fails the run.
# usage: tools/check-debug.sh        (make check-debug builds what it needs)
# env:   PERFREGS_FUZZ_SECONDS, PERFREGS_STRESS_SECONDS (default 120 each)
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-$PWD/build}
log=$BUILD/check-debug.log
rel=$(cat "$BUILD/debug-kernel/current/done" 2>/dev/null) ||
	{ echo "check-debug: no debug kernel: run 'make debug-kernel'" >&2; exit 1; }
[ -f "$BUILD/kmod/$rel/module/perfregs.ko" ] ||
	{ echo "check-debug: no module for $rel: run 'make check-debug'" >&2; exit 1; }
start=$(date +%s)
echo "==== selftests, fuzz and stress on $rel (about 20 min under TCG)"
tools/vm/run --kernel debug --smp 2 --mem 2048 --timeout 5400 \
	--append "syscall.x32=y" --nmi-hz 20 \
	-- selftests/run_debug.sh "$BUILD" 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
[ "$rc" -eq 0 ] || echo "not ok - guest run ended with status $rc" | tee -a "$log"

p=$(grep -cE '^ok ' "$log")
s=$(grep -E '^ok ' "$log" | grep -c '# SKIP')
f=$(grep -cE '^not ok ' "$log")
inputs=$(sed -n 's/^# fuzz inputs: //p' "$log" | tail -n1)
secs=$(sed -n 's/^# stress seconds: //p' "$log" | tail -n1)
reports=$(sed -n 's/^# reports: //p' "$log" | tail -n1)
if [ -z "$reports" ]; then
	echo "not ok - the guest never counted its checker reports"
	f=$((f + 1))
elif [ "$reports" -ne 0 ]; then
	echo "not ok - $reports checker reports in the guest log"
	f=$((f + 1))
fi
echo "==== check-debug on $rel in $(( $(date +%s) - start )) s"
echo "tests run: $((p + f)) ($s skipped), fuzz inputs: ${inputs:-0}," \
     "stress seconds: ${secs:-0}, reports found: ${reports:-unknown}"
echo "$((p - s)) passed, $f failed"
[ "$f" -eq 0 ]
