// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel call chains: the kernel's own unwinder (ORC on every kernel we
 * build for), walked at sample time from the sample's registers, as
 * perf's perf_callchain_kernel() walks it for PERF_SAMPLE_CALLCHAIN.
 *
 * A module may call __unwind_start(), unwind_next_frame() and
 * unwind_get_return_address() (EXPORT_SYMBOL_GPL); unwind_start() and
 * unwind_done() are inline in <asm/unwind.h>.  The walk takes no lock
 * and allocates nothing: the ORC tables of vmlinux are written once at
 * boot, a module's are found with __module_address() inside the walk's
 * own preempt_disable(), the stack is read only where get_stack_info()
 * says this CPU's task, IRQ, entry or exception stacks are (with a
 * mask against loops), and every warning is printk_deferred_once().
 * So it may run in NMI, as perf runs it there.
 *
 * Where it starts: a hardware interrupt's registers have EFLAGS bit 1
 * set (it always reads 1); the walk then starts at the interrupted
 * frame, whose IP is the first entry, since __unwind_start() goes past
 * the frame of the registers themselves.  A source that hands over
 * registers of its own making (the perf core's perf_fetch_caller_regs()
 * for a context switch: flags 0, sp its caller's frame) starts at that
 * frame instead, so no frame of the perf core or of this module is in
 * the chain.
 *
 * Samples nest on a CPU (an NMI in a hardirq in a page fault), so each
 * CPU has PRF_CHAIN_SLOTS slots, each of room for a kernel and a user
 * chain, taken in nesting order by a per-CPU depth, as simd.c's areas
 * are.  The user chain's walk is uchain.c's.
 */
#include <linux/percpu.h>
#include <linux/sched.h>
#include <asm/ptrace.h>
#include <asm/unwind.h>
#include "ring.h"
#include "chain.h"

#define PRF_CHAIN_SLOTS		4	/* task, softirq, hardirq, NMI deep */
#define PRF_CHAIN_SLOT_BYTES	((PERFREGS_MAX_KCHAIN + PERFREGS_MAX_UCHAIN) * \
				 sizeof(u64))

static void __percpu *prf_chain_slots;
static DEFINE_PER_CPU(unsigned int, prf_chain_depth);

/**
 * prf_chain_init() - the per-CPU slots
 *
 * Context: module init.
 * Return: 0, or -ENOMEM.
 */
int prf_chain_init(void)
{
	prf_chain_slots = __alloc_percpu(PRF_CHAIN_SLOTS * PRF_CHAIN_SLOT_BYTES,
					 sizeof(u64));
	return prf_chain_slots ? 0 : -ENOMEM;
}

/**
 * prf_chain_exit() - free the slots
 *
 * Context: module exit, or init failing after prf_chain_init(); no
 * sample runs (each session held a module reference).
 */
void prf_chain_exit(void)
{
	free_percpu(prf_chain_slots);
	prf_chain_slots = NULL;
}

/**
 * prf_chain_take() - a slot for the call chains of a sample
 * @c: the sample's chains, emptied
 *
 * Samples nested deeper than the slots get none: their chains say
 * NESTED, and hold no entry.  prf_chain_put() must follow.
 *
 * Context: the sample path, any context (NMI too), preemption off.
 */
void prf_chain_take(struct prf_chain *c)
{
	unsigned int depth;

	c->knr = 0;
	c->unr = 0;
	c->kstatus = 0;
	c->ustatus = 0;
	depth = this_cpu_inc_return(prf_chain_depth) - 1;
	c->slot_held = true;
	if (depth >= PRF_CHAIN_SLOTS) {
		c->slot = NULL;
		c->kstatus = PERFREGS_KCHAIN_NESTED;
		c->ustatus = PERFREGS_UCHAIN_NESTED;
		return;
	}
	c->slot = (u64 *)((u8 *)this_cpu_ptr(prf_chain_slots) +
			  depth * PRF_CHAIN_SLOT_BYTES);
}

/**
 * prf_chain_put() - give back the slot prf_chain_take() held
 * @c: the sample's chains
 *
 * Context: the sample path, on the CPU that took it.
 */
void prf_chain_put(struct prf_chain *c)
{
	if (c->slot_held)
		this_cpu_dec(prf_chain_depth);
	c->slot_held = false;
}

/*
 * The walk, out of line: struct unwind_state (about 100 bytes) is on
 * the stack only while it runs, not on every sample's path.
 */
static noinline u32 prf_kchain_unwind(struct pt_regs *regs, u64 *ips, u32 max,
				      u32 *status)
{
	struct unwind_state st;
	unsigned long addr;
	u32 n = 0;

	if (regs->flags & X86_EFLAGS_FIXED) {
		ips[n++] = regs->ip;
		unwind_start(&st, current, regs, NULL);
	} else {
		unwind_start(&st, current, NULL, (unsigned long *)regs->sp);
	}
	for (; !unwind_done(&st) && n < max; unwind_next_frame(&st)) {
		addr = unwind_get_return_address(&st);
		if (!addr)
			break;
		ips[n++] = addr;
	}
	/*
	 * Past the last entry stored, the loop's step already stands on the
	 * next frame: one left there is a frame the chain does not hold.
	 */
	if (n >= max && !unwind_done(&st) && unwind_get_return_address(&st))
		*status |= PERFREGS_KCHAIN_TRUNCATED;
	if (unwind_error(&st))
		*status |= PERFREGS_KCHAIN_UNRELIABLE;
	return n;
}

/**
 * prf_kchain_walk() - walk the kernel call chain of a sample
 * @c: the sample's chains, its slot taken
 * @regs: the registers the interrupt (or the perf core) handed over
 * @max: at most this many entries, 1 to PERFREGS_MAX_KCHAIN
 *
 * Context: the sample path, any context (NMI too), preemption off.
 */
void prf_kchain_walk(struct prf_chain *c, struct pt_regs *regs, u32 max)
{
	if (c->slot)
		c->knr = prf_kchain_unwind(regs, c->slot,
					   min_t(u32, max, PERFREGS_MAX_KCHAIN),
					   &c->kstatus);
}

/* A chain section: { nr, status, ips[nr] } (kernel and user alike). */
static void prf_chain_write(struct prf_handle *h, const u64 *ips, u32 nr,
			    u32 status)
{
	struct perfregs_rec_kchain hdr = {
		.nr = nr,
		.status = status,
	};

	prf_ring_write(h, &hdr, sizeof(hdr));
	if (nr)
		prf_ring_write(h, ips, 8 * nr);
}

/**
 * prf_kchain_write() - the kernel chain's section into the record
 * @h: the record's reservation, at the section's place
 * @c: the chains walked
 *
 * Context: the sample path, on the CPU that took it.
 */
void prf_kchain_write(struct prf_handle *h, const struct prf_chain *c)
{
	prf_chain_write(h, c->slot, c->knr, c->kstatus);
}

/**
 * prf_uchain_write() - the user chain's section into the record
 * @h: the record's reservation, at the section's place
 * @c: the chains walked
 *
 * Context: the sample path, on the CPU that took it.
 */
void prf_uchain_write(struct prf_handle *h, const struct prf_chain *c)
{
	prf_chain_write(h, c->slot ? c->slot + PERFREGS_MAX_KCHAIN : NULL,
			c->unr, c->ustatus);
}
