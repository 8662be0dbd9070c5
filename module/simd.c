// SPDX-License-Identifier: GPL-2.0
/*
 * The SIMD state of the user frame: xmm, the upper halves of ymm, zmm
 * and the opmask registers, as the sample's task left them.
 *
 * Where the user's state is.  While a task runs in user mode its FPU
 * state is in the registers.  When it enters the kernel the registers
 * keep it until the kernel wants them: kernel_fpu_begin() and the
 * context switch save the user's state to the task's fpstate and set
 * TIF_NEED_FPU_LOAD, and the return to user mode restores it and clears
 * the flag (arch/x86/kernel/fpu/core.c, asm/fpu/sched.h, 6.1 and 6.12).
 * kernel_fpu_begin() sets the flag before it saves, and the kernel
 * touches no register before it saved, so with the flag clear the
 * registers are the user's; with it set they may be anything, the
 * kernel's own values included, and this module then reports nothing.
 * The context switch saves with interrupts off, before it sets the
 * next task's flag: an NMI there could find the registers of one task
 * with current still the other, so a sample that interrupted the kernel
 * with interrupts off reports nothing either.  KVM swaps a guest's
 * state into the registers with the task's fpstate pointer set to the
 * guest's (fpstate->is_guest): nothing then.  Whatever else changes the
 * registers or the fpstate pointer runs inside fpregs_lock(), and there
 * the two may disagree: KVM's fpu_swap_kvm_fpstate(), leaving the guest,
 * points fpstate back at the task's before its XRSTOR puts the task's
 * values back, with interrupts on and the flag clear.  So a sample that
 * interrupted the kernel inside fpregs_lock() reports nothing too
 * (prf_in_fpregs_lock()).
 *
 * How it is read: XSAVE of the components asked for, in the standard
 * format, into a per-CPU area of our own (XSAVE reads the registers and
 * changes none of them, nor the tracking XSAVEOPT and XSAVES rely on,
 * which only XRSTOR and XRSTORS set).  Samples nest on a CPU (an NMI
 * in a hardirq in a page fault), so each CPU has PRF_SIMD_SLOTS areas,
 * taken in nesting order by a per-CPU depth.  A component in its
 * initial state (its XSTATE_BV bit clear) may be left unwritten by the
 * processor: it is reported as zeros, never as what the area held.
 */
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/kmsan-checks.h>
#include <asm/cpufeature.h>
#include <asm/fpu/types.h>
#include <asm/fpu/xcr.h>
#include <asm/processor.h>
#include <asm/ptrace.h>
#include "ring.h"
#include "simd.h"

#define PRF_SIMD_SLOTS		4	/* task, softirq, hardirq, NMI deep */
#define PRF_XSAVE_LEGACY_XMM	160	/* xmm0-15 in the legacy region */
#define PRF_XSAVE_LEGACY_MXCSR	24
#define PRF_XSAVE_XSTATE_BV	512	/* the first word of the header */

/* XSAVE state components (SDM vol. 1, 13.1) */
enum {
	PRF_XC_SSE = 1,
	PRF_XC_YMM = 2,
	PRF_XC_OPMASK = 5,
	PRF_XC_ZMM_HI256 = 6,
	PRF_XC_HI16_ZMM = 7,
	PRF_XC_MAX = 8,
};

static u64 prf_offered;
static u32 prf_xoff[PRF_XC_MAX];	/* standard-format offsets */
static u32 prf_area_size;		/* one slot, a multiple of 64 */
static void __percpu *prf_slots;
static DEFINE_PER_CPU(unsigned int, prf_simd_depth);
static const u8 prf_zeros[16 * 64];	/* the largest part: zmm16-31 */

/**
 * prf_simd_offered() - the SIMD state this CPU and kernel offer
 *
 * Context: any, after prf_simd_init().
 * Return: a PERFREGS_SIMD_* mask, for VERSION and CONFIG's check.
 */
u64 prf_simd_offered(void)
{
	return prf_offered;
}

/* The XSAVE components a PERFREGS_SIMD_* mask needs. */
static u64 prf_rfbm(u64 components)
{
	u64 rfbm = 0;

	if (components & PERFREGS_SIMD_XMM)
		rfbm |= BIT_ULL(PRF_XC_SSE);
	if (components & PERFREGS_SIMD_YMM)
		rfbm |= BIT_ULL(PRF_XC_YMM);
	if (components & PERFREGS_SIMD_ZMM)
		rfbm |= BIT_ULL(PRF_XC_ZMM_HI256) | BIT_ULL(PRF_XC_HI16_ZMM);
	if (components & PERFREGS_SIMD_OPMASK)
		rfbm |= BIT_ULL(PRF_XC_OPMASK);
	return rfbm;
}

/**
 * prf_simd_init() - find what XSAVE offers, and the per-CPU areas
 *
 * Nothing offered without XSAVE (or the kernel's XCR0): not an error.
 *
 * Context: module init.
 * Return: 0, or -ENOMEM for the areas.
 */
int prf_simd_init(void)
{
	static const u64 want[] = {
		PERFREGS_SIMD_XMM, PERFREGS_SIMD_YMM, PERFREGS_SIMD_ZMM,
		PERFREGS_SIMD_OPMASK,
	};
	u32 eax, ebx, ecx, edx, end = PRF_XSAVE_XSTATE_BV + 64;
	u64 xcr0, rfbm;
	int i, c;

	if (!boot_cpu_has(X86_FEATURE_XSAVE) || !boot_cpu_has(X86_FEATURE_OSXSAVE))
		return 0;	/* nothing offered */
	xcr0 = xgetbv(XCR_XFEATURE_ENABLED_MASK);
	for (i = 0; i < ARRAY_SIZE(want); i++) {
		rfbm = prf_rfbm(want[i]);
		if ((xcr0 & rfbm) != rfbm)
			continue;
		if (want[i] == PERFREGS_SIMD_YMM && !boot_cpu_has(X86_FEATURE_AVX))
			continue;
		if (want[i] & (PERFREGS_SIMD_ZMM | PERFREGS_SIMD_OPMASK) &&
		    !boot_cpu_has(X86_FEATURE_AVX512F))
			continue;
		prf_offered |= want[i];
	}
	rfbm = prf_rfbm(prf_offered);
	for (c = PRF_XC_YMM; c < PRF_XC_MAX; c++) {
		if (!(rfbm & BIT_ULL(c)))
			continue;
		cpuid_count(0xd, c, &eax, &ebx, &ecx, &edx);
		prf_xoff[c] = ebx;
		end = max(end, ebx + eax);
	}
	prf_area_size = ALIGN(end, 64);
	if (!prf_offered)
		return 0;
	prf_slots = __alloc_percpu(PRF_SIMD_SLOTS * prf_area_size, 64);
	if (!prf_slots) {
		prf_offered = 0;
		return -ENOMEM;
	}
	return 0;
}

/**
 * prf_simd_exit() - free the per-CPU areas
 *
 * Context: module exit, once no sample can run any more.
 */
void prf_simd_exit(void)
{
	free_percpu(prf_slots);
	prf_slots = NULL;
}

/**
 * prf_simd_size() - the bytes of a SIMD section
 * @components: the PERFREGS_SIMD_* it carries
 * @is64: of a 64-bit frame (16 vector registers, else 8)
 *
 * Context: any.
 * Return: the size of struct perfregs_rec_simd and its data.
 */
u32 prf_simd_size(u64 components, bool is64)
{
	u32 n = is64 ? 16 : 8, size = sizeof(struct perfregs_rec_simd);

	if (components & PERFREGS_SIMD_XMM)
		size += n * 16;
	if (components & PERFREGS_SIMD_YMM)
		size += n * 16;
	if (components & PERFREGS_SIMD_ZMM)
		size += n * 32 + (is64 ? 16 * 64 : 0);
	if (components & PERFREGS_SIMD_OPMASK)
		size += 8 * 8;
	return size;
}

static __always_inline void prf_xsave(void *area, u64 rfbm)
{
	asm volatile("xsave64 (%[area])"
		     : : [area] "D" (area), "a" ((u32)rfbm), "d" ((u32)(rfbm >> 32))
		     : "memory");
	/*
	 * KMSAN cannot see the stores an asm statement makes: the bytes of
	 * the components asked for were written by XSAVE just now (or are
	 * reported as zeros, by XSTATE_BV, which XSAVE writes too).
	 */
	kmsan_unpoison_memory(area, prf_area_size);
}

/*
 * Whether current's FPU state is a KVM guest's (KVM_RUN, nearly all of
 * it).  Only current swaps the pointer, and frees the state it replaced
 * only after the swap (fpstate_realloc()); a guest's is freed only once
 * it is no longer in use.  Both are vmalloc'ed or in the task: no fault.
 */
static __always_inline bool prf_task_runs_guest(void)
{
	const struct fpstate *fps = READ_ONCE(current->thread.fpu.fpstate);

	return fps && fps->is_guest;
}

/*
 * Whether the interrupted kernel code may be inside fpregs_lock(), which
 * is local_bh_disable() without PREEMPT_RT and preempt_disable() with
 * it (asm/fpu/api.h, 6.1 and 6.12).  Over-approximate: any section with
 * bottom halves (or preemption) off counts.
 *
 * The interrupted code's counts are in preempt_count(): a hard interrupt
 * and an NMI add only HARDIRQ_OFFSET and NMI_OFFSET.  A kernel-mode
 * sample in task context with interrupts on (those off never get here)
 * is a page fault's perf_sw_event(), which disables preemption itself,
 * so on RT the preemption count says nothing there; but a fault
 * with preemption or bottom halves off returns before perf counts it
 * (faulthandler_disabled() is true in atomic context), so that fault
 * site was not inside fpregs_lock().  Without RT a bottom-half disable
 * counts SOFTIRQ_DISABLE_OFFSET and serving a softirq SOFTIRQ_OFFSET,
 * which is no fpregs_lock(): it is left out.
 */
static __always_inline bool prf_in_fpregs_lock(void)
{
	unsigned int pc = preempt_count();

	if (!IS_ENABLED(CONFIG_PREEMPT_RT))
		return pc & SOFTIRQ_MASK & ~SOFTIRQ_OFFSET;
	if (!(pc & (HARDIRQ_MASK | NMI_MASK)))
		return false;
	return pc & PREEMPT_MASK;
}

/**
 * prf_simd_take() - take the user's SIMD state for one sample
 * @st: the sample's state, filled in
 * @asked: the PERFREGS_SIMD_* the session asks for
 * @is64: the user frame is 64-bit
 * @regs: the registers the interrupt handed over
 *
 * Decides whether the user's state is known (see the top of this file)
 * and, if so, saves it with XSAVE into a per-CPU slot of its own; else
 * st->unknown says why.  prf_simd_put() must follow, innermost sample
 * first.
 *
 * Context: the sample path, any context (NMI too), preemption off.
 */
void prf_simd_take(struct prf_simd *st, u64 asked, bool is64,
		   struct pt_regs *regs)
{
	unsigned int depth;
	void *area;

	st->components = 0;
	st->unknown = PERFREGS_SIMD_KNOWN;
	st->mxcsr = 0;
	st->is64 = is64;
	st->slot_held = false;
	if (!user_mode(regs) && !(regs->flags & X86_EFLAGS_IF)) {
		st->unknown = PERFREGS_SIMD_UNKNOWN_IRQS_OFF;
		return;
	}
	if (test_thread_flag(TIF_NEED_FPU_LOAD)) {
		st->unknown = PERFREGS_SIMD_UNKNOWN_SAVED;
		return;
	}
	if (prf_task_runs_guest()) {
		st->unknown = PERFREGS_SIMD_UNKNOWN_GUEST;
		return;
	}
	if (!user_mode(regs) && prf_in_fpregs_lock()) {
		st->unknown = PERFREGS_SIMD_UNKNOWN_FPREGS_LOCKED;
		return;
	}
	depth = this_cpu_inc_return(prf_simd_depth) - 1;
	st->slot_held = true;
	if (depth >= PRF_SIMD_SLOTS) {
		st->unknown = PERFREGS_SIMD_UNKNOWN_NESTED;
		return;
	}
	area = (u8 *)this_cpu_ptr(prf_slots) + depth * prf_area_size;
	/*
	 * XSAVE keeps the XSTATE_BV bits outside the components it saves:
	 * cleared first, none can say an earlier sample's bytes are ours.
	 */
	*(u64 *)(area + PRF_XSAVE_XSTATE_BV) = 0;
	prf_xsave(area, prf_rfbm(asked));
	/*
	 * An interrupt between the test of TIF_NEED_FPU_LOAD above and the
	 * XSAVE may have run kernel_fpu_begin() (allowed in hardirq with
	 * softirqs enabled, as in a page-fault sample with IRQs on): it
	 * sets the flag before it puts the kernel's values into the
	 * registers, and only the task clears it.  Set now: what XSAVE
	 * took may be the kernel's, and is dropped.
	 */
	barrier();
	if (test_thread_flag(TIF_NEED_FPU_LOAD)) {
		st->unknown = PERFREGS_SIMD_UNKNOWN_SAVED;
		return;
	}
	st->area = area;
	st->components = asked;
	if (asked & PERFREGS_SIMD_XMM)
		st->mxcsr = *(u32 *)(area + PRF_XSAVE_LEGACY_MXCSR);
}

/**
 * prf_simd_put() - give back the slot prf_simd_take() held
 * @st: the sample's state
 *
 * Context: the sample path, on the CPU that took it.
 */
void prf_simd_put(struct prf_simd *st)
{
	if (st->slot_held)
		this_cpu_dec(prf_simd_depth);
	st->slot_held = false;
}

/* One component's bytes, or zeros for a component in its initial state. */
static void prf_simd_part(struct prf_handle *h, const struct prf_simd *st,
			  int comp, u32 off, u32 len)
{
	u64 bv = *(const u64 *)(st->area + PRF_XSAVE_XSTATE_BV);

	prf_ring_write(h, bv & BIT_ULL(comp) ? st->area + off : prf_zeros, len);
}

/**
 * prf_simd_write() - copy a sample's SIMD section into its record
 * @h: the reservation, with prf_simd_size() bytes left for it
 * @st: the state prf_simd_take() took
 *
 * Components in their initial state are written as zeros.
 *
 * Context: the sample path, any context (NMI too).
 */
void prf_simd_write(struct prf_handle *h, const struct prf_simd *st)
{
	struct perfregs_rec_simd hdr = {
		.size = prf_simd_size(st->components, st->is64),
		.components = st->components,
		.nr_vec = st->is64 ? 16 : 8,
		.mxcsr = st->mxcsr,
		.unknown = st->unknown,
	};
	u32 n = hdr.nr_vec;

	prf_ring_write(h, &hdr, sizeof(hdr));
	if (st->components & PERFREGS_SIMD_XMM)
		prf_simd_part(h, st, PRF_XC_SSE, PRF_XSAVE_LEGACY_XMM, n * 16);
	if (st->components & PERFREGS_SIMD_YMM)
		prf_simd_part(h, st, PRF_XC_YMM, prf_xoff[PRF_XC_YMM], n * 16);
	if (st->components & PERFREGS_SIMD_ZMM) {
		prf_simd_part(h, st, PRF_XC_ZMM_HI256, prf_xoff[PRF_XC_ZMM_HI256], n * 32);
		if (st->is64)
			prf_simd_part(h, st, PRF_XC_HI16_ZMM, prf_xoff[PRF_XC_HI16_ZMM], 16 * 64);
	}
	if (st->components & PERFREGS_SIMD_OPMASK)
		prf_simd_part(h, st, PRF_XC_OPMASK, prf_xoff[PRF_XC_OPMASK], 8 * 8);
}
