/* SPDX-License-Identifier: GPL-2.0 */
/*
 * maps.c: a task's executable mappings from /proc/PID/maps or a
 * recording, and a mapping's base.
 */
#ifndef PERFREGS_DUMP_MAPS_H
#define PERFREGS_DUMP_MAPS_H

#include "types.h"

struct task_maps *maps_find(struct machine *mach, uint32_t pid, uint64_t ino);
struct task_maps *maps_add(struct machine *mach, uint32_t pid, uint64_t ino,
			   struct mapping *m, unsigned int n);
void maps_learn(struct machine *mach, const struct perfregs_rec_sample *s);
int maps_line(const char *line, uint64_t *start, uint64_t *end, char perms[8],
	      uint64_t *pgoff, uint32_t *dev, uint64_t *inode, int *pos);
/*
 * The address of the first PT_LOAD of m's file as the task mapped it,
 * the base libdwfl's dwfl_report_elf() takes (add_p_vaddr false).
 */
uint64_t mapping_base(struct machine *mach, struct mapping *m);
void maps_free(struct machine *mach);

#endif
