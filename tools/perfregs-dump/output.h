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

#endif
