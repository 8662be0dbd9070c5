// SPDX-License-Identifier: GPL-2.0
/*
 * Who may sample what: the one place it is decided (docs/security.md
 * says the same in prose).
 *
 * A session may sample exactly what perf_event_open(2) lets its caller
 * sample.  The module cannot ask perf's questions itself (the paranoid
 * sysctl, the LSM hooks and ptrace_may_access() are not exported to
 * modules, and a sysctl read through /proc would be the caller's mount
 * namespace's idea of it), so it asks perf_event_open() to answer them:
 * CONFIG takes a perf event the caller opened for the same event on the
 * same target, sampling what the session samples (user registers and
 * stack, and interrupt registers if the session may see the kernel),
 * the "witness".  perf_event_open() let the caller have it only after
 * kernel.perf_event_paranoid, CAP_PERFMON, the LSM hooks
 * (security_perf_event_open()), the ptrace check on the target, lockdown
 * and perf_event_max_sample_rate all agreed.  A perf event's fd is a
 * capability in perf too: whoever holds it reads its samples; the
 * witness proves no more than what it samples itself.  It is let go at
 * the end of CONFIG.  On top of that:
 *
 *  - the raw NMI source sees every task and the kernel: CAP_PERFMON (or
 *    CAP_SYS_ADMIN) in the initial user namespace, and claiming unknown
 *    NMIs changes the machine's NMI handling: CAP_SYS_ADMIN;
 *  - kernel registers can reach the ring unless the session excludes
 *    the kernel: then lockdown (LOCKDOWN_PERF) must allow it, as perf
 *    asks for PERF_SAMPLE_REGS_INTR;
 *  - at START the module asks again, under the target's
 *    exec_update_lock so that no exec can slip in between, for each
 *    thread it attaches a counter to: a caller without CAP_PERFMON must
 *    still be allowed to watch it by the part of ptrace's rule the module
 *    can check itself (dumpable, the caller's real uid and gid are all
 *    its uids and gids, or CAP_SYS_PTRACE in its user namespace), so a
 *    setuid exec between CONFIG and START is refused;
 *  - the rings are charged to the caller's user (locked_vm, shared with
 *    perf and io_uring) for as long as they live, up to mlock_kb per
 *    online CPU plus the caller's RLIMIT_MEMLOCK, unless CAP_IPC_LOCK;
 *    their pages are also charged to the caller's memory cgroup
 *    (ring.c allocates them with __GFP_ACCOUNT).
 */
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/magic.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/perf_event.h>
#include <linux/pid_namespace.h>
#include <linux/sched/coredump.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/user.h>
#include <linux/security.h>
#include <linux/string.h>
#include "internal.h"
#include "event.h"

static unsigned int mlock_kb = 516;
module_param(mlock_kb, uint, 0644);
MODULE_PARM_DESC(mlock_kb,
		 "KiB of rings per online CPU a user may hold on top of RLIMIT_MEMLOCK (perf_event_mlock_kb's default)");

/* The perf event behind a file, if it is one perf_event_open() made. */
static struct perf_event *prf_witness_event(struct file *f)
{
	/*
	 * perf_event_open() makes its files with anon_inode_getfile() and
	 * the name "[perf_event]", and nothing else in the kernel uses that
	 * name; userspace cannot name anonymous inodes.  (perf itself
	 * compares f_op with perf_fops, which is not exported.)
	 */
	if (file_inode(f)->i_sb->s_magic != ANON_INODE_FS_MAGIC ||
	    strcmp(f->f_path.dentry->d_name.name, "[perf_event]"))
		return NULL;
	return f->private_data;
}

/*
 * Does the witness sample what the session samples?  User registers
 * always, the user stack if the session copies it, interrupt
 * registers if the session may see kernel ones (which is also what
 * makes perf ask lockdown), and kernel call chains as deep as the
 * session's if it walks them (perf_event_open() checked its
 * sample_max_stack against kernel.perf_event_max_stack, and, for a
 * kernel chain, perf_allow_kernel()), and user call chains as deep if
 * it walks those.
 */
static bool prf_witness_samples(const struct perf_event_attr *w,
				const struct perfregs_config *c)
{
	if (!(w->sample_type & PERF_SAMPLE_REGS_USER) || !w->sample_regs_user)
		return false;
	if (c->stack_bytes && (!(w->sample_type & PERF_SAMPLE_STACK_USER) ||
			       w->sample_stack_user < c->stack_bytes))
		return false;
	if (!(c->flags & PERFREGS_CF_EXCLUDE_KERNEL) &&
	    (!(w->sample_type & PERF_SAMPLE_REGS_INTR) || !w->sample_regs_intr))
		return false;
	if (c->kchain_max && (!(w->sample_type & PERF_SAMPLE_CALLCHAIN) ||
			      w->exclude_callchain_kernel ||
			      w->sample_max_stack < c->kchain_max))
		return false;
	if (c->uchain_max && (!(w->sample_type & PERF_SAMPLE_CALLCHAIN) ||
			      w->exclude_callchain_user ||
			      w->sample_max_stack < c->uchain_max))
		return false;
	return true;
}

/*
 * Is the witness of the type asked for?  Since 6.11 cpu-clock and
 * task-clock have PMUs of their own, and perf_init_event() moves such
 * an event there, attr.type included (to a dynamic type number).
 */
static bool prf_witness_type(const struct perf_event *ev,
			     const struct perf_event_attr *want)
{
	const char *name = ev->pmu ? ev->pmu->name : NULL;

	if (ev->attr.type == want->type)
		return true;
	if (want->type != PERF_TYPE_SOFTWARE || !name)
		return false;
	return (want->config == PERF_COUNT_SW_CPU_CLOCK &&
		!strcmp(name, "cpu_clock")) ||
	       (want->config == PERF_COUNT_SW_TASK_CLOCK &&
		!strcmp(name, "task_clock"));
}

/* Does the witness count the event the session asks for? */
static bool prf_witness_matches(const struct perf_event *ev,
				const struct perfregs_config *c)
{
	const struct perf_event_attr *w = &ev->attr;
	struct perf_event_attr want;
	bool nmi = c->event == PERFREGS_EV_NMI;

	/* prf_event_attr() gives the raw NMI hook its cpu-clock stand-in */
	if (!prf_witness_samples(w, c) || prf_event_attr(c, &want))
		return false;
	if (!prf_witness_type(ev, &want) || w->config != want.config ||
	    w->exclude_user != want.exclude_user ||
	    w->exclude_kernel != want.exclude_kernel)
		return false;
	if (nmi)
		return true;
	/*
	 * The rate perf checked against perf_event_max_sample_rate.  perf
	 * turns a frequency of its hrtimer events (cpu-clock, task-clock)
	 * into the period it stands for, in the event's attr too.
	 */
	if (w->freq != want.freq || w->sample_period != want.sample_period) {
		if (!want.freq || w->freq || want.type != PERF_TYPE_SOFTWARE ||
		    (want.config != PERF_COUNT_SW_CPU_CLOCK &&
		     want.config != PERF_COUNT_SW_TASK_CLOCK) ||
		    !want.sample_freq ||
		    w->sample_period != div64_u64(NSEC_PER_SEC, want.sample_freq))
			return false;
	}
	if (want.type == PERF_TYPE_BREAKPOINT &&
	    (w->bp_type != want.bp_type || w->bp_addr != want.bp_addr ||
	     w->bp_len != want.bp_len))
		return false;
	return true;
}

/* Is the witness on the session's target: a task of it, or a CPU? */
static bool prf_witness_target(const struct perf_event *ev, struct pid *target)
{
	struct task_struct *task = READ_ONCE(ev->hw.target);

	if (!target)
		return !(ev->attach_state & PERF_ATTACH_TASK) && ev->cpu >= 0;
	/* the event holds its task: task_tgid() is safe to look at */
	return (ev->attach_state & PERF_ATTACH_TASK) && task &&
	       task_tgid(task) == target;
}

/* Detached: its task exited or exec'ed a non-dumpable image. */
static bool prf_witness_alive(const struct perf_event *ev)
{
	return READ_ONCE(ev->state) > PERF_EVENT_STATE_EXIT;
}

/*
 * The pages a user may hold in rings (and in perf's buffers and
 * io_uring's, which count in user->locked_vm too): the allowance of
 * mlock_kb per online CPU, plus RLIMIT_MEMLOCK of the process that
 * configures.  Saturates instead of wrapping for RLIM_INFINITY.
 */
static unsigned long prf_charge_limit(void)
{
	unsigned long allowance, lock_limit;

	allowance = (READ_ONCE(mlock_kb) >> (PAGE_SHIFT - 10)) *
		    num_online_cpus();
	lock_limit = rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT;
	if (lock_limit > ULONG_MAX - allowance)
		return ULONG_MAX;
	return allowance + lock_limit;
}

/**
 * prf_policy_charge() - charge a session's rings to the caller's user
 * @g: the grant that holds the charge until prf_grant_release()
 * @pages: the rings' pages, control pages included
 *
 * The rings live as long as the session's file, not as long as the
 * process that configured them: a descriptor outlives its opener's mm
 * when it is inherited, passed or kept across exec.  perf_mmap()'s
 * split (the user's locked_vm up to the allowance, the rest on the
 * mm's pinned_vm) would let a user keep rings nobody is charged for
 * after a fork-configure-exit round, so every page goes to the user,
 * as io_uring charges its rings: user->locked_vm against the
 * allowance plus RLIMIT_MEMLOCK, given back by prf_grant_release()
 * when the rings are freed.  CAP_IPC_LOCK lifts the limit, not the
 * count.  Called with the session's old grant released, so that a
 * reconfiguration is not charged twice.
 *
 * Context: CONFIG, process context.
 * Return: 0, or -ENOMEM over the limit.
 */
int prf_policy_charge(struct prf_grant *g, unsigned long pages)
{
	struct user_struct *user = current_user();
	unsigned long limit = prf_charge_limit();
	long cur, new;

	if (pages > LONG_MAX)
		return -ENOMEM;
	cur = atomic_long_read(&user->locked_vm);
	do {
		new = cur + pages;
		if ((new < cur || new > limit) && !capable(CAP_IPC_LOCK))
			return -ENOMEM;
	} while (!atomic_long_try_cmpxchg(&user->locked_vm, &cur, new));
	g->user = get_uid(user);
	g->user_pages = pages;
	return 0;
}

/**
 * prf_policy_config() - may the caller sample what a configuration asks?
 * @c: the configuration, checked by prf_check_config() (session.c)
 * @target: the target process, NULL for CPUs
 * @g: filled with what the grant holds
 *
 * Holds the witness c->perf_fd against @c (see the top of this file),
 * then the NMI source's capabilities and lockdown.  @g is released
 * with prf_grant_release(), also on failure; the memory is charged
 * later, by prf_policy_charge().
 *
 * Context: CONFIG, process context, without the session's locks.
 * Return: 0, -EBADF when perf_fd is no perf event, -EACCES when it does
 * not cover the session or a capability is missing, or lockdown's
 * error.
 */
int prf_policy_config(const struct perfregs_config *c, struct pid *target,
		      struct prf_grant *g)
{
	struct perf_event *ev;
	struct file *witness;
	int ret = 0;

	witness = fget(c->perf_fd);
	if (!witness)
		return -EBADF;
	ev = prf_witness_event(witness);
	if (!ev)
		ret = -EBADF;
	else if (!prf_witness_alive(ev) || !prf_witness_matches(ev, c) ||
		 !prf_witness_target(ev, target))
		ret = -EACCES;
	fput(witness);
	if (ret)
		return ret;

	if (c->event == PERFREGS_EV_NMI && !perfmon_capable())
		return -EACCES;
	if ((c->flags & PERFREGS_CF_NMI_UNKNOWN) && !capable(CAP_SYS_ADMIN))
		return -EACCES;
	if (!(c->flags & PERFREGS_CF_EXCLUDE_KERNEL)) {
		ret = security_locked_down(LOCKDOWN_PERF);
		if (ret)
			return ret;
	}
	g->pid_ns = get_pid_ns(task_active_pid_ns(current));
	return 0;
}

/**
 * prf_policy_may_watch() - may the caller watch a thread it starts on?
 * @task: a thread of the target process
 *
 * Called with the process's signal->exec_update_lock held for reading
 * across this check and the creation of the thread's counter: an exec
 * that changes the credentials either ends before (and we see it here)
 * or starts after (and perf_event_exit_task() detaches the counter if
 * the new image is not dumpable).  With CAP_PERFMON, yes, as perf's
 * perf_check_permission() says.  Else ptrace's rule for
 * PTRACE_MODE_READ_REALCREDS as far as a module can check it: the task
 * is dumpable, and the caller's real uid and gid are all its uids and
 * gids or the caller has CAP_SYS_PTRACE in its user namespace (the LSM
 * and Yama parts were asked at CONFIG, through the witness).
 *
 * Context: START, process context, @task's exec_update_lock held.
 * Return: true if the caller may watch @task.
 */
bool prf_policy_may_watch(struct task_struct *task)
{
	const struct cred *me = current_cred(), *tc;
	bool ok;

	lockdep_assert_held_read(&task->signal->exec_update_lock);
	if (perfmon_capable())
		return true;
	rcu_read_lock();
	tc = __task_cred(task);
	ok = (uid_eq(me->uid, tc->euid) && uid_eq(me->uid, tc->suid) &&
	      uid_eq(me->uid, tc->uid) && gid_eq(me->gid, tc->egid) &&
	      gid_eq(me->gid, tc->sgid) && gid_eq(me->gid, tc->gid)) ||
	     ns_capable_noaudit(tc->user_ns, CAP_SYS_PTRACE);
	rcu_read_unlock();
	task_lock(task);
	ok = ok && task->mm && get_dumpable(task->mm) == SUID_DUMP_USER;
	task_unlock(task);
	return ok;
}

/**
 * prf_grant_release() - give back what a grant holds
 * @g: the grant, emptied; an empty one is fine
 *
 * The rings' charge and the pid namespace.
 *
 * Context: process context.
 */
void prf_grant_release(struct prf_grant *g)
{
	if (g->user) {
		atomic_long_sub(g->user_pages, &g->user->locked_vm);
		free_uid(g->user);
	}
	if (g->pid_ns)
		put_pid_ns(g->pid_ns);
	memset(g, 0, sizeof(*g));
}
