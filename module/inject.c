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
DEFINE_STATIC_KEY_FALSE(prf_inject_key);
atomic_t prf_live_counters = ATOMIC_INIT(0);
DEFINE_PER_CPU(struct pt_regs *, prf_inject_regs);

/*
 * The writer a hook nests: prf_sample(), from prf_inject_init() at the
 * module's init; read-only after it (a pointer called from NMI).
 */
static void (*prf_inject_sample)(struct prf_session *s, struct pt_regs *regs,
				 bool throttled) __ro_after_init;

/*
 * The key follows the knobs.  Called by their set callbacks, in process
 * context and serialized by the module's parameter lock; the knob's new
 * value is stored before.
 */
static void prf_inject_update(void)
{
	if (prf_inject.sample_delay_us || prf_inject.start_delay_ms ||
	    prf_inject.nest_every || prf_inject.skid || prf_inject.exe_null)
		static_branch_enable(&prf_inject_key);
	else
		static_branch_disable(&prf_inject_key);
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

/**
 * prf_inject_init() - name the writer the hooks nest
 * @sample: prf_sample()
 *
 * Called by the module's init, before any session exists.  inject.c
 * calls no function of the module by name: the samples it nests come
 * back through this pointer.
 */
void prf_inject_init(void (*sample)(struct prf_session *s,
				    struct pt_regs *regs, bool throttled))
{
	prf_inject_sample = sample;
}

/*
 * Only in task context: page faults, where IRQs are on.  A spin on the
 * clock, not udelay(): with WAITPKG udelay() is TPAUSE, which QEMU's
 * TCG returns from at once.
 */
static void prf_inject_sample_delay(void)
{
	unsigned int us = READ_ONCE(prf_inject.sample_delay_us);
	u64 end;

	if (!us || in_nmi() || in_hardirq())
		return;
	end = ktime_get_mono_fast_ns() + (u64)us * NSEC_PER_USEC;
	while (ktime_get_mono_fast_ns() < end)
		cpu_relax();
}

/*
 * At @where, every nest_every-th time says yes; racy by design, it is a
 * test knob.
 */
static bool prf_inject_nest_now(unsigned int where)
{
	static unsigned int count;
	unsigned int n = READ_ONCE(prf_inject.nest_every);

	return n && READ_ONCE(prf_inject.nest_where) == where && ++count % n == 0;
}

/**
 * __prf_inject_hook() - a writer's hooks, with a knob set
 * @at: where the writer is
 * @s: the session whose ring it writes
 * @regs: its sample's interrupt registers (unused in leave)
 * @nest: the ring's nest count
 *
 * Called through prf_inject_hook() only.  At %PRF_INJECT_COUNTED the
 * outermost writer stores @regs for a nest in its leave (until
 * prf_inject_done()); at %PRF_INJECT_RESERVED a sample in task context
 * spins for inject_sample_delay_us, so that a teardown races it, and a
 * writer that reserves after it keeps it from trimming its record.  Then
 * the outermost writer nests a sample of @s at inject_nest_where, every
 * inject_nest_every-th time, as an NMI landing there would.
 *
 * Context: the sample path, any context (NMI too), preemption off; the
 * delay spins only in task context.
 */
void __prf_inject_hook(enum prf_inject_at at, struct prf_session *s,
		       struct pt_regs *regs, const local_t *nest)
{
	switch (at) {
	case PRF_INJECT_COUNTED:
		if (local_read(nest) != 1)
			return;
		this_cpu_write(prf_inject_regs, regs);	/* for leave */
		break;
	case PRF_INJECT_LEAVE:
		regs = this_cpu_read(prf_inject_regs);
		if (!regs || local_read(nest) != 1)
			return;
		break;
	case PRF_INJECT_RESERVED:
		prf_inject_sample_delay();
		if (local_read(nest) != 1)
			return;
		break;
	}
	if (prf_inject_nest_now(at))
		prf_inject_sample(s, regs, false);	/* as an NMI here */
}

/**
 * prf_inject_start_delay() - START sleeps for inject_start_delay_ms
 *
 * Between joining CPU hotplug and making the CPUs' counters, so that a
 * CPU comes or goes in between.
 *
 * Context: process context, may sleep.
 */
void prf_inject_start_delay(void)
{
	unsigned int ms = READ_ONCE(prf_inject.start_delay_ms);

	if (ms)
		msleep(ms);
}

/**
 * prf_inject_blank_file() - exe_file as a recycled struct file
 *
 * Context: the sample path, any context (NMI too).
 * Return: with inject_exe_null, a struct file as the slab hands it out
 * again (no inode yet); else NULL.
 */
struct file *prf_inject_blank_file(void)
{
	static struct file blank;

	return READ_ONCE(prf_inject.exe_null) ? &blank : NULL;
}
