/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A tool of the session: what a command does with what a recording (or
 * a live run) delivers, in the recording's order, as perf's struct
 * perf_tool.  Every callback may be NULL.  A command embeds the struct
 * in its own state and gets back to it with container_of().
 */
#ifndef PERFREGS_DUMP_TOOL_H
#define PERFREGS_DUMP_TOOL_H

#include <stddef.h>
#include "types.h"

struct tool {
	/* a sample, checked and counted; its stack (and SIMD section) in st */
	void (*sample)(struct tool *t, int cpu, const struct perfregs_rec_sample *s,
		       const struct sample_stack *st);
	/* records the kernel could not write, checked and counted */
	void (*lost)(struct tool *t, int cpu, const struct perfregs_rec_lost *l);
	/* an image, maps of a task image: added to what the decoder knows */
	void (*image)(struct tool *t, const struct image *im);
	void (*maps)(struct tool *t, const struct task_maps *tm);
	/* a side-band event applied: a mapping made, an exec, a fork, an exit, a loss */
	void (*sb)(struct tool *t, const struct sb_event *ev);
	/* a kernel symbol, a vDSO image: added */
	void (*ksym)(struct tool *t, const struct ksym *k);
	void (*blob)(struct tool *t, const struct blob *b, const void *data);
	/* a JIT map's lines (jitmap.c) of process pid, nspid in its namespace */
	void (*jitmap)(struct tool *t, uint32_t pid, uint32_t nspid, const char *text,
		       size_t len);
	/*
	 * The samples are printed by the threads of --threads (pool.c,
	 * record_print()) instead of sample() and lost() on the reading
	 * thread, when the session is asked for threads and this is set.
	 */
	bool printed_by_threads;
};

#ifndef container_of
#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))
#endif

#endif
