/* SPDX-License-Identifier: GPL-2.0 */
/* perfregs: definitions shared by the files of the module. */
#ifndef PERFREGS_INTERNAL_H
#define PERFREGS_INTERNAL_H

#include <linux/types.h>
#include <linux/mutex.h>
#include <linux/wait.h>
#include <linux/poll.h>
#include <linux/irq_work.h>
#include <linux/perf_event.h>
#include <linux/cpumask.h>
#include <linux/list.h>
#include <linux/pid.h>
#include <linux/workqueue.h>
#include <asm/local.h>
#include <linux/perfregs.h>

struct prf_session;

/* One CPU's ring buffer: a control page and data pages, both mmapped. */
struct prf_ring {
	struct perfregs_ctl *ctl;	/* a vmalloc'ed page, hostile */
	void *data;			/* vmalloc'ed, read-only to users */
	unsigned long size;		/* bytes, a power of two */
	unsigned long mask;		/* size - 1 */
	bool overwrite;
	unsigned long watermark;	/* wake readers every this many bytes */

	local_t head;			/* bytes reserved so far */
	local_t nest;			/* writers active on this CPU */
	local_t seq;			/* bumped by every writer: see publish */
	local_t busy;			/* head when the outermost writer began */
	local_t otail;			/* overwrite: the oldest whole record */
	local_t wakeup;			/* head at the last wake-up */
	local_t produced;		/* samples taken */
	local_t lost[PERFREGS_LOST_MAX];	/* running totals */
	local_t lost_events;		/* sum of lost[], to publish them */
	local_t lost_pending[PERFREGS_LOST_MAX]; /* not yet reported */
	local_t lost_any;		/* nonzero when lost_pending is */
	local_t new_tasks;		/* see prf_ring_publish_more() */

	/*
	 * What the outermost writer last published to the control page,
	 * kept here because the control page is the user's to scribble on:
	 * the kernel never reads back what it wrote there.
	 */
	unsigned long pub_head;		/* also read by poll() on other CPUs */
	unsigned long pub_lost_events;
	unsigned long pub_new_tasks;

	struct irq_work work;		/* wake-up, never from NMI directly */
	struct prf_session *session;

	/* the last user task sampled here, to count new ones */
	pid_t last_tgid;
	const struct mm_struct *last_mm;	/* compared, never dereferenced */
	struct irq_work task_work;	/* EPOLLPRI wake-up */
};

/* A reservation in a ring: where the writer copies its record. */
struct prf_handle {
	struct prf_ring *rb;
	unsigned long offset;		/* next byte to write */
	unsigned long end;		/* end of the reservation */
};

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

/* ring.c */
struct prf_ring *prf_ring_alloc(struct prf_session *s, int cpu,
				unsigned int pages, bool overwrite,
				unsigned long watermark);
int prf_ring_map(struct vm_area_struct *vma, void *area, unsigned long len);
void prf_ring_free(struct prf_ring *rb);
void prf_ring_write(struct prf_handle *h, const void *src, size_t len);
void prf_ring_kmsan_check(const struct prf_handle *h, unsigned long start);

/* KMSAN: every byte of the record at @start was initialized (ring.c). */
static inline void prf_ring_check_written(const struct prf_handle *h,
					  unsigned long start)
{
	if (IS_ENABLED(CONFIG_KMSAN))
		prf_ring_kmsan_check(h, start);
}
void prf_ring_lost(struct prf_ring *rb, enum perfregs_lost_cause cause);
bool prf_ring_readable(struct prf_ring *rb);
bool prf_ring_new_tasks_unseen(struct prf_ring *rb);
void prf_ring_reset(struct prf_ring *rb);
void prf_ring_resume(struct prf_ring *rb);
void prf_ring_flush_lost(struct prf_ring *rb);
void prf_ring_stopped(struct prf_ring *rb);
void prf_ring_write_stack(struct prf_handle *h, unsigned long start,
			  const void __user *src, u64 len);

/* sample.c */
void prf_sample(struct prf_session *s, struct pt_regs *regs, bool throttled);
void prf_sample_setup(struct prf_session *s);

/* source_perf.c */
int prf_perf_init(void);
void prf_perf_exit(void);
void prf_perf_session_init(struct prf_session *s);
int prf_perf_attr(const struct perfregs_config *cfg,
		  struct perf_event_attr *attr);
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
