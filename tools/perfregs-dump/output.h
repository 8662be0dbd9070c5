/* SPDX-License-Identifier: GPL-2.0 */
/* output.c: text and JSON Lines output of decoded records. */
#ifndef PERFREGS_DUMP_OUTPUT_H
#define PERFREGS_DUMP_OUTPUT_H

#include <stdio.h>
#include "types.h"

/*
 * Decode one kernel record of size bytes: its size as the caller read it
 * once from its header and checked to lie within the bytes at rec (as
 * prf_walk() does); the header's size is not read again.  The bytes must
 * be ours or the kernel's, never a file's or anyone else's mapping: what
 * is checked here is read again by the output and the hooks.  Counts
 * what is malformed.
 */
void decode_record(struct session *d, int cpu,
		   const struct perfregs_rec_header *rec, size_t size);
/*
 * decode_record()'s two steps: a record checked and counted (its stack
 * into *st, a loss into *l; false: malformed, or of a type not known),
 * then printed as the options say (nothing with --summary, the losses
 * not with stacks), by the calling thread (d->self).
 */
bool record_check(struct session *d, const struct perfregs_rec_header *rec, size_t size,
		  struct sample_stack *st, struct perfregs_rec_lost *l);
void record_out(struct session *d, int cpu, const struct perfregs_rec_header *rec,
		const struct sample_stack *st, const struct perfregs_rec_lost *l);
/* What decode_record() counts of each record, as record_print() does. */
struct rec_counts {
	uint64_t samples;
	uint64_t filtered;
	uint64_t lost[PERFREGS_LOST_MAX];
};
bool record_print(struct session *d, struct dthread *t, int cpu,
		  const struct perfregs_rec_header *rec, size_t size, struct rec_counts *c);
void out_summary(struct session *d, FILE *fp, enum out_format fmt,
		 uint64_t produced);
const char *lost_cause_name(int cause);

/* -F/--fields: the longest LIST taken (every name with +, and more) */
#define FIELDS_LIST_MAX		512
#define FIELDS_LIST_MAX_S	"512"
int fields_parse(const char *list, struct opts *o, char *err, size_t errlen);

#endif
