/* SPDX-License-Identifier: GPL-2.0 */
/* perfregs: the user frame's SIMD state, taken with XSAVE (simd.c). */
#ifndef PERFREGS_SIMD_H
#define PERFREGS_SIMD_H

#include <linux/types.h>
#include <linux/perfregs.h>

struct pt_regs;
struct prf_handle;

/* The PERFREGS_SIMD_* components this CPU and kernel offer. */
u64 prf_simd_offered(void);

int prf_simd_init(void);
void prf_simd_exit(void);

/* Bytes of a SIMD section carrying @components of a 64- or 32-bit frame. */
u32 prf_simd_size(u64 components, bool is64);

/*
 * One sample's SIMD state: prf_simd_take() decides whether the user's
 * state is known (from @regs, the registers the interrupt handed over)
 * and, if so, saves it with XSAVE into a per-CPU slot of its own; the
 * section then takes prf_simd_size() bytes, or only its header when the
 * state is unknown.  prf_simd_write() copies the section into the ring,
 * prf_simd_put() gives the slot back; put must follow every take,
 * innermost first (the slots nest as the samples do).
 */
struct prf_simd {
	u64 components;		/* carried; 0 when unknown */
	u32 unknown;		/* enum perfregs_simd_unknown */
	u32 mxcsr;
	bool is64;
	bool slot_held;
	void *area;		/* the XSAVE area of our slot */
};

void prf_simd_take(struct prf_simd *st, u64 asked, bool is64,
		   struct pt_regs *regs);
void prf_simd_write(struct prf_handle *h, const struct prf_simd *st);
void prf_simd_put(struct prf_simd *st);

#endif /* PERFREGS_SIMD_H */
