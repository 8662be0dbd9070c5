// SPDX-License-Identifier: GPL-2.0
/*
 * Perf kernel counters as sample sources: one counter per online CPU (or
 * one per target task, inherited by its new threads), each with our own
 * overflow handler.  Precise (PEBS) events are never requested, so large
 * PEBS, which would batch samples past the handler, cannot be used.
 */
#include <linux/perf_event.h>
#include <linux/cpu.h>
#include <linux/pid.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include "perfregs.h"

static void prf_perf_overflow(struct perf_event *event,
			      struct perf_sample_data *data,
			      struct pt_regs *regs)
{
	prf_sample(event->overflow_handler_context, regs);
}

static int prf_perf_attr(const struct perfregs_config *cfg,
			 struct perf_event_attr *attr)
{
	static const struct {
		u32 type;
		u64 config;
	} map[] = {
		[PERFREGS_EV_CPU_CLOCK] = { PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK },
		[PERFREGS_EV_TASK_CLOCK] = { PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
		[PERFREGS_EV_PAGE_FAULTS] = { PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
		[PERFREGS_EV_CONTEXT_SWITCHES] = { PERF_TYPE_SOFTWARE,
						   PERF_COUNT_SW_CONTEXT_SWITCHES },
		[PERFREGS_EV_CYCLES] = { PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
		[PERFREGS_EV_INSTRUCTIONS] = { PERF_TYPE_HARDWARE,
					       PERF_COUNT_HW_INSTRUCTIONS },
	};

	if (cfg->event > PERFREGS_EV_INSTRUCTIONS)
		return -EOPNOTSUPP;
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = map[cfg->event].type;
	attr->config = map[cfg->event].config;
	attr->sample_period = cfg->period;
	attr->freq = !!(cfg->flags & PERFREGS_CF_FREQ);
	attr->exclude_user = !!(cfg->flags & PERFREGS_CF_EXCLUDE_USER);
	attr->exclude_kernel = !!(cfg->flags & PERFREGS_CF_EXCLUDE_KERNEL);
	attr->exclude_hv = 1;
	attr->inherit = cfg->pid >= 0;
	attr->disabled = 1;
	return 0;
}

static int prf_perf_start_cpus(struct prf_session *s,
			       struct perf_event_attr *attr)
{
	struct perf_event *ev;
	int cpu;

	for_each_online_cpu(cpu) {
		ev = perf_event_create_kernel_counter(attr, cpu, NULL,
						      prf_perf_overflow, s);
		if (IS_ERR(ev))
			return PTR_ERR(ev);
		s->events[cpu] = ev;
	}
	return 0;
}

static int prf_perf_start_task(struct prf_session *s,
			       struct perf_event_attr *attr)
{
	struct task_struct *task;
	struct perf_event *ev;
	struct pid *pid;

	pid = find_get_pid(s->cfg.pid);
	if (!pid)
		return -ESRCH;
	task = get_pid_task(pid, PIDTYPE_PID);
	put_pid(pid);
	if (!task)
		return -ESRCH;
	ev = perf_event_create_kernel_counter(attr, -1, task,
					      prf_perf_overflow, s);
	put_task_struct(task);
	if (IS_ERR(ev))
		return PTR_ERR(ev);
	s->events[0] = ev;
	return 0;
}

int prf_perf_start(struct prf_session *s)
{
	struct perf_event_attr attr;
	int cpu, ret;

	ret = prf_perf_attr(&s->cfg, &attr);
	if (ret)
		return ret;
	s->events = kcalloc(nr_cpu_ids, sizeof(*s->events), GFP_KERNEL);
	if (!s->events)
		return -ENOMEM;

	cpus_read_lock();
	if (s->cfg.pid >= 0)
		ret = prf_perf_start_task(s, &attr);
	else
		ret = prf_perf_start_cpus(s, &attr);
	cpus_read_unlock();
	if (ret)
		goto out_release_events;

	for (cpu = 0; cpu < nr_cpu_ids; cpu++)
		if (s->events[cpu])
			perf_event_enable(s->events[cpu]);
	return 0;

out_release_events:
	prf_perf_stop(s);
	return ret;
}

void prf_perf_stop(struct prf_session *s)
{
	int cpu;

	if (!s->events)
		return;
	/*
	 * perf_event_release_kernel() removes the event from its context
	 * on its CPU; once it returns, our handler no longer runs for it.
	 */
	for (cpu = 0; cpu < nr_cpu_ids; cpu++)
		if (s->events[cpu])
			perf_event_release_kernel(s->events[cpu]);
	kfree(s->events);
	s->events = NULL;
}
