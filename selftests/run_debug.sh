#!/bin/bash
# make check-debug, inside the guest (a KASAN/lockdep/UBSAN/kmemleak
# kernel): the whole selftest suite with a long fuzz and stress run,
# then a kmemleak scan once the module is gone, then the summary lines
# tools/check-debug.sh reads: "# reports: N" counts every line of the
# kernel log since boot that a checker printed.
# usage: selftests/run_debug.sh BUILD_DIR
set -u
B=${1:-build}
export PERFREGS_FUZZ_SECONDS=${PERFREGS_FUZZ_SECONDS:-120}
export PERFREGS_STRESS_SECONDS=${PERFREGS_STRESS_SECONDS:-120}
export PERFREGS_TIMEOUT_SCALE=${PERFREGS_TIMEOUT_SCALE:-10}
export PERFREGS_WORK_SCALE=${PERFREGS_WORK_SCALE:-4}
KML=/sys/kernel/debug/kmemleak
echo "# debug kernel $(uname -r): fuzz ${PERFREGS_FUZZ_SECONDS} s, stress ${PERFREGS_STRESS_SECONDS} s"
. selftests/klog.sh	# BAD, klog_bad, klog_kernel_races
# what the checkers said while booting is not ours, but it is counted
boot_reports=$(dmesg | klog_bad | wc -l)
echo "# reports during boot: $boot_reports"
dmesg | klog_bad | head -20 | sed 's/^/# boot: /'
[ -w $KML ] && echo clear > $KML
selftests/run_guest.sh "$B"
if [ -w $KML ]; then
	# two scans: kmemleak reports an object only once it has stayed
	# unreferenced across a scan; objects freed by RCU need a grace period
	sleep 5; echo scan > $KML; sleep 5; echo scan > $KML
	leaks=$(grep -c '^unreferenced object' $KML)
	if [ "$leaks" -eq 0 ]; then
		echo "ok - kmemleak: no leak after the suite and rmmod"
	else
		echo "not ok - kmemleak: $leaks unreferenced objects"
		head -80 $KML | sed 's/^/# kmemleak: /'
	fi
else
	leaks=0
	case $(uname -r) in
	*-kasan) echo "not ok - kmemleak: $KML missing (is this the KASAN debug kernel?)" ;;
	*) echo "ok - kmemleak # SKIP only the KASAN debug kernel has kmemleak" ;;
	esac
fi
reports=$(dmesg | klog_bad | wc -l)
races=$(dmesg | klog_kernel_races | wc -l)
echo "# the kernel's own races (KCSAN, not perfregs'): $races"
dmesg | klog_kernel_races | sort | uniq -c | sort -rn | sed 's/^/#   /'
echo "# reports: $((reports + leaks))"
