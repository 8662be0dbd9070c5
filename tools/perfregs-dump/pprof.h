/* SPDX-License-Identifier: GPL-2.0 */
/* pprof.c: a recording into a gzipped profile.proto, for go tool pprof. */
#ifndef PERFREGS_DUMP_PPROF_H
#define PERFREGS_DUMP_PPROF_H

#include "types.h"
#include "tool.h"

struct pprof;

/*
 * The steps of pprof_convert(), for a recording in memory too (the
 * fuzzer): pprof_begin() opens out, pprof_tool() is the tool that takes
 * the samples a session delivers (and prints them as d's options say),
 * pprof_write() writes what they made, pprof_free() lets go of it.
 */
struct pprof *pprof_begin(struct session *d, const struct perfregs_config *cfg,
			  const char *out, char *err, size_t errlen);
struct tool *pprof_tool(struct pprof *p);
int pprof_write(struct pprof *p, char *err, size_t errlen);
void pprof_free(struct pprof *p);

int pprof_convert(const char *in, const char *out, struct session *d,
		  char *err, size_t errlen);

#endif
