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
};

/* One distinct stack of the table, and how many samples had it. */
struct folded_stack {
	const char *stack;	/* "comm;outermost;...;leaf" */
	uint64_t count;
};

/* one sample's line: comm, 129 frames of at most 255 + 7 bytes, ';'s */
#define FOLDED_LINE_MAX	(16 + 129 * (255 + 8) + 1)

size_t folded_func_len(const char *sym);
void folded_line(char *line, const char *comm, const struct folded_frame *f,
		 unsigned int n);
int folded_count(struct decoder *d, const char *line);
int folded_add(struct decoder *d, const char *comm, const struct folded_frame *f,
	       unsigned int n);
int folded_sorted(struct decoder *d, struct folded_stack **st, size_t *n);
int folded_print(struct decoder *d, FILE *fp);
void folded_free(struct decoder *d);

#endif
