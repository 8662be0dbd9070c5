// SPDX-License-Identifier: GPL-2.0
/*
 * Perf kernel counters as sample sources: one counter per target CPU,
 * kept through CPU hotplug, or one per target process, inherited by its
 * new threads, each with our own overflow handler.  Precise (PEBS)
 * events are never requested, so large PEBS, which would batch samples
 * past the handler, is never used.
 */
#include <linux/perf_event.h>
#include <linux/hw_breakpoint.h>
#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/pid.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include "perfregs.h"

/* hw.interrupts while throttled: MAX_INTERRUPTS of kernel/events/core.c */
#define PRF_THROTTLED	(~0ULL)

static enum cpuhp_state prf_cpuhp_state;

static void prf_perf_overflow(struct perf_event *event,
			      struct perf_sample_data *data,
			      struct pt_regs *regs)
{
	/* The core marks the sample that trips the throttle this way. */
	prf_sample(event->overflow_handler_context, regs,
		   event->hw.interrupts == PRF_THROTTLED);
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
		[PERFREGS_EV_BREAKPOINT] = { PERF_TYPE_BREAKPOINT, 0 },
	};

	if (cfg->event > PERFREGS_EV_BREAKPOINT)
		return -EINVAL;
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

/* Make the counter of one CPU if it has none; under ev_lock. */
static void prf_perf_cpu_up(struct prf_session *s, unsigned int cpu)
{
	struct perf_event_attr attr;
	struct perf_event *ev;

	if (s->events[cpu] || !cpumask_test_cpu(cpu, s->cpus))
		return;
	if (prf_perf_attr(&s->cfg, &attr))
		return;
	ev = perf_event_create_kernel_counter(&attr, cpu, NULL,
					      prf_perf_overflow, s);
	if (IS_ERR(ev)) {
		pr_warn_ratelimited("perfregs: no counter on CPU %u: %ld\n",
				    cpu, PTR_ERR(ev));
		return;
	}
	s->events[cpu] = ev;
	perf_event_enable(ev);
}

static int prf_cpu_online(unsigned int cpu, struct hlist_node *node)
{
	struct prf_session *s = hlist_entry(node, struct prf_session, cpuhp_node);

	mutex_lock(&s->ev_lock);
	if (s->events)
		prf_perf_cpu_up(s, cpu);
	mutex_unlock(&s->ev_lock);
	return 0;
}

static int prf_cpu_offline(unsigned int cpu, struct hlist_node *node)
{
	struct prf_session *s = hlist_entry(node, struct prf_session, cpuhp_node);
	struct perf_event *ev = NULL;

	mutex_lock(&s->ev_lock);
	if (s->events) {
		ev = s->events[cpu];
		s->events[cpu] = NULL;
	}
	mutex_unlock(&s->ev_lock);
	if (ev)
		perf_event_release_kernel(ev);
	return 0;
}

int prf_perf_init(void)
{
	int ret;

	ret = cpuhp_setup_state_multi(CPUHP_AP_ONLINE_DYN, "perfregs:online",
				      prf_cpu_online, prf_cpu_offline);
	if (ret < 0)
		return ret;
	prf_cpuhp_state = ret;
	return 0;
}

void prf_perf_exit(void)
{
	cpuhp_remove_multi_state(prf_cpuhp_state);
}

static int prf_perf_start_cpus(struct prf_session *s)
{
	struct perf_event_attr attr;
	struct perf_event *ev;
	unsigned int cpu;
	int ret, made = 0;

	/*
	 * Register for hotplug first: a CPU that comes or goes from now on
	 * is handled by the callbacks, the others by the loop below; both
	 * hold ev_lock and skip a CPU that already has its counter.
	 */
	ret = cpuhp_state_add_instance_nocalls(prf_cpuhp_state, &s->cpuhp_node);
	if (ret)
		return ret;
	s->cpuhp_added = true;

	ret = prf_perf_attr(&s->cfg, &attr);
	if (ret)
		return ret;
	cpus_read_lock();
	mutex_lock(&s->ev_lock);
	for_each_online_cpu(cpu) {
		if (!cpumask_test_cpu(cpu, s->cpus))
			continue;
		ev = perf_event_create_kernel_counter(&attr, cpu, NULL,
						      prf_perf_overflow, s);
		if (IS_ERR(ev)) {
			ret = PTR_ERR(ev);
			break;
		}
		s->events[cpu] = ev;
		made++;
	}
	if (!ret && !made)
		ret = -ENODEV;	/* none of the CPUs asked for is online */
	if (!ret)
		for_each_online_cpu(cpu)
			if (s->events[cpu])
				perf_event_enable(s->events[cpu]);
	mutex_unlock(&s->ev_lock);
	cpus_read_unlock();
	return ret;
}

static int prf_perf_start_task(struct prf_session *s)
{
	struct perf_event_attr attr;
	struct task_struct *task;
	struct perf_event *ev;
	int ret;

	ret = prf_perf_attr(&s->cfg, &attr);
	if (ret)
		return ret;
	task = get_pid_task(s->target, PIDTYPE_TGID);
	if (!task)
		return -ESRCH;
	ev = perf_event_create_kernel_counter(&attr, -1, task,
					      prf_perf_overflow, s);
	put_task_struct(task);
	if (IS_ERR(ev))
		return PTR_ERR(ev);
	mutex_lock(&s->ev_lock);
	s->events[0] = ev;
	mutex_unlock(&s->ev_lock);
	perf_event_enable(ev);
	return 0;
}

int prf_perf_start(struct prf_session *s)
{
	struct perf_event **events;
	int ret;

	events = kcalloc(nr_cpu_ids, sizeof(*events), GFP_KERNEL);
	if (!events)
		return -ENOMEM;
	mutex_lock(&s->ev_lock);
	s->events = events;
	mutex_unlock(&s->ev_lock);

	if (s->cfg.pid >= 0)
		ret = prf_perf_start_task(s);
	else
		ret = prf_perf_start_cpus(s);
	if (ret)
		prf_perf_stop(s);
	return ret;
}

void prf_perf_stop(struct prf_session *s)
{
	struct perf_event **events;
	int cpu;

	/* After this no hotplug callback runs for the session. */
	if (s->cpuhp_added) {
		cpuhp_state_remove_instance_nocalls(prf_cpuhp_state,
						    &s->cpuhp_node);
		s->cpuhp_added = false;
	}
	mutex_lock(&s->ev_lock);
	events = s->events;
	s->events = NULL;
	mutex_unlock(&s->ev_lock);
	if (!events)
		return;
	/*
	 * perf_event_release_kernel() removes the counter from its CPU (or
	 * task) and frees inherited children; once it returns our handler
	 * no longer runs for it.
	 */
	for (cpu = 0; cpu < nr_cpu_ids; cpu++)
		if (events[cpu])
			perf_event_release_kernel(events[cpu]);
	kfree(events);
}
