// SPDX-License-Identifier: GPL-2.0
/*
 * report's table printed: as perf report --stdio prints its table, the
 * entries sorted by their overhead with the call chains under each (a
 * graph or flat), or as JSON.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "out-put.h"
#include "hist.h"

/* The table's columns */

static const char *key_header(enum hist_key k)
{
	static const char *const hdr[HK_NR] = {
		[HK_COMM] = "Command", [HK_PID] = "Pid", [HK_TID] = "Tid",
		[HK_DSO] = "Shared Object", [HK_SYM] = "Symbol", [HK_ABI] = "ABI",
		[HK_CPU] = "CPU",
	};

	return hdr[k];
}

static const char *key_json(enum hist_key k)
{
	static const char *const name[HK_NR] = {
		[HK_COMM] = "comm", [HK_PID] = "pid", [HK_TID] = "tid", [HK_DSO] = "dso",
		[HK_SYM] = "sym", [HK_ABI] = "abi", [HK_CPU] = "cpu",
	};

	return name[k];
}

/* e's value of key k as the table shows it; numbers right-justified */
static const char *key_value(const struct entry *e, enum hist_key k, char *buf,
			     size_t len, bool *number)
{
	*number = k == HK_PID || k == HK_TID || k == HK_CPU;
	switch (k) {
	case HK_COMM:
		return e->comm;
	case HK_PID:
		snprintf(buf, len, "%" PRIu32, e->pid);
		return buf;
	case HK_TID:
		snprintf(buf, len, "%" PRIu32, e->tid);
		return buf;
	case HK_CPU:
		snprintf(buf, len, "%" PRIu32, e->cpu);
		return buf;
	case HK_DSO:
		return e->dso;
	case HK_SYM:
		return e->sym;
	case HK_ABI:
		return e->abi;
	case HK_NR:
		break;
	}
	return "";
}

static const struct hist *sort_h;	/* qsort() takes no argument */

static int entry_cmp(const void *a, const void *b)
{
	const struct entry *x = *(const struct entry *const *)a;
	const struct entry *y = *(const struct entry *const *)b;
	char bx[16], by[16];
	unsigned int k;
	bool num;
	int c;

	if (sort_h->o.children && x->children != y->children)
		return x->children > y->children ? -1 : 1;
	if (x->self != y->self)
		return x->self > y->self ? -1 : 1;
	for (k = 0; k < sort_h->o.nkeys; k++) {
		enum hist_key key = sort_h->o.keys[k];

		if (key == HK_PID || key == HK_TID || key == HK_CPU) {
			uint32_t vx = key == HK_PID ? x->pid : key == HK_TID ? x->tid : x->cpu;
			uint32_t vy = key == HK_PID ? y->pid : key == HK_TID ? y->tid : y->cpu;

			if (vx != vy)
				return vx < vy ? -1 : 1;
			continue;
		}
		c = strcmp(key_value(x, key, bx, sizeof(bx), &num),
			   key_value(y, key, by, sizeof(by), &num));
		if (c)
			return c;
	}
	return 0;
}

static double pct(uint64_t v, uint64_t total)
{
	return total ? 100.0 * (double)v / (double)total : 0.0;
}

/* The entries shown, sorted, over the --percent-limit; their number. */
static size_t shown(struct hist *h, struct entry ***out)
{
	struct entry **v = NULL;
	size_t i, n = 0;

	if (h->n)
		v = malloc(h->n * sizeof(*v));
	if (!v) {
		*out = NULL;
		return 0;
	}
	for (i = 0; i < h->n; i++) {
		struct entry *e = h->all[i];
		uint64_t p = h->o.children ? e->children : e->self;

		if (pct(p, h->total) >= h->o.percent_limit)
			v[n++] = e;
	}
	sort_h = h;
	qsort(v, n, sizeof(*v), entry_cmp);
	*out = v;
	return n;
}

static int node_cmp(const void *a, const void *b)
{
	const struct node *x = *(const struct node *const *)a;
	const struct node *y = *(const struct node *const *)b;

	if (x->period != y->period)
		return x->period > y->period ? -1 : 1;
	return strcmp(x->name, y->name) ?: strcmp(x->dso, y->dso);
}

/* n's children over the threshold, most first: their number; *v to free */
static size_t kids(const struct hist *h, const struct node *n, struct node ***v)
{
	const struct node *c;
	size_t k = 0;

	*v = NULL;
	for (c = n->kids; c; c = c->next)
		k++;
	if (!k || !(*v = malloc(k * sizeof(**v))))
		return 0;
	k = 0;
	for (c = n->kids; c; c = c->next)
		if (pct(c->period, h->total) >= h->o.cg_threshold)
			(*v)[k++] = (struct node *)c;
	qsort(*v, k, sizeof(**v), node_cmp);
	return k;
}

/*
 * Down the path from c while it does not fork (one child, with all of
 * c's period), a frame a line under prefix; the node where it forks.
 */
static const struct node *down_unforked(const struct hist *h, FILE *fp,
					const struct node *c, const char *prefix)
{
	for (;;) {
		struct node **one;
		size_t nk = kids(h, c, &one);

		if (nk != 1 || one[0]->period != c->period) {
			free(one);
			return c;
		}
		c = one[0];
		free(one);
		fprintf(fp, "%s%s\n", prefix, c->name);
	}
}

/*
 * The branches under n, perf's graph: each "|--P%--name" (the last
 * " --P%--name") after a "|" line, a path without a fork in a column
 * under its first name.
 */
static void print_branches(const struct hist *h, FILE *fp, const struct node *n,
			   const char *prefix, bool bar)
{
	char sub[1024], p[16];
	struct node **v, *c;
	size_t k, i, len = strlen(prefix);

	k = kids(h, n, &v);
	for (i = 0; i < k; i++) {
		bool last = i == k - 1;
		int w;

		c = v[i];
		w = snprintf(p, sizeof(p), "%.2f%%", pct(c->period, h->total));
		if (i || !bar)
			fprintf(fp, "%s|          \n", prefix);
		fprintf(fp, "%s%s--%s--%s\n", prefix, last ? " " : "|", p, c->name);
		if (len + 5 + w >= sizeof(sub))	/* deeper than a line holds */
			continue;
		snprintf(sub, sizeof(sub), "%s%s%*s", prefix, last ? " " : "|", w + 4, "");
		print_branches(h, fp, down_unforked(h, fp, c, sub), sub, false);
	}
	free(v);
}

/* An entry's chains, perf's graph; false if none is over the threshold. */
static bool print_graph(const struct hist *h, FILE *fp, const struct node *root)
{
	const char *margin = "            ";	/* the table's first two columns */
	const struct node *c = root;
	struct node **one;
	char sub[32];
	size_t nk = kids(h, root, &one);

	if (!nk) {
		free(one);
		return false;
	}
	fprintf(fp, "%s|          \n", margin);
	if (nk != 1 || one[0]->period != root->period) {
		free(one);
		print_branches(h, fp, root, margin, true);
		return true;
	}
	c = one[0];
	free(one);
	fprintf(fp, "%s---%s\n", margin, c->name);
	snprintf(sub, sizeof(sub), "%s   ", margin);
	print_branches(h, fp, down_unforked(h, fp, c, sub), sub, false);
	return true;
}

/* perf's flat: each path with its own period, its frames one a line */
static void print_flat(const struct hist *h, FILE *fp, const struct node *n,
		       const struct node **path, unsigned int depth)
{
	struct node **v;
	uint64_t own = n->period;
	size_t k, i;

	if (depth > 0)
		path[depth - 1] = n;
	k = kids(h, n, &v);
	for (i = 0; i < k; i++)
		own -= v[i]->period;
	if (depth > 0 && own && pct(own, h->total) >= h->o.cg_threshold) {
		fprintf(fp, "           %6.2f%%\n", pct(own, h->total));
		for (i = 0; i < depth; i++)
			fprintf(fp, "                %s\n", path[i]->name);
		fprintf(fp, "\n");
	}
	for (i = 0; i < k && depth < 256; i++)
		print_flat(h, fp, v[i], path, depth + 1);
	free(v);
}

/* 4123 as perf's header has it: "4K" */
static uint64_t unit(uint64_t v, char *u)
{
	*u = ' ';
	if (v > 1000) {
		v /= 1000;
		*u = 'K';
	}
	if (v > 1000) {
		v /= 1000;
		*u = 'M';
	}
	if (v > 1000) {
		v /= 1000;
		*u = 'G';
	}
	return v;
}

void hist_print(struct hist *h, FILE *fp, const struct hist_header *hd)
{
	struct entry **v;
	size_t n = shown(h, &v), i;
	int width[HK_NR] = { 0 };
	unsigned int k, last = h->o.nkeys ? h->o.nkeys - 1 : 0;
	char buf[16], u;
	uint64_t nr;
	bool num;

	for (k = 0; k < h->o.nkeys; k++) {
		width[k] = strlen(key_header(h->o.keys[k]));
		for (i = 0; i < n; i++) {
			int w = strlen(key_value(v[i], h->o.keys[k], buf, sizeof(buf), &num));

			if (w > width[k])
				width[k] = w;
		}
	}
	fprintf(fp, "# To display the recording's header info, use -v (on standard error).\n");
	fprintf(fp, "#\n#\n# Total Lost Samples: %" PRIu64 "\n#\n", hd->lost);
	nr = unit(h->samples, &u);
	fprintf(fp, "# Samples: %" PRIu64 "%c of event '%s'\n", nr, u, hd->event);
	fprintf(fp, "# Event count (approx.): %" PRIu64 "\n", h->total);
	if (h->dropped || h->cut)
		fprintf(fp, "# Over the table's budget: %" PRIu64 " samples left out, %" PRIu64
			" counted without all of their chain\n", h->dropped, h->cut);
	fprintf(fp, "#\n# ");
	fprintf(fp, h->o.children ? "Children      Self" : "Overhead");
	if (h->o.show_nr)
		fprintf(fp, "  %12s", "Samples");
	for (k = 0; k < h->o.nkeys; k++)	/* perf pads the last one too */
		fprintf(fp, "  %-*s", width[k], key_header(h->o.keys[k]));
	fprintf(fp, "\n# ");
	fprintf(fp, h->o.children ? "........  ........" : "........");
	if (h->o.show_nr)
		fprintf(fp, "  ............");
	for (k = 0; k < h->o.nkeys; k++) {
		fprintf(fp, "  ");
		for (i = 0; i < (size_t)width[k]; i++)
			fputc('.', fp);
	}
	fprintf(fp, "\n#\n");
	for (i = 0; i < n; i++) {
		struct entry *e = v[i];

		fprintf(fp, "  ");
		if (h->o.children)
			fprintf(fp, "%7.2f%%  ", pct(e->children, h->total));
		fprintf(fp, "%7.2f%%", pct(e->self, h->total));
		if (h->o.show_nr)
			fprintf(fp, "  %12" PRIu64, h->o.children ? e->nchildren : e->nself);
		for (k = 0; k < h->o.nkeys; k++) {
			const char *val = key_value(e, h->o.keys[k], buf, sizeof(buf), &num);

			if (k == last && !num)
				fprintf(fp, "  %s", val);
			else
				fprintf(fp, num ? "  %*s" : "  %-*s", width[k], val);
		}
		fprintf(fp, "\n");
		if (h->o.cg == HCG_GRAPH && print_graph(h, fp, &e->root))
			fprintf(fp, "\n");
		else if (h->o.cg == HCG_FLAT && e->root.kids) {
			const struct node *path[257];

			print_flat(h, fp, &e->root, path, 0);
		}
	}
	fprintf(fp, "\n");
	free(v);
}

/* n's children as JSON: [{"name", "period", "percent", "samples", "callchain"}] */
static void json_nodes(const struct hist *h, FILE *fp, const struct node *n,
		       unsigned int depth)
{
	char name[6 * NAME_MAX_LEN + 2];
	struct node **v;
	size_t k = kids(h, n, &v), i;

	fprintf(fp, "[");
	for (i = 0; i < k && depth < 256; i++) {
		*put_json(name, v[i]->name, NAME_MAX_LEN) = 0;
		fprintf(fp, "%s{\"name\":%s,", i ? "," : "", name);
		*put_json(name, v[i]->dso, NAME_MAX_LEN) = 0;
		fprintf(fp, "\"dso\":%s,\"period\":%" PRIu64 ",\"samples\":%" PRIu64
			",\"percent\":%.2f,\"callchain\":", name, v[i]->period,
			v[i]->samples, pct(v[i]->period, h->total));
		json_nodes(h, fp, v[i], depth + 1);
		fprintf(fp, "}");
	}
	fprintf(fp, "]");
	free(v);
}

void hist_print_json(struct hist *h, FILE *fp, const struct hist_header *hd)
{
	char val[6 * NAME_MAX_LEN + 2], buf[16];
	struct entry **v;
	size_t n = shown(h, &v), i;
	unsigned int k;
	bool num;

	*put_json(val, hd->event, 256) = 0;
	fprintf(fp, "{\"event\":%s,\"samples\":%" PRIu64 ",\"lost\":%" PRIu64
		",\"left_out\":%" PRIu64 ",\"cut\":%" PRIu64 ",\"period\":%" PRIu64
		",\"children\":%s,\"sort\":[", val, h->samples, hd->lost, h->dropped, h->cut,
		h->total,
		h->o.children ? "true" : "false");
	for (k = 0; k < h->o.nkeys; k++)
		fprintf(fp, "%s\"%s\"", k ? "," : "", key_json(h->o.keys[k]));
	fprintf(fp, "],\"entries\":[");
	for (i = 0; i < n; i++) {
		struct entry *e = v[i];

		fprintf(fp, "%s\n{", i ? "," : "");
		if (h->o.children)
			fprintf(fp, "\"children\":%.2f,\"children_period\":%" PRIu64
				",\"children_samples\":%" PRIu64 ",",
				pct(e->children, h->total), e->children, e->nchildren);
		fprintf(fp, "\"self\":%.2f,\"self_period\":%" PRIu64 ",\"self_samples\":%"
			PRIu64, pct(e->self, h->total), e->self, e->nself);
		for (k = 0; k < h->o.nkeys; k++) {
			const char *s = key_value(e, h->o.keys[k], buf, sizeof(buf), &num);

			if (num)
				fprintf(fp, ",\"%s\":%s", key_json(h->o.keys[k]), s);
			else {
				*put_json(val, s, NAME_MAX_LEN) = 0;
				fprintf(fp, ",\"%s\":%s", key_json(h->o.keys[k]), val);
			}
		}
		if (h->o.cg != HCG_NONE) {
			fprintf(fp, ",\"callchain\":");
			json_nodes(h, fp, &e->root, 0);
		}
		fprintf(fp, "}");
	}
	fprintf(fp, "\n]}\n");
	free(v);
}

