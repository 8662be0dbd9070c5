// SPDX-License-Identifier: GPL-2.0
/*
 * pprof's tables: the strings, mappings, functions, locations and
 * samples of a profile, each entered once (a hash set over entries kept
 * in the order they came), each bounded (TABLE_MAX, STRINGS_MAX).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "types.h"
#include "dso.h"
#include "folded.h"
#include "resolve.h"
#include "inline.h"
#include "pprof-int.h"

const char *const tab_names[T_NR] = {
	"strings", "mappings", "functions", "locations", "samples",
};
const uint32_t tab_max[T_NR] = {
	STRINGS_MAX, TABLE_MAX, TABLE_MAX, TABLE_MAX, TABLE_MAX,
};

static uint64_t mix(uint64_t h, uint64_t v)
{
	h = (h ^ v) * 0x9e3779b97f4a7c15ULL;
	return h ^ (h >> 29);
}

static uint64_t mix_bytes(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;
	uint64_t f = 1469598103934665603ULL;	/* FNV-1a */

	while (n--)
		f = (f ^ *b++) * 1099511628211ULL;
	return mix(h, f);
}

const char *str(const struct pprof *p, uint32_t id)
{
	return ((const struct pp_str *)p->t[T_STR].v)[id].s;
}

static bool same(const struct pprof *p, int k, const void *e, const void *key)
{
	switch (k) {
	case T_STR: {
		const struct pp_str *x = e;
		const struct str_key *y = key;

		return x->len == y->len && !memcmp(x->s, y->s, y->len);
	}
	case T_MAP: {
		const struct pp_map *x = e;
		const struct map_key *y = key;

		return x->start == y->start && x->limit == y->limit && x->offset == y->offset &&
		       x->id_len == y->id_len && !memcmp(x->id, y->id, y->id_len) &&
		       !strcmp(str(p, x->file), y->file);
	}
	case T_FUNC:
		return !memcmp(e, key, sizeof(struct pp_func));
	case T_LOC: {
		const struct pp_loc *x = e;
		const struct loc_key *y = key;

		return x->map == y->map && x->address == y->address;
	}
	case T_SAMPLE: {
		const struct pp_sample *x = e;
		const struct sample_key *y = key;

		/* no frames, no ids: p->ids may still be NULL */
		return x->pid == y->pid && x->tid == y->tid && x->comm == y->comm &&
		       x->abi == y->abi && x->n == y->n &&
		       (!y->n || !memcmp(p->ids + x->at, y->ids, y->n * sizeof(*y->ids)));
	}
	}
	return false;
}

/* The index of the entry of table k that is key's, or -1. */
static int64_t tab_find(const struct pprof *p, int k, uint64_t h, const void *key)
{
	const struct tab *t = &p->t[k];
	uint32_t i, e, mask = t->nslots - 1;

	if (!t->nslots)
		return -1;
	for (i = h & mask; (e = t->slot[i]); i = (i + 1) & mask)
		if (t->hash[e - 1] == h && same(p, k, (const char *)t->v + (size_t)(e - 1) * t->size,
					       key))
			return e - 1;
	return -1;
}

static bool tab_rehash(struct tab *t)
{
	uint32_t nslots = t->nslots ? t->nslots * 2 : 1024, mask = nslots - 1, i, j;
	uint32_t *slot = calloc(nslots, sizeof(*slot));

	if (!slot)
		return false;
	for (i = 0; i < t->n; i++) {
		for (j = t->hash[i] & mask; slot[j]; j = (j + 1) & mask)
			;
		slot[j] = i + 1;
	}
	free(t->slot);
	t->slot = slot;
	t->nslots = nslots;
	return true;
}

/* A new zeroed entry of hash h in table k (not there yet), or NULL and why. */
static void *tab_add(struct pprof *p, int k, uint64_t h)
{
	struct tab *t = &p->t[k];
	uint32_t i, mask;
	void *e;

	if (t->n >= tab_max[k]) {
		p->why = k;
		return NULL;
	}
	if (t->n == t->cap) {
		uint32_t cap = t->cap ? t->cap * 2 : 256;
		void *v = realloc(t->v, (size_t)cap * t->size);
		uint64_t *hash;

		if (!v)
			goto nomem;
		t->v = v;
		hash = realloc(t->hash, cap * sizeof(*hash));
		if (!hash)
			goto nomem;
		t->hash = hash;
		t->cap = cap;
	}
	if ((t->n + 1) * 2 > t->nslots && !tab_rehash(t))
		goto nomem;
	mask = t->nslots - 1;
	for (i = h & mask; t->slot[i]; i = (i + 1) & mask)
		;
	t->slot[i] = t->n + 1;
	t->hash[t->n] = h;
	e = (char *)t->v + (size_t)t->n * t->size;
	memset(e, 0, t->size);
	t->n++;
	return e;
nomem:
	p->why = T_NR;
	return NULL;
}

/* The string table's index of s (len bytes, no NUL in them), or -1. */
int64_t str_id(struct pprof *p, const char *s, size_t len)
{
	struct str_key key = { s, len };
	uint64_t h = mix_bytes(0, s, len);
	int64_t i = tab_find(p, T_STR, h, &key);
	struct pp_str *e;
	char *copy;

	if (i >= 0)
		return i;
	copy = malloc(len + 1);
	if (!copy) {
		p->why = T_NR;
		return -1;
	}
	e = tab_add(p, T_STR, h);
	if (!e) {
		free(copy);
		return -1;
	}
	memcpy(copy, s, len);
	copy[len] = 0;
	e->s = copy;
	e->len = len;
	return p->t[T_STR].n - 1;
}

/* The id of the mapping key says, made on first use; -1 if it cannot be. */
static int64_t map_id(struct pprof *p, const struct map_key *key)
{
	static const char digits[] = "0123456789abcdef";
	uint64_t h = mix(mix(mix(mix_bytes(mix_bytes(0, key->file, strlen(key->file)),
					   key->id, key->id_len),
				 key->start), key->limit), key->offset);
	int64_t i = tab_find(p, T_MAP, h, key), file, bid = 0;
	char hex[41];
	struct pp_map *e;
	unsigned int j;

	if (i >= 0)
		return i + 1;
	file = str_id(p, key->file, strlen(key->file));
	if (file < 0)
		return -1;
	/* pprof's build_id is the hex string readelf -n and perf show */
	for (j = 0; j < key->id_len; j++) {
		hex[2 * j] = digits[key->id[j] >> 4];
		hex[2 * j + 1] = digits[key->id[j] & 15];
	}
	if (key->id_len)
		bid = str_id(p, hex, 2 * key->id_len);
	if (bid < 0)
		return -1;
	e = tab_add(p, T_MAP, h);
	if (!e)
		return -1;
	e->start = key->start;
	e->limit = key->limit;
	e->offset = key->offset;
	e->file = (uint32_t)file;
	e->build_id = (uint32_t)bid;
	memcpy(e->id, key->id, key->id_len);
	e->id_len = key->id_len;
	return p->t[T_MAP].n;
}

int64_t user_map(struct pprof *p, const struct mapping *m)
{
	struct map_key key = {
		m->start, m->end, m->pgoff, m->path, m->build_id,
		m->build_id_len > 20 ? 20 : m->build_id_len,
	};

	return map_id(p, &key);
}

/*
 * The kernel's frames: one mapping for all of them, the kernel half of
 * the address space, named as perf names the kernel (pprof leaves a file
 * in brackets to the profile's own names).
 */
int64_t kernel_map(struct pprof *p)
{
	const struct rec_info *in = &p->d->info;
	struct map_key key = {
		KERNEL_MIN, UINT64_MAX, 0, "[kernel.kallsyms]", in->kbuild_id,
		in->kbuild_id_len > 20 ? 20 : in->kbuild_id_len,
	};
	int64_t id;

	if (p->kmap)
		return p->kmap;
	id = map_id(p, &key);
	if (id > 0)
		p->kmap = (uint32_t)id;
	return id;
}

static int64_t func_id(struct pprof *p, uint32_t name, uint32_t system, uint32_t file)
{
	struct pp_func key = { name, system, file }, *e;
	uint64_t h = mix(mix(mix(0, name), system), file);
	int64_t i = tab_find(p, T_FUNC, h, &key);

	if (i >= 0)
		return i + 1;
	e = tab_add(p, T_FUNC, h);
	if (!e)
		return -1;
	*e = key;
	return p->t[T_FUNC].n;
}

/*
 * The lines of the functions inlined at a location (c's, innermost
 * first) into p->xlines: where they start, or -1 when they cannot be.
 */
static int64_t inlined_lines(struct pprof *p, const struct inl_chain *c)
{
	unsigned int j;
	uint32_t at = p->nxlines;

	if (p->nxlines + c->n > TABLE_MAX) {
		p->why = T_LOC;
		return -1;
	}
	if (p->nxlines + c->n > p->capxlines) {
		uint32_t cap = p->capxlines ? p->capxlines * 2 : 1024;
		struct pp_xline *x;

		while (cap < p->nxlines + c->n)
			cap *= 2;
		x = realloc(p->xlines, cap * sizeof(*x));
		if (!x) {
			p->why = T_NR;
			return -1;
		}
		p->xlines = x;
		p->capxlines = cap;
	}
	for (j = 0; j < c->n; j++) {
		int64_t name = str_id(p, c->f[j].shown, strlen(c->f[j].shown));
		int64_t system = str_id(p, c->f[j].name, strlen(c->f[j].name));
		int64_t file = c->f[j].file[0] ? str_id(p, c->f[j].file, strlen(c->f[j].file)) : 0;
		int64_t func;

		if (name < 0 || system < 0 || file < 0)
			return -1;
		func = func_id(p, (uint32_t)name, (uint32_t)system, (uint32_t)file);
		if (func < 0)
			return -1;
		p->xlines[at + j] = (struct pp_xline){ (uint32_t)func, c->f[j].line };
	}
	p->nxlines += c->n;
	return at;
}

/*
 * The id of the location at address in mapping map (an id, 0 for none;
 * m is it, NULL for the kernel's or none), named by sym, made on first
 * use; -1 if it cannot be.  Its function's system_name is the name as
 * its file has it, looked up once more when sym is demangled.  With
 * --inline, the functions inlined there are lines before it (inline.c),
 * and its own line is where the outermost of them was inlined.
 */
int64_t loc_id(struct pprof *p, uint32_t map, uint64_t address, const char *sym,
	       bool demangled, struct mapping *m)
{
	struct loc_key key = { map, address };
	uint64_t h = mix(mix(0x51, map), address);
	int64_t i = tab_find(p, T_LOC, h, &key), name, system, file = 0, func = 0, xat = 0;
	const struct inl_chain *c = NULL;
	char src[PATH_MAX], raw[320];
	struct pp_loc *e;
	int line = 0;

	if (i >= 0)
		return i + 1;
	if (sym[0]) {
		name = system = str_id(p, sym, folded_func_len(sym));
		if (name >= 0 && demangled && m &&
		    mapping_symbol(&p->d->m, m, address, address, SYM_RAW, raw, sizeof(raw)) >= 0)
			system = str_id(p, raw, folded_func_len(raw));
		if (name < 0 || system < 0)
			return -1;
		if (m && p->d->o.symbols && p->d->o.inlines)
			c = mapping_inlines(&p->d->m, m, address);
		if (c && c->n) {
			xat = inlined_lines(p, c);
			if (xat < 0)
				return -1;
			line = c->line;
			if (c->file[0])
				file = str_id(p, c->file, strlen(c->file));
		/* --no-symbols: no file read for names, nor for lines */
		} else if (m && p->d->o.symbols &&
			   !mapping_source(&p->d->m, m, address, src, sizeof(src), &line)) {
			file = str_id(p, src, strlen(src));
		} else {
			line = 0;
		}
		if (file < 0)
			return -1;
		func = func_id(p, (uint32_t)name, (uint32_t)system, (uint32_t)file);
		if (func < 0)
			return -1;
	}
	e = tab_add(p, T_LOC, h);
	if (!e)
		return -1;
	e->address = address;
	e->map = map;
	e->func = (uint32_t)func;
	e->line = func ? line : 0;
	e->nx = c && func ? c->n : 0;
	e->xat = (uint32_t)xat;
	if (map) {
		struct pp_map *pm = (struct pp_map *)p->t[T_MAP].v + map - 1;

		pm->nlocs++;
		pm->nfunc += func != 0;
		pm->nfile += file != 0;
		pm->nline += func && line > 0;
	}
	return p->t[T_LOC].n;
}

int sample_add(struct pprof *p, const struct sample_key *key)
{
	uint64_t h = mix(mix(mix(mix(mix_bytes(0, key->ids, key->n * sizeof(*key->ids)),
				     key->pid), key->tid), key->comm), key->abi);
	int64_t i = tab_find(p, T_SAMPLE, h, key);
	struct pp_sample *e;

	if (i >= 0) {
		((struct pp_sample *)p->t[T_SAMPLE].v)[i].count++;
		return 0;
	}
	if (p->nids + key->n > p->capids) {
		size_t cap = p->capids ? p->capids * 2 : 4096;
		uint32_t *ids;

		while (cap < p->nids + key->n)
			cap *= 2;
		ids = realloc(p->ids, cap * sizeof(*ids));
		if (!ids) {
			p->why = T_NR;
			return -1;
		}
		p->ids = ids;
		p->capids = cap;
	}
	e = tab_add(p, T_SAMPLE, h);
	if (!e)
		return -1;
	e->pid = key->pid;
	e->tid = key->tid;
	e->comm = key->comm;
	e->abi = key->abi;
	e->n = key->n;
	e->at = p->nids;
	e->count = 1;
	if (key->n)
		memcpy(p->ids + p->nids, key->ids, key->n * sizeof(*key->ids));
	p->nids += key->n;
	return 0;
}

