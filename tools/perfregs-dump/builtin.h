/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The commands of perfregs-dump (builtin-*.c), as perfregs-dump.c calls
 * them, and what they share.
 */
#ifndef PERFREGS_DUMP_BUILTIN_H
#define PERFREGS_DUMP_BUILTIN_H

#include "cmd/sample-opts.h"
#include "cmd/decode-opts.h"
#include "cmd/io-opts.h"
#include "cmd/debuginfod.h"

/* The options given before the command: perfregs-dump -q report ... */
struct globals {
	bool quiet;
	int verbose;
};

/* Each takes its arguments from its name on (argv[0]), returns the exit status. */
int cmd_record(int argc, char **argv, const struct globals *g);
int cmd_report(int argc, char **argv, const struct globals *g);
int cmd_script(int argc, char **argv, const struct globals *g);
int cmd_convert(int argc, char **argv, const struct globals *g);

/*
 * Decode the recording io->input (script, report, -i): it takes no
 * COMMAND and no target.  Returns the exit status.
 */
int script_decode(const struct sample_opts *s, struct decode_opts *d,
		  const struct io_opts *io, char **command);

/* What every command that parses options starts from. */
void globals_apply(const struct globals *g, struct decode_opts *d);

#endif
