/* SPDX-License-Identifier: GPL-2.0 */
/*
 * diag.c: what the layers below the session have to say (a process
 * given up, a file missing), gathered once each for the command layer
 * to print: nothing below the session prints.
 */
#ifndef PERFREGS_DUMP_DIAG_H
#define PERFREGS_DUMP_DIAG_H

#include <stdio.h>
#include "types.h"

/* A message, once: the same words again add nothing.  Any thread. */
void diag(struct machine *mach, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Each message not printed yet, on a line of its own after "perfregs-dump: ". */
void diag_print(struct machine *mach, FILE *fp);
void diag_free(struct machine *mach);

#endif
