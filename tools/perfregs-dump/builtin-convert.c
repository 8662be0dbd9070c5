// SPDX-License-Identifier: GPL-2.0
/*
 * perfregs-dump convert: a recording into perf.data (perf script, perf
 * report) or into pprof's profile.proto (go tool pprof).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "perfdata.h"
#include "pprof.h"
#include "session.h"
#include "diag.h"
#include "cmd/decode.h"
#include "builtin.h"

static const struct cmd_desc convert_desc = {
	.name = "convert",
	.usage = "[--to perf|pprof] -i FILE -o OUTPUT",
	.about = "Convert a recording into perf.data, with its own call chains (perf script,\n"
		 "perf report), or into pprof's gzipped profile.proto (go tool pprof).",
	.after = "Exit status: 0 ok, 1 usage, 4 malformed records or recording, 5 file error,\n"
		 "6 interrupted (the file holds the records before it).",
};

static int convert_run(const struct io_opts *io, struct decode_opts *opts,
		       const char *event_name)
{
	bool pprof = io->to == TO_PPROF;
	struct session *d = calloc(1, sizeof(*d));
	char err[512];
	int ret;

	if (!d) {
		fprintf(stderr, "perfregs-dump: out of memory\n");
		return EXIT_IO;
	}
	ret = decode_filter_prepare(opts->filter, io->input);
	if (ret != EXIT_OK) {
		free(d);
		return ret;
	}
	d->o = opts->o;
	d->o.event_name = event_name;
	/* every stack the recording has is unwound but with --no-call-graph */
	d->o.callgraph = !opts->no_callgraph;
	d->m.symfs = opts->o.symfs;
	d->m.demangle = opts->o.demangle;
	d->m.inline_frames = opts->o.inlines;
	d->out = stdout;
	ret = debuginfod_start(&d->m, opts);
	if (ret != GO_ON) {
		free(d);
		return ret;
	}
	decode_watch(d);
	if (pprof)
		ret = pprof_convert(io->input, io->output, d, err, sizeof(err));
	else
		ret = perfdata_convert(io->input, io->output, d, err, sizeof(err));
	decode_watch_end(d);
	if (!d->o.quiet)
		diag_print(&d->m, stderr);
	session_free(d);
	if (ret == -EINTR) {
		fprintf(stderr, "perfregs-dump: interrupted: %s holds the records before it\n",
			strcmp(io->output, "-") ? io->output : "the standard output");
		ret = EXIT_INTERRUPTED;
	} else if (ret) {
		fprintf(stderr, "perfregs-dump: %s\n", err);
		ret = ret == -EIO ? EXIT_IO : EXIT_DATA;
	} else {
		uint64_t n = d->samples - d->filtered;
		const char *reader = pprof ? "go tool pprof" : "perf script -i";

		if (d->o.quiet)
			;
		else if (!strcmp(io->output, "-"))
			fprintf(stderr, "perfregs-dump: wrote %" PRIu64 " samples to the standard "
				"output, as %s: read the file it went to with %s FILE\n", n,
				pprof ? "a pprof profile" : "perf.data", reader);
		else
			fprintf(stderr, "perfregs-dump: wrote %s (%" PRIu64 " samples); read it "
				"with %s %s\n", io->output, n, reader, io->output);
		ret = EXIT_OK;
	}
	free(d);
	return ret;
}

int cmd_convert(int argc, char **argv, const struct globals *g)
{
	struct sample_opts s;
	struct decode_opts d;
	struct io_opts io = { 0 };
	struct opt_table tables[] = {
		{ "Convert options", io_convert_opts, io_opt, &io, false },
		{ "Input", io_input_opts, io_opt, &io, false },
		{ "Output", io_output_opts, io_opt, &io, false },
		{ "Filters", decode_filter_opts_long, decode_opt, &d, false },
		{ "Symbols and stacks", decode_symbol_opts, decode_opt, &d, false },
		{ "Debug files", decode_debuginfod_opts, decode_opt, &d, false },
		{ "Common options", common_opts, decode_opt, &d, false },
		{ "Sampling options", sample_opts_F, sample_opt, &s, true },
		{ "Decoding options", decode_output_opts, decode_opt, &d, true },
		{ "Threads", io_threads_opts, io_opt, &io, true },
	};
	int ret, rest;

	sample_opts_init(&s, true);
	decode_opts_init(&d, &s);
	globals_apply(g, &d);
	ret = opts_parse(&convert_desc, tables, sizeof(tables) / sizeof(tables[0]), argc,
			 argv, &rest);
	if (ret != GO_ON)
		return ret;
	if (decode_flamegraph_refused(&d, true) ||
	    decode_fields_refused(&d, "convert (it prints no samples)"))
		return EXIT_USAGE;
	ret = io_refuse_sampling(&io, &s);
	if (ret != GO_ON)
		return ret;
	if (!io.input || !io.output || rest < argc) {
		fprintf(stderr, "perfregs-dump: usage: perfregs-dump convert -i "
			"RECORDING -o perf.data, or convert --to pprof -i RECORDING "
			"-o prof.pb.gz\n");
		return EXIT_USAGE;
	}
	if (!strcmp(io.output, "-") && isatty(STDOUT_FILENO)) {
		fprintf(stderr, "perfregs-dump: convert -o - writes a binary file to the "
			"standard output, which is a terminal: redirect it (> FILE)\n");
		return EXIT_USAGE;
	}
	ret = convert_run(&io, &d, s.event_name);
	filter_free(d.filter);
	free(d.filter);
	return ret;
}
