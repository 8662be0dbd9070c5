#!/bin/bash
# make check: run the selftests in a guest for each kernel given, print
# their KTAP, and end with "N passed, N failed, N skipped".
# usage: tools/check.sh KVER...
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-$PWD/build}
[ $# -gt 0 ] || { echo "check: no kernel given: run 'make deps'" >&2; exit 1; }
pass=0 fail=0 skip=0
table=() logs=()
tally() {	# log, name, seconds
	local p s f
	p=$(grep -cE '^ok ' "$1")
	s=$(grep -E '^ok ' "$1" | grep -c '# SKIP')
	f=$(grep -cE '^not ok ' "$1")
	pass=$((pass + p - s)) fail=$((fail + f)) skip=$((skip + s))
	echo "==== $2 in $3 s: $((p - s)) passed, $f failed, $s skipped"
	table+=("$(printf '%-26s %7d %7d %8d %6d s' "$2" $((p - s)) "$f" "$s" "$3")")
	logs+=("$2=$1")
}

# Each failure again at the end with what explains it: the harness's
# messages before its "not ok" (file:line: Expected...), the "# " lines
# after a "not ok - ..." of the scripts; so that the last screen of a
# long run, or of a CI log cut to its tail, says what failed.
failures() {
	local e name
	for e in "${logs[@]}"; do
		name=${e%%=*}
		grep -qE '^not ok ' "${e#*=}" || continue
		echo "---- failed on $name (${e#*=}):"
		awk '/^(not )?ok /{
			if (/^not ok /) {
				for (i = 0; i < nb; i++) print before[i]
				print; after = 3; shown++
			} else after = 0
			nb = 0; next
		}
		after > 0 && /^# / { print substr($0, 1, 300); after--; next }
		{ after = 0 }
		/^# .*\.(c|py|sh):[0-9]+:/ || /^# .*(Expected|FAIL)/ {
			if (nb == 4) { for (i = 1; i < 4; i++) before[i - 1] = before[i]; nb = 3 }
			before[nb++] = substr($0, 1, 300)
		}
		shown == 10 { exit }' "${e#*=}"
	done
}

echo "==== host tests"
start=$(date +%s)
echo "$start" > "$BUILD/check-host.start"
tests/host_tests.sh "$BUILD" "${FUZZ_SECONDS:-30}" 2>&1 | tee "$BUILD/check-host.log"
tally "$BUILD/check-host.log" "host" $(( $(date +%s) - start ))
echo $(( $(date +%s) - start )) > "$BUILD/check-host.time"

# The first kernel runs everything; the others skip what does not depend
# on the kernel (selftests/run_guest.sh's FIRST_KVER).  One guest per
# kernel: lockdown cannot be lifted once raised, so its test runs last,
# after the suite and its rmmod.
first=$1
for k in "$@"; do
	log="$BUILD/check-$k.log"
	echo "==== selftests on $k"
	start=$(date +%s)
	# shellcheck disable=SC2016
	tools/vm/run --kernel "$k" --smp 2 --timeout 1500 --append syscall.x32=y --nmi-hz 20 \
		--timing "$BUILD/check-$k.timing" \
		-- bash -c 'selftests/run_guest.sh "$1" "$2"; rc=$?; selftests/lockdown.sh "$1"; exit $rc' \
		_ "$BUILD" "$first" 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	if [ "$rc" -ne 0 ]; then
		echo "not ok - guest run on $k ended with status $rc" | tee -a "$log"
	fi
	tally "$log" "$k" $(( $(date +%s) - start ))
done
echo
echo
[ "$fail" -eq 0 ] || failures
printf '%-26s %7s %7s %8s %8s\n' "kernel" passed failed skipped time
printf '%s\n' "${table[@]}"
echo
tools/check-times.py "$BUILD" "$@"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
