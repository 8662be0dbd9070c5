// SPDX-License-Identifier: GPL-2.0
/*
 * perfregs-dump script: a recording's samples, one by one (text, JSON
 * Lines, folded stacks, a flame graph), as perf script lists perf.data.
 */
#include <stdio.h>
#include <stdlib.h>
#include "cmd/decode.h"
#include "builtin.h"

static const struct cmd_desc script_desc = {
	.name = "script",
	.usage = "[-i FILE] [-f text|json|folded] [-F FIELDS] [--no-call-graph]\n"
		 " [--flamegraph SVG] [--threads N]",
	.about = "List the samples of a recording (perfregs.prf unless -i says otherwise),\n"
		 "decoded with the register layout of each one's ABI.",
	.after = "Exit status: 0 ok, 1 usage, 4 malformed records or recording, 5 file error,\n"
		 "6 interrupted (the summary counts the records before it).",
};

void globals_apply(const struct globals *g, struct decode_opts *d)
{
	d->o.quiet = g->quiet;
	d->o.verbose = g->verbose;
}

int script_decode(const struct sample_opts *s, struct decode_opts *d,
		  const struct io_opts *io, char **command)
{
	struct session *dec;
	int ret;

	if (command || io->output || s->all_cpus || s->pid > 0 || s->tid > 0) {
		fprintf(stderr, "perfregs-dump: -i decodes a recording: it takes "
			"no COMMAND, -o, -a, -p or -t\n");
		return EXIT_USAGE;
	}
	ret = decode_filter_prepare(d->filter, io->input);
	if (ret != EXIT_OK)
		return ret;
	dec = calloc(1, sizeof(*dec));
	if (!dec) {
		fprintf(stderr, "perfregs-dump: out of memory\n");
		return EXIT_IO;
	}
	dec->o = d->o;
	dec->o.event_name = s->event_name;
	dec->m.symfs = d->o.symfs;
	dec->m.demangle = d->o.demangle;
	dec->m.inline_frames = d->o.inlines;
	dec->out = stdout;
	ret = debuginfod_start(&dec->m, d);
	if (ret != GO_ON) {
		free(dec);
		filter_free(d->filter);
		free(d->filter);
		d->filter = NULL;
		return ret;
	}
	ret = decode_file(io->input, dec, io->threads ? io->threads : default_threads(),
			  !io->threads);
	free(dec);
	filter_free(d->filter);
	free(d->filter);
	d->filter = NULL;
	return ret;
}

int cmd_script(int argc, char **argv, const struct globals *g)
{
	struct sample_opts s;
	struct decode_opts d;
	struct io_opts io = { 0 };
	struct opt_table tables[] = {
		{ "Decoding options", decode_output_opts_F, decode_opt, &d, false },
		{ "Symbols and stacks", decode_symbol_opts, decode_opt, &d, false },
		{ "Debug files", decode_debuginfod_opts, decode_opt, &d, false },
		{ "Input", io_input_opts, io_opt, &io, false },
		{ "Filters", decode_filter_opts, decode_opt, &d, false },
		{ "Threads", io_threads_opts, io_opt, &io, false },
		{ "Common options", common_opts, decode_opt, &d, false },
		{ "Sampling options", sample_opts_plain, sample_opt, &s, true },
		{ "Output", io_output_opts, io_opt, &io, true },
		{ "Convert", io_convert_opts, io_opt, &io, true },
	};
	int ret, rest;

	sample_opts_init(&s, false);
	decode_opts_init(&d, &s);
	globals_apply(g, &d);
	ret = opts_parse(&script_desc, tables, sizeof(tables) / sizeof(tables[0]), argc,
			 argv, &rest);
	if (ret != GO_ON)
		return ret;
	if (decode_flamegraph_refused(&d, false) || decode_fields_refused(&d, NULL))
		return EXIT_USAGE;
	if (io.output) {
		fprintf(stderr, "perfregs-dump: script decodes: it takes no -o "
			"(perfregs-dump record -o FILE records)\n");
		return EXIT_USAGE;
	}
	if (!io.input)
		io.input = DEFAULT_RECORDING;	/* as perf script reads perf.data */
	/* perf's rule: the chains of the stacks the recording has */
	if (!d.no_callgraph)
		d.o.callgraph = true;
	ret = io_refuse_sampling(&io, &s);
	if (ret == GO_ON)
		ret = io_refuse_to(&io);
	if (ret != GO_ON)
		return ret;
	return script_decode(&s, &d, &io, rest < argc ? argv + rest : NULL);
}
