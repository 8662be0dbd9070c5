// SPDX-License-Identifier: GPL-2.0
/*
 * perfregs-dump report: decode a recording (perfregs.prf unless -i says
 * otherwise), or, given something to sample, a live run.
 */
#include <stdio.h>
#include "cmd/live.h"
#include "builtin.h"

static const struct cmd_desc report_desc = {
	.name = "report",
	.usage = "[-i FILE] [-f text|json|folded] [--call-graph dwarf] [-F FIELDS]\n"
		 " [--flamegraph SVG] [--threads N]\n"
		 "[SAMPLING OPTIONS] [-- COMMAND [ARGS]]",
	.about = "Decode a recording (perfregs.prf unless -i says otherwise), or a live\n"
		 "run given a COMMAND, -p, -t or -a.",
	.after = "Exit status: 0 ok, 1 usage, 2 device or configuration refused,\n"
		 "3 COMMAND could not start, 4 malformed records or recording, 5 file error.",
};

int cmd_report(int argc, char **argv, const struct globals *g)
{
	struct sample_opts s;
	struct decode_opts d;
	struct io_opts io = { 0 };
	struct opt_table tables[] = {
		{ "Decoding options", decode_output_opts_F, decode_opt, &d, false },
		{ "Symbols and stacks", decode_symbol_opts, decode_opt, &d, false },
		{ "Input", io_input_opts, io_opt, &io, false },
		{ "Threads", io_threads_opts, io_opt, &io, false },
		{ "Sampling options (a live run)", sample_opts_plain, sample_opt, &s, false },
		{ "Common options", common_opts, decode_opt, &d, false },
		{ "Output", io_output_opts, io_opt, &io, true },
		{ "Convert", io_convert_opts, io_opt, &io, true },
	};
	struct live_args live = { &s, &d, NULL, NULL };
	int ret, rest;

	sample_opts_init(&s, false);
	decode_opts_init(&d, &s);
	globals_apply(g, &d);
	ret = opts_parse(&report_desc, tables, sizeof(tables) / sizeof(tables[0]), argc,
			 argv, &rest);
	if (ret != GO_ON)
		return ret;
	if (rest < argc)
		live.command = argv + rest;
	if (decode_flamegraph_refused(&d, false) ||
	    decode_fields_refused(&d, io.output && !d.tee ?
				  "a recording without -f text (it prints no samples)" : NULL))
		return EXIT_USAGE;
	if (io.output) {
		fprintf(stderr, "perfregs-dump: report decodes: it takes no -o "
			"(perfregs-dump record -o FILE records)\n");
		return EXIT_USAGE;
	}
	if (!io.input && !live.command && !s.all_cpus && s.pid < 0 && s.tid < 0)
		io.input = DEFAULT_RECORDING;	/* as perf report reads perf.data */
	ret = io_refuse_sampling(&io, &s);
	if (ret == GO_ON)
		ret = io_refuse_to(&io);
	if (ret != GO_ON)
		return ret;
	if (io.input)
		return script_decode(&s, &d, &io, live.command);
	return live_run(&live);
}
