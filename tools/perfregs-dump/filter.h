/* SPDX-License-Identifier: GPL-2.0 */
/*
 * filter.c: which samples of a recording a command keeps, as perf
 * report and perf script take them: --pid, --tid, --comms, --cpu,
 * --time, --dsos and --symbols.
 */
#ifndef PERFREGS_DUMP_FILTER_H
#define PERFREGS_DUMP_FILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "types.h"

/*
 * What a filter may hold: the command line's, but bounded all the same
 * (docs/security.md): each list at most FILTER_LIST_MAX entries, each
 * name at most FILTER_NAME_MAX bytes, CPUs below FILTER_CPU_MAX.
 */
#define FILTER_LIST_MAX		1024
#define FILTER_NAME_MAX		4096
#define FILTER_CPU_MAX		8192
#define FILTER_TIMES_MAX	64

enum filter_key {
	FILTER_PID, FILTER_TID, FILTER_COMM, FILTER_CPU, FILTER_TIME, FILTER_DSO,
	FILTER_SYM,
};

struct filter_names {
	unsigned int n;
	char **name;
};

struct filter_span {
	uint64_t start, stop;	/* ns, both included; stop UINT64_MAX: open */
	double from, to;	/* a percent span (pct): of the recording's time */
};

struct filter {
	bool set;		/* any of them: the summary counts what is left out */
	unsigned int npids, ntids;
	uint32_t *pids, *tids;
	struct filter_names comms, dsos, syms;
	uint64_t *cpus;		/* a bitmap, FILTER_CPU_MAX bits; NULL: any */
	unsigned int nspans;
	bool pct;		/* the spans are percents, filter_time_base() not yet */
	/*
	 * FILTER_TIMES_MAX of them, allocated by --time: struct filter lies
	 * in the commands' options on the stack, under every frame a live
	 * run's child unwinds to main before its exec
	 */
	struct filter_span *spans;
};

/*
 * arg of the option of key into f (lists add to what is there); 0, or
 * -1 with what is wrong in err.
 */
int filter_parse(struct filter *f, enum filter_key key, const char *arg, char *err,
		 size_t errlen);
/* --time given as percents: they become times of [first, last]. */
void filter_time_base(struct filter *f, uint64_t first, uint64_t last);
/*
 * Does f keep sample s (its stack st), decoded by thread t?  --dsos and
 * --symbols resolve its IP's symbol (the first sample's frame, as perf
 * takes the sample's own).
 */
bool filter_match(struct session *d, struct dthread *t, const struct filter *f,
		  const struct perfregs_rec_sample *s, const struct sample_stack *st);
/* inline: without a filter, a call per sample was 2% of -f folded */
static inline bool filter_keep(struct session *d, struct dthread *t, const struct filter *f,
			       const struct perfregs_rec_sample *s,
			       const struct sample_stack *st)
{
	return !f || !f->set || filter_match(d, t, f, s, st);
}
void filter_free(struct filter *f);

#endif
