/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rec-scan.c: a second look at a recording's items before the reader
 * reads them in turn: the JIT maps written at its end, for the samples
 * before them.
 */
#ifndef PERFREGS_DUMP_REC_SCAN_H
#define PERFREGS_DUMP_REC_SCAN_H

#include "rec-read.h"

/*
 * The items of type of a recording that can be read again
 * (rec_input_where(): a file, or memory; not a pipe) handed to fn,
 * parsed, before the reader reads them in turn (session.c).  The scan
 * stops at the end item or at the first item that is not whole: the
 * reader says what is wrong there.  False: it could not scan, or it
 * stopped before the end item and the file's end (out of memory, a
 * read error, an item not whole): what follows was not handed to fn.
 */
bool rec_scan(const struct rec_input *in, uint32_t type,
	      void (*fn)(void *arg, const struct rec_item *it), void *arg);

#endif
