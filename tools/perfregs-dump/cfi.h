/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cfi.c: the unwinder's fast path, and what unwind.c (libdwfl's
 * unwinding, above it) shares with it and no one else: an unwinder and
 * its context, the register numbering, the task's memory as the
 * sample's stack snapshot and its mapped files hold it.
 */
#ifndef PERFREGS_DUMP_CFI_H
#define PERFREGS_DUMP_CFI_H

#include <elfutils/libdwfl.h>
#include <string.h>
#include "types.h"

struct unwind_ctx {
	struct session *d;
	struct dthread *t;		/* the thread unwinding: its file cache */
	const struct perfregs_rec_sample *s;
	const struct task_maps *tm;
	enum layout layout;
	uint64_t regs[PERFREGS_REG_MAX];
	uint64_t have;			/* mask of regs[] known */
	const unsigned char *stack;
	uint64_t stack_len, sp;
	struct frame *frames;
	unsigned int n, max;
	bool called;		/* the first frame is a return address */
};

/*
 * One attached Dwfl per (task image, layout), reused for every sample of
 * it: libdw asks set_initial_registers() afresh on every
 * dwfl_getthread_frames(), so only the context it reads changes.
 */
struct fast_mod {
	uint64_t lo, hi;	/* the module's addresses, as libdwfl has them */
	uint64_t bias;		/* its load bias: CFI addresses are pc - bias */
	struct mapping *m;	/* the mapping that reported it */
	struct dso *shared;	/* its file's module, shared (mapping_dso()) */
	bool dw;		/* which has a .debug_frame */
	bool known, dw_known;
};

struct unwinder {
	const struct task_maps *tm;
	enum layout layout;
	Dwfl *dwfl;
	bool attached;
	struct unwind_ctx ctx;
	/* fast_unwind()'s view of the Dwfl's modules, once asked for */
	struct fast_mod *mods;
	unsigned int nmods, last;
	bool mods_known, fast_ok;
	struct unwinder *next;
};

/* DWARF register number -> perfregs, for each ABI's register file */
extern const int dwarf64[17];
extern const int dwarf32[9];

/*
 * A word of w bytes of the stack snapshot, if it holds it.  Of a fixed
 * size each, so that no memcpy() is called: that and memory_read() were
 * 18% of the user time of -f folded of xz's samples on the fast path.
 * Not addr - sp + w > stack_len: with sp below 8 and addr within 8 of
 * 2^64 (a frame pointer of a hostile sample, or one plus 8) the sum wraps
 * to a few bytes, and the word was read from before the snapshot.
 */
static inline bool stack_word(const struct unwind_ctx *c, uint64_t addr, size_t w,
			      Dwarf_Word *result)
{
	const unsigned char *p;
	uint32_t v32;
	uint64_t v64;

	if (addr < c->sp || c->stack_len < w || addr - c->sp > c->stack_len - w)
		return false;
	p = c->stack + (addr - c->sp);
	if (w == 8) {
		memcpy(&v64, p, 8);
		*result = v64;
	} else {
		memcpy(&v32, p, 4);
		*result = v32;
	}
	return true;
}

/* A word of the task's memory: the stack snapshot, else a mapped file. */
/* The file unwind_memory_read() keeps open for thread t, closed. */
void unwind_memory_free(struct dthread *t);
bool unwind_memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg);
/* An i386 sample left in the vDSO: its caller, found by its frame. */
bool unwind_vdso32_caller(struct unwind_ctx *c, Dwfl *dwfl);
/* The fast path (cfi.c): true if it unwound the sample of u->ctx. */
bool fast_unwind(struct session *d, struct dthread *th, struct unwinder *u);
bool fast_path_wanted(void);
void cfi_rules_free(struct dthread *t);

#endif
