/* SPDX-License-Identifier: GPL-2.0 */
/*
 * resolve.c: a sample resolved, the one place the rules that every
 * writer follows live: which IP names a sample, whether it is the
 * kernel's, the register layout of its ABI, its symbol and its frames.
 */
#ifndef PERFREGS_DUMP_RESOLVE_H
#define PERFREGS_DUMP_RESOLVE_H

#include "types.h"
#include "images.h"
#include "unwind.h"

/* Addresses from here up are the kernel's (x86-64, 4- and 5-level paging). */
#define KERNEL_MIN	0xffff800000000000ULL

struct resolved {
	const struct perfregs_rec_sample *s;
	const struct sample_stack *st;
	const struct image *im;		/* the task's image, if known */
	struct decoded dd;		/* its ABI's layout (images.c) */
	const uint64_t *vals, *uvals;	/* its interrupt and user registers */
	bool in_user;			/* the interrupt hit user mode */
	bool have_ip;			/* the sample has an IP */
	/* the interrupted IP, else the user IP: what names the sample */
	uint64_t ip;
	char sym[320];			/* its symbol, "" (RESOLVE_SYM) */
	bool demangled;			/* sym is demangled: SYM_RAW names it as its file does */
	const char *dso;		/* the file of a user IP's mapping, "" (RESOLVE_SYM) */
};

enum { RESOLVE_SYM = 1 };	/* what resolve_sample() looks up */

/*
 * s (its stack checked: st) resolved by thread t: its image, layout and
 * IP; with RESOLVE_SYM and symbols wanted (d->o.symbols), the IP's
 * symbol, the kernel's or the task's mappings' at the sample's time.
 */
void resolve_sample(struct session *d, struct dthread *t,
		    const struct perfregs_rec_sample *s, const struct sample_stack *st,
		    unsigned int what, struct resolved *r);
/* Is addr the kernel's? */
static inline bool resolve_kernel_addr(uint64_t addr)
{
	return addr >= KERNEL_MIN;
}
/*
 * The kernel frames of a kernel-mode sample, innermost first: each entry
 * of its kernel call chain (return addresses named by the byte before
 * them), or its kernel IP alone, named sym.  How many (0 in user mode,
 * PERFREGS_MAX_KCHAIN at most).
 */
unsigned int resolve_kchain(struct session *d, struct dthread *t, const struct resolved *r,
			    const char *sym, struct sample_frame *f);
/*
 * The frames every output takes, leaf first: the kernel frames
 * (resolve_kchain()), then the user frames unwound from its stack
 * (--call-graph dwarf), or the user IP alone; sym names the IP.  How
 * many (SAMPLE_FRAMES_MAX at most).
 */
unsigned int resolve_frames(struct session *d, struct dthread *t, const struct resolved *r,
			    const char *sym, struct sample_frame *f);
/*
 * f[0..*n) with the functions inlined at each as frames of their own
 * (--inline, the default), and with src each frame's source line, into
 * out (max frames, SAMPLE_FRAMES_OUT will do); *n becomes how many.
 * Returns out, or f itself when there is nothing to add (--no-inline
 * or --no-symbols, no lines asked): no copy.
 */
const struct sample_frame *resolve_inlines(struct session *d, const struct sample_frame *f,
					   unsigned int *n, bool src, struct sample_frame *out,
					   unsigned int max);

#endif
