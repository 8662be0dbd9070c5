#!/bin/bash
# make check-debug, inside the guest (a KASAN/lockdep/UBSAN/kmemleak
# kernel): the whole selftest suite with a long fuzz and stress run,
# then a kmemleak scan once the module is gone, then the summary lines
# tools/check-debug.sh reads: "# reports: N" counts every line of the
# kernel log since boot that a checker printed.
# usage: selftests/run_debug.sh BUILD_DIR
set -u
B=${1:-build}
fuzz_asked=${PERFREGS_FUZZ_SECONDS:-}
export PERFREGS_FUZZ_SECONDS=${PERFREGS_FUZZ_SECONDS:-120}
export PERFREGS_STRESS_SECONDS=${PERFREGS_STRESS_SECONDS:-120}
export PERFREGS_TIMEOUT_SCALE=${PERFREGS_TIMEOUT_SCALE:-10}
export PERFREGS_WORK_SCALE=${PERFREGS_WORK_SCALE:-4}
KML=/sys/kernel/debug/kmemleak
# KMSAN under TCG: the kernel runs some 20 times slower than KCSAN's (3
# fuzz inputs a second against 80; test_engine's first 8 tests took 7.5
# min), so the whole suite would take hours.  There it runs the tests
# whose bytes reach userspace from the module (ioctl structs, samples
# and their registers, SIMD state, the security tests' fill patterns),
# the fuzzer and the stress test; the others add decoding in user space,
# which KMSAN does not instrument, over the same module paths.
case $(uname -r) in
*-kmsan)
	export PERFREGS_SUITE_ONLY=${PERFREGS_SUITE_ONLY-"test_module test_ioctl test_security test_magic test_xregs test_fuzz test_stress"}
	export PERFREGS_SUITE_WHY="KMSAN runs a subset (selftests/run_debug.sh): the kernel is some 20 times slower"
	# at 3 inputs a second, 120 s of fuzzing left a state of the
	# coverage table unreached (a chaos thread's fork with the rings
	# mapped, 2026-12-03): 420 s gives it 3.5 times the inputs
	export PERFREGS_FUZZ_SECONDS=${fuzz_asked:-420}
	;;
esac
echo "# debug kernel $(uname -r): fuzz ${PERFREGS_FUZZ_SECONDS} s, stress ${PERFREGS_STRESS_SECONDS} s"
. selftests/klog.sh	# BAD, klog_bad, klog_kernel_races
# What the checkers said while booting, before the module was loaded,
# is the kernel's own: listed and counted apart, and then cleared, so
# that "# reports" counts what came during the suite.  The KMSAN kernel
# under TCG boots in some 400 s, with a soft lockup and an RCU stall
# report of swapper on the way (2026-12-03).
boot_reports=$(dmesg | klog_bad | wc -l)
echo "# reports during boot: $boot_reports"
dmesg | klog_bad | head -20 | sed 's/^/# boot: /'
dmesg -C
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
