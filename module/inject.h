/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fault and race injection for the selftests: module parameters that
 * only root can set (0600), all off by default.  They make the races
 * the module must survive happen on demand, on machines whose hardware
 * cannot produce them (no PMU for skid) or only once in a long while (a
 * removal IPI landing inside a handler).
 *
 * Every hook is behind one static key, prf_inject_key, on while any knob
 * is set: off, a hook costs the sample path the no-op of a jump label.
 * The knobs' set callbacks switch it, in process context.  A writer's
 * hooks go through one inline, prf_inject_hook(); inject.c knows no ring and
 * no sample: the writer it nests is the one main.c hands it.
 */
#ifndef PERFREGS_INJECT_H
#define PERFREGS_INJECT_H

#include <linux/atomic.h>
#include <linux/compiler.h>
#include <linux/jump_label.h>
#include <linux/percpu.h>
#include <linux/types.h>
#include <asm/local.h>

struct file;
struct pt_regs;
struct prf_session;

struct prf_inject {
	unsigned int sample_delay_us;	/* task-context samples spin this long */
	unsigned int start_delay_ms;	/* START sleeps after the hotplug add */
	unsigned int nest_every;	/* every Nth sample nests another ... */
	unsigned int nest_where;	/* ... at this enum prf_inject_at */
	bool skid;			/* counters ignore EXCLUDE_KERNEL */
	bool exe_null;			/* exe_file reads as a blank file */
};

extern struct prf_inject prf_inject;
DECLARE_STATIC_KEY_FALSE(prf_inject_key);	/* any of the above is set */
extern atomic_t prf_live_counters;	/* perf counters created - released */
/* the outermost writer's registers on this CPU, to nest a sample in leave */
DECLARE_PER_CPU(struct pt_regs *, prf_inject_regs);

/* Where a writer's hooks are; inject_nest_where says at which it nests. */
enum prf_inject_at {
	PRF_INJECT_COUNTED = 0,		/* the sample just counted itself */
	PRF_INJECT_LEAVE = 1,		/* the outermost writer published */
	PRF_INJECT_RESERVED = 2,	/* the sample just reserved its record */
};

/**
 * prf_injecting() - is any test knob set?
 *
 * The static key's test: a no-op, or a jump, and nothing read.
 *
 * Return: true while any of the inject_* knobs is set.
 */
static __always_inline bool prf_injecting(void)
{
	return static_branch_unlikely(&prf_inject_key);
}

void __prf_inject_hook(enum prf_inject_at at, struct prf_session *s,
		       struct pt_regs *regs, const local_t *nest);

/**
 * prf_inject_hook() - a writer's test hook
 * @at: where the writer is
 * @s: the session whose ring it writes
 * @regs: the interrupt registers of its sample (%PRF_INJECT_COUNTED and
 *	%PRF_INJECT_RESERVED; the hook in leave takes those the outermost
 *	writer stored at %PRF_INJECT_COUNTED)
 * @nest: the ring's nest count: only the outermost writer nests another
 *
 * With a knob set, __prf_inject_hook() spins (inject_sample_delay_us,
 * at %PRF_INJECT_RESERVED) and nests a sample (inject_nest_every, at
 * inject_nest_where) as an NMI landing there would.  The pointers are
 * only handed over: nothing is read unless a knob is set.
 *
 * Context: the sample path, any context (NMI too), preemption off.
 */
static __always_inline void prf_inject_hook(enum prf_inject_at at,
					    struct prf_session *s,
					    struct pt_regs *regs,
					    const local_t *nest)
{
	if (prf_injecting())
		__prf_inject_hook(at, s, regs, nest);
}

/**
 * prf_inject_done() - a sample is done with its registers
 *
 * Called at the end of every sample, knob or no knob: a knob may have
 * been on when %PRF_INJECT_COUNTED stored the registers, and a frame
 * about to go may not stay behind for a later leave to nest with.  It
 * also ends a nest from leave: the outer writer's next pass finds NULL.
 * Not behind the static key: its no-op would be one instruction too.
 *
 * Context: the sample path, any context (NMI too), preemption off.
 */
static __always_inline void prf_inject_done(void)
{
	this_cpu_write(prf_inject_regs, NULL);
}

void prf_inject_init(void (*sample)(struct prf_session *s,
				    struct pt_regs *regs, bool throttled));
void prf_inject_start_delay(void);
struct file *prf_inject_blank_file(void);

#endif /* PERFREGS_INJECT_H */
