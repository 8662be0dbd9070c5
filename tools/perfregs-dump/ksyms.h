/* SPDX-License-Identifier: GPL-2.0 */
/* ksyms.c: kernel symbols, from /proc/kallsyms or a recording. */
#ifndef PERFREGS_DUMP_KSYMS_H
#define PERFREGS_DUMP_KSYMS_H

#include "types.h"

int kernel_symbol(struct machine *mach, const struct dthread *t, uint64_t ip, char *buf,
		  size_t len);
/* lookup's symbol, with show's offset in it (a return address: lookup = show - 1) */
int kernel_symbol_at(struct machine *mach, const struct dthread *t, uint64_t lookup,
		     uint64_t show, char *buf, size_t len);
bool ksyms_full(const struct machine *mach);	/* the next ksym_add() moves them */
void ksym_add(struct machine *mach, uint64_t start, uint64_t end, const char *name);
bool ksyms_due(const struct machine *mach);	/* ksyms_settle() would merge */
void ksym_learn(struct machine *mach, uint64_t ip);
void ksyms_load(struct machine *mach);
const struct ksym *ksym_find(struct machine *mach, uint64_t ip);
void ksyms_settle(struct machine *mach);	/* merge them, if due */
void ksyms_free(struct machine *mach);

#endif
