#!/bin/bash
# make soak, inside the guest: the fuzzer (selftests/test_fuzz) and the
# stress test (selftests/test_stress) run together, in slices of
# SLICE seconds (default 300), until MINUTES are over.  Between two
# slices the module is unloaded and loaded again (every session gone,
# nothing left behind), and a summary line is printed:
#
#   # soak: 10 of 30 min: fuzz inputs 123456 (411/s), stress 600 s,
#     failed 0, reports 0, reloads 2
#
# At the end: a kmemleak scan where the kernel has kmemleak, and the
# lines tools/soak.sh reads ("# fuzz inputs: N", "# stress seconds: N",
# "# reports: N") and KTAP results.
# usage: selftests/soak_guest.sh BUILD_DIR MINUTES [SLICE_SECONDS]
set -u
B=${1:-build}
minutes=${2:-30}
slice=${3:-300}
KVER=$(uname -r)
KO="$B/kmod/$KVER/module/perfregs.ko"
KML=/sys/kernel/debug/kmemleak
. selftests/klog.sh	# BAD, klog_bad, klog_kernel_races
export PERFREGS_TIMEOUT_SCALE=${PERFREGS_TIMEOUT_SCALE:-10}
export PATH="$B:$PATH"
# the two reload the module themselves only when asked: here it is done
# between slices, when neither runs
unset PERFREGS_KO
T=$(mktemp -d)
echo "TAP version 13"
echo "# soak on $KVER: $minutes min in slices of $slice s"
# The kernel log, read and cleared as it goes (dmesg -c) and kept whole
# here: a slow kernel's log wraps in a long soak, and a count of what is
# left in it loses lines (a KMSAN soak's went below the boot's).
KLOG=$T/klog
: > "$KLOG"
klog() {
	dmesg -c >> "$KLOG" 2>/dev/null || dmesg > "$KLOG"
	cat "$KLOG"
}
boot_reports=$(klog | klog_bad | wc -l)
echo "# reports during boot: $boot_reports (not counted)"
mount -t debugfs none /sys/kernel/debug 2>/dev/null
[ -w $KML ] && echo clear > $KML
insmod "$KO" || { echo "not ok 1 insmod $KO"; exit 1; }

n=0 failed=0 inputs=0 stress=0 reloads=0 start=$SECONDS
res() {	# ok|not ok, what
	n=$((n + 1))
	[ "$1" = ok ] || failed=$((failed + 1))
	echo "$1 $n $2"
}
# test_fuzz's first 3 mismatches in file $1, each with the last 60
# operations it printed for it: the failing one is the last of them.
mismatches() {
	awk 'function flush(  i, from) {
		if (!head)
			return
		print head
		if (walker)
			print walker
		from = nops > 60 ? nops - 59 : 1
		if (from > 1)
			printf "#   # (%d earlier operations left out)\n", from - 1
		for (i = from; i <= nops; i++)
			print op[i]
		head = walker = ""; nops = 0
	}
	/^# mismatch/ { flush(); if (++nm <= 3) head = $0; next }
	/^# walker/ && head { walker = $0; next }
	/^#   [a-z(]/ && !/->/ && head { op[++nops] = $0; next }
	{ flush() }
	END { flush() }' "$1"
}

while [ $((SECONDS - start)) -lt $((minutes * 60)) ]; do
	left=$((minutes * 60 - (SECONDS - start)))
	s=$((left < slice ? left : slice))
	# a slice too short for the fuzzer to reach every state on a slow
	# (debug) kernel would fail its coverage check: a 24 s last slice
	# did on KASAN, where a slice of 300 s takes 450 s with its start
	# and teardown
	[ "$s" -ge $((slice < 120 ? slice : 120)) ] || break
	seed=$(( (RANDOM << 15 | RANDOM) | 1 ))
	# test_stress takes CPU 1 offline and online meanwhile
	PERFREGS_FUZZ_SECONDS=$s PERFREGS_FUZZ_SEED=$seed PERFREGS_FUZZ_HOTPLUG=1 \
		"$B/selftests/test_fuzz" > "$T/fuzz" 2>&1 &
	fpid=$!
	PERFREGS_STRESS_SECONDS=$s "$B/selftests/test_stress" > "$T/stress" 2>&1 &
	spid=$!
	wait $fpid; frc=$?
	wait $spid; src=$?
	i=$(sed -n 's/^# fuzz inputs: //p' "$T/fuzz" | tail -n1)
	st=$(sed -n 's/^# stress seconds: //p' "$T/stress" | tail -n1)
	inputs=$((inputs + ${i:-0})) stress=$((stress + ${st:-0}))
	# a result of either that failed, or a run that ended abnormally
	for f in fuzz stress; do
		rc=$frc; [ $f = stress ] && rc=$src
		if grep -q '^not ok' "$T/$f" || { [ "$rc" -ne 0 ] && [ "$rc" -ne 4 ]; }; then
			res "not ok" "soak slice at $(( (SECONDS - start) / 60 )) min: $f (status $rc, seed 0x$(printf %x $seed))"
			# the fuzzer's first mismatches, each with the last of
			# its session's operations (the corpus format, to
			# replay; the one that failed is the last), then the
			# end of its report
			mismatches "$T/$f" | sed 's/^/# /'
			# every result that failed (a corpus file, coverage)
			grep -E '^not ok|^# line [0-9]+ of|^#   at line' "$T/$f" |
				head -n 20 | sed 's/^/# /'
			grep -E '^not ok|^# ' "$T/$f" | tail -n 20 | sed 's/^/# /'
		fi
	done
	if rmmod perfregs && insmod "$KO"; then
		reloads=$((reloads + 1))
	else
		res "not ok" "the module unloads and loads after a slice"
		lsmod | grep -q '^perfregs ' || insmod "$KO"
	fi
	reports=$(( $(klog | klog_bad | wc -l) - boot_reports ))
	el=$(( (SECONDS - start) ))
	echo "# soak: $((el / 60)) of $minutes min: fuzz inputs $inputs ($((inputs / (el ? el : 1)))/s)," \
	     "stress $stress s, failed $failed, reports $reports, reloads $reloads"
	if [ "$reports" -gt 0 ]; then
		klog | klog_bad | tail -n 5 | sed 's/^/# dmesg: /'
	fi
done
rmmod perfregs && res ok "rmmod perfregs at the end" || res "not ok" "rmmod perfregs at the end"
leaks=0
if [ -w $KML ]; then
	sleep 5; echo scan > $KML; sleep 5; echo scan > $KML
	leaks=$(grep -c '^unreferenced object' $KML)
	if [ "$leaks" -eq 0 ]; then
		res ok "kmemleak: no leak after the soak and rmmod"
	else
		res "not ok" "kmemleak: $leaks unreferenced objects"
		head -60 $KML | sed 's/^/# kmemleak: /'
	fi
fi
reports=$(( $(klog | klog_bad | wc -l) - boot_reports ))
races=$(klog | klog_kernel_races | wc -l)
echo "# the kernel's own races (KCSAN, not perfregs'): $races"
klog | klog_kernel_races | sort | uniq -c | sort -rn | sed 's/^/#   /'
if [ "$reports" -eq 0 ]; then
	res ok "no checker report in the kernel log during the soak"
else
	res "not ok" "$reports checker report lines in the kernel log during the soak"
	klog > "$T/k"
	grep -F -f <(klog_bad < "$T/k") -A 30 "$T/k" | head -n 80 | sed 's/^/# dmesg: /'
fi
echo "# fuzz inputs: $inputs"
echo "# stress seconds: $stress"
echo "# reports: $((reports + leaks))"
echo "1..$n"
rm -rf "$T"
[ "$failed" -eq 0 ]
