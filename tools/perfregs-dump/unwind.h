/* SPDX-License-Identifier: GPL-2.0 */
/* unwind.c: DWARF CFI unwinding of a sample's user stack. */
#ifndef PERFREGS_DUMP_UNWIND_H
#define PERFREGS_DUMP_UNWIND_H

#include "types.h"


int unwind_sample(struct session *d, struct dthread *t,
		  const struct perfregs_rec_sample *s, enum layout layout,
		  const unsigned char *stack, uint64_t stack_len, struct frame *frames,
		  unsigned int max);

/*
 * A sample's user frames, leaf first, with --call-graph (d->o.callgraph):
 * its user call chain's (--call-graph fp), the leaf unwound by its CFI
 * from the stack first, or those unwound from its stack (dwarf); 0
 * without either.  At most max.
 */
int unwind_user(struct session *d, struct dthread *t, const struct perfregs_rec_sample *s,
		enum layout layout, const struct sample_stack *st, struct frame *frames,
		unsigned int max);

/* A frame of a sample as every output takes it (resolve_frames()). */
struct sample_frame {
	uint64_t ip;		/* as found: the IP, or a return address */
	uint64_t lookup;	/* the address whose symbol names it */
	const char *sym;	/* "name+0xoff", or "" */
	const char *dso;	/* its file, or "" */
	bool kernel;		/* a kernel frame: the IP or its call chain's */
	bool i386;		/* code the CPU ran in 32-bit mode */
	bool demangled;		/* sym is demangled (SYM_RAW: as its file has it) */
	struct mapping *map;	/* the user mapping it is in, NULL: none */
	bool inlined;		/* a function inlined at ip (resolve_inlines()) */
	const char *src;	/* "FILE:LINE" in it (resolve_inlines()), NULL or "": none */
};

/*
 * A sample's frames (resolve_frames()): its kernel IP, or its kernel
 * call chain (PERFREGS_MAX_KCHAIN entries at most), and the user frames,
 * SAMPLE_USER_FRAMES at most.
 */
#define SAMPLE_USER_FRAMES	128
#define SAMPLE_FRAMES_MAX	(PERFREGS_MAX_KCHAIN + SAMPLE_USER_FRAMES)
/*
 * The most frames a sample has with its inlined ones (resolve_inlines()):
 * past it the outermost callers are left out.
 */
#define SAMPLE_FRAMES_OUT	384

/*
 * The files the unwinders of all threads may hold open; a thread's least
 * share, and the shared unwinders' (--threads N: N + 1 shares).
 */
unsigned int unwind_files_max(void);
#define UNWIND_FILES_MIN	16

struct frame *unwind_frames(struct dthread *t);
void unwind_thread_free(struct dthread *t);
void unwind_shared_free(struct session *d);
void unwind_free(struct session *d);

#endif
