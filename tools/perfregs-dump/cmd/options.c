// SPDX-License-Identifier: GPL-2.0
/*
 * Options as data: getopt_long()'s tables, --help and --list-opts, all
 * made from a command's tables of struct opt (options.h).
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "../types.h"
#include "options.h"

#define TOOL_NAME	"perfregs-dump"
#define HELP_COLUMN	24	/* where --help's descriptions start */
#define KEY_HELP	(-2)	/* the options every command has */
#define KEY_LIST	(-3)

static const struct opt every_command[] = {
	{ KEY_HELP, 'h', "help", ARG_NONE, NULL, "this text", 0 },
	{ KEY_LIST, 0, "list-opts", ARG_NONE, NULL,
	  "list the options, one a line (short, long, argument)", 0 },
	{ 0 },
};

static size_t count_opts(const struct opt_table *tables, int ntables)
{
	size_t n = 0;
	const struct opt *o;
	int t;

	for (t = 0; t < ntables; t++)
		for (o = tables[t].opts; o->key; o++)
			n++;
	for (o = every_command; o->key; o++)
		n++;
	return n;
}

/* "perfregs-dump record" or "perfregs-dump", for messages */
static void cmd_name(const struct cmd_desc *cmd, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s", TOOL_NAME, cmd->name ? " " : "",
		 cmd->name ? cmd->name : "");
}

/* Where the option of getopt's index idx lies: its table and entry. */
struct slot {
	const struct opt *o;
	int table;		/* -1: every_command */
};

static int build(struct opt_table *tables, int ntables, struct option **longs,
		 char **shorts, struct slot **slots)
{
	size_t n = count_opts(tables, ntables), i = 0, s = 0;
	const struct opt *o;
	int t;

	*longs = calloc(n + 1, sizeof(**longs));
	*shorts = calloc(3 * n + 2, 1);
	*slots = calloc(n, sizeof(**slots));
	if (!*longs || !*shorts || !*slots)
		return -1;
	(*shorts)[s++] = '+';	/* stop at the first argument that is no option */
	for (t = -1; t < ntables; t++) {
		for (o = t < 0 ? every_command : tables[t].opts; o->key; o++) {
			(*slots)[i].o = o;
			(*slots)[i].table = t;
			if (o->long_name) {
				(*longs)[i].name = o->long_name;
				(*longs)[i].has_arg = o->arg == ARG_REQUIRED ? required_argument :
						      o->arg == ARG_OPTIONAL ? optional_argument :
						      no_argument;
				/* getopt_long() says which by *longindex */
				(*longs)[i].val = 0;
			}
			if (o->short_name) {
				(*shorts)[s++] = o->short_name;
				if (o->arg != ARG_NONE)
					(*shorts)[s++] = ':';
				if (o->arg == ARG_OPTIONAL)
					(*shorts)[s++] = ':';
			}
			i++;
		}
	}
	/* getopt_long() wants the long options packed: move the nameless out */
	for (i = 0, s = 0; i < n; i++)
		if ((*longs)[i].name)
			(*longs)[s++] = (*longs)[i];
	memset(&(*longs)[s], 0, (n + 1 - s) * sizeof(**longs));
	return (int)n;
}

static const struct slot *find_short(const struct slot *slots, int n, int c)
{
	int i;

	for (i = 0; i < n; i++)
		if (slots[i].o->short_name && slots[i].o->short_name == c)
			return &slots[i];
	return NULL;
}

static const struct slot *find_long(const struct slot *slots, int n, const char *name)
{
	int i;

	for (i = 0; i < n; i++)
		if (slots[i].o->long_name && !strcmp(slots[i].o->long_name, name))
			return &slots[i];
	return NULL;
}

/* One line for what getopt refused, and where to look. */
static void refused(const struct cmd_desc *cmd, const struct slot *slots, int n,
		    int c, const char *arg)
{
	char name[64], opt[64];
	const struct slot *sl = NULL;

	cmd_name(cmd, name, sizeof(name));
	if (c && c != '?')
		snprintf(opt, sizeof(opt), "-%c", c);
	else
		snprintf(opt, sizeof(opt), "%.*s", (int)strcspn(arg ? arg : "?", "="),
			 arg ? arg : "?");
	if (c && c != '?')
		sl = find_short(slots, n, c);
	else if (!strncmp(opt, "--", 2))
		sl = find_long(slots, n, opt + 2);
	if (sl && sl->o->arg == ARG_REQUIRED)
		fprintf(stderr, "%s: %s wants an argument (%s): see %s --help\n", name,
			opt, sl->o->argname ? sl->o->argname : "a value", name);
	else if (sl)
		fprintf(stderr, "%s: %s takes no argument: see %s --help\n", name, opt, name);
	else
		fprintf(stderr, "%s: unknown option '%s': see %s --help\n", name, opt, name);
}

int opts_parse(const struct cmd_desc *cmd, struct opt_table *tables, int ntables,
	       int argc, char **argv, int *rest)
{
	struct option *longs = NULL;
	struct slot *slots = NULL;
	char *shorts = NULL, as_typed[64], name[64];
	int n, c, idx, ret = GO_ON;

	n = build(tables, ntables, &longs, &shorts, &slots);
	if (n < 0) {
		fprintf(stderr, TOOL_NAME ": out of memory\n");
		ret = EXIT_USAGE;
		goto out;
	}
	optind = 1;
	opterr = 0;
	for (;;) {
		const struct slot *sl;

		idx = -1;
		c = getopt_long(argc, argv, shorts, longs, &idx);
		if (c == -1)
			break;
		if (c == '?' || c == ':') {
			refused(cmd, slots, n, optopt, argv[optind - 1]);
			ret = EXIT_USAGE;
			break;
		}
		if (c == 0) {
			sl = find_long(slots, n, longs[idx].name);
			snprintf(as_typed, sizeof(as_typed), "--%s", longs[idx].name);
		} else {
			sl = find_short(slots, n, c);
			snprintf(as_typed, sizeof(as_typed), "-%c", c);
		}
		if (!sl) {
			ret = EXIT_USAGE;
			break;
		}
		if (sl->table < 0) {
			if (sl->o->key == KEY_HELP)
				opts_help(cmd, tables, ntables, stdout);
			else
				opts_list(tables, ntables, stdout);
			ret = EXIT_OK;
			break;
		}
		ret = ARG_NOT_TAKEN;
		if (sl->o->arg == ARG_OPTIONAL && !optarg && (sl->o->flags & OPT_NEXT_WORD) &&
		    optind < argc && argv[optind][0] != '-') {
			ret = tables[sl->table].handle(tables[sl->table].state, sl->o,
						       as_typed, argv[optind]);
			if (ret != ARG_NOT_TAKEN)
				optind++;
		}
		if (ret == ARG_NOT_TAKEN)
			ret = tables[sl->table].handle(tables[sl->table].state, sl->o,
						       as_typed, optarg);
		if (ret == ARG_NOT_TAKEN) {	/* given, as --opt=ARG or -oARG */
			cmd_name(cmd, name, sizeof(name));
			fprintf(stderr, "%s: %s takes %s, not '%s': see %s --help\n", name,
				as_typed, sl->o->argname ? sl->o->argname : "no such argument",
				optarg ? optarg : "", name);
			ret = EXIT_USAGE;
		}
		if (ret != GO_ON)
			break;
	}
	*rest = optind;
out:
	free(longs);
	free(shorts);
	free(slots);
	return ret;
}

/* "  -e, --event EVENT" / "      --simd LIST" / "  -I, --iregs[=REGS]" */
static int opt_tag(const struct opt *o, char *buf, size_t len)
{
	const char *a = o->argname ? o->argname : "ARG";

	return snprintf(buf, len, "  %c%c%s%s%s%s%s%s", o->short_name ? '-' : ' ',
			o->short_name ? o->short_name : ' ',
			o->short_name && o->long_name ? ", " : "  ",
			o->long_name ? "--" : "", o->long_name ? o->long_name : "",
			o->arg == ARG_OPTIONAL ? "[=" : o->arg == ARG_REQUIRED ? " " : "",
			o->arg != ARG_NONE ? a : "", o->arg == ARG_OPTIONAL ? "]" : "");
}

/* The description's lines, the first beside the tag if it fits. */
static void opt_help(const struct opt *o, FILE *fp)
{
	char tag[128];
	const char *h = o->help ? o->help : "";
	int len = opt_tag(o, tag, sizeof(tag));

	fputs(tag, fp);
	if (len + 2 > HELP_COLUMN) {
		fputc('\n', fp);
		len = 0;
	}
	for (;;) {
		size_t line = strcspn(h, "\n");

		fprintf(fp, "%*s%.*s\n", HELP_COLUMN - len, "", (int)line, h);
		len = 0;
		if (!h[line])
			break;
		h += line + 1;
	}
}

void opts_help(const struct cmd_desc *cmd, const struct opt_table *tables, int ntables,
	       FILE *fp)
{
	const char *u = cmd->usage;
	const struct opt *o;
	char name[64];
	bool first = true;
	int t;

	cmd_name(cmd, name, sizeof(name));
	for (;;) {
		size_t line = strcspn(u, "\n");

		/* a line that starts with a space goes on with the form above */
		if (*u == ' ')
			fprintf(fp, "       %*s%.*s\n", (int)strlen(name), "", (int)line, u);
		else
			fprintf(fp, "%s %s %.*s\n", first ? "usage:" : "      ", name,
				(int)line, u);
		first = false;
		if (!u[line])
			break;
		u += line + 1;
	}
	fprintf(fp, "%s\n", cmd->about);
	for (t = 0; t < ntables; t++) {
		if (tables[t].hidden)
			continue;
		fprintf(fp, "\n%s:\n", tables[t].title);
		for (o = tables[t].opts; o->key; o++)
			if (!(o->flags & OPT_ALIAS))
				opt_help(o, fp);
	}
	fputc('\n', fp);
	for (o = every_command; o->key; o++)
		opt_help(o, fp);
	if (cmd->after)
		fprintf(fp, "\n%s\n", cmd->after);
}

void opts_list(const struct opt_table *tables, int ntables, FILE *fp)
{
	const struct opt *o;
	int t;

	for (t = -1; t < ntables; t++) {
		if (t >= 0 && tables[t].hidden)
			continue;
		for (o = t < 0 ? every_command : tables[t].opts; o->key; o++)
			fprintf(fp, "%s%c\t%s%s\t%s\n", o->short_name ? "-" : "",
				o->short_name ? o->short_name : '-',
				o->long_name ? "--" : "-", o->long_name ? o->long_name : "",
				o->arg == ARG_NONE ? "-" : o->argname ? o->argname : "ARG");
	}
}
