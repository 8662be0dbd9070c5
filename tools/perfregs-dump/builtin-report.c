// SPDX-License-Identifier: GPL-2.0
/*
 * perfregs-dump report: a recording (perfregs.prf unless -i says
 * otherwise) summed as perf report --stdio sums perf.data: overhead by
 * the sort keys, children and self, the call chains under each entry
 * (hist.c); or its stacks folded, or drawn as a flame graph.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "session.h"
#include "resolve.h"
#include "hist.h"
#include "diag.h"
#include "output.h"
#include "cmd/decode.h"
#include "builtin.h"

static const struct cmd_desc report_desc = {
	.name = "report",
	.usage = "[-i FILE] [--children|--no-children] [-s KEYS] [-g [SPEC]] [-n]\n"
		 " [--percent-limit PCT] [--max-stack N] [-G] [-f text|json]\n"
		 "[-i FILE] -f folded | --flamegraph SVG",
	.about = "Sum a recording (perfregs.prf unless -i says otherwise) by the sort keys:\n"
		 "the overhead of each comm, process, file, symbol, ABI or CPU, with the\n"
		 "call chains that led there, as perf report --stdio does; or fold its\n"
		 "stacks (-f folded), or draw them (--flamegraph).  script lists the\n"
		 "samples one by one.",
	.after = "Exit status: 0 ok, 1 usage, 4 malformed records or recording (the table\n"
		 "holds the records before it), 5 file error, 6 interrupted (so does it).",
};

enum {
	K_CHILDREN = 600, K_NO_CHILDREN, K_SORT, K_PERCENT_LIMIT, K_NR_SAMPLES, K_CG,
	K_NO_CG, K_INVERTED, K_MAX_STACK, K_FORMAT,
};

static const struct opt report_opts[] = {
	{ K_CHILDREN, 0, "children", ARG_NONE, NULL,
	  "a sample counts for the entry of each function on\n"
	  "its chain too (Children); the default with chains", 0 },
	{ K_NO_CHILDREN, 0, "no-children", ARG_NONE, NULL,
	  "a sample counts for its leaf's entry alone", 0 },
	{ K_SORT, 's', "sort", ARG_REQUIRED, "KEYS",
	  "the entries' keys, in order: comm,pid,tid,dso,sym,\n"
	  "abi,cpu (default comm,dso,sym); abi sets an i386\n"
	  "copy of a function apart from its x86-64 one", 0 },
	{ K_PERCENT_LIMIT, 0, "percent-limit", ARG_REQUIRED, "PCT",
	  "leave out entries below PCT percent", 0 },
	{ K_NR_SAMPLES, 'n', "show-nr-samples", ARG_NONE, NULL,
	  "a column of the samples of each entry", 0 },
	{ K_CG, 'g', "call-graph", ARG_OPTIONAL, "SPEC",
	  "the chains under each entry, SPEC's words comma-\n"
	  "separated: graph (default), flat or none; caller\n"
	  "(outermost first) or callee; a threshold in percent\n"
	  "(default 0.5); dwarf (the recording's stacks are\n"
	  "unwound whenever it has them)", OPT_NEXT_WORD },
	{ K_NO_CG, 0, "no-call-graph", ARG_NONE, NULL,
	  "no chains: each sample is its leaf alone", 0 },
	{ K_INVERTED, 'G', "inverted", ARG_NONE, NULL, "-g caller", 0 },
	{ K_MAX_STACK, 0, "max-stack", ARG_REQUIRED, "N",
	  "take at most N frames of each chain", 0 },
	{ K_FORMAT, 'f', "format", ARG_REQUIRED, "FMT",
	  "text (default: perf report --stdio's table), json\n"
	  "(the same table), or folded (stacks and counts)", 0 },
	{ 0 },
};

static const struct opt report_flame_opts[] = {
	{ 1, 0, "flamegraph", ARG_REQUIRED, "SVG",
	  "draw the stacks as a flame graph: one SVG file\n"
	  "with search and zoom for a browser", 0 },
	{ 0 },
};

struct report_opts {
	struct hist_opts h;
	bool children_set, order_set, json, folded, format_set;
	bool cg_none;			/* -g none: no chains printed */
	bool cg_set;			/* -g or -G given */
	bool no_cg;			/* --no-call-graph: none unwound */
};

/* --sort's keys */
static int parse_sort(const char *arg, struct report_opts *r)
{
	static const char *const names[HK_NR] = {
		[HK_COMM] = "comm", [HK_PID] = "pid", [HK_TID] = "tid", [HK_DSO] = "dso",
		[HK_SYM] = "sym", [HK_ABI] = "abi", [HK_CPU] = "cpu",
	};
	const char *p = arg;
	unsigned int k;

	r->h.nkeys = 0;
	while (*p) {
		size_t len = strcspn(p, ",");

		for (k = 0; k < HK_NR; k++)
			if (strlen(names[k]) == len && !strncmp(p, names[k], len))
				break;
		if (k == HK_NR || r->h.nkeys == HK_NR) {
			fprintf(stderr, "perfregs-dump: --sort takes comm, pid, tid, dso, sym, "
				"abi and cpu, each once, not '%s'\n", arg);
			return EXIT_USAGE;
		}
		r->h.keys[r->h.nkeys++] = k;
		p += len + (p[len] == ',');
	}
	if (!r->h.nkeys) {
		fprintf(stderr, "perfregs-dump: --sort wants a key: comm, pid, tid, dso, "
			"sym, abi or cpu\n");
		return EXIT_USAGE;
	}
	return GO_ON;
}

static bool parse_percent(const char *s, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	return !errno && end != s && !*end && *v >= 0 && *v <= 100;
}

/*
 * -g's words; offered the word after -g too, which it takes only if
 * every word is one of them (ARG_NOT_TAKEN, nothing changed, if not).
 */
static int parse_cg(const char *arg, struct report_opts *r)
{
	struct hist_opts h = r->h;
	bool order_set = r->order_set, none = false;
	const char *p = arg;
	char word[32];
	double v;

	h.cg = HCG_GRAPH;
	while (p && *p) {
		size_t len = strcspn(p, ",");

		snprintf(word, sizeof(word), "%.*s", (int)(len < 31 ? len : 31), p);
		if (!strcmp(word, "graph") || !strcmp(word, "fractal")) {
			h.cg = HCG_GRAPH;
		} else if (!strcmp(word, "flat")) {
			h.cg = HCG_FLAT;
		} else if (!strcmp(word, "none")) {
			none = true;
		} else if (!strcmp(word, "caller") || !strcmp(word, "callee")) {
			h.caller = word[4] == 'e';
			order_set = true;
		} else if (!strcmp(word, "dwarf") || !strcmp(word, "function") ||
			   !strcmp(word, "percent")) {
			/* the recording's stacks are unwound; by function; in percent */
		} else if (parse_percent(word, &v)) {
			h.cg_threshold = v;
		} else {
			return ARG_NOT_TAKEN;	/* opts_parse() says so */
		}
		p += len + (p[len] == ',');
	}
	r->h = h;
	r->order_set = order_set;
	r->cg_none = none;
	return GO_ON;
}

static int report_opt(void *state, const struct opt *o, const char *as_typed,
		      const char *arg)
{
	struct report_opts *r = state;
	char *end;
	unsigned long v;

	switch (o->key) {
	case K_CHILDREN:
	case K_NO_CHILDREN:
		r->h.children = o->key == K_CHILDREN;
		r->children_set = true;
		break;
	case K_SORT:
		return parse_sort(arg, r);
	case K_PERCENT_LIMIT:
		if (!parse_percent(arg, &r->h.percent_limit)) {
			fprintf(stderr, "perfregs-dump: --percent-limit takes a percentage "
				"from 0 to 100, not '%s'\n", arg);
			return EXIT_USAGE;
		}
		break;
	case K_NR_SAMPLES:
		r->h.show_nr = true;
		break;
	case K_CG:
		r->cg_set = true;
		return parse_cg(arg, r);
	case K_NO_CG:
		r->no_cg = true;
		break;
	case K_INVERTED:
		r->cg_set = true;
		r->h.caller = true;
		r->order_set = true;
		break;
	case K_MAX_STACK:
		errno = 0;
		v = strtoul(arg, &end, 10);
		if (errno || end == arg || *end || !v || v > SAMPLE_FRAMES_MAX) {
			fprintf(stderr, "perfregs-dump: --max-stack takes 1 to %u frames, not "
				"'%s'\n", SAMPLE_FRAMES_MAX, arg);
			return EXIT_USAGE;
		}
		r->h.max_stack = v;
		break;
	case K_FORMAT:
		r->format_set = true;
		r->json = !strcmp(arg, "json");
		r->folded = !strcmp(arg, "folded");
		if (!r->json && !r->folded && strcmp(arg, "text")) {
			fprintf(stderr, "perfregs-dump: report's --format is text, json or "
				"folded, not '%s'\n", arg);
			return EXIT_USAGE;
		}
		break;
	}
	return GO_ON;
}

static int flame_opt(void *state, const struct opt *o, const char *as_typed,
		     const char *arg)
{
	struct decode_opts *d = state;

	(void)o;
	(void)as_typed;
	d->o.flamegraph = arg;
	return GO_ON;
}

/* The report tool: each sample, its frames resolved, into the table. */
struct report {
	struct tool tool;
	struct session *d;
	struct hist *h;
	bool cg_decided;
	uint64_t stacks;		/* samples with a stack */
	uint64_t period;		/* of each sample: config_period() */
};

static void report_sample(struct tool *t, int cpu, const struct perfregs_rec_sample *s,
			  const struct sample_stack *st)
{
	struct report *rep = container_of(t, struct report, tool);
	struct sample_frame sf[SAMPLE_FRAMES_MAX], sx[SAMPLE_FRAMES_OUT];
	const struct sample_frame *v;
	struct hist_frame f[SAMPLE_FRAMES_OUT];
	struct session *d = rep->d;
	struct hist_sample hs;
	struct resolved r;
	unsigned int n, i;

	(void)cpu;
	if (st->data)
		rep->stacks++;
	if (!rep->cg_decided) {
		rep->cg_decided = true;
		rep->period = d->info.cfg_known ? config_period(&d->info.cfg) : 1;
		if (!rep->period)
			rep->period = 1;
	}
	resolve_sample(d, &d->self, s, st, RESOLVE_SYM, &r);
	n = resolve_frames(d, &d->self, &r, r.sym, sf);
	v = resolve_inlines(d, sf, &n, false, sx, SAMPLE_FRAMES_OUT);
	for (i = 0; i < n; i++)
		f[i] = (struct hist_frame){ .sym = v[i].sym, .dso = v[i].dso,
					    .addr = v[i].ip, .kernel = v[i].kernel,
					    .inlined = v[i].inlined };
	if (!n) {	/* no IP: a frame of its own */
		f[0] = (struct hist_frame){ .sym = "", .dso = "", .addr = 0 };
		n = 1;
	}
	hs = (struct hist_sample){ .comm = s->comm, .pid = s->pid, .tid = s->tid,
				   .cpu = s->cpu, .abi = r.dd.abi_name, .period = rep->period,
				   .n = n, .f = f };
	hist_add(rep->h, &hs);
}

/* The table of the recording at path: the exit status. */
static int report_file(const char *path, struct decode_opts *dopts, struct report_opts *ro)
{
	struct hist_header hd = { 0 };
	struct report rep = { 0 };
	struct session *d;
	uint64_t produced = 0;
	const char *budget;
	char err[512];
	int ret, i;

	ret = decode_filter_prepare(dopts->filter, path);
	if (ret != EXIT_OK)
		return ret;
	/* a test knob: a budget below HIST_BYTES_MAX (docs/security.md) */
	budget = getenv("PERFREGS_REPORT_BYTES");
	if (budget)
		ro->h.bytes_max = strtoull(budget, NULL, 0);
	d = calloc(1, sizeof(*d));
	if (d)
		rep.h = hist_new(&ro->h);
	if (!d || !rep.h) {
		free(d);
		fprintf(stderr, "perfregs-dump: out of memory\n");
		return EXIT_IO;
	}
	d->o = dopts->o;
	/* perf's rule: the chains of a recording that has them (of each sample's stack) */
	d->o.callgraph = !ro->no_cg;
	d->m.symfs = dopts->o.symfs;
	d->m.demangle = dopts->o.demangle;
	d->m.inline_frames = dopts->o.inlines;
	d->out = stdout;
	ret = debuginfod_start(&d->m, dopts);
	if (ret != GO_ON) {
		hist_free(rep.h);
		free(d);
		return ret;
	}
	rep.d = d;
	rep.tool.sample = report_sample;
	decode_watch(d);
	ret = session_decode(path, d, &rep.tool, &produced, err, sizeof(err));
	decode_watch_end(d);
	/* what went wrong first, then what was made of the rest */
	if (ret == -EINTR)
		fprintf(stderr, "perfregs-dump: interrupted: the table holds the records "
			"before it\n");
	else if (ret == -EIO || ret == -EPROTO)
		fprintf(stderr, "perfregs-dump: %s\n", err);
	else if (ret)
		fprintf(stderr, "perfregs-dump: %s; the table holds the records before it\n",
			err);
	if (!d->o.quiet)
		diag_print(&d->m, stderr);
	if (d->o.verbose)
		verbose_recording(path, d);
	if (ret != -EIO && ret != -EPROTO) {
		hd.event = d->o.event_name;
		for (i = 0; i < PERFREGS_LOST_MAX; i++)
			hd.lost += d->lost[i];
		/* perf's: a recording without chains has no children, prints none */
		if (!rep.stacks && !ro->children_set)
			hist_no_children(rep.h);
		if (!rep.stacks && !ro->cg_set)
			hist_no_chains(rep.h);
		if (ro->json)
			hist_print_json(rep.h, stdout, &hd);
		else
			hist_print(rep.h, stdout, &hd);
	}
	if (hist_dropped(rep.h) || hist_cut(rep.h))
		fprintf(stderr, "perfregs-dump: the table is full (docs/security.md): %" PRIu64
			" samples are left out of it, %" PRIu64 " are in it without all of "
			"their chain\n", hist_dropped(rep.h), hist_cut(rep.h));
	if (d->m.sb_lost && !d->o.quiet)
		sb_lost_note(d);
	if (!d->o.quiet && ret != -EPROTO)	/* no recording: nothing to sum up */
		out_summary(d, stderr, FMT_TEXT, produced);
	hist_free(rep.h);
	if (fflush(stdout)) {
		fprintf(stderr, "perfregs-dump: writing the output: %s\n", strerror(errno));
		ret = -EIO;
	}
	session_free(d);
	free(d);
	return ret == -EIO ? EXIT_IO : ret == -EINTR ? EXIT_INTERRUPTED :
	       ret ? EXIT_DATA : EXIT_OK;
}

int cmd_report(int argc, char **argv, const struct globals *g)
{
	struct sample_opts s;
	struct decode_opts d;
	struct io_opts io = { 0 };
	struct report_opts ro = {
		.h = { .keys = { HK_COMM, HK_DSO, HK_SYM }, .nkeys = 3, .cg = HCG_GRAPH,
		       .cg_threshold = 0.5 },
	};
	struct opt_table tables[] = {
		{ "Report", report_opts, report_opt, &ro, false },
		{ "Stacks", report_flame_opts, flame_opt, &d, false },
		{ "Symbols", decode_symfs_opts, decode_opt, &d, false },
		{ "Debug files", decode_debuginfod_opts, decode_opt, &d, false },
		{ "Input", io_input_opts, io_opt, &io, false },
		{ "Filters", decode_filter_opts, decode_opt, &d, false },
		{ "Common options", common_opts, decode_opt, &d, false },
		{ "Sampling options", sample_opts_plain, sample_opt, &s, true },
		{ "Output", io_output_opts, io_opt, &io, true },
		{ "Convert", io_convert_opts, io_opt, &io, true },
		{ "Threads", io_threads_opts, io_opt, &io, true },
	};
	int ret, rest;

	sample_opts_init(&s, false);
	decode_opts_init(&d, &s);
	globals_apply(g, &d);
	ret = opts_parse(&report_desc, tables, sizeof(tables) / sizeof(tables[0]), argc,
			 argv, &rest);
	if (ret != GO_ON)
		return ret;
	if (io.output) {
		fprintf(stderr, "perfregs-dump: report decodes: it takes no -o "
			"(perfregs-dump record -o FILE records)\n");
		return EXIT_USAGE;
	}
	if (rest < argc || s.all_cpus || s.pid >= 0 || s.tid >= 0) {
		fprintf(stderr, "perfregs-dump: report reads a recording, it takes no %s%s%s: "
			"record one first (perfregs-dump record -- COMMAND), or decode live "
			"without a command (perfregs-dump -- COMMAND)\n",
			rest < argc ? "COMMAND ('" : "-a, -p or -t",
			rest < argc ? argv[rest] : "", rest < argc ? "')" : "");
		return EXIT_USAGE;
	}
	ret = io_refuse_sampling(&io, &s);
	if (ret == GO_ON)
		ret = io_refuse_to(&io);
	if (ret != GO_ON)
		return ret;
	if (!io.input)
		io.input = DEFAULT_RECORDING;	/* as perf report reads perf.data */
	if (ro.cg_none || ro.no_cg)
		ro.h.cg = HCG_NONE;
	if (!ro.children_set)	/* perf's: children when there are chains */
		ro.h.children = !ro.no_cg;
	if (!ro.order_set)	/* perf's: caller order with children */
		ro.h.caller = ro.h.children;
	if (d.o.flamegraph && ro.format_set && !ro.folded) {
		fprintf(stderr, "perfregs-dump: --flamegraph draws the stacks of -f folded: "
			"it takes no -f text or json\n");
		return EXIT_USAGE;
	}
	if (ro.folded || d.o.flamegraph) {	/* the stacks, as script -f folded has them */
		d.o.format = ro.folded ? FMT_FOLDED : FMT_TEXT;
		if (!ro.no_cg)
			d.o.callgraph = true;
		return script_decode(&s, &d, &io, NULL);
	}
	if (io.threads) {
		fprintf(stderr, "perfregs-dump: report sums its table on one thread: "
			"--threads is for -f folded, --flamegraph and script\n");
		return EXIT_USAGE;
	}
	ret = report_file(io.input, &d, &ro);
	filter_free(d.filter);
	free(d.filter);
	return ret;
}
