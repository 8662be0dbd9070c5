/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jitmap.c: the names of JIT code from perf maps (/tmp/perf-PID.map,
 * "START SIZE NAME" a line, as Node.js --perf-basic-prof, JVM agents,
 * LuaJIT, Python -X perf and .NET write them), read live from the
 * task's own /tmp, or from a recording's ITEM_JITMAP.
 */
#ifndef PERFREGS_DUMP_JITMAP_H
#define PERFREGS_DUMP_JITMAP_H

#include "types.h"

/* Its budgets (JITMAP_*) are in types.h, for the recording's format too. */

/*
 * Live: process pid may have a map: where its file is (its root, its
 * pid in its own namespace) learnt while it lives, and the file opened
 * if it is there.  Any thread.
 */
void jitmap_note(struct machine *mach, uint32_t pid);
/*
 * The JIT symbol at user address lookup of process pid at time (the
 * sample's: a jitdump's code reused at an address names each sample by
 * the load before it), "name+0xoff" from show, and the map's path as
 * perf names the dso
 * ("/tmp/perf-NSPID.map", until the session's end) in *dso (if not
 * NULL): 0, or -1 when no map names it.  Live, a map not read yet is
 * read now, and read on from where it was for an address it does not
 * name yet.  Any thread.
 */
int jitmap_symbol(struct machine *mach, uint32_t pid, uint64_t time, uint64_t lookup,
		  uint64_t show, char *buf, size_t len, const char **dso);
/*
 * The jitdump of process pid (nspid in its namespace), len bytes of it at
 * buf, named path: replaces what was known of it; for the tests, which
 * make recordings of a dump as record would.
 */
void jitmap_load_dump(struct machine *mach, uint32_t pid, uint32_t nspid, const char *path,
		      const unsigned char *buf, size_t len);
/* A recording's map of pid (ITEM_JITMAP): replaces what was known of it. */
void jitmap_load(struct machine *mach, uint32_t pid, uint32_t nspid, const char *text,
		 size_t len);
/*
 * The end of a live recording: every noted process's map read to its
 * end, and each map with an entry queued (learnt.c) as the lines the
 * reader took, for the recording.
 */
void jitmap_final(struct machine *mach);
/* A recording's maps were all read before its samples (session.c). */
void jitmap_set_scanned(struct machine *mach);
bool jitmap_scanned(const struct machine *mach);
void jitmap_free(struct machine *mach);

#endif
