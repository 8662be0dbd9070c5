/* SPDX-License-Identifier: GPL-2.0 */
/* perfregs: the perf event each PERFREGS_EV_* stands for (event.c). */
#ifndef PERFREGS_EVENT_H
#define PERFREGS_EVENT_H

struct perf_event_attr;
struct perfregs_config;

int prf_event_attr(const struct perfregs_config *cfg,
		   struct perf_event_attr *attr);

#endif /* PERFREGS_EVENT_H */
