// SPDX-License-Identifier: GPL-2.0
/*
 * report's table: the samples summed by the sort keys into entries
 * (self: the entry of the sample's leaf; children: of every frame of its
 * chain, once a sample), each with the call chains through it, printed
 * as perf report --stdio prints its table, or as JSON.
 *
 * The chains of an entry are perf's: in callee order (the default of
 * --no-children) from the entry's frame out to the outermost caller; in
 * caller order (the default of --children, -G) from the outermost
 * caller in to the leaf for the entry of the leaf, and from the entry's
 * frame in to the leaf for every other entry.
 *
 * Bounded: HIST_ENTRIES_MAX entries and HIST_BYTES_MAX bytes of entries,
 * chain nodes and names, whatever the recording holds: a sample whose
 * own entry does not fit is left out (hist_dropped()); one whose entry
 * fits but not every entry of its chain or node of its chains is in
 * the table without them (hist_cut()); the header says both.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "safetext.h"
#include "out-put.h"
#include "util.h"
#include "hist.h"

/* A call-chain node: a frame under its parent, and the period through it. */
struct node {
	const char *name, *dso;		/* interned: struct name's */
	uint64_t period, samples;
	struct node *kids, *next;	/* children, siblings */
};

struct entry {
	char comm[17];
	uint32_t pid, tid, cpu;
	const char *abi;
	char *dso, *sym;		/* as shown: "libc.so.6", "[.] main" */
	uint64_t self, nself, children, nchildren;
	uint64_t stamp;			/* the last sample that counted it */
	struct node root;		/* its chains */
	uint64_t hash;
	struct entry *next;		/* in its bucket */
};

/* The names of chain nodes, each once. */
struct name {
	uint64_t hash;
	struct name *next;
	char s[];
};

#define BUCKETS	(1U << 16)
#define NAME_MAX_LEN	300		/* a frame's name as shown, at most */

struct hist {
	struct hist_opts o;
	struct entry **bucket;		/* BUCKETS */
	struct entry **all;		/* in the order they came */
	size_t n, cap;
	struct name **names;		/* BUCKETS */
	uint64_t bytes;			/* of HIST_BYTES_MAX */
	uint64_t total, samples, dropped, cut, stamp;
	/*
	 * The frames of the sample being added, their names as shown,
	 * each made once (names NULL until chain_add() interns them):
	 * made for each entry a sample adds to and each node of its chains
	 * again, --children on a chain of depth d made d * d of them, with
	 * snprintf(): 63% of report --children on xz's real run, which
	 * took 1.9 times as long as --no-children against perf's 7.2.
	 */
	struct frame_names {
		char name[NAME_MAX_LEN], dso[256];
		const char *iname, *idso;	/* interned (name_of()) */
	} *fn;
	size_t fn_cap;
};

/* n bytes more of the budget, or false */
static bool charge(struct hist *h, size_t n)
{
	if (h->bytes + n > h->o.bytes_max)
		return false;
	h->bytes += n;
	return true;
}

struct hist *hist_new(const struct hist_opts *o)
{
	struct hist *h = calloc(1, sizeof(*h));

	if (!h)
		return NULL;
	h->o = *o;
	if (!h->o.max_stack)
		h->o.max_stack = ~0U;
	if (!h->o.bytes_max || h->o.bytes_max > HIST_BYTES_MAX)
		h->o.bytes_max = HIST_BYTES_MAX;
	h->bucket = calloc(BUCKETS, sizeof(*h->bucket));
	h->names = calloc(BUCKETS, sizeof(*h->names));
	if (!h->bucket || !h->names) {
		hist_free(h);
		return NULL;
	}
	return h;
}

uint64_t hist_dropped(const struct hist *h)
{
	return h->dropped;
}

void hist_no_children(struct hist *h)
{
	h->o.children = false;
}

void hist_no_chains(struct hist *h)
{
	h->o.cg = HCG_NONE;
}

uint64_t hist_cut(const struct hist *h)
{
	return h->cut;
}

uint64_t hist_samples(const struct hist *h)
{
	return h->samples;
}

/*
 * A frame's name as the table and the chains show it: its function (the
 * offset cut off), else its address; safe for a terminal.
 */
static void frame_name(const struct hist_frame *f, char *buf, size_t len)
{
	const char *plus = f->sym ? strrchr(f->sym, '+') : NULL;
	size_t n;

	if (f->sym && f->sym[0]) {
		n = plus && plus[1] == '0' && plus[2] == 'x' ? (size_t)(plus - f->sym) :
		    strlen(f->sym);
		if (n > len - 1)
			n = len - 1;
		memcpy(buf, f->sym, n);	/* snprintf() was 12% of report */
		buf[n] = 0;
	} else {
		/* as "0x%016" PRIx64; snprintf() was 30% of report of xz's run */
		if (len >= 19) {
			buf[0] = '0';
			buf[1] = 'x';
			*put_hex(buf + 2, f->addr, 16) = 0;
		} else if (len) {
			buf[0] = 0;
		}
		return;	/* hex digits: nothing to make safe */
	}
	text_safe(buf);
}

/* The file's short name, as perf's --sort dso has it. */
static void dso_name(const struct hist_frame *f, char *buf, size_t len)
{
	const char *base;

	if (f->kernel) {
		snprintf(buf, len, "[kernel.kallsyms]");
	} else if (!f->dso || !f->dso[0]) {
		snprintf(buf, len, "[unknown]");
	} else {
		size_t n;

		base = strrchr(f->dso, '/');
		base = base ? base + 1 : f->dso;
		n = strnlen(base, len - 1);
		memcpy(buf, base, n);
		buf[n] = 0;
		text_safe(buf);
	}
}

/* The one copy of s; NULL past the budget or without memory. */
static const char *name_of(struct hist *h, const char *s)
{
	size_t len = strlen(s);
	uint64_t hash = hash_bytes(0x9e3779b97f4a7c15ULL, s, len);
	struct name **b = &h->names[hash & (BUCKETS - 1)], *n;

	for (n = *b; n; n = n->next)
		if (n->hash == hash && !strcmp(n->s, s))
			return n->s;
	if (!charge(h, sizeof(*n) + len + 1) || !(n = malloc(sizeof(*n) + len + 1)))
		return NULL;
	memcpy(n->s, s, len + 1);
	n->hash = hash;
	n->next = *b;
	*b = n;
	return n->s;
}

/* Does e hold what s at its frame (its dso and sym as shown) is sorted by? */
static bool entry_is(const struct hist *h, const struct entry *e,
		     const struct hist_sample *s, const char *dso, const char *sym)
{
	unsigned int k;

	for (k = 0; k < h->o.nkeys; k++) {
		switch (h->o.keys[k]) {
		case HK_COMM:
			if (strncmp(e->comm, s->comm, 16))
				return false;
			break;
		case HK_PID:
			if (e->pid != s->pid)
				return false;
			break;
		case HK_TID:
			if (e->tid != s->tid)
				return false;
			break;
		case HK_CPU:
			if (e->cpu != s->cpu)
				return false;
			break;
		case HK_ABI:
			if (strcmp(e->abi, s->abi))
				return false;
			break;
		case HK_DSO:
			if (strcmp(e->dso, dso))
				return false;
			break;
		case HK_SYM:
			if (strcmp(e->sym, sym))
				return false;
			break;
		case HK_NR:
			break;
		}
	}
	return true;
}

/* The entry of s at frame f, made if it is new; NULL past the budget. */
static struct entry *entry_of(struct hist *h, const struct hist_sample *s,
			      const struct hist_frame *f, const struct frame_names *fn)
{
	char dso[256], sym[NAME_MAX_LEN + 8];
	uint64_t hash = 0xcbf29ce484222325ULL;
	struct entry *e, **b;
	size_t dlen, slen;
	unsigned int k;

	dso[0] = sym[0] = 0;
	for (k = 0; k < h->o.nkeys; k++) {
		switch (h->o.keys[k]) {
		case HK_COMM:
			hash = hash_bytes(hash, s->comm, strnlen(s->comm, 16));
			break;
		case HK_PID:
			hash = hash_bytes(hash, &s->pid, 4);
			break;
		case HK_TID:
			hash = hash_bytes(hash, &s->tid, 4);
			break;
		case HK_CPU:
			hash = hash_bytes(hash, &s->cpu, 4);
			break;
		case HK_ABI:
			hash = hash_bytes(hash, s->abi, strlen(s->abi));
			break;
		case HK_DSO:
			memcpy(dso, fn->dso, strlen(fn->dso) + 1);
			hash = hash_bytes(hash, dso, strlen(dso));
			break;
		case HK_SYM:
			sym[0] = '[';
			sym[1] = f->kernel ? 'k' : '.';
			sym[2] = ']';
			sym[3] = ' ';
			memcpy(sym + 4, fn->name, strlen(fn->name) + 1);
			hash = hash_bytes(hash, sym, strlen(sym));
			break;
		case HK_NR:
			break;
		}
		hash = hash_bytes(hash, "", 1);
	}
	b = &h->bucket[hash & (BUCKETS - 1)];
	for (e = *b; e; e = e->next)
		if (e->hash == hash && entry_is(h, e, s, dso, sym))
			return e;
	dlen = strlen(dso) + 1;
	slen = strlen(sym) + 1;
	if (h->n >= HIST_ENTRIES_MAX || !charge(h, sizeof(*e) + dlen + slen + sizeof(e)))
		return NULL;
	if (h->n == h->cap) {
		size_t cap = h->cap ? 2 * h->cap : 256;
		struct entry **all = realloc(h->all, cap * sizeof(*all));

		if (!all)
			return NULL;
		h->all = all;
		h->cap = cap;
	}
	e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	e->dso = malloc(dlen);
	e->sym = malloc(slen);
	if (!e->dso || !e->sym) {
		free(e->dso);
		free(e->sym);
		free(e);
		return NULL;
	}
	memcpy(e->dso, dso, dlen);
	memcpy(e->sym, sym, slen);
	memcpy(e->comm, s->comm, strnlen(s->comm, 16));
	text_safe(e->comm);
	e->pid = s->pid;
	e->tid = s->tid;
	e->cpu = s->cpu;
	e->abi = s->abi;
	e->hash = hash;
	e->next = *b;
	*b = e;
	h->all[h->n++] = e;
	return e;
}

/*
 * frames from, from + step, ... up to to (not taken) of s into root's
 * tree: a node a function of a file, as perf's chains are (two _fini
 * of two files are two nodes).
 */
static bool chain_add(struct hist *h, struct node *root, int from, int to, int step,
		      uint64_t period)
{
	struct node *at = root, *c, **prev;
	int i;

	root->period += period;
	root->samples++;
	for (i = from; i != to; i += step) {
		struct frame_names *fn = &h->fn[i];
		const char *name, *dso;

		if (!fn->iname)
			fn->iname = name_of(h, fn->name);
		if (!fn->idso)
			fn->idso = name_of(h, fn->dso);
		name = fn->iname;
		dso = fn->idso;
		if (!name || !dso)
			return false;
		/*
		 * Moved to the front when found: a chain's nodes are found
		 * again and again (a list in the order made was 16% of report
		 * --children of xz's real run).  The order printed is
		 * node_cmp()'s, a total one.
		 */
		for (prev = &at->kids; (c = *prev) && (c->name != name || c->dso != dso);
		     prev = &c->next)
			;
		if (c && prev != &at->kids) {
			*prev = c->next;
			c->next = at->kids;
			at->kids = c;
		}
		if (!c) {
			if (!charge(h, sizeof(*c)) || !(c = calloc(1, sizeof(*c))))
				return false;
			c->name = name;
			c->dso = dso;
			c->next = at->kids;
			at->kids = c;
		}
		c->period += period;
		c->samples++;
		at = c;
	}
	return true;
}

int hist_add(struct hist *h, const struct hist_sample *s)
{
	int n = s->n < h->o.max_stack ? (int)s->n : (int)h->o.max_stack, i;
	struct entry *self, *e;
	bool ok = true;

	if (n < 1)
		n = 1;	/* the IP, whatever --max-stack says */
	if ((size_t)n > h->fn_cap) {
		struct frame_names *fn = realloc(h->fn, n * sizeof(*fn));

		if (!fn) {
			h->dropped++;
			return -ENOMEM;
		}
		h->fn = fn;
		h->fn_cap = n;
	}
	/* the frames past the IP are shown only in chains and children */
	for (i = 0; i < (h->o.children || h->o.cg != HCG_NONE ? n : 1); i++) {
		frame_name(&s->f[i], h->fn[i].name, sizeof(h->fn[i].name));
		dso_name(&s->f[i], h->fn[i].dso, sizeof(h->fn[i].dso));
		h->fn[i].iname = h->fn[i].idso = NULL;
	}
	self = entry_of(h, s, &s->f[0], &h->fn[0]);
	if (!self) {
		h->dropped++;
		return -ENOMEM;
	}
	h->total += s->period;
	h->samples++;
	h->stamp++;
	self->self += s->period;
	self->nself++;
	self->stamp = h->stamp;
	if (h->o.children) {
		self->children += s->period;
		self->nchildren++;
	}
	for (i = 1; h->o.children && i < n; i++) {
		e = entry_of(h, s, &s->f[i], &h->fn[i]);
		if (!e) {
			ok = false;
			continue;
		}
		if (e->stamp == h->stamp)
			continue;	/* a recursion: once a sample */
		e->stamp = h->stamp;
		e->children += s->period;
		e->nchildren++;
		if (h->o.cg != HCG_NONE)
			ok &= h->o.caller ? chain_add(h, &e->root, i, -1, -1, s->period) :
			      chain_add(h, &e->root, i, n, 1, s->period);
	}
	if (h->o.cg != HCG_NONE)
		ok &= h->o.caller ? chain_add(h, &self->root, n - 1, -1, -1, s->period) :
		      chain_add(h, &self->root, 0, n, 1, s->period);
	if (!ok)
		h->cut++;	/* in the table, but not every entry or chain of it */
	return ok ? 0 : -ENOMEM;
}

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

static void node_free(struct node *n)
{
	struct node *c, *next;

	for (c = n->kids; c; c = next) {
		next = c->next;
		node_free(c);
		free(c);
	}
}

void hist_free(struct hist *h)
{
	struct name *nm, *next;
	size_t i;

	if (!h)
		return;
	for (i = 0; i < h->n; i++) {
		node_free(&h->all[i]->root);
		free(h->all[i]->dso);
		free(h->all[i]->sym);
		free(h->all[i]);
	}
	for (i = 0; h->names && i < BUCKETS; i++)
		for (nm = h->names[i]; nm; nm = next) {
			next = nm->next;
			free(nm);
		}
	free(h->all);
	free(h->bucket);
	free(h->names);
	free(h->fn);
	free(h);
}
