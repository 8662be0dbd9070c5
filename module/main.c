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
#include "perfregs.h"

static int prf_open(struct inode *inode, struct file *file)
{
	struct prf_session *s;

	if (!perfmon_capable())
		return -EACCES;
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
	.mode = 0600,
};

static int __init prf_init(void)
{
	return misc_register(&prf_misc);
}

static void __exit prf_exit(void)
{
	misc_deregister(&prf_misc);
}

module_init(prf_init);
module_exit(prf_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Sample interrupt and user registers with their ABI");
MODULE_VERSION("1.0");
