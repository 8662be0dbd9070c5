// SPDX-License-Identifier: GPL-2.0
/*
 * report's table filled: the samples summed by the sort keys into
 * entries (self: the entry of the sample's leaf; children: of every
 * frame of its chain, once a sample), each with the call chains through
 * it (hist-print.c prints them).
 *
 * The chains of an entry are perf's: in callee order (the default of
 * --no-children) from the entry's frame out to the outermost caller; in
 * caller order (the default of --children, -G) from the outermost
 * caller in to the leaf for the entry of the leaf, and from the entry's
 * frame in to the leaf for every other entry.
 *
 * Bounded: HIST_ENTRIES_MAX entries and HIST_BYTES_MAX bytes of entries,
 * chain nodes, frames and names, whatever the recording holds: a sample
 * whose own entry does not fit is left out (hist_dropped()); one whose
 * entry fits but not every entry of its chain or node of its chains is
 * in the table without them (hist_cut()); the header says both.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "safetext.h"
#include "util.h"
#include "hist.h"

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
	unsigned int i;

	if (!h)
		return NULL;
	h->o = *o;
	for (i = 0; i < h->o.nkeys; i++) {
		h->by_dso |= h->o.keys[i] == HK_DSO;
		h->by_sym |= h->o.keys[i] == HK_SYM;
	}
	if (!h->o.max_stack)
		h->o.max_stack = ~0U;
	if (!h->o.bytes_max || h->o.bytes_max > HIST_BYTES_MAX)
		h->o.bytes_max = HIST_BYTES_MAX;
	h->bucket = calloc(BUCKETS, sizeof(*h->bucket));
	h->names = calloc(BUCKETS, sizeof(*h->names));
	h->frames = calloc(BUCKETS, sizeof(*h->frames));
	if (!h->bucket || !h->names || !h->frames) {
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
		if (f->inlined && n + 10 < len)
			memcpy(buf + n, " (inlined)", 11);
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

/*
 * The frame f as shown, found or made; NULL past the budget.  Its key is
 * what the shown names are made of: the symbol without its offset (or
 * the address when there is none), the file, kernel or not.
 */
static const struct iframe *frame_of(struct hist *h, const struct hist_frame *f)
{
	const char *sym = f->sym ? f->sym : "", *dso = f->dso ? f->dso : "", *plus;
	char name[NAME_MAX_LEN], dname[256];
	size_t sl = 0, dl = strlen(dso);
	uint64_t addr = 0, hash;
	struct iframe **b, *fr;

	if (sym[0]) {
		plus = strrchr(sym, '+');
		sl = plus && plus[1] == '0' && plus[2] == 'x' ? (size_t)(plus - sym) :
		     strlen(sym);
	} else {
		addr = f->addr;
	}
	hash = hash_bytes(hash_bytes(addr ^ (uint64_t)f->kernel << 63 ^ (uint64_t)f->inlined << 62,
				     sym, sl), dso, dl);
	b = &h->frames[hash & (BUCKETS - 1)];
	for (fr = *b; fr; fr = fr->next)
		if (fr->hash == hash && fr->addr == addr && fr->kernel == f->kernel &&
		    fr->inlined == f->inlined && fr->symlen == sl && fr->dsolen == dl && !memcmp(fr->raw, sym, sl) &&
		    !memcmp(fr->raw + sl, dso, dl))
			return fr;
	if (!charge(h, sizeof(*fr) + sl + dl) || !(fr = malloc(sizeof(*fr) + sl + dl)))
		return NULL;
	frame_name(f, name, sizeof(name));
	dso_name(f, dname, sizeof(dname));
	fr->name = name_of(h, name);
	fr->dso = name_of(h, dname);
	if (!fr->name || !fr->dso) {
		free(fr);
		return NULL;
	}
	memcpy(fr->raw, sym, sl);
	memcpy(fr->raw + sl, dso, dl);
	fr->hash = hash;
	fr->addr = addr;
	fr->kernel = f->kernel;
	fr->inlined = f->inlined;
	fr->symlen = sl;
	fr->dsolen = dl;
	fr->next = *b;
	*b = fr;
	return fr;
}

/*
 * The sample's part of its entries' keys, once a sample: its comm as
 * shown (an entry holds that, so a comm text_safe() changes is found
 * again) and the hash of every key but the frame's.
 */
static void sample_keys(struct hist *h, const struct hist_sample *s)
{
	uint64_t hash = 0xcbf29ce484222325ULL;
	unsigned int k;

	memset(h->comm, 0, sizeof(h->comm));
	memcpy(h->comm, s->comm, strnlen(s->comm, 16));
	text_safe(h->comm);
	for (k = 0; k < h->o.nkeys; k++) {
		switch (h->o.keys[k]) {
		case HK_COMM:
			hash = hash_bytes(hash, h->comm, strlen(h->comm));
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
		case HK_SYM:
		case HK_NR:
			break;
		}
		hash = hash_bytes(hash, "", 1);
	}
	h->shash = hash;
}

/* Does e hold what s at frame fr is sorted by? */
static bool entry_is(const struct hist *h, const struct entry *e,
		     const struct hist_sample *s, const struct iframe *fr)
{
	unsigned int k;

	for (k = 0; k < h->o.nkeys; k++) {
		switch (h->o.keys[k]) {
		case HK_COMM:
			if (strcmp(e->comm, h->comm))
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
			if (e->dso != fr->dso)	/* interned: one pointer a name */
				return false;
			break;
		case HK_SYM:
			if (e->name != fr->name || e->kernel != fr->kernel)
				return false;
			break;
		case HK_NR:
			break;
		}
	}
	return true;
}

/*
 * The entry of s at frame fr, made if it is new; NULL past the budget.
 * sample_keys() has been called for s.
 */
static struct entry *entry_of(struct hist *h, const struct hist_sample *s,
			      const struct iframe *fr)
{
	bool by_dso = h->by_dso, by_sym = h->by_sym;
	uint64_t key[2] = { 0, 0 }, hash;
	struct entry *e, **b;
	size_t slen = 1;

	if (by_dso)
		key[0] = (uintptr_t)fr->dso;
	if (by_sym)
		key[1] = (uintptr_t)fr->name ^ fr->kernel;
	hash = hash_bytes(h->shash, key, sizeof(key));
	b = &h->bucket[hash & (BUCKETS - 1)];
	for (e = *b; e; e = e->next)
		if (e->hash == hash && entry_is(h, e, s, fr))
			return e;
	if (by_sym)
		slen = 4 + strlen(fr->name) + 1;
	if (h->n >= HIST_ENTRIES_MAX || !charge(h, sizeof(*e) + slen + sizeof(e)))
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
	e->sym = malloc(slen);
	if (!e->sym) {
		free(e);
		return NULL;
	}
	e->sym[0] = 0;
	if (by_sym) {
		e->sym[0] = '[';
		e->sym[1] = fr->kernel ? 'k' : '.';
		e->sym[2] = ']';
		e->sym[3] = ' ';
		memcpy(e->sym + 4, fr->name, slen - 4);
	}
	e->dso = by_dso ? fr->dso : "";
	e->name = fr->name;
	e->kernel = fr->kernel;
	memcpy(e->comm, h->comm, sizeof(e->comm));
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
		const char *name, *dso;

		if (!h->fr[i])
			return false;	/* past the budget */
		name = h->fr[i]->name;
		dso = h->fr[i]->dso;
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

/* The frame of a table that keys nothing by frames */
static const struct iframe no_frame = { .name = "", .dso = "" };

int hist_add(struct hist *h, const struct hist_sample *s)
{
	int n = s->n < h->o.max_stack ? (int)s->n : (int)h->o.max_stack, i, k = 0;
	struct entry *self, *e;
	bool ok = true;

	if (n < 1)
		n = 1;	/* the IP, whatever --max-stack says */
	while (k < n - 1 && s->f[k].inlined)
		k++;	/* the sample's self: its symbol's, not an inlined function's */
	if ((size_t)n > h->fr_cap) {
		const struct iframe **fr = realloc(h->fr, n * sizeof(*fr));

		if (!fr) {
			h->dropped++;
			return -ENOMEM;
		}
		h->fr = fr;
		h->fr_cap = n;
	}
	/* the frames past the IP are shown only in chains and children */
	/*
	 * a frame only where the table needs one: sorted by neither dso nor
	 * sym, without chains, every sample's leaf was charged to the budget
	 * for nothing (100000 samples at as many addresses, --sort comm and
	 * 1 MiB: 90382 left out)
	 */
	if (h->o.children || h->o.cg != HCG_NONE || h->by_dso || h->by_sym) {
		for (i = 0; i < (h->o.children || h->o.cg != HCG_NONE ? n : k + 1); i++)
			h->fr[i] = frame_of(h, &s->f[i]);
	} else {
		h->fr[k] = &no_frame;
	}
	sample_keys(h, s);
	self = h->fr[k] ? entry_of(h, s, h->fr[k]) : NULL;
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
	for (i = 0; h->o.children && i < n; i++) {
		if (i == k)
			continue;
		e = h->fr[i] ? entry_of(h, s, h->fr[i]) : NULL;
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
		      chain_add(h, &self->root, k, n, 1, s->period);
	if (!ok)
		h->cut++;	/* in the table, but not every entry or chain of it */
	return ok ? 0 : -ENOMEM;
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
	struct iframe *fr, *fnext;
	struct name *nm, *next;
	size_t i;

	if (!h)
		return;
	for (i = 0; i < h->n; i++) {
		node_free(&h->all[i]->root);
		free(h->all[i]->sym);
		free(h->all[i]);
	}
	for (i = 0; h->names && i < BUCKETS; i++)
		for (nm = h->names[i]; nm; nm = next) {
			next = nm->next;
			free(nm);
		}
	for (i = 0; h->frames && i < BUCKETS; i++)
		for (fr = h->frames[i]; fr; fr = fnext) {
			fnext = fr->next;
			free(fr);
		}
	free(h->all);
	free(h->bucket);
	free(h->names);
	free(h->frames);
	free(h->fr);
	free(h);
}
