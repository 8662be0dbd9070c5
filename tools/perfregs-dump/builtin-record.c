// SPDX-License-Identifier: GPL-2.0
/*
 * perfregs-dump record: sample a COMMAND, a process or the CPUs into a
 * recording (perfregs.prf unless -o says otherwise), decoding it on the
 * way with -f or --flamegraph.
 */
#include <stdio.h>
#include "cmd/live.h"
#include "builtin.h"

static const struct cmd_desc record_desc = {
	.name = "record",
	.usage = "[SAMPLING OPTIONS] [-o FILE] [-- COMMAND [ARGS]]",
	.about = "Sample a COMMAND, a process (-p, -t) or the CPUs (-a) into a recording,\n"
		 "perfregs.prf unless -o says otherwise; with -f or --flamegraph, decode\n"
		 "it on the way too.",
	.after = "Exit status: 0 ok, 1 usage, 2 device or configuration refused,\n"
		 "3 COMMAND could not start, 4 malformed records, 5 file error.",
};

int cmd_record(int argc, char **argv, const struct globals *g)
{
	struct sample_opts s;
	struct decode_opts d;
	struct io_opts io = { 0 };
	struct opt_table tables[] = {
		{ "Sampling options", sample_opts_F, sample_opt, &s, false },
		{ "Output", io_output_opts, io_opt, &io, false },
		{ "Decoding while recording", decode_output_opts, decode_opt, &d, false },
		{ "Symbols and stacks", decode_symbol_opts, decode_opt, &d, false },
		{ "Common options", common_opts, decode_opt, &d, false },
		{ "Input", io_input_opts, io_opt, &io, true },
		{ "Threads", io_threads_opts, io_opt, &io, true },
		{ "Convert", io_convert_opts, io_opt, &io, true },
	};
	struct live_args live = { &s, &d, NULL, NULL };
	int ret, rest;

	sample_opts_init(&s, true);
	decode_opts_init(&d, &s);
	globals_apply(g, &d);
	ret = opts_parse(&record_desc, tables, sizeof(tables) / sizeof(tables[0]), argc,
			 argv, &rest);
	if (ret != GO_ON)
		return ret;
	if (rest < argc)
		live.command = argv + rest;
	if (decode_flamegraph_refused(&d, false) ||
	    decode_fields_refused(&d, !d.tee ?
				  "a recording without -f text (it prints no samples)" : NULL))
		return EXIT_USAGE;
	if (io.input) {
		fprintf(stderr, "perfregs-dump: record samples: it takes no -i "
			"(perfregs-dump report -i FILE decodes)\n");
		return EXIT_USAGE;
	}
	ret = io_refuse_to(&io);
	if (ret != GO_ON)
		return ret;
	live.output = io.output ? io.output : DEFAULT_RECORDING;
	return live_run(&live);
}
