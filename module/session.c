// SPDX-License-Identifier: GPL-2.0
/*
 * A session: one open() of /dev/perfregs.  Its configuration, its
 * per-CPU rings and their mappings, start and stop.
 */
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/mm.h>
#include <linux/vmalloc.h>
#include <linux/poll.h>
#include <linux/log2.h>
#include <linux/cpumask.h>
#include <linux/sched/task.h>
#include <linux/sched/signal.h>
#include <linux/pid_namespace.h>
#include "internal.h"
#include "ring.h"
#include "compat.h"
#include "simd.h"
#include "chain.h"

/*
 * The largest sample record without its stack snapshot and SIMD state:
 * 8 bytes per interrupt and per user register, the user frame's FS and
 * GS base only if a mask asks for them (ABI minor 0's size otherwise).
 */
#define PRF_MAX_REGS_RECORD(c)	(sizeof(struct perfregs_rec_sample) + \
	8 * PERFREGS_REG_MAX + 16 + 8 * \
	((((c)->uregs_mask_64 | (c)->uregs_mask_32) & PERFREGS_MASK_BASES) ? \
	 PERFREGS_REG_EXT_MAX : PERFREGS_REG_MAX))

/**
 * prf_session_new() - a new, unconfigured session
 *
 * Context: open(), process context.
 * Return: the session, or NULL without memory.
 */
struct prf_session *prf_session_new(void)
{
	struct prf_session *s;

	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return NULL;
	if (!zalloc_cpumask_var(&s->cpus, GFP_KERNEL)) {
		kfree(s);
		return NULL;
	}
	mutex_init(&s->lock);
	mutex_init(&s->map_lock);
	mutex_init(&s->ev_lock);
	prf_perf_session_init(s);
	INIT_LIST_HEAD(&s->nmi_node);
	init_waitqueue_head(&s->wq);
	atomic_set(&s->mmaps, 0);
	return s;
}

static void prf_session_free_rings(struct prf_session *s)
{
	int cpu;

	if (!s->rings)
		return;
	for (cpu = 0; cpu < nr_cpu_ids; cpu++)
		prf_ring_free(s->rings[cpu]);
	kfree(s->rings);
	s->rings = NULL;
}

static int prf_session_alloc_rings(struct prf_session *s)
{
	unsigned long watermark;
	int cpu;

	s->rings = kcalloc(nr_cpu_ids, sizeof(*s->rings), GFP_KERNEL);
	if (!s->rings)
		return -ENOMEM;
	watermark = s->cfg.wakeup_bytes ? s->cfg.wakeup_bytes :
		    ((unsigned long)s->cfg.data_pages << PAGE_SHIFT) / 4;
	/* Only the CPUs sampled: a CPU list of one on a big machine. */
	for_each_cpu(cpu, s->cpus) {
		s->rings[cpu] = prf_ring_alloc(s, cpu, s->cfg.data_pages,
					       s->cfg.flags & PERFREGS_CF_OVERWRITE,
					       watermark);
		if (!s->rings[cpu])
			goto out_free_rings;
	}
	return 0;

out_free_rings:
	prf_session_free_rings(s);
	return -ENOMEM;
}

static void prf_session_stop(struct prf_session *s)
{
	int cpu;

	if (!s->running)
		return;
	if (s->cfg.event == PERFREGS_EV_NMI)
		prf_nmi_stop(s);
	else
		prf_perf_stop(s);
	/* No writer runs any more: report the losses still pending. */
	preempt_disable();
	for_each_possible_cpu(cpu) {
		if (s->rings[cpu]) {
			prf_ring_flush_lost(s->rings[cpu]);
			prf_ring_stopped(s->rings[cpu]);
		}
	}
	preempt_enable();
	WRITE_ONCE(s->running, false);
	/* Let readers drain what is left below the watermark. */
	wake_up_interruptible_poll(&s->wq, EPOLLIN | EPOLLRDNORM);
}

/**
 * prf_session_free() - stop a session and free it
 * @s: the session
 *
 * Context: release(), the file's last reference gone, so no mapping is
 * left; may sleep.
 */
void prf_session_free(struct prf_session *s)
{
	mutex_lock(&s->lock);
	prf_session_stop(s);
	mutex_lock(&s->map_lock);
	prf_session_free_rings(s);
	mutex_unlock(&s->map_lock);
	mutex_unlock(&s->lock);
	prf_grant_release(&s->grant);
	put_pid(s->target);
	free_cpumask_var(s->cpus);
	kfree(s);
}

static int prf_check_config(const struct perfregs_config *c)
{
	u64 data_size = (u64)c->data_pages << PAGE_SHIFT;
	int i;

	if (c->flags & ~PERFREGS_CF_ALL)
		return -EINVAL;
	if (c->event >= PERFREGS_EV_MAX)
		return -EINVAL;
	if (!c->data_pages || !is_power_of_2(c->data_pages) ||
	    c->data_pages > PERFREGS_MAX_DATA_PAGES)
		return -EINVAL;
	if (!c->period && c->event != PERFREGS_EV_NMI &&
	    c->event != PERFREGS_EV_BREAKPOINT)
		return -EINVAL;
	if ((c->iregs_mask & ~PERFREGS_MASK_64) ||
	    (c->uregs_mask_64 & ~(PERFREGS_MASK_64 | PERFREGS_MASK_BASES)) ||
	    (c->uregs_mask_32 & ~(PERFREGS_MASK_32 | PERFREGS_MASK_BASES)))
		return -EINVAL;
	if (c->simd_mask & ~PERFREGS_SIMD_ALL)
		return -EINVAL;
	if (c->simd_mask & ~prf_simd_offered())
		return -EOPNOTSUPP;
	if (c->pid < -1)
		return -EINVAL;
	/* perf's own limit on a period: it must fit in an s64 */
	if (c->period & (1ULL << 63))
		return -EINVAL;
	if ((c->flags & PERFREGS_CF_INHERIT) &&
	    (c->pid < 0 || c->event == PERFREGS_EV_NMI))
		return -EINVAL;
	if (c->wakeup_bytes > data_size)
		return -EINVAL;
	if ((c->flags & PERFREGS_CF_NMI_UNKNOWN) && c->event != PERFREGS_EV_NMI)
		return -EINVAL;
	if (c->stack_bytes % 8 || c->stack_bytes > PERFREGS_MAX_STACK_BYTES)
		return -EINVAL;
	/* kernel call chains: of kernel-mode samples, never excluded ones */
	if (c->kchain_max > PERFREGS_MAX_KCHAIN ||
	    (c->kchain_max && (c->flags & PERFREGS_CF_EXCLUDE_KERNEL)))
		return -EINVAL;
	/* user call chains: of every sample with user registers */
	if (c->uchain_max > PERFREGS_MAX_UCHAIN)
		return -EINVAL;
	/*
	 * A record must fit in half the buffer.  Without simd_mask no SIMD
	 * section is written, nor a chain without kchain_max or uchain_max:
	 * ABI minor 0's largest stack still fits.
	 */
	if (PRF_MAX_REGS_RECORD(c) +
	    (c->simd_mask ? prf_simd_size(c->simd_mask, true) : 0) +
	    (c->kchain_max ? prf_chain_size(c->kchain_max) : 0) +
	    (c->uchain_max ? prf_chain_size(c->uchain_max) : 0) +
	    c->stack_bytes > data_size / 2)
		return -EINVAL;
	if (c->cpus_ptr ? (c->pid >= 0 || !c->cpus_bytes || c->cpus_bytes % 8 ||
			   c->cpus_bytes > PERFREGS_MAX_CPU_BYTES) : c->cpus_bytes)
		return -EINVAL;
	if (c->event == PERFREGS_EV_BREAKPOINT) {
		if (!c->bp_type || c->bp_type & ~(PERFREGS_BP_R | PERFREGS_BP_W |
						  PERFREGS_BP_X))
			return -EINVAL;
		if ((c->bp_type & PERFREGS_BP_X) ?
		    c->bp_type != PERFREGS_BP_X || c->bp_len != sizeof(long) :
		    c->bp_len != 1 && c->bp_len != 2 && c->bp_len != 4 &&
		    c->bp_len != 8)
			return -EINVAL;
	} else if (c->bp_addr || c->bp_type || c->bp_len) {
		return -EINVAL;
	}
	if (c->reserved0)
		return -EINVAL;
	for (i = 0; i < ARRAY_SIZE(c->reserved); i++)
		if (c->reserved[i])
			return -EINVAL;
	return 0;
}

/* The CPU bitmap of the configuration, checked against possible CPUs. */
static int prf_config_cpus(struct cpumask *cpus, const struct perfregs_config *c)
{
	unsigned long *bits;
	unsigned int nbits = c->cpus_bytes * 8;
	int ret = 0;

	if (!c->cpus_ptr) {
		cpumask_copy(cpus, cpu_possible_mask);
		return 0;
	}
	bits = bitmap_zalloc(nbits, GFP_KERNEL);
	if (!bits)
		return -ENOMEM;
	if (copy_from_user(bits, u64_to_user_ptr(c->cpus_ptr), c->cpus_bytes)) {
		ret = -EFAULT;
		goto out_free_bits;
	}
	/* No CPU, or a CPU that can never exist, is a mistake. */
	if (bitmap_empty(bits, nbits) ||
	    find_next_bit(bits, nbits, nr_cpu_ids) < nbits) {
		ret = -EINVAL;
		goto out_free_bits;
	}
	cpumask_clear(cpus);
	bitmap_copy(cpumask_bits(cpus), bits, min(nbits, nr_cpu_ids));
	cpumask_and(cpus, cpus, cpu_possible_mask);
	if (cpumask_empty(cpus))
		ret = -EINVAL;
out_free_bits:
	bitmap_free(bits);
	return ret;
}

/*
 * Called without s->lock: everything is copied from userspace first,
 * because a fault takes mmap_lock and mmap() holds mmap_lock while it
 * takes s->map_lock.
 */
/*
 * Copy a size-first structure in: copy_struct_from_user()'s convention.
 * The size is read once, and what follows is copied with that size; on
 * -E2BIG the caller learns the size we know, in its size field.
 */
static int prf_copy_in(void *dst, size_t ksize, void __user *arg,
		       size_t min_size)
{
	u32 usize;
	int ret;

	if (get_user(usize, (u32 __user *)arg))
		return -EFAULT;
	if (usize < min_size)
		return -EINVAL;
	ret = usize > PAGE_SIZE ? -E2BIG :
	      copy_struct_from_user(dst, ksize, arg, usize);
	if (ret == -E2BIG && put_user((u32)ksize, (u32 __user *)arg))
		ret = -EFAULT;
	/* what was copied holds the user's size: ours from here on */
	if (!ret)
		*(u32 *)dst = ksize;
	return ret;
}

static int prf_ioc_config(struct prf_session *s, void __user *arg)
{
	struct perfregs_config cfg;
	struct prf_grant grant = { };
	struct pid *target = NULL;
	unsigned long pages;
	cpumask_var_t cpus;
	int ret;

	ret = prf_copy_in(&cfg, sizeof(cfg), arg, PERFREGS_CONFIG_SIZE_VER0);
	if (ret)
		return ret;
	ret = prf_check_config(&cfg);
	if (ret)
		return ret;
	if (!zalloc_cpumask_var(&cpus, GFP_KERNEL))
		return -ENOMEM;
	ret = prf_config_cpus(cpus, &cfg);
	if (ret)
		goto out_free_cpus;
	if (cfg.pid >= 0) {
		target = find_get_pid(cfg.pid);
		if (!target) {
			ret = -ESRCH;
			goto out_free_cpus;
		}
	}
	ret = prf_policy_config(&cfg, target, &grant);
	if (ret)
		goto out_release_grant;

	mutex_lock(&s->lock);
	mutex_lock(&s->map_lock);
	if (s->running || atomic_read(&s->mmaps)) {
		ret = -EBUSY;
		goto out_unlock;
	}
	prf_session_free_rings(s);
	s->configured = false;
	/* the old rings' charge back first, then the new ones' */
	prf_grant_release(&s->grant);
	s->pid_ns = NULL;
	/* every ring: its data pages and its control page */
	pages = cpumask_weight(cpus) * (cfg.data_pages + 1UL);
	ret = prf_policy_charge(&grant, pages);
	if (ret)
		goto out_unlock;
	s->cfg = cfg;
	cpumask_copy(s->cpus, cpus);
	put_pid(s->target);
	s->target = target;
	target = NULL;
	swap(s->grant, grant);	/* grant is now the empty old one */
	s->pid_ns = s->grant.pid_ns == &init_pid_ns ? NULL : s->grant.pid_ns;
	ret = prf_session_alloc_rings(s);
	if (ret)
		goto out_unlock;
	s->data_pages = cfg.data_pages;
	prf_sample_setup(s);
	s->configured = true;

out_unlock:
	mutex_unlock(&s->map_lock);
	mutex_unlock(&s->lock);
out_release_grant:
	prf_grant_release(&grant);
	put_pid(target);
out_free_cpus:
	free_cpumask_var(cpus);
	return ret;
}

static int prf_ioc_reset(struct prf_session *s)
{
	int cpu;

	if (!s->configured)
		return -EINVAL;
	if (s->running)
		return -EBUSY;
	for_each_possible_cpu(cpu)
		if (s->rings[cpu])
			prf_ring_reset(s->rings[cpu]);
	return 0;
}

static int prf_ioc_start(struct prf_session *s)
{
	int ret, cpu;

	if (!s->configured)
		return -EINVAL;
	if (s->running)
		return -EBUSY;
	if (s->target && !pid_has_task(s->target, PIDTYPE_TGID))
		return -ESRCH;
	for_each_cpu(cpu, s->cpus)
		prf_ring_resume(s->rings[cpu]);
	WRITE_ONCE(s->running, true);
	if (s->cfg.event == PERFREGS_EV_NMI)
		ret = prf_nmi_start(s);
	else
		ret = prf_perf_start(s);
	if (ret)
		WRITE_ONCE(s->running, false);
	return ret;
}

static int prf_ioc_version(void __user *arg)
{
	struct perfregs_version v = {
		.size = sizeof(v),
		.major = PERFREGS_ABI_MAJOR,
		.minor = PERFREGS_ABI_MINOR,
		.page_size = PAGE_SIZE,
		.nr_cpu_ids = nr_cpu_ids,
		.simd_offered = prf_simd_offered(),
	};
	u32 usize;

	/* the caller says how much room it has; we fill it, zeroing the rest */
	if (get_user(usize, (u32 __user *)arg))
		return -EFAULT;
	if (usize < PERFREGS_VERSION_SIZE_VER0)
		return -EINVAL;
	if (usize > PAGE_SIZE)
		return put_user((u32)sizeof(v), (u32 __user *)arg) ? -EFAULT : -E2BIG;
	if (copy_to_user(arg, &v, min_t(u32, usize, sizeof(v))))
		return -EFAULT;
	if (usize > sizeof(v) && clear_user(arg + sizeof(v), usize - sizeof(v)))
		return -EFAULT;
	return 0;
}

/*
 * The ioctls are told apart by type, number and direction; the size
 * bits are ignored, as the structures carry their own size (see the
 * uapi header).  The ones without an argument must match exactly.
 */
#define PRF_IOC_SIZELESS(cmd)	((cmd) & ~(_IOC_SIZEMASK << _IOC_SIZESHIFT))

/**
 * prf_session_ioctl() - the ioctls of include/uapi/linux/perfregs.h
 * @s: the session
 * @cmd: PERFREGS_IOC_*
 * @arg: its argument in user memory
 *
 * Told apart as PRF_IOC_SIZELESS() says.  VERSION and CONFIG touch user
 * memory and run without s->lock; the others hold it.
 *
 * Context: process context, may sleep.
 * Return: 0 or a negative errno, as the uapi header says per ioctl;
 * -ENOTTY for an unknown one.
 */
long prf_session_ioctl(struct prf_session *s, unsigned int cmd,
		       void __user *arg)
{
	long ret;

	/* These two touch user memory: no s->lock around them. */
	if (PRF_IOC_SIZELESS(cmd) == PRF_IOC_SIZELESS(PERFREGS_IOC_VERSION))
		return prf_ioc_version(arg);
	if (PRF_IOC_SIZELESS(cmd) == PRF_IOC_SIZELESS(PERFREGS_IOC_CONFIG))
		return prf_ioc_config(s, arg);

	mutex_lock(&s->lock);
	switch (cmd) {
	case PERFREGS_IOC_START:
		ret = prf_ioc_start(s);
		break;
	case PERFREGS_IOC_STOP:
		prf_session_stop(s);
		ret = 0;
		break;
	case PERFREGS_IOC_RESET:
		ret = prf_ioc_reset(s);
		break;
	default:
		ret = -ENOTTY;
		break;
	}
	mutex_unlock(&s->lock);
	return ret;
}

static void prf_vma_open(struct vm_area_struct *vma)
{
	struct prf_session *s = vma->vm_private_data;

	atomic_inc(&s->mmaps);
}

static void prf_vma_close(struct vm_area_struct *vma)
{
	struct prf_session *s = vma->vm_private_data;

	atomic_dec(&s->mmaps);
}

static const struct vm_operations_struct prf_vm_ops = {
	.open = prf_vma_open,
	.close = prf_vma_close,
};

/**
 * prf_session_mmap() - map a ring's control page or data pages
 * @s: the session
 * @vma: the mapping: its offset names the CPU and which part
 *	(PERFREGS_MMAP_CTL(), PERFREGS_MMAP_DATA())
 *
 * Context: mmap(), with mmap_lock held: takes only s->map_lock.
 * Return: 0, -EINVAL for a wrong offset, length or a private mapping,
 * -EPERM for writable data pages, or the error of the insertion.
 */
int prf_session_mmap(struct prf_session *s, struct vm_area_struct *vma)
{
	unsigned long len = vma->vm_end - vma->vm_start;
	unsigned long stride, cpu, idx;
	struct prf_ring *rb;
	void *area;
	int ret = -EINVAL;

	if (!(vma->vm_flags & VM_SHARED))
		return -EINVAL;

	mutex_lock(&s->map_lock);
	if (!s->configured)
		goto out_unlock;
	stride = s->data_pages + 1UL;
	cpu = vma->vm_pgoff / stride;
	idx = vma->vm_pgoff % stride;
	if (cpu >= nr_cpu_ids || !s->rings[cpu])
		goto out_unlock;
	rb = s->rings[cpu];

	if (idx == 0) {
		if (len != PAGE_SIZE)
			goto out_unlock;
		area = rb->ctl;
	} else if (idx == 1) {
		if (len != rb->size)
			goto out_unlock;
		if (vma->vm_flags & VM_WRITE) {
			ret = -EPERM;
			goto out_unlock;
		}
		/* Read-only for good: mprotect() cannot add PROT_WRITE. */
		prf_vm_flags_clear(vma, VM_MAYWRITE);
		area = rb->data;
	} else {
		goto out_unlock;
	}

	prf_vm_flags_set(vma, VM_DONTEXPAND | VM_DONTDUMP | VM_DONTCOPY);
	ret = prf_ring_map(vma, area, len);
	if (ret)
		goto out_unlock;
	vma->vm_private_data = s;
	vma->vm_ops = &prf_vm_ops;
	prf_vma_open(vma);

out_unlock:
	mutex_unlock(&s->map_lock);
	return ret;
}

/**
 * prf_session_poll() - what a reader of the session may do now
 * @s: the session
 * @file: its file
 * @wait: the poll table
 *
 * Context: poll(), process context; takes s->map_lock.
 * Return: EPOLLIN when a ring has a watermark's worth to read (or
 * anything once stopped), EPOLLPRI when a new task is unseen, EPOLLHUP
 * once nothing more will come, EPOLLERR before CONFIG.
 */
__poll_t prf_session_poll(struct prf_session *s, struct file *file,
			  poll_table *wait)
{
	__poll_t mask = 0;
	int cpu;

	poll_wait(file, &s->wq, wait);
	/*
	 * map_lock keeps CONFIG from swapping the rings under us; not
	 * s->lock, which START holds while it waits for an exec.
	 */
	mutex_lock(&s->map_lock);
	if (!s->configured) {
		mask = EPOLLERR;
		goto out_unlock;
	}
	smp_mb(); /* F: new_tasks_seen store before these loads; pairs with E */
	for_each_possible_cpu(cpu) {
		struct prf_ring *rb = s->rings[cpu];

		if (!rb)
			continue;
		if (prf_ring_readable(rb))
			mask |= EPOLLIN | EPOLLRDNORM;
		if (prf_ring_new_tasks_unseen(rb))
			mask |= EPOLLPRI;
	}
	/* Nothing more will come: stopped, or the target process is gone. */
	if (!READ_ONCE(s->running) ||
	    (s->target && !pid_has_task(s->target, PIDTYPE_TGID)))
		mask |= EPOLLHUP;
out_unlock:
	mutex_unlock(&s->map_lock);
	return mask;
}
