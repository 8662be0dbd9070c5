// SPDX-License-Identifier: GPL-2.0
/*
 * perfregs-dump: its commands (record, report, script, convert), the
 * options before them, and the forms without a command, as perf's own
 * perf.c dispatches.  See docs/perfregs-dump.1 for options and exit codes.
 *
 *   perfregs-dump [-q] [-v] COMMAND [OPTIONS]
 *   perfregs-dump [OPTIONS] [-- COMMAND [ARGS]]      (record's, decoded live)
 *   perfregs-dump -i FILE [OPTIONS]                  (script's)
 */
#include <stdio.h>
#include <string.h>
#include "rec-write.h"
#include "cmd/live.h"
#include "builtin.h"

struct command {
	const char *name;
	int (*run)(int argc, char **argv, const struct globals *g);
	const char *what;
};

static const struct command commands[] = {
	{ "record", cmd_record, "sample into a recording (perfregs.prf)" },
	{ "report", cmd_report, "decode a recording, or a live run" },
	{ "script", cmd_script, "list a recording's samples, one by one" },
	{ "convert", cmd_convert, "a recording into perf.data or pprof's profile" },
};
#define NCOMMANDS	(sizeof(commands) / sizeof(commands[0]))

static const struct cmd_desc tool_desc = {
	.name = NULL,
	.usage = "[-q] [-v] COMMAND [OPTIONS]\n"
		 "[OPTIONS] [-- COMMAND [ARGS]]\n"
		 "-i FILE [-f text|json|folded] [--fields FIELDS] [--flamegraph SVG]\n"
		 " [--threads N]",
	.about = "Sample interrupt and user registers through /dev/perfregs and decode them.\n"
		 "\n"
		 "Commands (perfregs-dump COMMAND --help for each one's options):\n"
		 "  record                sample into a recording (perfregs.prf)\n"
		 "  report                decode a recording (perfregs.prf), or a live run\n"
		 "  script                list a recording's samples, one by one\n"
		 "  convert               a recording into perf.data or pprof's profile\n"
		 "\n"
		 "Without a command, -i FILE decodes a recording as script does, and\n"
		 "anything else samples and decodes live (-o: records as record does).",
	.after = "record writes perfregs.prf unless -o says otherwise; report reads it unless\n"
		 "-i says otherwise, or decodes a live run given a COMMAND, -p, -t or -a.\n"
		 "With COMMAND and neither -a nor -p/-t, COMMAND is sampled (its threads and\n"
		 "what it forks).  Exit status: 0 ok, 1 usage, 2 device or configuration refused,\n"
		 "3 COMMAND could not start, 4 malformed records or recording, 5 file error,\n"
		 "6 a decode interrupted.",
};

/* No command: the options alone say what to do, as before there were commands. */
static int no_command(int argc, char **argv)
{
	struct sample_opts s;
	struct decode_opts d;
	struct io_opts io = { 0 };
	struct opt_table tables[] = {
		{ "Sampling options", sample_opts_F, sample_opt, &s, false },
		{ "Decoding options", decode_output_opts, decode_opt, &d, false },
		{ "Symbols and stacks", decode_symbol_opts, decode_opt, &d, false },
		{ "Debug files of a recording", decode_debuginfod_opts, decode_opt, &d, false },
		{ "Files", io_output_opts, io_opt, &io, false },
		{ "Input", io_input_opts, io_opt, &io, false },
		{ "Threads", io_threads_opts, io_opt, &io, false },
		{ "Common options", common_opts, decode_opt, &d, false },
		{ "Convert", io_convert_opts, io_opt, &io, true },
	};
	struct live_args live = { &s, &d, NULL, NULL };
	int ret, rest;

	sample_opts_init(&s, true);
	decode_opts_init(&d, &s);
	ret = opts_parse(&tool_desc, tables, sizeof(tables) / sizeof(tables[0]), argc, argv,
			 &rest);
	if (ret != GO_ON)
		return ret;
	if (rest < argc)
		live.command = argv + rest;
	if (decode_flamegraph_refused(&d, false) ||
	    decode_fields_refused(&d, io.output && !d.tee ?
				  "a recording without -f text (it prints no samples)" : NULL))
		return EXIT_USAGE;
	ret = io_refuse_sampling(&io, &s);
	if (ret == GO_ON)
		ret = io_refuse_to(&io);
	if (ret != GO_ON)
		return ret;
	if (io.input)
		return script_decode(&s, &d, &io, live.command);
	live.output = io.output;
	return live_run(&live);
}

/* -q, -v, -qv ...: an option every command takes, given before it */
static bool global_option(const char *arg, struct globals *g)
{
	const char *p;

	if (!strcmp(arg, "--quiet") || !strcmp(arg, "--verbose")) {
		if (arg[2] == 'q')
			g->quiet = true;
		else
			g->verbose++;
		return true;
	}
	if (arg[0] != '-' || !arg[1] || strspn(arg + 1, "qv") != strlen(arg + 1))
		return false;
	for (p = arg + 1; *p; p++)
		if (*p == 'q')
			g->quiet = true;
		else
			g->verbose++;
	return true;
}

int main(int argc, char **argv)
{
	struct globals g = { false, 0 };
	size_t c;
	int i;

	debuginfod_env_take();	/* before anything reads the environment */
	rec_cmdline(argc, argv);	/* as typed, for convert's perf.data */
	if (argc == 2 && !strcmp(argv[1], "--list-cmds")) {	/* perf's */
		for (c = 0; c < NCOMMANDS; c++)
			printf("%s\n", commands[c].name);
		return EXIT_OK;
	}
	for (i = 1; i < argc && global_option(argv[i], &g); i++)
		;
	for (c = 0; i < argc && c < NCOMMANDS; c++)
		if (!strcmp(argv[i], commands[c].name))
			return commands[c].run(argc - i, argv + i, &g);
	return no_command(argc, argv);
}
