/* SPDX-License-Identifier: GPL-2.0 */
/* folded.c: -f folded, the stacks of all samples with their counts. */
#ifndef PERFREGS_DUMP_FOLDED_H
#define PERFREGS_DUMP_FOLDED_H

#include <stdio.h>
#include "types.h"

/* The frames of one sample, leaf first, as the output names them. */
struct folded_frame {
	const char *sym;	/* "name+0xoff", "name" or "" */
	const char *dso;	/* the file, or "" */
	bool kernel;		/* a kernel frame: _[k] */
	bool i386;		/* code run in 32-bit mode: _[i386] */
	bool inlined;		/* a function inlined there: _[i] */
};

/* One distinct stack of the table, and how many samples had it. */
struct folded_stack {
	const char *stack;	/* "comm;outermost;...;leaf" */
	uint64_t count;
};

/*
 * one sample's line: comm, 255 frames (a kernel call chain's 127 and 128
 * user frames) of at most 255 + 7 bytes, ';'s
 */
#define FOLDED_LINE_MAX	(16 + 255 * (255 + 8) + 1)

size_t folded_func_len(const char *sym);
void folded_line(char *line, const char *comm, const struct folded_frame *f,
		 unsigned int n);
int folded_count(struct session *d, const char *line);
int folded_add(struct session *d, const char *comm, const struct folded_frame *f,
	       unsigned int n);
/*
 * --threads: each thread that prints has a table of the stacks it made,
 * a cell each, and hands over the cell of each sample; the reading
 * thread counts them in the recording's order (pool.c), and the tables
 * are merged into the decoder's at the end.
 */
struct folded_cell;
struct folded_cells {
	struct folded_cell **e;	/* open addressing, cap a power of two */
	size_t n, cap;
};

struct folded_cell *folded_cell(struct folded_cells *t, const char *line);
void folded_cell_count(struct folded_cell *c);
void folded_cells_merge(struct session *d, struct folded_cells *t);
void folded_cells_free(struct folded_cells *t);
int folded_sorted(struct session *d, struct folded_stack **st, size_t *n);
int folded_print(struct session *d, FILE *fp);
void folded_free(struct session *d);

#endif
