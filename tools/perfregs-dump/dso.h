/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dso.c: files by identity (build-id, else device and inode) with their
 * symbols, a Dwfl and symbol table per file shared by every mapping of
 * it, a bounded number of them open; cfi.c keys its rows by them.
 */
#ifndef PERFREGS_DUMP_DSO_H
#define PERFREGS_DUMP_DSO_H

#include "types.h"

struct Dwfl_Module;
struct dso;

/*
 * The function at lookup in m, "name+0xoff" from show, into buf: 0, or
 * 1 when the name is demangled (C++, Rust: demangle.c; mach->demangle
 * set, and no SYM_RAW, which gives the name as the file's symbol table
 * has it); -1 no symbol there, -2 the file cannot be read.
 */
enum { SYM_RAW = 1 };
int mapping_symbol(struct machine *mach, struct mapping *m, uint64_t lookup,
		   uint64_t show, unsigned int flags, char *buf, size_t len);
int mapping_source(struct machine *mach, struct mapping *m, uint64_t lookup,
		   char *file, size_t len, int *line);
struct dso *mapping_dso(struct machine *mach, struct mapping *m);
struct dso *mapping_file_entry(struct machine *mach, struct mapping *m, uint64_t *bias);
const char *dso_path(const struct dso *e);
struct Dwfl_Module *dso_module_locked(struct machine *mach, struct dso *e);
unsigned int dso_open_max(void);
void dso_thread_free(void);
void dsos_free(struct machine *mach);

#endif
