# SPDX-License-Identifier: GPL-2.0
# What in the kernel log fails a test run, for run_guest.sh,
# run_debug.sh and soak_guest.sh (sourced).
#
# BAD: every line a checker or the kernel prints when something is
# wrong.  ("Call Trace" alone is no failure: sysrq-l backtraces print
# them.)
BAD='perfregs-klog: |WARNING:|BUG:|Oops|general protection|KASAN|UBSAN|suspected memory leak|circular locking|possible recursive locking|inconsistent lock state|lock inversion|suspicious RCU usage|DEBUG_LOCKS_WARN_ON|list_add corruption|list_del corruption|ODEBUG|self-detected stall|blocked for more than|soft lockup'

# A KCSAN report's title names the two functions whose accesses raced:
# "BUG: KCSAN: data-race in A / B" (a module's functions with
# " [module]").  A race between two functions of the kernel's own is
# not this module's to fix or annotate, even when the module called
# them: seen on the 6.1 KCSAN kernel with KCSAN_INTERRUPT_WATCHER, the
# timer tick's idle bookkeeping (tick_irq_enter / tick_nohz_idle_got_tick),
# nanosleep against its own hrtimer (do_nanosleep / hrtimer_wakeup) and
# the NMI-safe clock's latch, which is racy by design
# (ktime_get_mono_fast_ns / timekeeping_update).  Those are counted and
# listed apart; every other report, and every KCSAN report naming a
# function of perfregs, fails the run.
KCSAN_TITLE='BUG: KCSAN: '
KCSAN_OURS='BUG: KCSAN: .*\[perfregs\]'

# stdin: kernel log lines.  stdout: the bad ones that are perfregs'.
klog_bad() {
	awk -v re="$BAD" -v title="$KCSAN_TITLE" -v ours="$KCSAN_OURS" '
		$0 ~ title { if ($0 ~ ours) print; next }
		$0 ~ re { print }'
}

# stdin: kernel log lines.  stdout: the titles of KCSAN reports of the
# kernel's own races.
klog_kernel_races() {
	awk -v title="$KCSAN_TITLE" -v ours="$KCSAN_OURS" '
		$0 ~ title && $0 !~ ours { sub(/^\[[ 0-9.]*\] /, ""); print }'
}
