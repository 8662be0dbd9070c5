/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel-version differences, and only those.  They are told apart by
 * feature, not by version number: module/Kbuild probes the headers and
 * defines PRF_HAVE_* for what they declare.
 */
#ifndef PERFREGS_COMPAT_H
#define PERFREGS_COMPAT_H

#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/perf_event.h>
#include <linux/rcupdate.h>

/*
 * 6.1: vm_flags is written directly; 6.3 made it read-only with
 * accessors.
 */
#ifndef PRF_HAVE_VM_FLAGS_SET
/**
 * prf_vm_flags_set() - set flags of a mapping
 * @vma: the mapping, its mmap_lock held for writing (in mmap())
 * @flags: VM_* to set
 */
static inline void prf_vm_flags_set(struct vm_area_struct *vma,
				    unsigned long flags)
{
	vma->vm_flags |= flags;
}

/**
 * prf_vm_flags_clear() - clear flags of a mapping
 * @vma: the mapping, its mmap_lock held for writing (in mmap())
 * @flags: VM_* to clear
 */
static inline void prf_vm_flags_clear(struct vm_area_struct *vma,
				      unsigned long flags)
{
	vma->vm_flags &= ~flags;
}
#else
static inline void prf_vm_flags_set(struct vm_area_struct *vma,
				    unsigned long flags)
{
	vm_flags_set(vma, flags);
}

static inline void prf_vm_flags_clear(struct vm_area_struct *vma,
				      unsigned long flags)
{
	vm_flags_clear(vma, flags);
}
#endif

/*
 * Tasks without a user frame of their own: kernel threads, io_uring and
 * (6.4+) vhost/user workers.
 */
#ifdef PF_USER_WORKER
#define PRF_PF_NO_USER	(PF_KTHREAD | PF_IO_WORKER | PF_USER_WORKER)
#else
#define PRF_PF_NO_USER	(PF_KTHREAD | PF_IO_WORKER)
#endif

/**
 * prf_ctx_has() - does a task context hold one of our perf events?
 * @slot: where the task keeps the context
 * @cookie: our handler context, the session
 *
 * Does the task context in @slot hold a perf event whose handler
 * context is @cookie (ours, or inherited from ours: inherit_event()
 * copies it)?  perf swaps whole contexts between tasks whose contexts
 * are clones at context switch, so the context is looked at under its
 * lock and only while it is still the task's, as perf's
 * perf_lock_task_context() does; contexts are freed after a grace
 * period.
 *
 * Context: process context.
 * Return: true if it does.
 */
static inline bool prf_ctx_has(struct perf_event_context **slot, void *cookie)
{
	struct perf_event_context *ctx;
	struct perf_event *ev;
	unsigned long flags;
	bool found = false;

	rcu_read_lock();
retry:
	ctx = READ_ONCE(*slot);
	if (ctx) {
		raw_spin_lock_irqsave(&ctx->lock, flags);
		if (ctx != READ_ONCE(*slot)) {
			raw_spin_unlock_irqrestore(&ctx->lock, flags);
			goto retry;
		}
		list_for_each_entry(ev, &ctx->event_list, event_entry) {
			if (ev->overflow_handler_context == cookie) {
				found = true;
				break;
			}
		}
		raw_spin_unlock_irqrestore(&ctx->lock, flags);
	}
	rcu_read_unlock();
	return found;
}

#ifdef PRF_HAVE_PERF_CTXP_ARRAY
/**
 * prf_task_has_event() - does a task have one of our perf events?
 * @task: the task, referenced
 * @cookie: our handler context, the session
 *
 * 6.1 has a context per kind of PMU (hardware, software), 6.2+ one per
 * task: prf_ctx_has() on each.
 *
 * Context: process context.
 * Return: true if it has one, direct or inherited.
 */
static inline bool prf_task_has_event(struct task_struct *task, void *cookie)
{
	return prf_ctx_has(&task->perf_event_ctxp[perf_hw_context], cookie) ||
	       prf_ctx_has(&task->perf_event_ctxp[perf_sw_context], cookie);
}
#else
/* 6.2+: one context per task */
static inline bool prf_task_has_event(struct task_struct *task, void *cookie)
{
	return prf_ctx_has(&task->perf_event_ctxp, cookie);
}
#endif

#endif /* PERFREGS_COMPAT_H */
