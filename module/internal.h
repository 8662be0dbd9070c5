/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perfregs: what the files of the module share: the session, and the
 * functions of each file that the others call.  The ring's own types and
 * functions are in ring.h.
 */
#ifndef PERFREGS_INTERNAL_H
#define PERFREGS_INTERNAL_H

#include <linux/types.h>
#include <linux/mutex.h>
#include <linux/wait.h>
#include <linux/poll.h>
#include <linux/perf_event.h>
#include <linux/cpumask.h>
#include <linux/list.h>
#include <linux/pid.h>
#include <linux/workqueue.h>
#include <linux/perfregs.h>

struct prf_ring;

/*
 * The registers a sample stores, as indexes of unsigned longs in struct
 * pt_regs in record order: worked out once per configuration, so that
 * the handler copies them without walking the mask.
 */
struct prf_regsel {
	u64 mask;			/* what the record's mask says */
	u8 n;
	bool extra;			/* selectors or bases: not in pt_regs */
	u8 idx[PERFREGS_REG_EXT_MAX];
};

/*
 * Which of the user frame's selectors and bases are known to be the
 * user's in a sample: none, those a kernel-mode interrupt with
 * interrupts on leaves the user's, or all (the interrupt hit user mode).
 */
enum prf_uregs_class {
	PRF_UREGS_PLAIN,
	PRF_UREGS_KERNEL,
	PRF_UREGS_USER,
	PRF_UREGS_CLASSES,
};

/*
 * What policy.c granted a configuration, and holds until the session
 * is reconfigured or freed: the pid namespace of the caller and the
 * memory charged for the rings.
 */
struct prf_grant {
	struct pid_namespace *pid_ns;	/* ids in records are in this one */
	struct user_struct *user;	/* charged user_pages (locked_vm) */
	unsigned long user_pages;
};

struct prf_session {
	struct mutex lock;		/* serializes ioctl, poll, release */
	/*
	 * Taken by mmap() (under mmap_lock) instead of lock, and by CONFIG
	 * and release with lock held, around what mmap() looks at: rings,
	 * configured, data_pages.  START holds lock while it takes the
	 * target's exec_update_lock and perf's ctx->mutex, both above
	 * mmap_lock in perf's lock order; mmap() must not wait for lock.
	 */
	struct mutex map_lock;
	struct perfregs_config cfg;
	struct prf_regsel isel;		/* interrupt registers */
	struct prf_regsel isel_frame;	/* ... of a full frame (skid) */
	/* user registers of a 64-bit and a 32-bit frame, by prf_uregs_class */
	struct prf_regsel usel64[PRF_UREGS_CLASSES];
	struct prf_regsel usel32[PRF_UREGS_CLASSES];
	bool configured;
	bool running;
	struct prf_grant grant;
	struct pid_namespace *pid_ns;	/* grant.pid_ns, or NULL for init's */
	unsigned int data_pages;
	cpumask_var_t cpus;		/* CPUs with a ring (pid == -1: to sample) */
	struct pid *target;		/* the process (pid >= 0) */
	struct prf_ring **rings;	/* [nr_cpu_ids], CPUs in cpus only */
	atomic_t mmaps;			/* live mappings of the rings */
	wait_queue_head_t wq;

	/* perf counters: per CPU, or per thread of a process target */
	struct mutex ev_lock;		/* events[]; before the hotplug lock */
	struct perf_event **events;	/* [nr_cpu_ids] while running */
	struct work_struct cpu_work;	/* CPU hotplug: prf_perf_reconcile() */
	struct perf_event **tev;	/* one per thread, under lock */
	unsigned int nr_tev, max_tev;
	struct hlist_node cpuhp_node;	/* CPU hotplug: a CPU is up */
	struct hlist_node cpuhp_dead_node; /* ... a CPU is dead */
	bool cpuhp_added;

	/* raw NMI hook */
	struct list_head nmi_node;	/* on the RCU list of NMI sessions */
};

/* sample.c */
void prf_sample(struct prf_session *s, struct pt_regs *regs, bool throttled);
void prf_sample_setup(struct prf_session *s);

/* source_perf.c */
int prf_perf_init(void);
void prf_perf_exit(void);
void prf_perf_session_init(struct prf_session *s);
int prf_perf_start(struct prf_session *s);
void prf_perf_stop(struct prf_session *s);

/* source_nmi.c */
int prf_nmi_start(struct prf_session *s);
void prf_nmi_stop(struct prf_session *s);

/* policy.c: who may sample what, the one place it is decided */
int prf_policy_config(const struct perfregs_config *c, struct pid *target,
		      struct prf_grant *g);
int prf_policy_charge(struct prf_grant *g, unsigned long pages);
bool prf_policy_may_watch(struct task_struct *task);
void prf_grant_release(struct prf_grant *g);

/* session.c */
struct prf_session *prf_session_new(void);
void prf_session_free(struct prf_session *s);
long prf_session_ioctl(struct prf_session *s, unsigned int cmd,
		       void __user *arg);
int prf_session_mmap(struct prf_session *s, struct vm_area_struct *vma);
__poll_t prf_session_poll(struct prf_session *s, struct file *file,
			  poll_table *wait);

#endif /* PERFREGS_INTERNAL_H */
