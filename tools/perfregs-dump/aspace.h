/* SPDX-License-Identifier: GPL-2.0 */
/*
 * aspace.c: address spaces from side-band events, and the maps (and so
 * the symbol of a user address) of a sample.
 */
#ifndef PERFREGS_DUMP_ASPACE_H
#define PERFREGS_DUMP_ASPACE_H

#include "types.h"

/* What a side-band event says, done; false when it is of nothing tracked. */
bool space_event(struct machine *mach, const struct sb_event *ev);
void space_begin(struct machine *mach, uint32_t pid);
bool space_event_later(struct machine *mach, const struct sb_event *ev, uint64_t upto);
bool space_seed(struct machine *mach, uint32_t pid);
void mapping_identify(struct machine *mach, struct sb_event *ev);
const struct task_maps *space_at(struct machine *mach, uint32_t pid, uint64_t time);
struct task_maps *maps_for_sample(struct machine *mach,
				  const struct perfregs_rec_sample *s);
/*
 * The symbol at user address lookup of s, "name+0xoff" from show (a
 * frame's return address names the call before it), with
 * mapping_symbol()'s flags (SYM_RAW): 0, 1 (demangled), -1 or -2 as it; *path (if not
 * NULL) the mapping's file, or "".
 */
int user_symbol(struct machine *mach, const struct perfregs_rec_sample *s,
		uint64_t lookup, uint64_t show, unsigned int flags, char *buf, size_t len,
		const char **path);
struct mapping *user_mapping(struct machine *mach, const struct perfregs_rec_sample *s,
			     uint64_t addr);
bool space_tracked(struct machine *mach, uint32_t pid);
void spaces_free(struct machine *mach);

#endif
