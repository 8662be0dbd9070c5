// SPDX-License-Identifier: GPL-2.0
/*
 * User call chains through frame pointers, walked at sample time from
 * the sample's user registers, as perf's perf_callchain_user() walks
 * them for PERF_SAMPLE_CALLCHAIN: a frame is { the caller's frame
 * pointer, the return address } at the frame pointer, in 8-byte slots
 * for 64-bit code (x32's too: its call pushes 8 bytes) and 4-byte slots
 * for 32-bit code.  The slot size is the ABI of the sample's user frame,
 * taken from its CS (perfregs_rec_sample.abi), so a 64-bit task running
 * 32-bit code is walked as perf_callchain_user32() walks a compat frame.
 *
 * Every byte read is the user's, and hostile.  The first read goes
 * through copy_from_user_nmi(), which reads nothing where the interrupt
 * may have hit a switch of mm (nmi_uaccess_okay(), not exported); once
 * it has read, the rest of the walk runs in the same context on the
 * same mm and reads each word with __get_user() under pagefault_disable(),
 * as perf_callchain_user() does.  No read takes a fault, so a frame that
 * is not in memory ends the walk; a frame pointer that is no user
 * address, not aligned to its slots, or not above the frame before ends
 * it too, so the walk never loops and reads at most @max frames.
 * Nothing here sleeps, locks or allocates: the entries go into the
 * sample's slot (chain.c).
 */
#include <linux/uaccess.h>
#include <asm/ptrace.h>
#include "chain.h"

/* The user frame of 64-bit code: what "push %rbp; mov %rsp,%rbp" left. */
struct prf_uframe64 {
	u64 next;
	u64 ret;
};

/* ... of 32-bit code: "push %ebp; mov %esp,%ebp". */
struct prf_uframe32 {
	u32 next;
	u32 ret;
};

/*
 * Read the frame at @fp into *@next and *@ret; false and a status bit
 * when it is not a frame the walk may read.  @first: the walk's first
 * read, through copy_from_user_nmi(); the others with __get_user(), the
 * caller's pagefault_disable() held (under -icount, bench/regsets, 126
 * instructions a sample fewer for fpchain's four frames after the
 * first, 2607 to 2481).  @fp is checked to be a user address first:
 * __get_user() does not check it.
 */
static bool prf_uframe_read(unsigned long fp, bool is32, bool first,
			    unsigned long *next, unsigned long *ret, u32 *status)
{
	unsigned long slot = is32 ? 4 : 8;
	unsigned long top = is32 ? 1UL << 32 : TASK_SIZE_MAX;

	if ((fp & (slot - 1)) || fp > top - 2 * slot) {
		*status |= PERFREGS_UCHAIN_BAD_FRAME;
		return false;
	}
	if (is32) {
		const struct prf_uframe32 __user *u = (const void __user *)fp;
		struct prf_uframe32 f;

		if (first ? copy_from_user_nmi(&f, u, sizeof(f)) :
			    __get_user(f.next, &u->next) || __get_user(f.ret, &u->ret))
			goto fault;
		*next = f.next;
		*ret = f.ret;
	} else {
		const struct prf_uframe64 __user *u = (const void __user *)fp;
		struct prf_uframe64 f;

		if (first ? copy_from_user_nmi(&f, u, sizeof(f)) :
			    __get_user(f.next, &u->next) || __get_user(f.ret, &u->ret))
			goto fault;
		*next = f.next;
		*ret = f.ret;
	}
	return true;
fault:
	*status |= PERFREGS_UCHAIN_FAULT;
	return false;
}

/**
 * prf_uchain_walk() - walk the user call chain of a sample
 * @c: the sample's chains, its slot taken
 * @uregs: the sample's user registers (the interrupted frame's, or the
 *	entry frame's)
 * @is32: the user frame is 32-bit code (PERFREGS_ABI_32)
 * @max: at most this many entries, 1 to PERFREGS_MAX_UCHAIN
 *
 * The user IP first, then the return address of each frame, from the
 * frame @uregs' frame pointer names on.  The walk ends at a frame
 * pointer or return address of 0 (the outermost frame), or with a
 * status bit (see struct perfregs_rec_uchain).
 *
 * Context: the sample path, any context (NMI too), preemption off.
 */
void prf_uchain_walk(struct prf_chain *c, struct pt_regs *uregs, bool is32,
		     u32 max)
{
	unsigned long fp, next, ret;
	u64 *ips;
	u32 n = 0;

	if (!c->slot)
		return;
	ips = c->slot + PERFREGS_MAX_KCHAIN;
	max = min_t(u32, max, PERFREGS_MAX_UCHAIN);
	/* a 32-bit frame's upper halves are not its own (see mixed mode) */
	ips[n++] = is32 ? (u32)uregs->ip : uregs->ip;
	fp = is32 ? (u32)uregs->bp : uregs->bp;
	pagefault_disable();	/* for __get_user(): no fault is taken */
	while (fp) {
		if (n >= max) {
			c->ustatus |= PERFREGS_UCHAIN_TRUNCATED;
			break;
		}
		if (!prf_uframe_read(fp, is32, n == 1, &next, &ret, &c->ustatus) || !ret)
			break;
		ips[n++] = ret;
		if (next && next <= fp) {
			c->ustatus |= PERFREGS_UCHAIN_BAD_FRAME;
			break;
		}
		fp = next;
	}
	pagefault_enable();
	c->unr = n;
}
