// SPDX-License-Identifier: GPL-2.0
/*
 * The decoding options: their tables and their parsing into what the
 * decoder is told (output format, fields, symbols, unwinding).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../output.h"
#include "../pool.h"
#include "decode-opts.h"

enum {
	K_FORMAT = 'f', K_CG_G = 'g', K_QUIET = 'q', K_VERBOSE = 'v', K_VERSION = 'V',
	K_FIELDS = 512, K_CALLGRAPH, K_NO_CALLGRAPH, K_NO_SYMBOLS, K_SYMFS, K_DEMANGLE,
	K_NO_DEMANGLE, K_FLAMEGRAPH, K_SUMMARY,
	K_F_PID, K_F_TID, K_F_COMM, K_F_CPU, K_F_TIME, K_F_DSO, K_F_SYM,
	K_DEBUGINFOD, K_NO_DEBUGINFOD, K_DEBUGINFOD_TIMEOUT, K_INLINE, K_NO_INLINE,
};

#define SYMFS_OPTS							\
	{ K_NO_SYMBOLS, 0, "no-symbols", ARG_NONE, NULL, "do not look up symbols", 0 }, \
	{ K_DEMANGLE, 0, "demangle", ARG_NONE, NULL,				\
	  "name C++ and Rust functions demangled, as perf\n"			\
	  "does (the default): ns::W<int>::spin", 0 },				\
	{ K_NO_DEMANGLE, 0, "no-demangle", ARG_NONE, NULL,			\
	  "name functions as their files' symbol tables do\n"			\
	  "(_ZN2ns1WIiE4spin...)", 0 },					\
	{ K_INLINE, 0, "inline", ARG_NONE, NULL,				\
	  "show each function inlined at an address as a\n"			\
	  "frame of its own, with its source line, from the\n"		\
	  "file's DWARF, as perf does (the default)", 0 },			\
	{ K_NO_INLINE, 0, "no-inline", ARG_NONE, NULL,			\
	  "no inlined frames: a frame per address, named by\n"		\
	  "the symbol table", 0 },						\
	{ K_SYMFS, 0, "symfs", ARG_REQUIRED, "DIR",				\
	  "look for the sampled files under DIR (recordings\n"			\
	  "from elsewhere; also by build-id in\n"				\
	  "$PERFREGS_BUILDID_DIR/HEX and /usr/lib/debug)", 0 }

const struct opt decode_symbol_opts[] = {
	{ K_CALLGRAPH, 0, "call-graph", ARG_REQUIRED, "fp[,N]|dwarf[,SIZE]",
	  "fp: walk each sample's user stack through its\n"
	  "frame pointers as it is taken (N frames at most,\n"
	  "default 127), with its kernel call chain; the\n"
	  "leaf's own frame is unwound with DWARF CFI from\n"
	  "the top 256 bytes of the stack.  dwarf: unwind\n"
	  "each sample's user stack with DWARF CFI from SIZE\n"
	  "bytes of it (default 8192)", 0 },
	{ K_CG_G, 'g', NULL, ARG_NONE, NULL,
	  "--call-graph fp, as perf record -g (decoding a\n"
	  "recording: show the chains it has)", 0 },
	{ K_NO_CALLGRAPH, 0, "no-call-graph", ARG_NONE, NULL,
	  "do not unwind a recording's stacks (script and\n"
	  "convert unwind them by default, as perf does)", 0 },
	SYMFS_OPTS,
	{ 0 },
};

const struct opt decode_symfs_opts[] = { SYMFS_OPTS, { 0 } };

/* perf's spelling; for what decodes a recording, never a live run (cmd/debuginfod.c) */
const struct opt decode_debuginfod_opts[] = {
	{ K_DEBUGINFOD, 0, "debuginfod", ARG_OPTIONAL, "URLS",
	  "ask the debuginfod servers URLS (by default\n"
	  "$DEBUGINFOD_URLS) for the debug files this\n"
	  "machine lacks, by build-id; off by default", 0 },
	{ K_NO_DEBUGINFOD, 0, "no-debuginfod", ARG_NONE, NULL,
	  "ask no debuginfod server (the default)", 0 },
	{ K_DEBUGINFOD_TIMEOUT, 0, "debuginfod-timeout", ARG_REQUIRED, "SECS",
	  "give a debug file up after SECS seconds (default\n"
	  "30, or $DEBUGINFOD_MAXTIME's)", 0 },
	{ 0 },
};

/* perf report's and perf script's filters, with their letters where they share them */
#define FILTER_OPTS(COMM, CPU, SYM)						\
	{ K_F_PID, 0, "pid", ARG_REQUIRED, "PID,...", "only the samples of these processes", 0 }, \
	{ K_F_TID, 0, "tid", ARG_REQUIRED, "TID,...", "only the samples of these threads", 0 }, \
	{ K_F_COMM, COMM, "comms", ARG_REQUIRED, "COMM,...",			\
	  "only the samples of tasks of these names", 0 },			\
	{ K_F_CPU, CPU, "cpu", ARG_REQUIRED, "LIST",				\
	  "only the samples of these CPUs (0-3,6)", 0 },			\
	{ K_F_TIME, 0, "time", ARG_REQUIRED, "START,STOP",			\
	  "only the samples of this time span (seconds as\n"			\
	  "script shows them; either may be left out), or of\n"		\
	  "percents of the recording's: 10%-20%[,...], 10%/2", 0 },		\
	{ K_F_DSO, 0, "dsos", ARG_REQUIRED, "DSO,...",				\
	  "only the samples in these files (a path or its\n"			\
	  "last part; [kernel.kallsyms] for the kernel)", 0 },			\
	{ K_F_SYM, SYM, "symbols", ARG_REQUIRED, "SYM,...",			\
	  "only the samples in these functions", 0 },				\
	{ 0 }

const struct opt decode_filter_opts[] = { FILTER_OPTS('c', 'C', 'S') };
/* convert's: perf has none; -c and -C stay the sampling options it refuses */
const struct opt decode_filter_opts_long[] = { FILTER_OPTS(0, 0, 0) };

#define OUTPUT_OPTS(F)								\
	{ K_FORMAT, 'f', "format", ARG_REQUIRED, "FMT",				\
	  "text (default), json (JSON Lines) or folded\n"			\
	  "(stacks and counts, for flame graphs)", 0 },				\
	{ K_FIELDS, F, "fields", ARG_REQUIRED, "FIELDS",			\
	  "what text output shows of a sample, in the order\n"			\
	  "of FIELDS: comm,pid,tid,cpu,time,event,ip,sym,\n"			\
	  "mode,abi,context,uregs_source,skid and perf's\n"			\
	  "dso,period,symoff,srcline on its first line, then\n"		\
	  "iregs,uregs,simd,stack,callchain; all but perf's\n"			\
	  "by default; -FIELD,... or +FIELD,... take from\n"			\
	  "or add to those", 0 },						\
	{ K_FLAMEGRAPH, 0, "flamegraph", ARG_REQUIRED, "SVG",			\
	  "draw the stacks of -f folded as a flame graph: one\n"		\
	  "SVG file with search and zoom for a browser", 0 },			\
	{ K_SUMMARY, 0, "summary", ARG_NONE, NULL, "print only the summary", 0 }, \
	{ 0 }

const struct opt decode_output_opts_F[] = { OUTPUT_OPTS('F') };
const struct opt decode_output_opts[] = { OUTPUT_OPTS(0) };

const struct opt common_opts[] = {
	{ K_QUIET, 'q', "quiet", ARG_NONE, NULL, "no progress or summary on stderr", 0 },
	{ K_VERBOSE, 'v', "verbose", ARG_NONE, NULL,
	  "more detail on stderr: the session's settings;\n"
	  "with -i, where and how the recording was made", 0 },
	{ K_VERSION, 'V', "version", ARG_NONE, NULL,
	  "version of the tool and of the module ABI", 0 },
	{ 0 },
};

void decode_opts_init(struct decode_opts *d, struct sample_opts *s)
{
	memset(d, 0, sizeof(*d));
	d->o.format = FMT_TEXT;
	d->o.event_name = "cpu-clock";
	d->o.symbols = true;
	d->o.demangle = true;
	d->o.inlines = true;
	d->s = s;
}

/*
 * --call-graph fp[,N]: the module walks the frame pointers, N deep; the
 * top of the stack is copied for the leaf's CFI, and the kernel call
 * chain is walked too where the session may see the kernel (live.c).
 */
static int parse_callgraph_fp(const char *arg, struct decode_opts *d)
{
	uint64_t v = PERFREGS_MAX_UCHAIN;

	if (arg[2] == ',' && (parse_u64(arg + 3, &v) || !v || v > PERFREGS_MAX_UCHAIN)) {
		fprintf(stderr, "perfregs-dump: --call-graph fp,N takes 1 to %u frames, "
			"not '%s'\n", PERFREGS_MAX_UCHAIN, arg + 3);
		return EXIT_USAGE;
	}
	d->s->cfg.uchain_max = (uint32_t)v;
	d->s->cfg.stack_bytes = FP_LEAF_STACK;
	d->s->fp_kchain = true;
	d->o.callgraph = true;
	d->no_callgraph = false;
	if (arg[2] == ',' && !d->s->sampling_opt)	/* how deep: sampling */
		d->s->sampling_opt = "--call-graph fp,N";
	return GO_ON;
}

/* --call-graph dwarf[,SIZE]: unwind, and copy SIZE bytes of stack */
static int parse_callgraph(const char *arg, struct decode_opts *d)
{
	const char *size = NULL;
	uint64_t v = 8192;

	if (!strcmp(arg, "fp") || !strncmp(arg, "fp,", 3))
		return parse_callgraph_fp(arg, d);
	if (!strncmp(arg, "dwarf,", 6))
		size = arg + 6;
	else if (strcmp(arg, "dwarf")) {
		fprintf(stderr, "perfregs-dump: --call-graph takes fp[,N] or dwarf[,SIZE], "
			"not '%s'\n", arg);
		return EXIT_USAGE;
	}
	d->s->cfg.uchain_max = 0;	/* the last one wins */
	d->s->fp_kchain = false;
	if (size && (parse_u64(size, &v) || !v || v % 8 || v > PERFREGS_MAX_STACK_BYTES)) {
		fprintf(stderr, "perfregs-dump: --call-graph dwarf,SIZE wants a multiple "
			"of 8 up to %u\n", PERFREGS_MAX_STACK_BYTES);
		return EXIT_USAGE;
	}
	d->s->cfg.stack_bytes = (uint32_t)v;
	d->o.callgraph = true;
	d->no_callgraph = false;
	if (size && !d->s->sampling_opt)	/* what to copy: sampling */
		d->s->sampling_opt = "--call-graph dwarf,SIZE";
	return GO_ON;
}

static int parse_format(const char *arg, struct decode_opts *d)
{
	d->tee = true;
	d->format_set = true;
	if (!strcmp(arg, "text")) {
		d->o.format = FMT_TEXT;
	} else if (!strcmp(arg, "json")) {
		d->o.format = FMT_JSON;
	} else if (!strcmp(arg, "folded")) {
		d->o.format = FMT_FOLDED;
	} else {
		fprintf(stderr, "perfregs-dump: --format is text, json or folded, not '%s'\n",
			arg);
		return EXIT_USAGE;
	}
	return GO_ON;
}

int decode_opt(void *state, const struct opt *o, const char *as_typed, const char *arg)
{
	struct decode_opts *d = state;
	char err[512];
	uint64_t v;

	switch (o->key) {
	case K_CG_G:
		return parse_callgraph("fp", d);
	case K_CALLGRAPH:
		return parse_callgraph(arg, d);
	case K_F_PID: case K_F_TID: case K_F_COMM: case K_F_CPU: case K_F_TIME:
	case K_F_DSO: case K_F_SYM:
		if (!d->filter)
			d->filter = calloc(1, sizeof(*d->filter));
		if (!d->filter) {
			fprintf(stderr, "perfregs-dump: out of memory\n");
			return EXIT_IO;
		}
		if (filter_parse(d->filter, (enum filter_key)(o->key - K_F_PID), arg, err,
				 sizeof(err))) {
			fprintf(stderr, "perfregs-dump: %s: %s\n", as_typed, err);
			return EXIT_USAGE;
		}
		d->o.filter = d->filter;
		break;
	case K_NO_CALLGRAPH:	/* the last of it and -g wins, as in perf */
		d->o.callgraph = false;
		d->no_callgraph = true;
		break;
	case K_NO_SYMBOLS:
		d->o.symbols = false;
		break;
	case K_SYMFS:
		d->o.symfs = arg;
		break;
	case K_DEBUGINFOD:	/* the last of it and --no-debuginfod wins */
		d->debuginfod = arg ? arg : "";
		break;
	case K_NO_DEBUGINFOD:
		d->debuginfod = NULL;
		break;
	case K_DEBUGINFOD_TIMEOUT:
		if (parse_u64(arg, &v) || !v || v > DEBUGINFOD_TIMEOUT_MAX) {
			fprintf(stderr, "perfregs-dump: --debuginfod-timeout takes seconds, "
				"1 to %u, not '%s'\n", DEBUGINFOD_TIMEOUT_MAX, arg);
			return EXIT_USAGE;
		}
		d->debuginfod_timeout = (unsigned int)v;
		break;
	case K_DEMANGLE:	/* the last of the two wins, as in perf */
	case K_NO_DEMANGLE:
		d->o.demangle = o->key == K_DEMANGLE;
		break;
	case K_INLINE:		/* the last of the two wins, as in perf */
	case K_NO_INLINE:
		d->o.inlines = o->key == K_INLINE;
		break;
	case K_FORMAT:
		return parse_format(arg, d);
	case K_FIELDS:
		if (fields_parse(arg, &d->o, err, sizeof(err))) {
			fprintf(stderr, "perfregs-dump: %s: %s\n", as_typed, err);
			return EXIT_USAGE;
		}
		d->fields_opt = !strcmp(as_typed, "-F") ? "-F" : "--fields";
		break;
	case K_FLAMEGRAPH:
		d->o.flamegraph = arg;
		d->tee = true;		/* as -f: record decodes too */
		break;
	case K_SUMMARY:
		d->o.summary = true;
		break;
	case K_QUIET:
		d->o.quiet = true;
		break;
	case K_VERBOSE:
		d->o.verbose++;
		break;
	case K_VERSION:
		printf("perfregs-dump %s, ABI %d.%d\n", PERFREGS_TOOL_VERSION,
		       PERFREGS_ABI_MAJOR, PERFREGS_ABI_MINOR);
		return EXIT_OK;
	}
	return GO_ON;
}

bool decode_fields_refused(const struct decode_opts *d, const char *not_for)
{
	const char *what = not_for;

	if (!d->fields_opt)
		return false;
	if (d->o.format == FMT_JSON)
		what = "-f json (its lines keep every key of docs/json-schema.md)";
	else if (d->o.format == FMT_FOLDED || d->o.flamegraph)
		what = "-f folded or --flamegraph (they print stacks)";
	if (!what)
		return false;
	fprintf(stderr, "perfregs-dump: %s picks the fields of the text output: "
		"not for %s\n", d->fields_opt, what);
	return true;
}

bool decode_flamegraph_refused(const struct decode_opts *d, bool convert)
{
	if (!d->o.flamegraph || (!convert && (!d->format_set || d->o.format == FMT_FOLDED)))
		return false;
	fprintf(stderr, "perfregs-dump: --flamegraph draws the stacks of -f folded: "
		"it takes no -f text or json, and convert none\n");
	return true;
}
