/* SPDX-License-Identifier: GPL-2.0 */
/*
 * usyms.c: the symbols of user code, a Dwfl and symbol table per file
 * shared by every mapping of it, a bounded number of them open.
 */
#ifndef PERFREGS_DUMP_USYMS_H
#define PERFREGS_DUMP_USYMS_H

#include "types.h"

struct Dwfl_Module;
struct dwfl_entry;

int mapping_symbol(struct machine *mach, struct mapping *m, uint64_t lookup,
		   uint64_t show, char *buf, size_t len);
int mapping_source(struct machine *mach, struct mapping *m, uint64_t lookup,
		   char *file, size_t len, int *line);
struct dwfl_entry *mapping_shared(struct machine *mach, struct mapping *m);
struct Dwfl_Module *usyms_module_locked(struct machine *mach, struct dwfl_entry *e);
unsigned int usyms_open_max(void);
void usyms_thread_free(void);
void usyms_free(struct machine *mach);

#endif
