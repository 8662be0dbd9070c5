#!/bin/bash
# make check: run the selftests in a guest for each kernel given, print
# their KTAP, and end with "N passed, N failed, N skipped".
# usage: tools/check.sh KVER...
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-$PWD/build}
[ $# -gt 0 ] || { echo "check: no kernel given: run 'make deps'" >&2; exit 1; }
pass=0 fail=0 skip=0
tally() {	# log
	local p s f
	p=$(grep -cE '^ok ' "$1")
	s=$(grep -E '^ok ' "$1" | grep -c '# SKIP')
	f=$(grep -cE '^not ok ' "$1")
	pass=$((pass + p - s)) fail=$((fail + f)) skip=$((skip + s))
	echo "==== $2: $((p - s)) passed, $f failed, $s skipped"
}

echo "==== host tests"
tests/host_tests.sh "$BUILD" "${FUZZ_SECONDS:-30}" 2>&1 | tee "$BUILD/check-host.log"
tally "$BUILD/check-host.log" "host"

for k in "$@"; do
	log="$BUILD/check-$k.log"
	echo "==== selftests on $k"
	start=$(date +%s)
	tools/vm/run --kernel "$k" --smp 2 --timeout 1500 --append syscall.x32=y --nmi-hz 20 \
		-- selftests/run_guest.sh "$BUILD" 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	if [ "$rc" -ne 0 ]; then
		echo "not ok - guest run on $k ended with status $rc" | tee -a "$log"
	fi
	# lockdown cannot be lifted once raised: a short guest of its own
	tools/vm/run --kernel "$k" --smp 2 --timeout 300 \
		-- selftests/lockdown.sh "$BUILD" 2>&1 | tee -a "$log"
	rc=${PIPESTATUS[0]}
	if [ "$rc" -ne 0 ]; then
		echo "not ok - lockdown guest on $k ended with status $rc" | tee -a "$log"
	fi
	tally "$log" "$k in $(( $(date +%s) - start )) s"
done
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
