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

#ifndef PRF_HAVE_VM_FLAGS_SET
/* 6.1: vm_flags is written directly; 6.3 made it read-only with accessors. */
static inline void prf_vm_flags_set(struct vm_area_struct *vma,
				    unsigned long flags)
{
	vma->vm_flags |= flags;
}

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

#endif /* PERFREGS_COMPAT_H */
