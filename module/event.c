// SPDX-License-Identifier: GPL-2.0
/*
 * The perf event each PERFREGS_EV_* stands for, from the one table of
 * include/perfregs/events.h: the counters source_perf.c makes, and the
 * witness policy.c holds CONFIG's perf_fd against.  A leaf: it calls
 * nothing of the module.
 */
#include <linux/bug.h>
#include <linux/errno.h>
#include <linux/hw_breakpoint.h>
#include <linux/kernel.h>
#include <linux/perf_event.h>
#include <linux/string.h>
#include <linux/perfregs.h>
#include "event.h"

static const struct {
	u32 type;
	u64 config;
} prf_events[] = {
#define PERFREGS_EVENT(name, id, type, config, period)	\
	[id] = { type, config },
#include <perfregs/events.h>
};

/**
 * prf_event_attr() - the perf event a configuration stands for
 * @cfg: a configuration prf_check_config() (session.c) accepted
 * @attr: filled in whole
 *
 * The event of @cfg with its period or frequency, its exclude bits and,
 * for a breakpoint, its address, type and length (a period of 1).  The
 * raw NMI hook (PERFREGS_EV_NMI) has no perf event: its attr is the
 * cpu-clock that stands in for it as the witness, of which policy.c
 * compares only the event and the exclude bits.
 *
 * Context: any; no lock, no allocation.
 * Return: 0, or -EINVAL for an event the table does not know.
 */
int prf_event_attr(const struct perfregs_config *cfg,
		   struct perf_event_attr *attr)
{
	BUILD_BUG_ON(ARRAY_SIZE(prf_events) != PERFREGS_EV_MAX);

	if (cfg->event >= PERFREGS_EV_MAX)
		return -EINVAL;
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = prf_events[cfg->event].type;
	attr->config = prf_events[cfg->event].config;
	attr->sample_period = cfg->period;
	attr->freq = !!(cfg->flags & PERFREGS_CF_FREQ);
	attr->exclude_user = !!(cfg->flags & PERFREGS_CF_EXCLUDE_USER);
	attr->exclude_kernel = !!(cfg->flags & PERFREGS_CF_EXCLUDE_KERNEL);
	attr->exclude_hv = 1;
	if (cfg->event == PERFREGS_EV_BREAKPOINT) {
		attr->bp_addr = cfg->bp_addr;
		attr->bp_type = (cfg->bp_type & PERFREGS_BP_R ? HW_BREAKPOINT_R : 0) |
				(cfg->bp_type & PERFREGS_BP_W ? HW_BREAKPOINT_W : 0) |
				(cfg->bp_type & PERFREGS_BP_X ? HW_BREAKPOINT_X : 0);
		attr->bp_len = cfg->bp_len;
		attr->sample_period = 1;
		attr->freq = 0;
	}
	return 0;
}
