/* SPDX-License-Identifier: GPL-2.0 */
/* output.c: text and JSON Lines output of decoded records. */
#ifndef PERFREGS_DUMP_OUTPUT_H
#define PERFREGS_DUMP_OUTPUT_H

#include <stdio.h>
#include "types.h"

void decode_record(struct decoder *d, int cpu,
		   const struct perfregs_rec_header *rec, size_t avail);
void out_summary(struct decoder *d, FILE *fp, enum out_format fmt,
		 uint64_t produced);
const char *lost_cause_name(int cause);

/* -F/--fields: the longest LIST taken (every name with +, and more) */
#define FIELDS_LIST_MAX		512
#define FIELDS_LIST_MAX_S	"512"
int fields_parse(const char *list, struct opts *o, char *err, size_t errlen);

#endif
