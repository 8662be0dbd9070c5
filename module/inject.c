// SPDX-License-Identifier: GPL-2.0
/*
 * Fault and race injection for the selftests; see inject.h.  Each knob
 * is named for the race it opens, and the test that needs it sets it
 * and clears it again.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/delay.h>
#include <linux/timekeeping.h>
#include <linux/fs.h>
#include <linux/hardirq.h>
#include <linux/atomic.h>
#include "inject.h"

struct prf_inject prf_inject;
bool prf_inject_active;
atomic_t prf_live_counters = ATOMIC_INIT(0);

static void prf_inject_update(void)
{
	WRITE_ONCE(prf_inject_active,
		   prf_inject.sample_delay_us || prf_inject.start_delay_ms ||
		   prf_inject.nest_every || prf_inject.skid ||
		   prf_inject.exe_null);
}

static int prf_inject_set_uint(const char *val, const struct kernel_param *kp)
{
	int ret = param_set_uint(val, kp);

	if (!ret)
		prf_inject_update();
	return ret;
}

static int prf_inject_set_bool(const char *val, const struct kernel_param *kp)
{
	int ret = param_set_bool(val, kp);

	if (!ret)
		prf_inject_update();
	return ret;
}

static const struct kernel_param_ops prf_inject_uint_ops = {
	.set = prf_inject_set_uint,
	.get = param_get_uint,
};

static const struct kernel_param_ops prf_inject_bool_ops = {
	.set = prf_inject_set_bool,
	.get = param_get_bool,
};

module_param_cb(inject_sample_delay_us, &prf_inject_uint_ops,
		&prf_inject.sample_delay_us, 0600);
MODULE_PARM_DESC(inject_sample_delay_us,
		 "test: task-context samples (page faults) spin this long while they write, so that a teardown races them");
module_param_cb(inject_start_delay_ms, &prf_inject_uint_ops,
		&prf_inject.start_delay_ms, 0600);
MODULE_PARM_DESC(inject_start_delay_ms,
		 "test: START sleeps this long between joining CPU hotplug and making the CPUs' counters");
module_param_cb(inject_nest_every, &prf_inject_uint_ops,
		&prf_inject.nest_every, 0600);
MODULE_PARM_DESC(inject_nest_every,
		 "test: every Nth sample takes a nested sample right after counting itself, as an NMI landing there would");
module_param_cb(inject_nest_where, &prf_inject_uint_ops,
		&prf_inject.nest_where, 0600);
MODULE_PARM_DESC(inject_nest_where,
		 "test: where inject_nest_every nests: 0 right after the sample counts itself, 1 while the outer writer publishes, 2 right after it reserved its record");
module_param_cb(inject_skid, &prf_inject_bool_ops, &prf_inject.skid, 0600);
MODULE_PARM_DESC(inject_skid,
		 "test: perf counters also fire in kernel mode when the session excludes it, as a PMU interrupt that skids into the kernel");
module_param_cb(inject_exe_null, &prf_inject_bool_ops, &prf_inject.exe_null, 0600);
MODULE_PARM_DESC(inject_exe_null,
		 "test: the task's exe_file reads as a file being set up (no inode), as a recycled struct file would");
module_param_named(counters, prf_live_counters.counter, int, 0400);
MODULE_PARM_DESC(counters, "perf counters the module holds now");

/*
 * Only in task context: page faults, where IRQs are on.  A spin on the
 * clock, not udelay(): with WAITPKG udelay() is TPAUSE, which QEMU's
 * TCG returns from at once.
 */
void prf_inject_sample_delay(void)
{
	unsigned int us = READ_ONCE(prf_inject.sample_delay_us);
	u64 end;

	if (!us || in_nmi() || in_hardirq())
		return;
	end = ktime_get_mono_fast_ns() + (u64)us * NSEC_PER_USEC;
	while (ktime_get_mono_fast_ns() < end)
		cpu_relax();
}

void prf_inject_start_delay(void)
{
	unsigned int ms = READ_ONCE(prf_inject.start_delay_ms);

	if (ms)
		msleep(ms);
}

/*
 * At @where, every nest_every-th time says yes; racy by design, it is a
 * test knob.
 */
bool prf_inject_nest_now(unsigned int where)
{
	static unsigned int count;
	unsigned int n = READ_ONCE(prf_inject.nest_every);

	return n && READ_ONCE(prf_inject.nest_where) == where && ++count % n == 0;
}

/* A struct file as the slab hands it out again: no inode yet. */
struct file *prf_inject_blank_file(void)
{
	static struct file blank;

	return READ_ONCE(prf_inject.exe_null) ? &blank : NULL;
}
