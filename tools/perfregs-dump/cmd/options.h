/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Options as data: each command's options are tables of struct opt,
 * from which getopt_long()'s tables, the command's --help and its
 * --list-opts are all made (options.c).  A table's handler gets each
 * option it lists, with the command's own state: nothing global.
 */
#ifndef PERFREGS_DUMP_CMD_OPTIONS_H
#define PERFREGS_DUMP_CMD_OPTIONS_H

#include <stdbool.h>
#include <stdio.h>

/* What the steps of a command return to go on; anything else is the exit status. */
#define GO_ON	(-1)

enum opt_arg { ARG_NONE, ARG_REQUIRED, ARG_OPTIONAL };

/* struct opt's flags */
enum {
	OPT_SAMPLING = 1 << 0,	/* sets up sampling: a recording has its own */
	OPT_ALIAS = 1 << 1,	/* another name of the option above it */
	/*
	 * An optional argument may be the next word too, as perf's -g
	 * caller: the handler is offered it, and returns ARG_NOT_TAKEN
	 * (having done nothing) when it is no argument of the option; for
	 * an argument given with the option, ARG_NOT_TAKEN says it is
	 * wrong, and opts_parse() says so.
	 */
	OPT_NEXT_WORD = 1 << 2,
};

#define ARG_NOT_TAKEN	(-2)

struct opt {
	int key;		/* handed to the table's handler */
	char short_name;	/* 0: none */
	const char *long_name;	/* NULL: none */
	enum opt_arg arg;
	const char *argname;	/* the argument as --help names it */
	const char *help;	/* lines, each ending in \n but the last */
	unsigned int flags;
};

/*
 * One option is handled by the handler of its table, given the table's
 * state (a command's options struct, or part of it), the option as
 * typed (-F or --fields: "-F", "--fields") and its argument.  Returns
 * GO_ON, or the exit status once it has said what is wrong.
 */
typedef int (*opt_handler)(void *state, const struct opt *o, const char *as_typed,
			   const char *arg);

struct opt_table {
	const char *title;	/* the heading of --help's section */
	const struct opt *opts;	/* ends with a zero key */
	opt_handler handle;
	void *state;
	/*
	 * Parsed, but neither in --help nor in --list-opts: options of other
	 * commands that this one refuses with a message of its own (a
	 * sampling option given to what reads a recording, -o to report).
	 */
	bool hidden;
};

/* A command, as its --help shows it. */
struct cmd_desc {
	const char *name;	/* NULL: the tool without a command */
	const char *usage;	/* usage lines after "perfregs-dump NAME ", \n between */
	const char *about;	/* what it does, lines */
	const char *after;	/* after the options, or NULL */
};

/*
 * Parse argv[0..argc) (argv[0] the command's name) with the tables
 * (ntables of them, in --help's order) until the first argument that is
 * no option, or "--"; *rest is the index of the first argument left.
 * -h/--help and --list-opts are every command's: they print and return
 * EXIT_OK.  An unknown option or a missing argument says so in one line
 * and points at --help: EXIT_USAGE.
 */
int opts_parse(const struct cmd_desc *cmd, struct opt_table *tables, int ntables,
	       int argc, char **argv, int *rest);
void opts_help(const struct cmd_desc *cmd, const struct opt_table *tables, int ntables,
	       FILE *fp);
/* One line an option: "-x\t--long\tARG\n", - for what it lacks. */
void opts_list(const struct opt_table *tables, int ntables, FILE *fp);

#endif
