/* SPDX-License-Identifier: GPL-2.0 */
/*
 * files.c: the file a mapping is read from, build-ids, deleted files
 * held open, libdw's debug path, and the lock around libdw's caches.
 */
#ifndef PERFREGS_DUMP_FILES_H
#define PERFREGS_DUMP_FILES_H

#include "types.h"

int file_build_id(const char *path, uint8_t *id, uint8_t *len);
const char *mapping_file(struct machine *mach, struct mapping *m);
/* The same, with symbols_lock() held; "" for none */
const char *mapping_file_locked(struct machine *mach, struct mapping *m);
char **dwfl_debuginfo_path(struct machine *mach);
char **dwfl_debuginfo_path_locked(struct machine *mach);	/* symbols_lock() held */
char *held_file(struct machine *mach, uint32_t pid, uint64_t start, uint64_t end,
		const char *name);
void symbols_lock(void);	/* around libdw calls on dso.c's modules */
void symbols_unlock(void);	/* and what mappings learn of their files */
void files_free(struct machine *mach);

#endif
