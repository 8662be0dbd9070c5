// SPDX-License-Identifier: GPL-2.0
/*
 * Perf kernel counters as sample sources: one counter per target CPU,
 * kept through CPU hotplug, or one per thread of a target process,
 * inherited by the threads they create (and, with CF_INHERIT, by the
 * processes they fork), each with our own overflow handler.  Precise
 * (PEBS) events are never requested, so large PEBS, which would batch
 * samples past the handler, is never used.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/perf_event.h>
#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/pid.h>
#include <linux/rcupdate.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include "internal.h"
#include "event.h"
#include "compat.h"
#include "inject.h"

/* hw.interrupts while throttled: MAX_INTERRUPTS of kernel/events/core.c */
#define PRF_THROTTLED	(~0ULL)

/* START gives up on a process that keeps making threads faster than this. */
#define PRF_MAX_PASSES	64

/*
 * Two hotplug states queue the reconcile: one once a CPU is up (after
 * perf's own, so perf takes counters again), one once a CPU is dead
 * (after perf took its counters off it).  On the way down the online
 * state's teardown would come too early: the CPU still counts as online
 * and perf has not yet detached the counter.
 */
static enum cpuhp_state prf_cpuhp_online, prf_cpuhp_dead;

static void prf_perf_overflow(struct perf_event *event,
			      struct perf_sample_data *data,
			      struct pt_regs *regs)
{
	/* The core marks the sample that trips the throttle this way. */
	prf_sample(event->overflow_handler_context, regs,
		   event->hw.interrupts == PRF_THROTTLED);
}

/* The attributes of the module's own counters for the session. */
static int prf_counter_attr(const struct prf_session *s,
			    struct perf_event_attr *attr)
{
	int ret;

	/* prf_event_attr() gives EV_NMI its cpu-clock stand-in: not here */
	if (WARN_ON_ONCE(s->cfg.event == PERFREGS_EV_NMI))
		return -EINVAL;
	ret = prf_event_attr(&s->cfg, attr);
	if (ret)
		return ret;
	attr->disabled = 1;
	if (s->cfg.pid >= 0) {
		/* new threads always; new processes with CF_INHERIT */
		attr->inherit = 1;
		attr->inherit_thread = !(s->cfg.flags & PERFREGS_CF_INHERIT);
		/*
		 * On from the start: a thread cloned before a later
		 * perf_event_enable() would inherit a disabled child, and
		 * enabling the parent does not enable its children.  The
		 * rings are ready and the session is running.
		 */
		attr->disabled = 0;
	}
	if (prf_injecting() && READ_ONCE(prf_inject.skid))
		attr->exclude_kernel = 0;	/* the handler must cope */
	return 0;
}

static struct perf_event *prf_counter_create(struct prf_session *s,
					     struct perf_event_attr *attr,
					     int cpu, struct task_struct *task)
{
	struct perf_event *ev;

	ev = perf_event_create_kernel_counter(attr, cpu, task,
					      prf_perf_overflow, s);
	if (!IS_ERR(ev))
		atomic_inc(&prf_live_counters);
	return ev;
}

static void prf_counter_release(struct perf_event *ev)
{
	perf_event_release_kernel(ev);
	atomic_dec(&prf_live_counters);
}

/*
 * Bring the per-CPU counters in line with the CPUs: one attached
 * counter on every online CPU of the session, none on the others.  The
 * only place that makes or releases CPU counters, for START and for CPU
 * hotplug alike.  It runs in task context and holds ev_lock, which the
 * hotplug callbacks never take: making or releasing a counter may take
 * the CPU hotplug lock (static_key_slow_inc() in perf_swevent_init(),
 * for page faults and context switches), so it must not run inside a
 * hotplug callback, nor with cpus_read_lock() held (a recursive read
 * waits behind a writer).  So the callbacks only queue cpu_work, and the
 * CPUs are read without the hotplug lock: a CPU that comes or goes
 * while we look queues cpu_work again, which looks again.  A counter
 * perf took off a CPU that went offline (perf_event_exit_cpu()) is no
 * longer attached to a context: it is released, and a new one made once
 * the CPU is back.  Returns the first error other than "offline", or
 * -ENODEV when no CPU of the session has a counter.
 */
static int prf_perf_reconcile(struct prf_session *s)
{
	struct perf_event_attr attr;
	struct perf_event *ev;
	int cpu, ret, err = 0, made = 0;

	ret = prf_counter_attr(s, &attr);
	if (ret)
		return ret;
	mutex_lock(&s->ev_lock);
	if (!s->events)
		goto out_unlock;	/* stopped */
	for_each_cpu(cpu, s->cpus) {
		bool online = cpu_online(cpu);

		ev = s->events[cpu];
		if (ev && (!online ||
			   !(READ_ONCE(ev->attach_state) & PERF_ATTACH_CONTEXT))) {
			s->events[cpu] = NULL;
			prf_counter_release(ev);
			ev = NULL;
		}
		if (!ev && online) {
			ev = prf_counter_create(s, &attr, cpu, NULL);
			if (IS_ERR(ev)) {
				/* it went offline meanwhile: cpu_work comes */
				if (PTR_ERR(ev) != -ENODEV && !err)
					err = PTR_ERR(ev);
				continue;
			}
			s->events[cpu] = ev;
			perf_event_enable(ev);
		}
		made += !!s->events[cpu];
	}
	if (!err && !made)
		err = -ENODEV;	/* none of the CPUs asked for is online */
out_unlock:
	mutex_unlock(&s->ev_lock);
	return err;
}

static void prf_perf_cpu_work(struct work_struct *work)
{
	struct prf_session *s = container_of(work, struct prf_session, cpu_work);
	int ret = prf_perf_reconcile(s);

	if (ret && ret != -ENODEV)
		pr_warn_ratelimited("a CPU has no counter: %d\n", ret);
}

/* CPU hotplug, with the hotplug lock held: only queue the reconcile. */
static int prf_cpu_up(unsigned int cpu, struct hlist_node *node)
{
	struct prf_session *s = hlist_entry(node, struct prf_session, cpuhp_node);

	queue_work(system_unbound_wq, &s->cpu_work);
	return 0;
}

static int prf_cpu_dead(unsigned int cpu, struct hlist_node *node)
{
	struct prf_session *s = hlist_entry(node, struct prf_session,
					    cpuhp_dead_node);

	queue_work(system_unbound_wq, &s->cpu_work);
	return 0;
}

/**
 * prf_perf_init() - set up the CPU hotplug states of the perf source
 *
 * Context: module init.
 * Return: 0, or the error of cpuhp_setup_state_multi().
 */
int prf_perf_init(void)
{
	int ret;

	ret = cpuhp_setup_state_multi(CPUHP_AP_ONLINE_DYN, "perfregs:online",
				      prf_cpu_up, NULL);
	if (ret < 0)
		return ret;
	prf_cpuhp_online = ret;
	ret = cpuhp_setup_state_multi(CPUHP_BP_PREPARE_DYN, "perfregs:dead",
				      NULL, prf_cpu_dead);
	if (ret < 0)
		goto out_remove_online;
	prf_cpuhp_dead = ret;
	return 0;

out_remove_online:
	cpuhp_remove_multi_state(prf_cpuhp_online);
	return ret;
}

/**
 * prf_perf_exit() - remove the CPU hotplug states
 *
 * Context: module exit, every session gone.
 */
void prf_perf_exit(void)
{
	cpuhp_remove_multi_state(prf_cpuhp_dead);
	cpuhp_remove_multi_state(prf_cpuhp_online);
}

/**
 * prf_perf_session_init() - the perf source's part of a new session
 * @s: the session
 *
 * Context: process context.
 */
void prf_perf_session_init(struct prf_session *s)
{
	INIT_WORK(&s->cpu_work, prf_perf_cpu_work);
}

static int prf_perf_start_cpus(struct prf_session *s)
{
	int ret;

	/*
	 * Register for hotplug first: a CPU that comes or goes from now on
	 * queues cpu_work; the reconcile below covers the others.
	 */
	ret = cpuhp_state_add_instance_nocalls(prf_cpuhp_online, &s->cpuhp_node);
	if (ret)
		return ret;
	ret = cpuhp_state_add_instance_nocalls(prf_cpuhp_dead,
					       &s->cpuhp_dead_node);
	if (ret) {
		cpuhp_state_remove_instance_nocalls(prf_cpuhp_online,
						    &s->cpuhp_node);
		return ret;
	}
	s->cpuhp_added = true;
	if (prf_injecting())
		prf_inject_start_delay();
	return prf_perf_reconcile(s);
}

/* Room for @n more thread counters; under s->lock. */
static int prf_tev_reserve(struct prf_session *s, unsigned int n)
{
	struct perf_event **tev;
	unsigned int max;

	if (s->nr_tev + n <= s->max_tev)
		return 0;
	max = max(s->nr_tev + n, 2 * s->max_tev);
	tev = kvmalloc_array(max, sizeof(*tev), GFP_KERNEL);
	if (!tev)
		return -ENOMEM;
	if (s->nr_tev)
		memcpy(tev, s->tev, s->nr_tev * sizeof(*tev));
	kvfree(s->tev);
	s->tev = tev;
	s->max_tev = max;
	return 0;
}

/*
 * The threads of @leader's process, referenced, into a fresh array.
 * Returns how many, or a negative errno.
 */
static int prf_thread_snapshot(struct task_struct *leader,
			       struct task_struct ***out)
{
	struct task_struct **tasks, *t;
	int n, want, tries;

	for (tries = 0; tries < 16; tries++) {
		if (fatal_signal_pending(current))
			return -EINTR;
		want = READ_ONCE(leader->signal->nr_threads) + 8 + 64 * tries;
		tasks = kvmalloc_array(want, sizeof(*tasks), GFP_KERNEL);
		if (!tasks)
			return -ENOMEM;
		n = 0;
		rcu_read_lock();
		for_each_thread(leader, t) {
			if (n == want)
				break;
			get_task_struct(t);
			tasks[n++] = t;
		}
		rcu_read_unlock();
		if (n < want) {
			*out = tasks;
			return n;
		}
		/* it grew while we looked: again, with more room */
		while (n)
			put_task_struct(tasks[--n]);
		kvfree(tasks);
	}
	return -EAGAIN;	/* it makes threads faster than we can look */
}

/*
 * One pass over the threads: a counter for every thread that has none
 * of ours, direct or inherited.  A thread that has one keeps it (its
 * threads inherit it), and one without can only get one from us: we
 * are the only ones adding counters of this session, so looking and
 * adding cannot be overtaken.  Returns the counters made, or an errno.
 */
static int prf_perf_thread_pass(struct prf_session *s,
				struct task_struct *leader,
				struct perf_event_attr *attr)
{
	struct task_struct **tasks;
	struct perf_event *ev;
	int n, i, made = 0, ret = 0;

	n = prf_thread_snapshot(leader, &tasks);
	if (n < 0)
		return n;
	/*
	 * tev[] changes only under s->lock (START and STOP), never under
	 * ev_lock: making a counter may take the hotplug lock
	 * (static_key_slow_inc() in perf_swevent_init()), and ev_lock
	 * belongs to the CPU reconcile.
	 */
	ret = prf_tev_reserve(s, n);
	for (i = 0; i < n && !ret; i++) {
		if (prf_task_has_event(tasks[i], s))
			continue;
		/* exiting (a zombie leader too): nothing left to sample */
		if ((tasks[i]->flags & PF_EXITING) || !READ_ONCE(tasks[i]->mm))
			continue;
		/* the caller may no longer watch it (a setuid exec?) */
		if (!prf_policy_may_watch(tasks[i])) {
			ret = -EACCES;
			break;
		}
		ev = prf_counter_create(s, attr, -1, tasks[i]);
		if (IS_ERR(ev)) {
			/* a thread that is exiting: nothing to sample */
			if (tasks[i]->flags & PF_EXITING)
				continue;
			ret = PTR_ERR(ev);
			break;
		}
		s->tev[s->nr_tev++] = ev;
		made++;
	}
	for (i = 0; i < n; i++)
		put_task_struct(tasks[i]);
	kvfree(tasks);
	return ret ? ret : made;
}

/*
 * A process: a counter on each of its threads, passes until one finds
 * every thread covered.  The threads created meanwhile by a thread that
 * already had its counter inherit it.  One window stays open: a thread
 * whose creation had already copied its creator's perf context when
 * the creator got its counter, and that joins the thread list only
 * after the last pass, is not sampled.  (perf record -p opens per
 * thread from /proc/PID/task and has that window for every thread
 * created until its last open.)
 */
static int prf_perf_start_task(struct prf_session *s)
{
	struct perf_event_attr attr;
	struct task_struct *leader;
	int ret, pass;

	ret = prf_counter_attr(s, &attr);
	if (ret)
		return ret;
	leader = get_pid_task(s->target, PIDTYPE_TGID);
	if (!leader)
		return -ESRCH;
	/*
	 * No exec may change the credentials until the counters are on.
	 * Taken with s->lock held: nothing that holds it (exec, perf)
	 * waits for s->lock, as mmap() takes only s->map_lock.
	 */
	ret = down_read_interruptible(&leader->signal->exec_update_lock);
	if (ret)
		goto out_put_leader;
	for (pass = 0; pass < PRF_MAX_PASSES; pass++) {
		ret = prf_perf_thread_pass(s, leader, &attr);
		if (ret <= 0)
			break;
		ret = 0;
	}
	if (!ret && pass == PRF_MAX_PASSES)
		ret = -EAGAIN;
	if (!ret && !s->nr_tev)
		ret = -ESRCH;	/* every thread exited */
	up_read(&leader->signal->exec_update_lock);
out_put_leader:
	put_task_struct(leader);
	return ret < 0 ? ret : 0;
}

/**
 * prf_perf_start() - start the perf counters of a session
 * @s: a configured session whose event is a perf event (not EV_NMI)
 *
 * One counter per CPU of the session, kept through CPU hotplug, or one
 * per thread of the target process, inherited by the threads (and with
 * CF_INHERIT the processes) it creates.  Stopped again on failure.
 *
 * Context: START, process context with s->lock held; may sleep.
 * Return: 0, or a negative errno: -ESRCH when the target has no thread
 * left, -EACCES when the caller may no longer watch one (START asks
 * again), -EAGAIN for a process that makes threads faster than we
 * look, -ENODEV when no CPU of the session is online, -ENOMEM, or the
 * error of perf_event_create_kernel_counter() or of the CPU hotplug
 * callbacks' setup.
 */
int prf_perf_start(struct prf_session *s)
{
	struct perf_event **events = NULL;
	int ret;

	if (s->cfg.pid < 0) {
		events = kcalloc(nr_cpu_ids, sizeof(*events), GFP_KERNEL);
		if (!events)
			return -ENOMEM;
	}
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

/**
 * prf_perf_stop() - stop and release the counters of a session
 * @s: the session
 *
 * Returns once no prf_sample() of its counters runs any more, on any
 * CPU: the caller may then flush the LOST records and free the rings.
 *
 * Context: process context, may sleep.
 */
void prf_perf_stop(struct prf_session *s)
{
	struct perf_event **events, **tev;
	unsigned int cpu, i, nr_tev;

	/* After this no hotplug callback runs for the session ... */
	if (s->cpuhp_added) {
		cpuhp_state_remove_instance_nocalls(prf_cpuhp_dead,
						    &s->cpuhp_dead_node);
		cpuhp_state_remove_instance_nocalls(prf_cpuhp_online,
						    &s->cpuhp_node);
		s->cpuhp_added = false;
	}
	/* ... nor the reconcile it queued */
	cancel_work_sync(&s->cpu_work);
	mutex_lock(&s->ev_lock);
	events = s->events;
	s->events = NULL;
	tev = s->tev;
	nr_tev = s->nr_tev;
	s->tev = NULL;
	s->nr_tev = 0;
	s->max_tev = 0;
	mutex_unlock(&s->ev_lock);

	/*
	 * perf_event_release_kernel() takes the counter (and its inherited
	 * children) off their CPU or task with an IPI and stops new
	 * overflows.  Whether it also waits for a handler already running
	 * on another CPU depends on the kernel: page-fault samples run with
	 * IRQs on, and kernels that call the overflow handler of software
	 * events with IRQs on let the removal IPI land in the middle of
	 * prf_sample(), which then goes on writing into the rings.  (Debian's
	 * 6.1.192 disables IRQs there, in perf_swevent_event(), so the IPI
	 * waits: test_harden's teardown test passes on it, and on 6.12.117,
	 * even without the wait below.)
	 */
	if (events) {
		for (cpu = 0; cpu < nr_cpu_ids; cpu++)
			if (events[cpu])
				prf_counter_release(events[cpu]);
		kfree(events);
	}
	for (i = 0; i < nr_tev; i++)
		prf_counter_release(tev[i]);
	kvfree(tev);
	/*
	 * Every path into prf_sample() runs with preemption off (NMI,
	 * hardirq, #DB and context switches with IRQs off too, and perf's
	 * software events, which take their recursion context with
	 * preemption disabled), that is inside an RCU read-side critical
	 * section.  The counters are gone, so no new one starts; this
	 * waits for those still running, whatever the kernel, as perf's
	 * ring_buffer_put() waits for its writers with call_rcu().  Only
	 * then may the caller flush the LOST records and free the rings.
	 */
	synchronize_rcu();
}
