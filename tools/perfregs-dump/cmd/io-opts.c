// SPDX-License-Identifier: GPL-2.0
/* The files a command reads and writes: -i, -o, --to, --threads. */
#include <stdio.h>
#include <string.h>
#include "../types.h"
#include "../pool.h"
#include "sample-opts.h"
#include "io-opts.h"

enum { K_OUTPUT = 'o', K_INPUT = 'i', K_THREADS = 768, K_TO };

const struct opt io_output_opts[] = {
	{ K_OUTPUT, 'o', "output", ARG_REQUIRED, "FILE",
	  "record to FILE instead of decoding (with -f:\n"
	  "record and decode); an existing FILE is kept\n"
	  "as FILE.old; -: the standard output (a pipe)", 0 },
	{ 0 },
};

const struct opt io_input_opts[] = {
	{ K_INPUT, 'i', "input", ARG_REQUIRED, "FILE",
	  "decode the recording FILE (a pipe too; -: the\n"
	  "standard input)", 0 },
	{ 0 },
};

const struct opt io_threads_opts[] = {
	{ K_THREADS, 0, "threads", ARG_REQUIRED, "N",
	  "decode a recording's samples in N threads (default:\n"
	  "one per CPU once one has decoded for 0.1 s, unless\n"
	  "a file is nearly read then; the output is the same\n"
	  "for any N)", 0 },
	{ 0 },
};

const struct opt io_convert_opts[] = {
	{ K_TO, 0, "to", ARG_REQUIRED, "FMT",
	  "convert to perf (perf.data, the default) or pprof\n"
	  "(gzipped profile.proto, for go tool pprof)", 0 },
	{ 0 },
};

int io_opt(void *state, const struct opt *o, const char *as_typed, const char *arg)
{
	struct io_opts *io = state;
	uint64_t v;

	switch (o->key) {
	case K_OUTPUT:
		io->output = arg;
		break;
	case K_INPUT:
		io->input = arg;
		break;
	case K_THREADS:
		if (parse_u64(arg, &v) || !v || v > POOL_THREADS_MAX) {
			fprintf(stderr, "perfregs-dump: --threads wants a number of "
				"threads from 1 to %d, not '%s'\n", POOL_THREADS_MAX, arg);
			return EXIT_USAGE;
		}
		io->threads = (unsigned int)v;
		break;
	case K_TO:
		if (!strcmp(arg, "perf")) {
			io->to = TO_PERF;
		} else if (!strcmp(arg, "pprof")) {
			io->to = TO_PPROF;
		} else {
			fprintf(stderr, "perfregs-dump: --to is perf (perf.data) or "
				"pprof (profile.proto), not '%s'\n", arg);
			return EXIT_USAGE;
		}
		io->to_set = true;
		break;
	}
	return GO_ON;
}

/* For a sampling option given with -i: what may have been meant. */
static const char *sampling_hint(const char *opt)
{
	if (!strncmp(opt, "--call-graph", 12))
		return " (--call-graph dwarf alone unwinds its stacks)";
	if (!strcmp(opt, "-F/--freq"))
		return " (the fields of the text output are --fields LIST, or "
		       "report -F LIST)";
	return "";
}

int io_refuse_sampling(const struct io_opts *io, const struct sample_opts *s)
{
	if (!io->input || !s->sampling_opt)
		return GO_ON;
	fprintf(stderr, "perfregs-dump: -i takes no %s: it sets up sampling, and a "
		"recording decodes with the settings it was made with%s\n",
		s->sampling_opt, sampling_hint(s->sampling_opt));
	return EXIT_USAGE;
}

int io_refuse_to(const struct io_opts *io)
{
	if (!io->to_set)
		return GO_ON;
	fprintf(stderr, "perfregs-dump: --to says what convert writes: "
		"perfregs-dump convert --to %s -i FILE -o OUTPUT\n",
		io->to == TO_PPROF ? "pprof" : "perf");
	return EXIT_USAGE;
}
