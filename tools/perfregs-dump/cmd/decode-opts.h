/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The decoding options (report, script, -i, a live run that prints,
 * convert's symbols) and the options every command has (-q, -v, -V).
 */
#ifndef PERFREGS_DUMP_CMD_DECODE_OPTS_H
#define PERFREGS_DUMP_CMD_DECODE_OPTS_H

#include "../types.h"
#include "options.h"
#include "sample-opts.h"
#include "../filter.h"

struct decode_opts {
	struct opts o;			/* what the decoder is told (types.h) */
	bool format_set;		/* -f given */
	bool tee;			/* -f or --flamegraph: what is recorded is decoded too */
	const char *fields_opt;		/* -F or --fields, as given; NULL if neither */
	bool no_callgraph;		/* --no-call-graph, after any -g */
	/*
	 * --pid, --comms ...: allocated by the first (also o.filter), not
	 * here: the options lie on the stack under every frame a live
	 * run's child unwinds to main before its exec
	 */
	struct filter *filter;
	/* --debuginfod: its URLs, "" for $DEBUGINFOD_URLS's; NULL: none (the default) */
	const char *debuginfod;
	unsigned int debuginfod_timeout;	/* --debuginfod-timeout, s; 0: the default */
	/* -g's stack size, and --call-graph dwarf,SIZE as a sampling option */
	struct sample_opts *s;
};

extern const struct opt decode_symbol_opts[];	/* -g, --no-symbols, --symfs, --demangle */
extern const struct opt decode_symfs_opts[];	/* --no-symbols, --symfs, --demangle */
extern const struct opt decode_debuginfod_opts[];	/* --debuginfod ... */
extern const struct opt decode_filter_opts[];	/* --pid, --tid, -c, -C, -S ... */
extern const struct opt decode_filter_opts_long[];	/* the same, long names only */
extern const struct opt decode_output_opts_F[];	/* -f ..., -F is --fields */
extern const struct opt decode_output_opts[];	/* -f ..., --fields only */
extern const struct opt common_opts[];		/* -q, -v, -V */

#define DEBUGINFOD_TIMEOUT_MAX	3600

void decode_opts_init(struct decode_opts *d, struct sample_opts *s);
int decode_opt(void *state, const struct opt *o, const char *as_typed, const char *arg);
/*
 * -F/--fields picks what the text output shows: not for what prints no
 * text (not_for, as the message says it, e.g. "convert (it prints no
 * samples)"; NULL: whatever -f and --flamegraph say).  Says so and
 * returns true when refused.
 */
bool decode_fields_refused(const struct decode_opts *d, const char *not_for);
/* --flamegraph with -f text or json: says so, true */
bool decode_flamegraph_refused(const struct decode_opts *d, bool convert);

#endif
