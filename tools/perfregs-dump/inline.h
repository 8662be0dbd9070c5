/* SPDX-License-Identifier: GPL-2.0 */
/*
 * inline.c: the functions inlined at an address of a file and the source
 * line of each frame, from the file's DWARF (libdw's scopes), found once
 * per (file, address) and kept.
 */
#ifndef PERFREGS_DUMP_INLINE_H
#define PERFREGS_DUMP_INLINE_H

#include "types.h"

/*
 * The budgets (docs/perfregs-dump.1, INLINE FRAMES): inlined frames kept
 * at one address (the innermost; a deeper nesting is cut, said once),
 * bytes of a name, and bytes of every address's frames together, for the
 * whole decode (past it, an address not met yet shows no inlined frames
 * nor lines, said once).
 */
#define INLINE_DEPTH_MAX	32
#define INLINE_NAME_MAX		320
#define INLINE_BYTES_MAX	(64U << 20)

/* An inlined function at an address, a frame of its own. */
struct inl_frame {
	const char *name;	/* as the DWARF names it (its linkage name, else its name) */
	const char *shown;	/* demangled (demangle.c), or name */
	const char *src;	/* "FILE:LINE" (the file's last name) in it, or "" */
	const char *file;	/* that file in full, or "" */
	int line;		/* 0: not known */
};

/*
 * What is at one address of a file: its inlined frames, innermost first
 * (none when the address is in no inlined code), then the line in the
 * function the symbol table names: where the outermost was inlined, or
 * the address's own.  Valid until inlines_free().
 */
struct inl_chain {
	unsigned int n;
	const char *src;	/* the function's own frame's "FILE:LINE", or "" */
	const char *file;
	int line;
	struct inl_frame f[];
};

/*
 * The chain at lookup (a task's address in mapping m): NULL when the
 * file has no DWARF there, cannot be read, or the budget is spent.  After
 * the first time, from the calling thread's own cache, without a lock.
 */
const struct inl_chain *mapping_inlines(struct machine *mach, struct mapping *m,
					uint64_t lookup);
/* The calling thread's cache goes (a worker is done: pool.c). */
void inline_thread_free(void);
/* Every chain, and the calling thread's cache. */
void inlines_free(struct machine *mach);

#endif
