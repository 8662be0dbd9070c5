/* SPDX-License-Identifier: GPL-2.0 */
/*
 * symbols.c: task maps from /proc, the file and base of a mapping, the
 * symbols of user and kernel addresses.
 */
#ifndef PERFREGS_DUMP_SYMBOLS_H
#define PERFREGS_DUMP_SYMBOLS_H

#include "types.h"

struct task_maps *maps_find(struct machine *mach, uint32_t pid, uint64_t ino);
struct task_maps *maps_add(struct machine *mach, uint32_t pid, uint64_t ino,
			   struct mapping *m, unsigned int n);
void maps_learn(struct machine *mach, const struct perfregs_rec_sample *s);
int maps_line(const char *line, uint64_t *start, uint64_t *end, char perms[8],
	      uint64_t *pgoff, uint32_t *dev, uint64_t *inode, int *pos);
int file_build_id(const char *path, uint8_t *id, uint8_t *len);
const char *mapping_file(struct machine *mach, struct mapping *m);
/* The same, with symbols_lock() held; "" for none */
const char *mapping_file_locked(struct machine *mach, struct mapping *m);
char **dwfl_debuginfo_path(struct machine *mach);
char **dwfl_debuginfo_path_locked(struct machine *mach);	/* symbols_lock() held */
char *deleted_file(struct machine *mach, uint32_t pid, uint64_t start, uint64_t end,
		   const char *name);
/*
 * The address of the first PT_LOAD of m's file as the task mapped it,
 * the base libdwfl's dwfl_report_elf() takes (add_p_vaddr false).
 */
uint64_t mapping_base(struct machine *mach, struct mapping *m);
int kernel_symbol(struct machine *mach, const struct dthread *t, uint64_t ip, char *buf,
		  size_t len);
bool ksyms_full(const struct machine *mach);	/* the next ksym_add() moves them */
void ksym_add(struct machine *mach, uint64_t start, uint64_t end, const char *name);
bool ksyms_due(const struct machine *mach);	/* ksyms_settle() would merge */
void ksym_learn(struct machine *mach, uint64_t ip);
void ksyms_load(struct machine *mach);
const struct ksym *ksym_find(struct machine *mach, uint64_t ip);
void symbols_free(struct machine *mach);
void ksyms_settle(struct machine *mach);	/* merge them, if due */
void symbols_lock(void);	/* around libdw calls on usyms.c's modules */
void symbols_unlock(void);	/* and what mappings learn of their files */

#endif
