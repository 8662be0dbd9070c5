// SPDX-License-Identifier: GPL-2.0
/*
 * Which samples of a recording a command keeps: the filters of perf
 * report and perf script, parsed from their options and applied to
 * each sample before any writer sees it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "resolve.h"
#include "folded.h"
#include "filter.h"

/* a decimal number, all of s */
static int parse_u64(const char *s, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 10);
	return errno || *s < '0' || *s > '9' || *end ? -1 : 0;
}

static int bad(char *err, size_t errlen, const char *what, const char *arg)
{
	snprintf(err, errlen, "%s, not '%.64s'", what, arg);
	return -1;
}

/* The next comma-separated item of *p into buf; false at the end. */
static bool next_item(const char **p, char *buf, size_t len, bool *too_long)
{
	const char *s = *p, *e;
	size_t n;

	if (!*s)
		return false;
	e = strchr(s, ',');
	n = e ? (size_t)(e - s) : strlen(s);
	*too_long = n >= len;
	if (!*too_long) {
		memcpy(buf, s, n);
		buf[n] = 0;
	}
	*p = e ? e + 1 : s + n;
	return true;
}

static int add_u32(uint32_t **v, unsigned int *n, const char *arg, const char *what,
		   char *err, size_t errlen)
{
	const char *p = arg;
	char item[32];
	bool too_long;
	uint64_t x;

	while (next_item(&p, item, sizeof(item), &too_long)) {
		if (too_long || parse_u64(item, &x) || x > UINT32_MAX)
			return bad(err, errlen, what, arg);
		if (*n >= FILTER_LIST_MAX) {
			snprintf(err, errlen, "at most %d of them", FILTER_LIST_MAX);
			return -1;
		}
		if (!(*n & (*n - 1)) || !*n) {
			uint32_t *m = realloc(*v, (*n ? 2 * *n : 1) * sizeof(**v));

			if (!m)
				return bad(err, errlen, "out of memory", arg);
			*v = m;
		}
		(*v)[(*n)++] = (uint32_t)x;
	}
	if (!*n)
		return bad(err, errlen, what, arg);
	return 0;
}

static int add_names(struct filter_names *l, const char *arg, char *err, size_t errlen)
{
	const char *p = arg;
	char *item = malloc(FILTER_NAME_MAX);
	bool too_long;
	int ret = 0;

	if (!item)
		return bad(err, errlen, "out of memory", arg);
	while (!ret && next_item(&p, item, FILTER_NAME_MAX, &too_long)) {
		char **m;

		if (too_long || !*item) {
			ret = bad(err, errlen, "a comma-separated list of names", arg);
		} else if (l->n >= FILTER_LIST_MAX) {
			snprintf(err, errlen, "at most %d names", FILTER_LIST_MAX);
			ret = -1;
		} else if (!(m = realloc(l->name, (l->n + 1) * sizeof(*m))) ||
			   !(m[l->n] = strdup(item))) {
			if (m)
				l->name = m;
			ret = bad(err, errlen, "out of memory", arg);
		} else {
			l->name = m;
			l->n++;
		}
	}
	free(item);
	if (!ret && !l->n)
		ret = bad(err, errlen, "a comma-separated list of names", arg);
	return ret;
}

/* perf's CPU list: 0-3,6 */
static int add_cpus(struct filter *f, const char *arg, char *err, size_t errlen)
{
	const char *p = arg;
	char item[48];
	bool too_long;
	uint64_t a, b, c;

	if (!f->cpus) {
		f->cpus = calloc(FILTER_CPU_MAX / 64, sizeof(*f->cpus));
		if (!f->cpus)
			return bad(err, errlen, "out of memory", arg);
	}
	if (!*arg)
		return bad(err, errlen, "a CPU list such as 0-3,6", arg);
	while (next_item(&p, item, sizeof(item), &too_long)) {
		char *dash = too_long ? NULL : strchr(item, '-');

		if (dash)
			*dash = 0;
		if (too_long || parse_u64(item, &a) || (dash && parse_u64(dash + 1, &b)))
			return bad(err, errlen, "a CPU list such as 0-3,6", arg);
		if (!dash)
			b = a;
		if (a > b || b >= FILTER_CPU_MAX) {
			snprintf(err, errlen, "CPUs 0 to %d, in ranges low-high, not '%.64s'",
				 FILTER_CPU_MAX - 1, arg);
			return -1;
		}
		for (c = a; c <= b; c++)
			f->cpus[c / 64] |= 1ULL << (c % 64);
	}
	return 0;
}

/* seconds with up to 9 decimals ("12.5", perf's "12345.678901") into ns */
static int parse_seconds(const char *s, uint64_t *ns)
{
	const char *dot = strchr(s, '.');
	char whole[24];
	uint64_t sec = 0, frac = 0;
	size_t n = dot ? (size_t)(dot - s) : strlen(s);
	int digits = 0;

	if (n >= sizeof(whole) || (!n && !dot))
		return -1;
	memcpy(whole, s, n);
	whole[n] = 0;
	if (n && parse_u64(whole, &sec))
		return -1;
	if (dot) {
		for (s = dot + 1; *s; s++, digits++) {
			if (*s < '0' || *s > '9' || digits >= 9)
				return -1;
			frac = frac * 10 + (uint64_t)(*s - '0');
		}
		if (!digits && !n)
			return -1;
		for (; digits < 9; digits++)
			frac *= 10;
	}
	if (sec > (UINT64_MAX - frac) / 1000000000ULL)
		return -1;
	*ns = sec * 1000000000ULL + frac;
	return 0;
}

static int parse_pct(const char *s, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	if (errno || end == s || strcmp(end, "%") || !(*v >= 0 && *v <= 100))
		return -1;
	return 0;
}

/*
 * perf's --time: START,STOP in seconds (either may be left out), or
 * percents of the recording's time: A%-B%[,C%-D%...], or P%/N (the Nth
 * slice of P% each).
 */
static int add_time(struct filter *f, const char *arg, char *err, size_t errlen)
{
	static const char what[] = "START,STOP in seconds (12.5,13), or percents: "
				   "10%-20%[,...] or 10%/2";
	char buf[128], *comma, *slash;
	const char *p = arg;
	bool too_long;

	if (f->nspans) {
		snprintf(err, errlen, "only one --time");
		return -1;
	}
	if (!f->spans)
		f->spans = calloc(FILTER_TIMES_MAX, sizeof(*f->spans));
	if (!f->spans)
		return bad(err, errlen, "out of memory", arg);
	if (!strchr(arg, '%')) {
		struct filter_span *sp = &f->spans[0];

		if (strlen(arg) >= sizeof(buf) || !(comma = strchr(strcpy(buf, arg), ',')))
			return bad(err, errlen, what, arg);
		*comma = 0;
		sp->start = 0;
		sp->stop = UINT64_MAX;
		if ((*buf && parse_seconds(buf, &sp->start)) ||
		    (comma[1] && parse_seconds(comma + 1, &sp->stop)) ||
		    sp->start > sp->stop || (!*buf && !comma[1]))
			return bad(err, errlen, what, arg);
		f->nspans = 1;
		return 0;
	}
	f->pct = true;
	slash = strchr(arg, '/');
	if (slash) {
		uint64_t nth;
		double size;

		if (strlen(arg) >= sizeof(buf))
			return bad(err, errlen, what, arg);
		strcpy(buf, arg);
		buf[slash - arg] = 0;
		if (parse_pct(buf, &size) || size <= 0 || parse_u64(slash + 1, &nth) ||
		    !nth || (double)(nth - 1) * size >= 100)
			return bad(err, errlen, what, arg);
		f->spans[0].from = (double)(nth - 1) * size;
		f->spans[0].to = f->spans[0].from + size > 100 ? 100 : f->spans[0].from + size;
		f->nspans = 1;
		return 0;
	}
	while (next_item(&p, buf, sizeof(buf), &too_long)) {
		struct filter_span *sp = &f->spans[f->nspans];
		char *dash = too_long ? NULL : strchr(buf, '-');

		if (!dash || f->nspans >= FILTER_TIMES_MAX)
			return bad(err, errlen, what, arg);
		*dash = 0;
		if (parse_pct(buf, &sp->from) || parse_pct(dash + 1, &sp->to) ||
		    sp->from > sp->to)
			return bad(err, errlen, what, arg);
		f->nspans++;
	}
	if (!f->nspans)
		return bad(err, errlen, what, arg);
	return 0;
}

int filter_parse(struct filter *f, enum filter_key key, const char *arg, char *err,
		 size_t errlen)
{
	int ret = -1;

	switch (key) {
	case FILTER_PID:
		ret = add_u32(&f->pids, &f->npids, arg, "a comma-separated list of pids",
			      err, errlen);
		break;
	case FILTER_TID:
		ret = add_u32(&f->tids, &f->ntids, arg, "a comma-separated list of tids",
			      err, errlen);
		break;
	case FILTER_COMM:
		ret = add_names(&f->comms, arg, err, errlen);
		break;
	case FILTER_CPU:
		ret = add_cpus(f, arg, err, errlen);
		break;
	case FILTER_TIME:
		ret = add_time(f, arg, err, errlen);
		break;
	case FILTER_DSO:
		ret = add_names(&f->dsos, arg, err, errlen);
		break;
	case FILTER_SYM:
		ret = add_names(&f->syms, arg, err, errlen);
		break;
	}
	if (!ret)
		f->set = true;
	return ret;
}

void filter_time_base(struct filter *f, uint64_t first, uint64_t last)
{
	double span = last > first ? (double)(last - first) : 0;
	unsigned int i;

	for (i = 0; i < f->nspans; i++) {
		f->spans[i].start = first + (uint64_t)(span * f->spans[i].from / 100);
		f->spans[i].stop = f->spans[i].to >= 100 ? UINT64_MAX :
				   first + (uint64_t)(span * f->spans[i].to / 100);
	}
	f->pct = false;
}

static bool has_u32(const uint32_t *v, unsigned int n, uint32_t x)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (v[i] == x)
			return true;
	return false;
}

/* name, n bytes of it (not NUL-terminated), among l's */
static bool has_name(const struct filter_names *l, const char *name, size_t n)
{
	unsigned int i;

	for (i = 0; i < l->n; i++)
		if (strlen(l->name[i]) == n && !memcmp(l->name[i], name, n))
			return true;
	return false;
}

static bool in_spans(const struct filter *f, uint64_t t)
{
	unsigned int i;

	for (i = 0; i < f->nspans; i++)
		if (t >= f->spans[i].start && t <= f->spans[i].stop)
			return true;
	return false;
}

/* the sample's symbol and file, as perf's --symbols and --dsos take them */
static bool keep_resolved(struct session *d, struct dthread *t, const struct filter *f,
			  const struct perfregs_rec_sample *s, const struct sample_stack *st)
{
	struct resolved r;
	const char *dso, *base;

	resolve_sample(d, t, s, st, RESOLVE_SYM, &r);
	/* its name without the +0xOFFSET (a demangled name may hold a '+') */
	if (f->syms.n && (!r.sym[0] || !has_name(&f->syms, r.sym, folded_func_len(r.sym))))
		return false;
	if (f->dsos.n) {
		dso = r.have_ip && resolve_kernel_addr(r.ip) ? "[kernel.kallsyms]" :
		      r.dso ? r.dso : "";
		base = strrchr(dso, '/');
		base = base ? base + 1 : dso;
		if (!*dso || (!has_name(&f->dsos, dso, strlen(dso)) &&
			      !has_name(&f->dsos, base, strlen(base))))
			return false;
	}
	return true;
}

bool filter_match(struct session *d, struct dthread *t, const struct filter *f,
		  const struct perfregs_rec_sample *s, const struct sample_stack *st)
{
	if (f->npids && !has_u32(f->pids, f->npids, s->pid))
		return false;
	if (f->ntids && !has_u32(f->tids, f->ntids, s->tid))
		return false;
	if (f->cpus && (s->cpu >= FILTER_CPU_MAX ||
			!((f->cpus[s->cpu / 64] >> (s->cpu % 64)) & 1)))
		return false;
	if (f->comms.n && !has_name(&f->comms, s->comm, strnlen(s->comm, sizeof(s->comm))))
		return false;
	if (f->nspans && !in_spans(f, s->time))
		return false;
	if (f->syms.n || f->dsos.n)
		return keep_resolved(d, t, f, s, st);
	return true;
}

static void names_free(struct filter_names *l)
{
	unsigned int i;

	for (i = 0; i < l->n; i++)
		free(l->name[i]);
	free(l->name);
	l->name = NULL;
	l->n = 0;
}

void filter_free(struct filter *f)
{
	if (!f)
		return;
	free(f->pids);
	free(f->tids);
	free(f->cpus);
	free(f->spans);
	names_free(&f->comms);
	names_free(&f->dsos);
	names_free(&f->syms);
	memset(f, 0, sizeof(*f));
}
