/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fault and race injection for the selftests: module parameters that
 * only root can set (0600), all off by default.  They make the races
 * the module must survive happen on demand, on machines whose hardware
 * cannot produce them (no PMU for skid) or only once in a long while (a
 * removal IPI landing inside a handler).  Off, each costs the sample
 * path one predictable branch on prf_inject_active.
 */
#ifndef PERFREGS_INJECT_H
#define PERFREGS_INJECT_H

#include <linux/compiler.h>
#include <linux/types.h>

struct prf_ring;

struct prf_inject {
	unsigned int sample_delay_us;	/* task-context samples spin this long */
	unsigned int start_delay_ms;	/* START sleeps after the hotplug add */
	unsigned int nest_every;	/* every Nth sample nests another ... */
	unsigned int nest_where;	/* ... 0: once counted, 1: in leave,
					 * 2: once reserved
					 */
	bool skid;			/* counters ignore EXCLUDE_KERNEL */
	bool exe_null;			/* exe_file reads as a blank file */
};

extern struct prf_inject prf_inject;
extern bool prf_inject_active;		/* any of the above is set */
extern atomic_t prf_live_counters;	/* perf counters created - released */

static __always_inline bool prf_injecting(void)
{
	return unlikely(READ_ONCE(prf_inject_active));
}

void prf_inject_sample_delay(void);
void prf_inject_start_delay(void);
bool prf_inject_nest_now(unsigned int where);
struct file *prf_inject_blank_file(void);
void prf_inject_leave(struct prf_ring *rb);	/* sample.c */

#endif /* PERFREGS_INJECT_H */
