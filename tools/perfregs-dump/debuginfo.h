/* SPDX-License-Identifier: GPL-2.0 */
/*
 * debuginfo.c: where libdwfl finds a file's separate debug information:
 * on this machine, as libdwfl's standard search does, and from the
 * debuginfod servers of $DEBUGINFOD_URLS only when the command asked
 * for them (--debuginfod), within a deadline and a size budget.
 */
#ifndef PERFREGS_DUMP_DEBUGINFO_H
#define PERFREGS_DUMP_DEBUGINFO_H

#include <stdint.h>
#include <elfutils/libdwfl.h>
#include "types.h"

/*
 * The find_debuginfo and find_elf callbacks of every Dwfl_Callbacks.
 * Without debuginfo_server_use(), no server is ever asked, whatever the
 * environment says; with it, a file with no debug file here is asked
 * for by build-id, until a server cannot be reached.
 */
int debuginfo_find(Dwfl_Module *mod, void **userdata, const char *modname,
		   Dwarf_Addr base, const char *file_name, const char *debuglink_file,
		   GElf_Word debuglink_crc, char **debuginfo_file_name);
int debuginfo_find_elf(Dwfl_Module *mod, void **userdata, const char *modname,
		       Dwarf_Addr base, char **file_name, Elf **elfp);
/*
 * The debug path the Dwfls' callbacks have (files.c) and the --symfs
 * root (or NULL), for the search here; NULL: none any more.
 */
void debuginfo_local_path(const char *path, const char *symfs);
/* dwfl_begin(), its debuginfod client (when asked for) held to the deadline */
Dwfl *debuginfo_dwfl_begin(const Dwfl_Callbacks *cbs);

/*
 * Ask the servers of $DEBUGINFOD_URLS for the debug files this machine
 * does not have, while decoding for mach: the caller sets, as
 * libdebuginfod reads them, $DEBUGINFOD_URLS to urls and
 * $DEBUGINFOD_MAXTIME to timeout (s, each query); a file larger than
 * max_bytes is given up; what went wrong is said once in mach's
 * diagnostics.  Once, before decoding.  -1 with why in err when libdw
 * or libdebuginfod cannot.
 */
int debuginfo_server_use(struct machine *mach, const char *urls, unsigned int timeout,
			 uint64_t max_bytes, char *err, size_t len);
/* mach is done with: no server is asked for it any more */
void debuginfo_server_end(struct machine *mach);

#endif
