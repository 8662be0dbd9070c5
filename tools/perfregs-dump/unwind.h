/* SPDX-License-Identifier: GPL-2.0 */
/* unwind.c: DWARF CFI unwinding of a sample's user stack. */
#ifndef PERFREGS_DUMP_UNWIND_H
#define PERFREGS_DUMP_UNWIND_H

#include "types.h"

struct frame {
	uint64_t ip;		/* as found (a return address for callers) */
	uint64_t lookup;	/* the address whose symbol names the frame */
	char sym[256];
	char dso[256];
};

int unwind_sample(struct decoder *d, const struct perfregs_rec_sample *s,
		  enum layout layout, const unsigned char *stack,
		  uint64_t stack_len, struct frame *frames, unsigned int max);
void unwind_free(struct decoder *d);

#endif
