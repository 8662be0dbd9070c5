// SPDX-License-Identifier: GPL-2.0
/*
 * The raw NMI hook.  One NMI_LOCAL observer samples every NMI a CPU
 * takes (PMU, backtrace, injected...) for every NMI session and never
 * claims one: the NMIs belong to whoever sent them.  An NMI_UNKNOWN
 * handler, registered only while a session asked for it, claims the
 * NMIs nobody else did, so host-injected NMIs do not end in "Uhhuh".
 *
 * Sessions sit on an RCU list; the handlers walk it inside the NMI (an
 * RCU read-side section), and a session leaves it with list_del_rcu()
 * and synchronize_rcu() before its rings can be freed.
 */
#include <linux/mutex.h>
#include <linux/rculist.h>
#include <linux/sched.h>
#include <asm/nmi.h>
#include "internal.h"

static LIST_HEAD(prf_nmi_sessions);
static DEFINE_MUTEX(prf_nmi_lock);	/* the list and the counts below */
static unsigned int prf_nmi_users;
static unsigned int prf_nmi_unknown_users;

static bool prf_nmi_wants(struct prf_session *s, struct pt_regs *regs)
{
	u32 flags = s->cfg.flags;

	if (user_mode(regs) ? flags & PERFREGS_CF_EXCLUDE_USER :
			      flags & PERFREGS_CF_EXCLUDE_KERNEL)
		return false;
	/*
	 * Every thread of the process, none it forks (CF_INHERIT is refused
	 * for this source), as the perf source's counters cover; compared
	 * as struct pid, which is what the caller's pid named in its own
	 * namespace at CONFIG.
	 */
	if (s->target)
		return task_tgid(current) == s->target;
	return cpumask_test_cpu(smp_processor_id(), s->cpus);
}

static int prf_nmi_local(unsigned int type, struct pt_regs *regs)
{
	struct prf_session *s;

	rcu_read_lock();
	list_for_each_entry_rcu(s, &prf_nmi_sessions, nmi_node)
		if (prf_nmi_wants(s, regs))
			prf_sample(s, regs, false);
	rcu_read_unlock();
	return NMI_DONE;
}

static int prf_nmi_unknown(unsigned int type, struct pt_regs *regs)
{
	struct prf_session *s;
	int ret = NMI_DONE;

	rcu_read_lock();
	list_for_each_entry_rcu(s, &prf_nmi_sessions, nmi_node)
		if (s->cfg.flags & PERFREGS_CF_NMI_UNKNOWN)
			ret = NMI_HANDLED;
	rcu_read_unlock();
	return ret;
}

/**
 * prf_nmi_start() - sample every NMI for a session
 * @s: a configured session of EV_NMI
 *
 * Registers the NMI handlers when the first session needs them.
 *
 * Context: START, process context, may sleep.
 * Return: 0, or the error of register_nmi_handler().
 */
int prf_nmi_start(struct prf_session *s)
{
	int ret = 0;

	mutex_lock(&prf_nmi_lock);
	if (!prf_nmi_users) {
		ret = register_nmi_handler(NMI_LOCAL, prf_nmi_local, 0,
					   "perfregs");
		if (ret)
			goto out_unlock;
	}
	if ((s->cfg.flags & PERFREGS_CF_NMI_UNKNOWN) && !prf_nmi_unknown_users) {
		ret = register_nmi_handler(NMI_UNKNOWN, prf_nmi_unknown, 0,
					   "perfregs-unknown");
		if (ret) {
			if (!prf_nmi_users)
				unregister_nmi_handler(NMI_LOCAL, "perfregs");
			goto out_unlock;
		}
	}
	prf_nmi_users++;
	if (s->cfg.flags & PERFREGS_CF_NMI_UNKNOWN)
		prf_nmi_unknown_users++;
	list_add_tail_rcu(&s->nmi_node, &prf_nmi_sessions);
out_unlock:
	mutex_unlock(&prf_nmi_lock);
	return ret;
}

/**
 * prf_nmi_stop() - stop sampling NMIs for a session
 * @s: the session
 *
 * Unregisters the handlers with the last session, and returns once no
 * handler still walks past @s.
 *
 * Context: process context, may sleep.
 */
void prf_nmi_stop(struct prf_session *s)
{
	mutex_lock(&prf_nmi_lock);
	list_del_rcu(&s->nmi_node);
	if (s->cfg.flags & PERFREGS_CF_NMI_UNKNOWN && !--prf_nmi_unknown_users)
		unregister_nmi_handler(NMI_UNKNOWN, "perfregs-unknown");
	if (!--prf_nmi_users)
		unregister_nmi_handler(NMI_LOCAL, "perfregs");
	mutex_unlock(&prf_nmi_lock);
	/* No handler still walks past this session once this returns. */
	synchronize_rcu();
}
