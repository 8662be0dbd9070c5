// SPDX-License-Identifier: GPL-2.0
/*
 * Inlined functions at an address of a file, each a frame of its own,
 * and the source line of every frame, from the file's DWARF: the
 * scopes that hold the address in its compile unit's tree of DIEs
 * (dwfl_module_addrdie(); the unit's function there, from an index of
 * its functions' ranges made once; then down through each
 * DW_TAG_lexical_block and DW_TAG_inlined_subroutine whose ranges hold
 * it, dwarf_haspc()): the nesting eu-addr2line -i shows.  An inlined
 * subroutine's frame is named as perf names it: its linkage name
 * demangled, else its DW_AT_name; its line is the address's own for the
 * innermost, else where the one inside it was inlined (DW_AT_call_file,
 * DW_AT_call_line).
 *
 * Found once per (file, address), under symbols_lock() as every libdw
 * call on dso.c's modules is, and kept for the whole decode in one table
 * of the machine (a chain never changes once made: any thread may read
 * it); each thread keeps the chains it asked for last in a cache of its
 * own, read without a lock: after the warm-up, an address costs a probe
 * of that cache.  Bounded: INLINE_DEPTH_MAX frames an address,
 * INLINE_NAME_MAX bytes a name, INLINE_BYTES_MAX bytes of chains and
 * indexes in all.
 *
 * The cost, in instructions (callgrind), -g --threads 1: on
 * bench/ab_decode's recording (tests/mkbig, no DWARF) 5% to 10% a sample
 * (folded 5695 to 6266, text 11676 to 12247, json 19782 to 20783) and
 * 18 million once (libdw looks for debug files); on xz's real run (22701
 * samples, 3177 addresses, libc with its debug file) folded 345 to 713
 * million, of which 232 million inflate libc's compressed .debug_info
 * once, 54 million index its units and 22 million walk to the addresses.
 */
#include <elfutils/libdwfl.h>
#include <dwarf.h>
#include <stdlib.h>
#include <string.h>
#include "types.h"
#include "files.h"
#include "demangle.h"
#include "diag.h"
#include "dso.h"
#include "inline.h"

#define INL_BUCKETS	(1U << 16)

struct inl_entry {
	const struct dso *e;
	uint64_t addr;		/* the file's own address */
	struct inl_entry *next;
	struct inl_chain *c;	/* NULL: nothing there */
};

/*
 * A compile unit's functions by address: the ranges of its
 * DW_TAG_subprogram DIEs (in namespaces, classes too), sorted, made on
 * the first address asked for in it.  An address then starts its walk
 * at its function, not among the unit's thousands of DIEs (a scan of
 * them for each address was 22% of -f folded -g of xz's 22701 samples,
 * with libc's debug file).
 */
struct cu_index {
	const struct dso *e;
	Dwarf_Off cu;		/* the unit's offset */
	struct cu_index *next;
	size_t n, cap;
	bool cut;		/* it holds fewer functions than the unit */
	struct cu_range {
		Dwarf_Addr lo, hi;
		Dwarf_Off die;
	} *r;
};

#define CU_BUCKETS	4096
#define CU_RANGES_MAX	(1U << 20)	/* of one unit */

struct inlines {
	struct inl_entry *bucket[INL_BUCKETS];
	struct cu_index *units[CU_BUCKETS];
	size_t bytes;		/* of the entries, chains and indexes */
	bool full;		/* the budget was reached: said */
	const struct dso *cut;	/* its unit's index was cut: to be said */
	bool cut_said;
};

/*
 * Each thread's last chains, by mapping and the task's address: read
 * without a lock, nor a look at the mapping's file (a mapping stays
 * until the session ends, and so does its file's entry; keyed by file
 * and file address, each probe was 170 instructions, 7% of script -g of
 * bench/ab_decode's recording).
 */
#define INL_CACHE	4096

struct inl_cache {
	struct inl_slot {
		const struct mapping *m;	/* NULL: empty */
		uint64_t addr;
		const struct inl_chain *c;
	} slot[INL_CACHE];
};

static __thread struct inl_cache *inl_cache;

static uint64_t inl_hash(const struct dso *e, uint64_t addr)
{
	return (addr ^ (uintptr_t)e * 31) * 0x9e3779b97f4a7c15ULL;
}

/* A scope's function name, as perf names an inlined frame: the linkage name, else the name. */
static const char *die_fname(Dwarf_Die *die)
{
	Dwarf_Attribute a;
	const char *s;

	s = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &a));
	if (!s)
		s = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &a));
	if (!s)
		s = dwarf_diename(die);
	return s && *s ? s : "??";
}

/* One frame found, before it is copied into a chain. */
struct inl_raw {
	const char *name, *file;
	int line;
};

/* The last name of a path, as perf script's srcline shows it. */
static const char *last_name(const char *path)
{
	const char *b = strrchr(path, '/');

	return b ? b + 1 : path;
}

static size_t cut_len(const char *s, size_t max)
{
	return strnlen(s, max - 1);
}

/* dst <- the first len bytes of s, ended; the byte after it */
static char *put_cut(char *dst, const char *s, size_t len)
{
	memcpy(dst, s, len);
	dst[len] = 0;
	return dst + len + 1;
}

/*
 * "FILE:LINE" of file (its last name) and line at p, "" without a file
 * or a line; the byte after it.
 */
static char *put_src(char *p, const char *file, int line)
{
	size_t k = cut_len(last_name(file), INLINE_NAME_MAX);

	if (!*file || line <= 0) {
		*p = 0;
		return p + 1;
	}
	memcpy(p, last_name(file), k);
	p += k;
	p += sprintf(p, ":%d", line);
	return p + 1;
}

/*
 * The chain of frames found (raw[0..n), innermost first, then the
 * function's own line as raw[n]) in one allocation; NULL without memory.
 */
static struct inl_chain *chain_make(struct machine *mach, const struct inl_raw *raw,
				    unsigned int n, size_t *bytes)
{
	size_t need = sizeof(struct inl_chain) + n * sizeof(struct inl_frame);
	char dem[INLINE_DEPTH_MAX][INLINE_NAME_MAX];
	size_t dlen[INLINE_DEPTH_MAX];
	struct inl_chain *c;
	unsigned int i;
	char *p;

	for (i = 0; i <= n; i++) {
		/* file, "LAST:LINE"; name, shown (demangled) */
		need += 2 * (cut_len(raw[i].file, INLINE_NAME_MAX) + 1) + 12;
		if (i == n)
			break;
		need += cut_len(raw[i].name, INLINE_NAME_MAX) + 1;
		dlen[i] = mach->demangle ? demangle_name(raw[i].name, dem[i], sizeof(dem[i])) : 0;
		if (dlen[i])	/* cut as INLINE_NAME_MAX: at most 319 bytes */
			need += (dlen[i] = cut_len(dem[i], INLINE_NAME_MAX)) + 1;
	}
	c = malloc(need);
	if (!c)
		return NULL;
	*bytes = need;
	c->n = n;
	p = (char *)&c->f[n];
	for (i = 0; i <= n; i++) {
		const char *file = p, *src;

		p = put_cut(p, raw[i].file, cut_len(raw[i].file, INLINE_NAME_MAX));
		src = p;
		p = put_src(p, file, raw[i].line);
		if (i == n) {
			c->file = file;
			c->src = src;
			c->line = raw[i].line;
			break;
		}
		c->f[i].file = file;
		c->f[i].src = src;
		c->f[i].line = raw[i].line;
		c->f[i].name = p;
		p = put_cut(p, raw[i].name, cut_len(raw[i].name, INLINE_NAME_MAX));
		c->f[i].shown = c->f[i].name;
		if (dlen[i]) {
			c->f[i].shown = p;
			p = put_cut(p, dem[i], dlen[i]);
		}
	}
	return c;
}

/*
 * The child of parent (or of a namespace, class or module among its
 * children: C++ and Rust nest functions there) whose code holds pc,
 * into *out: true if there is one.
 */
static bool child_at(Dwarf_Die *parent, Dwarf_Addr pc, Dwarf_Die *out, int depth)
{
	Dwarf_Die die;

	if (depth > 16 || dwarf_child(parent, &die) != 0)
		return false;
	do {
		switch (dwarf_tag(&die)) {
		case DW_TAG_subprogram:
		case DW_TAG_inlined_subroutine:
		case DW_TAG_lexical_block:
		case DW_TAG_try_block:
		case DW_TAG_catch_block:
			if (dwarf_haspc(&die, pc) > 0) {
				*out = die;
				return true;
			}
			break;
		case DW_TAG_namespace:
		case DW_TAG_module:
		case DW_TAG_class_type:
		case DW_TAG_structure_type:
		case DW_TAG_union_type:
			if (child_at(&die, pc, out, depth + 1))
				return true;
			break;
		}
	} while (dwarf_siblingof(&die, &die) == 0);
	return false;
}

/*
 * The functions of parent's children into x (cu_index), at most limit
 * ranges in all (x->cut: there were more).
 */
static void index_add(struct cu_index *x, Dwarf_Die *parent, int depth, size_t limit)
{
	Dwarf_Die die;

	if (x->cut || depth > 16 || dwarf_child(parent, &die) != 0)
		return;
	do {
		Dwarf_Addr base, lo, hi;
		ptrdiff_t off = 0;

		switch (dwarf_tag(&die)) {
		case DW_TAG_subprogram:
			while ((off = dwarf_ranges(&die, off, &base, &lo, &hi)) > 0) {
				if (x->n == limit) {
					x->cut = true;
					return;
				}
				if (x->n == x->cap) {
					size_t cap = x->cap ? x->cap * 2 : 64;
					struct cu_range *r;

					if (cap > limit)
						cap = limit;
					r = realloc(x->r, cap * sizeof(*r));
					if (!r)
						return;
					x->r = r;
					x->cap = cap;
				}
				x->r[x->n++] = (struct cu_range){ lo, hi, dwarf_dieoffset(&die) };
			}
			break;
		case DW_TAG_namespace:
		case DW_TAG_module:
		case DW_TAG_class_type:
		case DW_TAG_structure_type:
		case DW_TAG_union_type:
			index_add(x, &die, depth + 1, limit);
			break;
		}
	} while (dwarf_siblingof(&die, &die) == 0);
}

static size_t inline_budget(void);

static int range_cmp(const void *a, const void *b)
{
	const struct cu_range *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/*
 * The function of e's unit cudie at pc into *fn, from the unit's index
 * (made now if it is not yet): true if there is one.  Under the lock.
 * An index holds at most CU_RANGES_MAX ranges, and no more than the
 * budget has room for (a unit of a million functions made 24 MiB of
 * index before the budget was looked at again); one that had to be cut
 * is noted in t->cut, for the caller to say.
 */
static bool function_at(struct inlines *t, const struct dso *e, Dwarf_Die *cudie,
			Dwarf_Addr pc, Dwarf_Die *fn)
{
	Dwarf_Off cu = dwarf_dieoffset(cudie);
	unsigned int h = (unsigned int)((cu ^ (uintptr_t)e * 31) * 0x9e3779b97f4a7c15ULL >> 40) %
			 CU_BUCKETS;
	size_t lo = 0, hi, i, left, budget = inline_budget();
	struct cu_index *x;

	for (x = t->units[h]; x && (x->e != e || x->cu != cu); x = x->next)
		;
	if (!x) {
		x = calloc(1, sizeof(*x));
		if (!x)
			return false;
		x->e = e;
		x->cu = cu;
		left = budget > t->bytes + sizeof(*x) ?
		       (budget - t->bytes - sizeof(*x)) / sizeof(*x->r) : 0;
		index_add(x, cudie, 0, left < CU_RANGES_MAX ? left : CU_RANGES_MAX);
		if (x->cut)
			t->cut = e;
		if (x->n)
			qsort(x->r, x->n, sizeof(*x->r), range_cmp);
		x->next = t->units[h];
		t->units[h] = x;
		t->bytes += sizeof(*x) + x->cap * sizeof(*x->r);
	}
	hi = x->n;
	while (lo < hi) {	/* the first range starting above pc */
		size_t mid = (lo + hi) / 2;

		if (x->r[mid].lo <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (i = lo; i-- > 0 && lo - i <= 8;)	/* nested or overlapping: the last that holds it */
		if (pc < x->r[i].hi)
			return dwarf_offdie(dwarf_cu_getdwarf(cudie->cu), x->r[i].die, fn) != NULL;
	return false;
}

/* The deepest nesting of scopes walked down to an address: past it, cut. */
#define INLINE_WALK_MAX	1024

/*
 * The frames at addr of mod (a module's address) into raw, innermost
 * first, raw[n] the function's own line; how many inlined ones (n), at
 * most INLINE_DEPTH_MAX (*cut: there were more); without walk
 * (--no-inline), the address's line alone: no DIE is read.  One walk down from
 * the function that holds it (the unit's index), into the scope that
 * holds the address at each level (dwarf_getscopes() then
 * dwarf_getscopes_die() walked the whole unit three times: 1090 million
 * instructions for -f folded -g of xz's run, 713 million this way).
 * Under the lock.
 */
static unsigned int scopes_at(struct inlines *t, const struct dso *e, Dwfl_Module *mod,
			      uint64_t addr, bool walk, struct inl_raw *raw, bool *cut)
{
	Dwarf_Addr bias = 0;
	Dwarf_Die *cudie = dwfl_module_addrdie(mod, addr, &bias);
	Dwarf_Die path[INLINE_DEPTH_MAX], at, next;
	Dwarf_Files *files = NULL;
	Dwfl_Line *l = dwfl_module_getsrc(mod, addr);
	const char *file = NULL;
	unsigned int n = 0, np = 0, level, i;
	int line = 0;

	if (l)
		file = dwfl_lineinfo(l, NULL, &line, NULL, NULL, NULL);
	raw[0] = (struct inl_raw){ "", file ? file : "", file ? line : 0 };
	if (!walk || !cudie || dwarf_getsrcfiles(cudie, &files, NULL))
		return 0;	/* --no-inline: the line alone, no DIE read */
	/* the inlined subroutines, outermost first: the innermost kept, in a ring */
	if (!function_at(t, e, cudie, addr - bias, &at))
		return 0;
	for (level = 0; level < INLINE_WALK_MAX && child_at(&at, addr - bias, &next, 0); level++) {
		if (dwarf_tag(&next) == DW_TAG_inlined_subroutine)
			path[np++ % INLINE_DEPTH_MAX] = next;
		at = next;
	}
	*cut = np > INLINE_DEPTH_MAX || level == INLINE_WALK_MAX;
	for (i = 0; i < np && i < INLINE_DEPTH_MAX; i++) {
		Dwarf_Die *die = &path[(np - 1 - i) % INLINE_DEPTH_MAX];
		Dwarf_Attribute a;
		Dwarf_Word v;
		const char *f = NULL;
		int cl = 0;

		raw[n].name = die_fname(die);
		/* where it was inlined: the line of the frame outside it */
		if (!dwarf_formudata(dwarf_attr(die, DW_AT_call_line, &a), &v) && v <= INT32_MAX)
			cl = (int)v;
		if (!dwarf_formudata(dwarf_attr(die, DW_AT_call_file, &a), &v))
			f = dwarf_filesrc(files, v, NULL, NULL);
		n++;
		raw[n] = (struct inl_raw){ "", f ? f : "", f ? cl : 0 };
	}
	return n;
}

/*
 * INLINE_BYTES_MAX, or less: a test knob, PERFREGS_INLINE_BYTES
 * (docs/security.md), lowers it so that the host tests reach it.
 */
static size_t inline_budget(void)
{
	static size_t budget;	/* any thread may be the first: the same value */
	size_t b = __atomic_load_n(&budget, __ATOMIC_RELAXED);
	const char *env;

	if (!b) {
		env = getenv("PERFREGS_INLINE_BYTES");
		b = env ? strtoull(env, NULL, 0) : INLINE_BYTES_MAX;
		if (!b || b > INLINE_BYTES_MAX)
			b = INLINE_BYTES_MAX;
		__atomic_store_n(&budget, b, __ATOMIC_RELAXED);
	}
	return b;
}

/*
 * The chain at addr of e's file, found in the machine's table or made
 * there; NULL for none.  Under the lock.
 */
static const struct inl_chain *chain_locked(struct machine *mach, struct dso *e,
					    uint64_t addr)
{
	struct inlines *t = mach->inlines;
	struct inl_raw raw[INLINE_DEPTH_MAX + 1];
	struct inl_entry *x;
	Dwfl_Module *mod;
	uint64_t h = inl_hash(e, addr) >> 32;
	size_t bytes = 0;
	bool cut = false;
	unsigned int n;

	if (!t)
		t = mach->inlines = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	for (x = t->bucket[h % INL_BUCKETS]; x; x = x->next)
		if (x->e == e && x->addr == addr)
			return x->c;
	if (t->bytes > inline_budget()) {
		if (!t->full)
			diag(mach, "inline frames: their budget (%zu KiB) is spent: addresses "
				   "met from now on show none, nor source lines",
			     inline_budget() >> 10);
		t->full = true;
		return NULL;
	}
	x = calloc(1, sizeof(*x));
	if (!x)
		return NULL;
	mod = dso_module_locked(mach, e);
	if (mod) {
		n = scopes_at(t, e, mod, addr, mach->inline_frames, raw, &cut);
		if (cut)
			diag(mach, "inline frames: more than %d nested at 0x%llx of %s: "
				   "the innermost %d shown", INLINE_DEPTH_MAX,
			     (unsigned long long)addr, dso_path(e), INLINE_DEPTH_MAX);
		if (t->cut && !t->cut_said)
			diag(mach, "inline frames: a unit of %s has more functions than its "
				   "index may hold (%u, or what is left of the %zu KiB budget): "
				   "those past them show no inline frames", dso_path(t->cut),
			     CU_RANGES_MAX, inline_budget() >> 10);
		t->cut_said |= t->cut != NULL;
		t->cut = NULL;
		if (n || raw[0].file[0])
			x->c = chain_make(mach, raw, n, &bytes);
	}
	x->e = e;
	x->addr = addr;
	x->next = t->bucket[h % INL_BUCKETS];
	t->bucket[h % INL_BUCKETS] = x;
	t->bytes += sizeof(*x) + bytes;
	return x->c;
}

const struct inl_chain *mapping_inlines(struct machine *mach, struct mapping *m,
					uint64_t lookup)
{
	uint64_t bias = 0;
	const struct inl_chain *c = NULL;
	struct inl_slot *sl = NULL;
	struct dso *e;

	if (!inl_cache)
		inl_cache = calloc(1, sizeof(*inl_cache));
	if (inl_cache) {
		sl = &inl_cache->slot[(lookup ^ (uintptr_t)m * 31) * 0x9e3779b97f4a7c15ULL >> 52 &
				      (INL_CACHE - 1)];
		if (sl->m == m && sl->addr == lookup)
			return sl->c;
	}
	e = mapping_file_entry(mach, m, &bias);
	if (e) {
		symbols_lock();
		c = chain_locked(mach, e, lookup - bias);
		symbols_unlock();
	}
	if (sl) {
		sl->m = m;
		sl->addr = lookup;
		sl->c = c;
	}
	return c;
}

void inline_thread_free(void)
{
	free(inl_cache);
	inl_cache = NULL;
}

void inlines_free(struct machine *mach)
{
	struct inlines *t = mach->inlines;
	struct inl_entry *x;
	struct cu_index *u;
	unsigned int i;

	inline_thread_free();
	if (!t)
		return;
	for (i = 0; i < INL_BUCKETS; i++)
		while ((x = t->bucket[i])) {
			t->bucket[i] = x->next;
			free(x->c);
			free(x);
		}
	for (i = 0; i < CU_BUCKETS; i++)
		while ((u = t->units[i])) {
			t->units[i] = u->next;
			free(u->r);
			free(u);
		}
	free(t);
	mach->inlines = NULL;
}
