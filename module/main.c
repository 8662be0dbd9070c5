// SPDX-License-Identifier: GPL-2.0
/*
 * perfregs: snapshot interrupt and user registers on every sample.
 *
 * The misc device /dev/perfregs; each open() is an independent session.
 */
#include <linux/module.h>
#include <linux/miscdevice.h>
#include <linux/fs.h>
#include <linux/capability.h>
#include "internal.h"
#include "inject.h"
#include "simd.h"
#include "chain.h"

static int prf_open(struct inode *inode, struct file *file)
{
	struct prf_session *s;

	/* Anyone may open; what a session may sample is checked at CONFIG. */
	s = prf_session_new();
	if (!s)
		return -ENOMEM;
	file->private_data = s;
	return nonseekable_open(inode, file);
}

static int prf_release(struct inode *inode, struct file *file)
{
	prf_session_free(file->private_data);
	return 0;
}

static long prf_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	return prf_session_ioctl(file->private_data, cmd, (void __user *)arg);
}

static int prf_mmap(struct file *file, struct vm_area_struct *vma)
{
	return prf_session_mmap(file->private_data, vma);
}

static __poll_t prf_poll(struct file *file, poll_table *wait)
{
	return prf_session_poll(file->private_data, file, wait);
}

static const struct file_operations prf_fops = {
	.owner = THIS_MODULE,
	.open = prf_open,
	.release = prf_release,
	.unlocked_ioctl = prf_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.mmap = prf_mmap,
	.poll = prf_poll,
};

static struct miscdevice prf_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "perfregs",
	.fops = &prf_fops,
	.mode = 0666,
};

static int __init prf_init(void)
{
	int ret;

	/* The user ABI has no implicit padding and fixed sizes. */
	BUILD_BUG_ON(sizeof(struct perfregs_config) != PERFREGS_CONFIG_SIZE_VER2);
	BUILD_BUG_ON(sizeof(struct perfregs_rec_kchain) % 8);
	BUILD_BUG_ON(sizeof(struct perfregs_rec_uchain) % 8);
	BUILD_BUG_ON(sizeof(struct perfregs_version) != PERFREGS_VERSION_SIZE_VER1);
	BUILD_BUG_ON(sizeof(struct perfregs_rec_simd) % 8);
	BUILD_BUG_ON(sizeof(struct perfregs_ctl) != 512);
	BUILD_BUG_ON(sizeof(struct perfregs_rec_sample) % 8);
	BUILD_BUG_ON(sizeof(struct perfregs_rec_lost) % 8);

	prf_inject_init(prf_sample);
	ret = prf_simd_init();
	if (ret)
		return ret;
	ret = prf_chain_init();
	if (ret)
		goto out_simd_exit;
	ret = prf_perf_init();
	if (ret)
		goto out_chain_exit;
	ret = misc_register(&prf_misc);
	if (ret)
		goto out_perf_exit;
	return 0;

out_perf_exit:
	prf_perf_exit();
out_chain_exit:
	prf_chain_exit();
out_simd_exit:
	prf_simd_exit();
	return ret;
}

/* Every session is gone (each held a module reference): no sample runs. */
static void __exit prf_exit(void)
{
	misc_deregister(&prf_misc);
	prf_perf_exit();
	prf_chain_exit();
	prf_simd_exit();
}

module_init(prf_init);
module_exit(prf_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Sample interrupt and user registers with their ABI");
MODULE_VERSION("1.0");
