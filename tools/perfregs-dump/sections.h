/* SPDX-License-Identifier: GPL-2.0 */
/* sections.c: a sample's sections checked against its size. */
#ifndef PERFREGS_DUMP_SECTIONS_H
#define PERFREGS_DUMP_SECTIONS_H

#include <stddef.h>
#include "types.h"

/*
 * Is a sample of size bytes (its header's, read once by the caller) what
 * its masks and flags say?  Where its sections lie into *st.
 */
bool sample_fits(const struct perfregs_rec_sample *s, size_t size, struct sample_stack *st);
/*
 * The kernel call chain of sample s, of which avail bytes are at hand
 * (its start: the sections before the stack will do), as sample_fits()
 * finds it: false when it has none or they make no sense.  The record
 * learner's (cmd/live-records.c), whose copy may be cut.
 */
bool sample_kchain_of(const struct perfregs_rec_sample *s, size_t avail,
		      struct sample_kchain *kc);

#endif
