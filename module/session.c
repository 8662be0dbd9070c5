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
#include "perfregs.h"
#include "compat.h"

/* The largest per-CPU buffer: 16 MiB with 4 KiB pages. */
#define PRF_MAX_DATA_PAGES	4096U

struct prf_session *prf_session_new(void)
{
	struct prf_session *s;

	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return NULL;
	mutex_init(&s->lock);
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
	for_each_possible_cpu(cpu) {
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
	if (!s->running)
		return;
	prf_perf_stop(s);
	WRITE_ONCE(s->running, false);
	/* Let readers drain what is left below the watermark. */
	wake_up_interruptible_poll(&s->wq, EPOLLIN | EPOLLRDNORM);
}

void prf_session_free(struct prf_session *s)
{
	mutex_lock(&s->lock);
	prf_session_stop(s);
	prf_session_free_rings(s);
	mutex_unlock(&s->lock);
	kfree(s);
}

static int prf_check_config(const struct perfregs_config *c)
{
	int i;

	if (c->flags & ~PERFREGS_CF_ALL)
		return -EINVAL;
	if (c->event >= PERFREGS_EV_MAX)
		return -EINVAL;
	if (!c->data_pages || !is_power_of_2(c->data_pages) ||
	    c->data_pages > PRF_MAX_DATA_PAGES)
		return -EINVAL;
	if (!c->period)
		return -EINVAL;
	if ((c->iregs_mask & ~PERFREGS_MASK_64) ||
	    (c->uregs_mask_64 & ~PERFREGS_MASK_64) ||
	    (c->uregs_mask_32 & ~PERFREGS_MASK_32))
		return -EINVAL;
	if (c->pid < -1)
		return -EINVAL;
	if (c->wakeup_bytes > ((u64)c->data_pages << PAGE_SHIFT))
		return -EINVAL;
	if ((c->flags & PERFREGS_CF_NMI_UNKNOWN) && c->event != PERFREGS_EV_NMI)
		return -EINVAL;
	for (i = 0; i < ARRAY_SIZE(c->reserved); i++)
		if (c->reserved[i])
			return -EINVAL;
	return 0;
}

static int prf_ioc_config(struct prf_session *s, void __user *arg)
{
	struct perfregs_config cfg;
	u32 usize;
	int ret;

	if (get_user(usize, (u32 __user *)arg))
		return -EFAULT;
	if (usize < PERFREGS_CONFIG_SIZE_VER0 || usize > PAGE_SIZE)
		return -EINVAL;
	ret = copy_struct_from_user(&cfg, sizeof(cfg), arg, usize);
	if (ret)
		return ret == -E2BIG ? -EINVAL : ret;
	ret = prf_check_config(&cfg);
	if (ret)
		return ret;
	if (s->running || atomic_read(&s->mmaps))
		return -EBUSY;

	prf_session_free_rings(s);
	s->configured = false;
	s->cfg = cfg;
	ret = prf_session_alloc_rings(s);
	if (ret)
		return ret;
	s->data_pages = cfg.data_pages;
	s->configured = true;
	return 0;
}

static int prf_ioc_start(struct prf_session *s)
{
	int ret;

	if (!s->configured)
		return -EINVAL;
	if (s->running)
		return -EBUSY;
	WRITE_ONCE(s->running, true);
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
	};
	u32 usize;

	if (get_user(usize, (u32 __user *)arg))
		return -EFAULT;
	if (usize < PERFREGS_VERSION_SIZE_VER0)
		return -EINVAL;
	return copy_to_user(arg, &v, min_t(u32, usize, sizeof(v))) ? -EFAULT : 0;
}

long prf_session_ioctl(struct prf_session *s, unsigned int cmd,
		       void __user *arg)
{
	long ret;

	if (cmd == PERFREGS_IOC_VERSION)
		return prf_ioc_version(arg);

	mutex_lock(&s->lock);
	switch (cmd) {
	case PERFREGS_IOC_CONFIG:
		ret = prf_ioc_config(s, arg);
		break;
	case PERFREGS_IOC_START:
		ret = prf_ioc_start(s);
		break;
	case PERFREGS_IOC_STOP:
		prf_session_stop(s);
		ret = 0;
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

int prf_session_mmap(struct prf_session *s, struct vm_area_struct *vma)
{
	unsigned long len = vma->vm_end - vma->vm_start;
	unsigned long stride, cpu, idx;
	struct prf_ring *rb;
	void *area;
	int ret = -EINVAL;

	if (!(vma->vm_flags & VM_SHARED))
		return -EINVAL;

	mutex_lock(&s->lock);
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

	ret = remap_vmalloc_range(vma, area, 0);
	if (ret)
		goto out_unlock;
	prf_vm_flags_set(vma, VM_DONTEXPAND | VM_DONTDUMP | VM_DONTCOPY);
	vma->vm_private_data = s;
	vma->vm_ops = &prf_vm_ops;
	prf_vma_open(vma);

out_unlock:
	mutex_unlock(&s->lock);
	return ret;
}

__poll_t prf_session_poll(struct prf_session *s, struct file *file,
			  poll_table *wait)
{
	__poll_t mask = 0;
	int cpu;

	poll_wait(file, &s->wq, wait);
	/* The rings only change under the lock, and only while unmapped. */
	if (!READ_ONCE(s->configured) || !s->rings)
		return EPOLLERR;
	for_each_possible_cpu(cpu) {
		if (s->rings[cpu] && prf_ring_readable(s->rings[cpu])) {
			mask = EPOLLIN | EPOLLRDNORM;
			break;
		}
	}
	if (!mask && !READ_ONCE(s->running))
		mask = EPOLLHUP;
	return mask;
}
