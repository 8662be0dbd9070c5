// SPDX-License-Identifier: GPL-2.0
/*
 * Files by identity (struct dso), with their symbols: one Dwfl and
 * sorted symbol table per file,
 * shared by every mapping of it in every process and version of an
 * address space, a bounded number of them open at once.
 *
 * A file is known by what it is, not by where a recording says it was
 * mapped: its build-id when the mapping has one (one table whatever name
 * maps it: /lib and /usr/lib are the same on Debian), else the device
 * and inode of the file as it is opened here; and the link-time address
 * of its first PT_LOAD, where its module is reported (mapping_base()).
 * A mapping whose offset lies in no segment of its file names nothing.
 * Keyed by a base derived from the recording (start - offset, for an
 * offset in no executable segment), 2000 mappings of libc.so.6 at starts
 * of their own were 2000 Dwfls: 1651 MiB and 3996 open files, and under
 * ulimit -n 1024 three quarters of the samples lost their names
 * (tests/mkbomb.c bases).
 *
 * At most dso_open_max() Dwfls are open: past that, the least recently
 * used is closed (its file and debug file, its symbol table), and opened
 * again from its file when asked for, if it is still the same file.  An
 * entry itself stays until dsos_free(): the mappings that found it keep
 * pointing at it, and the names each thread keeps (sym_cache) and the
 * CFI rows of unwind.c are keyed by it.
 *
 * Threads: what is learnt here is learnt under files.c's lock
 * (symbols_lock()), and so is every libdw call on an entry's Dwfl;
 * a table once read is searched without it, counted in the entry's
 * searching so that it is not closed meanwhile (entry_symbol(),
 * entry_close()); unwind.c calls into libdw
 * on an entry's module under the lock only (dso_module_locked()), and
 * keys what it derives by the entry.
 */
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <gelf.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include "types.h"
#include "util.h"
#include "images.h"
#include "maps.h"
#include "files.h"
#include "plt.h"
#include "debuginfo.h"
#include "demangle.h"
#include "dso.h"

/*
 * Symbol tables of libdw modules, sorted for binary search: libdw's own
 * dwfl_module_addrinfo() walks the whole table on every lookup.  A
 * symbol is demangled once, the first time it names something, not
 * once a sample: its name as shown stays with it until the table goes.
 */
struct usym {
	uint64_t start, size;
	const char *name;	/* libdw's or plt's, valid while the Dwfl is */
	/*
	 * demangled (ours, malloc()ed), or name itself when it is not
	 * mangled; NULL: not asked for yet.  Set once, by whichever
	 * thread asks first (a table is searched without the lock).
	 */
	const char *shown;
};

struct symtab {
	struct usym *s;
	size_t n;
	struct plt_syms plt;	/* the names of its PLT entries (plt.c) */
};

static int usym_cmp(const void *a, const void *b)
{
	const struct usym *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->size < y->size ? 1 : x->size > y->size ? -1 : 0;
}

/*
 * mod's symbols and the PLT entries of its file, "function@plt" (plt.c),
 * read once while the file is open, whoever maps it.
 */
static struct symtab *symtab_read(Dwfl_Module *mod)
{
	Elf *elf;
	GElf_Addr bias = 0;
	struct symtab *t;
	size_t j;
	int i, n;

	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	elf = dwfl_module_getelf(mod, &bias);
	if (elf)
		plt_symbols(elf, &t->plt);
	n = dwfl_module_getsymtab(mod);
	if (n < 0)
		n = 0;
	if (n + t->plt.n > 0)
		t->s = calloc(n + t->plt.n, sizeof(*t->s));
	for (j = 0; t->s && j < t->plt.n; j++) {
		t->s[t->n].start = t->plt.s[j].start + bias;
		t->s[t->n].size = t->plt.s[j].size;
		t->s[t->n].name = t->plt.s[j].name;
		t->n++;
	}
	for (i = 1; t->s && i < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		const char *name;
		int type;

		name = dwfl_module_getsym_info(mod, i, &sym, &addr, NULL, NULL, NULL);
		type = GELF_ST_TYPE(sym.st_info);
		if (!name || !*name || sym.st_shndx == SHN_UNDEF ||
		    (type != STT_FUNC && type != STT_NOTYPE && type != STT_GNU_IFUNC))
			continue;
		t->s[t->n].start = addr;
		t->s[t->n].size = sym.st_size;
		t->s[t->n].name = name;
		t->n++;
	}
	if (t->n)	/* none: s may be NULL, which qsort() may not have */
		qsort(t->s, t->n, sizeof(*t->s), usym_cmp);
	return t;
}


/*
 * name demangled into buf as demangle_name(); a PLT entry's,
 * "function@plt" (plt.c), as perf shows it: the function's name
 * demangled, then "@plt".
 */
static size_t demangle_name_plt(const char *name, char *buf, size_t len)
{
	static const char plt[] = "@plt";
	size_t k = strlen(name), n;
	char in[DEMANGLE_IN_MAX + 1];

	if (k <= sizeof(plt) - 1 || strcmp(name + k - (sizeof(plt) - 1), plt) ||
	    k - (sizeof(plt) - 1) > DEMANGLE_IN_MAX || len < sizeof(plt))
		return demangle_name(name, buf, len);
	k -= sizeof(plt) - 1;
	memcpy(in, name, k);
	in[k] = 0;
	n = demangle_name(in, buf, len - (sizeof(plt) - 1));
	if (n)
		memcpy(buf + n, plt, sizeof(plt));
	return n ? n + sizeof(plt) - 1 : 0;
}

/* u's name demangled (demangle.c), once for all threads */
static const char *usym_shown(struct usym *u)
{
	const char *s = __atomic_load_n(&u->shown, __ATOMIC_ACQUIRE), *was = NULL;
	char buf[DEMANGLE_OUT_MAX];
	size_t n;

	if (s)
		return s;
	n = demangle_name_plt(u->name, buf, sizeof(buf));
	s = n ? strdup(buf) : u->name;
	if (!s)		/* no memory: the name as it is, asked again next time */
		return u->name;
	/* release: the copy is whole before another thread reads it */
	if (!__atomic_compare_exchange_n(&u->shown, &was, s, false, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE)) {
		if (s != u->name)
			free((char *)s);
		s = was;	/* another thread's, the same */
	}
	return s;
}

/*
 * The function at addr in t: the last symbol starting at or below it
 * that either spans it or has no size (an asm label), demangled unless
 * raw: 0, 1 when demangled, -1 when there is none.
 */
static int symtab_symbol(struct symtab *t, uint64_t addr, uint64_t show, bool raw,
			 char *buf, size_t len)
{
	size_t lo = 0, hi, i;

	if (!t || !t->n)
		return -1;
	hi = t->n;
	while (lo < hi) {	/* first symbol starting above addr */
		size_t mid = (lo + hi) / 2;

		if (t->s[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (i = lo; i-- > 0;) {
		struct usym *u = &t->s[i];

		if (!u->size || addr < u->start + u->size) {
			const char *name = raw ? u->name : usym_shown(u);

			sym_offset(buf, len, name, show - u->start);
			return name != u->name;
		}
		if (lo - i > 64)
			break;
	}
	return -1;
}

static void symtab_free(struct symtab *t)
{
	size_t i;

	if (t) {
		for (i = 0; i < t->n; i++)
			if (t->s[i].shown != t->s[i].name)
				free((char *)t->s[i].shown);
		plt_syms_free(&t->plt);
		free(t->s);
		free(t);
	}
}


/* One Dwfl per file, shared by every mapping of it (see above). */
struct dso {
	/* the key: the build-id if the mapping had one, else dev and ino */
	uint8_t build_id[20];
	uint8_t build_id_len;
	dev_t dev;		/* of the file opened, checked when opened again */
	ino_t ino;
	uint64_t base;		/* and its first PT_LOAD, where it is reported */
	uint64_t hash;
	char *path;		/* the file it is read from */
	/* under symbols_lock(): */
	Dwfl *dwfl;		/* NULL: closed (or never opened, failed) */
	Dwfl_Module *mod;
	struct symtab *tab;	/* its symbols, sorted, once asked for (see entry_symbol()) */
	bool failed;		/* cannot be read (again): none */
	/* without the lock (entry_symbol()): */
	unsigned int searching;	/* searches of tab under way */
	bool recent;		/* searched since it was last put first of the open ones */
	struct dso *newer, *older;	/* the open ones, most recent first */
	struct dso *next;	/* in its bucket */
};

#define DSO_BUCKETS	1024

struct dsos {
	struct dso *bucket[DSO_BUCKETS];
	struct dso *newest, *oldest;	/* the open entries */
	unsigned int open;
};

/*
 * The Dwfls open at once.  Each holds its file open, and its separate
 * debug file and a dwz file once libdw has looked for them: 3 files at
 * most (2 for this system's libc.so.6).  Its symbol table is in memory
 * (about 1 MiB for libc.so.6 with its debug file; 6 MiB of address
 * space mapped).  64 of them, or a sixteenth of the descriptors the
 * process may have: 3/16 of them at most, beside the unwinders' half
 * (unwind_files_max()).  Decoding a process that runs code of more
 * files than that costs reading their tables again, never a name.
 */
#define USYMS_OPEN_MAX	64
#define USYMS_OPEN_MIN	4

unsigned int dso_open_max(void)
{
	static unsigned int max;	/* any thread may be the first: the same value */
	unsigned int n = __atomic_load_n(&max, __ATOMIC_RELAXED);
	struct rlimit rl;

	if (!n) {
		n = USYMS_OPEN_MAX;
		if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur != RLIM_INFINITY &&
		    rl.rlim_cur / 16 < n)
			n = rl.rlim_cur / 16 > USYMS_OPEN_MIN ? (unsigned int)(rl.rlim_cur / 16) :
								USYMS_OPEN_MIN;
		__atomic_store_n(&max, n, __ATOMIC_RELAXED);
	}
	return n;
}

static Dwfl_Callbacks dwfl_cbs = {
	.find_elf = debuginfo_find_elf,
	.find_debuginfo = debuginfo_find,
	.section_address = dwfl_offline_section_address,
};

static void lru_unlink(struct dsos *c, struct dso *e)
{
	if (e->newer)
		e->newer->older = e->older;
	else
		c->newest = e->older;
	if (e->older)
		e->older->newer = e->newer;
	else
		c->oldest = e->newer;
	e->newer = e->older = NULL;
}

static void lru_front(struct dsos *c, struct dso *e)
{
	e->older = c->newest;
	e->newer = NULL;
	if (c->newest)
		c->newest->newer = e;
	else
		c->oldest = e;
	c->newest = e;
}

/* e was used: the last to be closed.  Under the lock. */
static void entry_used(struct dsos *c, struct dso *e)
{
	if (e->dwfl && c->newest != e) {
		lru_unlink(c, e);
		lru_front(c, e);
	}
}

/* e closed, false when it cannot be now: a search of its table is under way. */
static bool entry_close(struct dsos *c, struct dso *e)
{
	struct symtab *tab = e->tab;

	/*
	 * seq_cst, the store and the load: pair with entry_symbol()'s
	 * increment of searching and load of tab.  Either this load sees
	 * that search and the table stays, or that search sees NULL.
	 */
	__atomic_store_n(&e->tab, NULL, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&e->searching, __ATOMIC_SEQ_CST)) {
		__atomic_store_n(&e->tab, tab, __ATOMIC_SEQ_CST);
		return false;
	}
	lru_unlink(c, e);
	symtab_free(tab);
	dwfl_end(e->dwfl);
	e->dwfl = NULL;
	e->mod = NULL;
	c->open--;
	return true;
}

/*
 * At most keep open: the least recently used ones go.  One searched
 * without the lock since it was put first (recent) is put first now
 * instead, and goes only if the others do not make room (a second
 * chance, as a clock does); one being searched stays.  The chances are
 * as many as the entries open: threads that mark entries recent again
 * meanwhile cannot keep the walk going (it holds the lock), and the
 * newest entry has none, so that keep 0 (no descriptor left) closes
 * every entry not being searched (a second reader's find).
 */
static void make_room(struct dsos *c, unsigned int keep)
{
	struct dso *e = c->oldest, *newer;
	unsigned int chances = c->open;

	for (; e && c->open > keep; e = newer) {
		newer = e->newer;
		if (newer && chances && __atomic_load_n(&e->recent, __ATOMIC_RELAXED)) {
			chances--;
			__atomic_store_n(&e->recent, false, __ATOMIC_RELAXED);
			lru_unlink(c, e);	/* visited again, last */
			lru_front(c, e);
			continue;
		}
		entry_close(c, e);
	}
}

/*
 * path, open_regular(); when the process has no descriptor left (the
 * unwinders hold theirs, the limit is low), after closing the Dwfls of
 * every entry not in use.  Under the lock.
 */
static int file_open(struct dsos *c, const char *path)
{
	int fd = open_regular(path);

	if (fd < 0 && (errno == EMFILE || errno == ENFILE)) {
		make_room(c, 0);
		fd = open_regular(path);
	}
	return fd;
}

/*
 * e's Dwfl, opened from fd (a file of e's dev and ino, ours to close)
 * or, with fd -1, from e->path again, if it is still that file.  False,
 * and e failed for good, when it cannot be.  Under the lock.
 */
static bool entry_open(struct machine *mach, struct dsos *c, struct dso *e, int fd)
{
	struct stat st;

	if (e->dwfl || e->failed) {
		if (fd >= 0)
			close(fd);
		return e->dwfl != NULL;
	}
	make_room(c, dso_open_max() - 1);
	if (fd < 0)
		fd = file_open(c, e->path);
	if (fd < 0 || fstat(fd, &st) || st.st_dev != e->dev || st.st_ino != e->ino)
		goto fail;
	dwfl_cbs.debuginfo_path = dwfl_debuginfo_path_locked(mach);
	e->dwfl = debuginfo_dwfl_begin(&dwfl_cbs);
	if (!e->dwfl)
		goto fail;
	dwfl_report_begin(e->dwfl);
	e->mod = report_elf_fd(e->dwfl, e->path, e->path, fd, e->base);
	fd = -1;	/* libdwfl's, or closed */
	dwfl_report_end(e->dwfl, NULL, NULL);
	if (!e->mod) {
		dwfl_end(e->dwfl);
		e->dwfl = NULL;
		goto fail;
	}
	lru_front(c, e);
	c->open++;
	return true;
fail:
	if (fd >= 0)
		close(fd);
	/* read without the lock by mapping_symbol(): a hint, checked again under it */
	__atomic_store_n(&e->failed, true, __ATOMIC_RELAXED);
	return false;
}

static uint64_t entry_hash(const uint8_t *id, size_t idlen, dev_t dev, ino_t ino,
			   uint64_t base)
{
	uint64_t h = 1469598103934665603ULL ^ base;
	size_t i;

	if (idlen) {
		for (i = 0; i < idlen; i++)
			h = (h ^ id[i]) * 1099511628211ULL;
	} else {
		h = (h ^ (uint64_t)dev) * 1099511628211ULL;
		h = (h ^ (uint64_t)ino) * 1099511628211ULL;
	}
	return h ^ h >> 29;
}

static struct dso *entry_find(struct dsos *c, uint64_t h, const uint8_t *id,
				     size_t idlen, dev_t dev, ino_t ino, uint64_t base)
{
	struct dso *e;

	for (e = c->bucket[h % DSO_BUCKETS]; e; e = e->next)
		if (e->hash == h && e->base == base && e->build_id_len == idlen &&
		    (idlen ? !memcmp(e->build_id, id, idlen) : e->dev == dev && e->ino == ino))
			return e;
	return NULL;
}

/*
 * The entry of m's file, found or made (and opened); NULL when there is
 * no file to read.  Under the lock, m's base known.
 */
static struct dso *entry_for(struct machine *mach, struct mapping *m)
{
	const char *path = mapping_file_locked(mach, m);
	struct dsos *c = mach->dsos;
	struct dso *e;
	struct stat st;
	uint64_t h = 0;
	int fd;

	if (!c)
		c = mach->dsos = calloc(1, sizeof(*c));
	if (!c || !path[0])
		return NULL;
	if (m->build_id_len) {	/* found without opening a file */
		h = entry_hash(m->build_id, m->build_id_len, 0, 0, m->first);
		e = entry_find(c, h, m->build_id, m->build_id_len, 0, 0, m->first);
		if (e)
			return e;
	}
	fd = file_open(c, path);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st)) {
		close(fd);
		return NULL;
	}
	if (!m->build_id_len) {
		h = entry_hash(NULL, 0, st.st_dev, st.st_ino, m->first);
		e = entry_find(c, h, NULL, 0, st.st_dev, st.st_ino, m->first);
		if (e) {
			close(fd);
			return e;
		}
	}
	e = calloc(1, sizeof(*e));
	if (e)
		e->path = strdup(path);
	if (!e || !e->path) {
		free(e);
		close(fd);
		return NULL;
	}
	memcpy(e->build_id, m->build_id, m->build_id_len);
	e->build_id_len = m->build_id_len;
	e->dev = st.st_dev;
	e->ino = st.st_ino;
	e->base = m->first;
	e->hash = h;
	e->next = c->bucket[h % DSO_BUCKETS];
	c->bucket[h % DSO_BUCKETS] = e;
	entry_open(mach, c, e, fd);
	return e;
}

/* what m->syms holds for a mapping whose file has no entry */
static struct dso no_entry;

/*
 * The entry of mapping m's file and the bias of m (the task's address
 * of a file address is that plus the bias); NULL when it has none: no
 * file to read, or an offset in no segment of it.
 */
static struct dso *mapping_entry(struct machine *mach, struct mapping *m,
					uint64_t *bias)
{
	uint64_t base = mapping_base(mach, m);
	/* acquire: pairs with the release below, another thread's */
	struct dso *e = __atomic_load_n(&m->syms, __ATOMIC_ACQUIRE);

	if (m->first == UINT64_MAX)
		return NULL;
	*bias = base - m->first;
	if (!e) {
		symbols_lock();
		e = m->syms;
		if (!e) {
			e = entry_for(mach, m);
			if (!e)
				e = &no_entry;
			/* release: the entry is whole before another thread uses it */
			__atomic_store_n(&m->syms, e, __ATOMIC_RELEASE);
		}
		symbols_unlock();
	}
	return e == &no_entry ? NULL : e;
}

/*
 * The entry of mapping m's file and the bias of m, for what else is read
 * of the file at its own addresses (inline.c); NULL when it has none.
 */
struct dso *mapping_file_entry(struct machine *mach, struct mapping *m, uint64_t *bias)
{
	return mapping_entry(mach, m, bias);
}

/* The file e is read from, for messages. */
const char *dso_path(const struct dso *e)
{
	return e->path;
}

/*
 * The names given last, by file and address: a chain's callers are the
 * same few return addresses sample after sample, and the binary search
 * of libc's table for each was 8% of -f folded of xz's 32326 samples.
 */
#define SYM_CACHE	1024

struct sym_cache {
	struct sym_slot {
		const struct dso *e;	/* NULL: empty */
		uint64_t lookup, show;		/* the file's own addresses */
		bool raw;			/* the name as the file has it */
		int ret;
		/*
		 * asked for with a buffer of len bytes (a name longer than
		 * it is cut before its offset, so each len has its own);
		 * up to 320: resolve.c's sample symbol, which went past the
		 * cache (a search a sample, 8% of report of xz's run)
		 */
		unsigned int len;
		char name[320];
	} slot[SYM_CACHE];
};

/*
 * Each decoding thread's own (a worker's, or the reading thread's):
 * mapping_symbol() has no thread to hand it.  Its keys are a decoder's
 * entries, so it goes with them: dsos_free() empties the calling
 * thread's, and each worker's goes when it ends (pool.c).
 */
static __thread struct sym_cache *sym_cache;

/*
 * The function at lookup of e's file, "name+0xoff" from show (dso.h);
 * -2 when e cannot be read.  Once the table is read, the search takes
 * no lock: searching tells entry_close() to leave the table be (it was
 * pinned under the lock, then one round of the lock: each round was 9%
 * of -f folded without -g, bench/ab_decode's recording under callgrind).
 */
static int entry_symbol(struct machine *mach, struct dso *e, uint64_t lookup,
			uint64_t show, bool raw, char *buf, size_t len)
{
	struct symtab *tab;
	int ret = -2;

	/* seq_cst, the increment and the load: pair with entry_close()'s */
	__atomic_add_fetch(&e->searching, 1, __ATOMIC_SEQ_CST);
	tab = __atomic_load_n(&e->tab, __ATOMIC_SEQ_CST);
	if (tab) {
		ret = symtab_symbol(tab, lookup, show, raw, buf, len);
		if (!__atomic_load_n(&e->recent, __ATOMIC_RELAXED))
			__atomic_store_n(&e->recent, true, __ATOMIC_RELAXED);
	}
	/* release: the search is over before entry_close() sees it so */
	__atomic_sub_fetch(&e->searching, 1, __ATOMIC_RELEASE);
	if (tab)
		return ret;
	symbols_lock();
	if (entry_open(mach, mach->dsos, e, -1)) {
		entry_used(mach->dsos, e);
		if (!e->tab)	/* seq_cst: as entry_close()'s stores */
			__atomic_store_n(&e->tab, symtab_read(e->mod), __ATOMIC_SEQ_CST);
		if (e->tab)
			ret = symtab_symbol(e->tab, lookup, show, raw, buf, len);
	}
	symbols_unlock();
	return ret;
}

/*
 * The function at lookup in mapping m, "name+0xoff" from show.  Each
 * file's symbols are read once, at its own link-time addresses, and
 * shared by every process that maps it wherever ASLR put it: a Dwfl per
 * (file, load address) made libc's table be read and sorted again for
 * every process.  0, or 1 when the name is demangled (dso.h); -1: no
 * symbol there, -2: the file cannot be read.
 */
int mapping_symbol(struct machine *mach, struct mapping *m, uint64_t lookup,
		   uint64_t show, unsigned int flags, char *buf, size_t len)
{
	uint64_t bias = 0;
	struct dso *e = mapping_entry(mach, m, &bias);
	bool raw = (flags & SYM_RAW) || !mach->demangle;
	struct sym_slot *sl;

	if (!e || __atomic_load_n(&e->failed, __ATOMIC_RELAXED))
		return -2;	/* no file to read */
	lookup -= bias;
	show -= bias;
	if (len > sizeof(sl->name))
		return entry_symbol(mach, e, lookup, show, raw, buf, len);
	if (!sym_cache)
		sym_cache = calloc(1, sizeof(*sym_cache));
	if (!sym_cache)
		return entry_symbol(mach, e, lookup, show, raw, buf, len);
	sl = &sym_cache->slot[((lookup ^ show * 31 ^ (uintptr_t)e ^ raw ^ (uint64_t)len << 48) *
			       0x9e3779b97f4a7c15ULL) >> 54 & (SYM_CACHE - 1)];
	if (sl->e != e || sl->lookup != lookup || sl->show != show || sl->raw != raw ||
	    sl->len != len) {
		sl->name[0] = 0;
		sl->ret = entry_symbol(mach, e, lookup, show, raw, sl->name, len);
		if (sl->ret == -2) {
			sl->e = NULL;	/* not a name: asked again */
			return -2;
		}
		sl->e = e;
		sl->lookup = lookup;
		sl->show = show;
		sl->raw = raw;
		sl->len = (unsigned int)len;
	}
	if (sl->ret >= 0)
		memcpy(buf, sl->name, strlen(sl->name) + 1);
	return sl->ret;
}

/* The calling thread's sym_cache goes: a decoder or a worker is done. */
void dso_thread_free(void)
{
	free(sym_cache);
	sym_cache = NULL;
}

/*
 * The entry of m's file, whose module unwind.c takes CFI from
 * (dso_module_locked()); NULL when there is none, or when the file it
 * was read from is not the one m names (the same build-id from another
 * file).
 */
struct dso *mapping_dso(struct machine *mach, struct mapping *m)
{
	uint64_t bias;
	struct dso *e = mapping_entry(mach, m, &bias);
	bool ok;

	if (!e)
		return NULL;
	symbols_lock();
	ok = entry_open(mach, mach->dsos, e, -1) &&
	     (!e->build_id_len || !strcmp(e->path, mapping_file_locked(mach, m)));
	symbols_unlock();
	return ok ? e : NULL;
}

/*
 * Under symbols_lock(): e's module, opened again if it was closed since;
 * valid until the lock is let go.  NULL when it cannot be read (again).
 */
Dwfl_Module *dso_module_locked(struct machine *mach, struct dso *e)
{
	if (!entry_open(mach, mach->dsos, e, -1))
		return NULL;
	entry_used(mach->dsos, e);
	return e->mod;
}

/*
 * The source file and line of lookup in mapping m, from the line table
 * of the file's DWARF (or of its separate debug file, found as the
 * symbols' are): 0, with the file's name in file (len bytes, cut), or
 * -1 when there is none.  The same Dwfl as the symbols': a file's line
 * tables are read once, whoever maps it, while it stays open.
 */
int mapping_source(struct machine *mach, struct mapping *m, uint64_t lookup,
		   char *file, size_t len, int *line)
{
	uint64_t bias = 0;
	struct dso *e = mapping_entry(mach, m, &bias);
	Dwfl_Module *mod;
	const char *name = NULL;
	Dwfl_Line *l;

	if (!e || !len)
		return -1;
	symbols_lock();
	mod = dso_module_locked(mach, e);
	l = mod ? dwfl_module_getsrc(mod, lookup - bias) : NULL;
	*line = 0;
	if (l)
		name = dwfl_lineinfo(l, NULL, line, NULL, NULL, NULL);
	if (name)
		snprintf(file, len, "%s", name);
	symbols_unlock();
	return name && *name ? 0 : -1;
}

/* The entries, their Dwfls and tables, and the calling thread's names. */
void dsos_free(struct machine *mach)
{
	struct dsos *c = mach->dsos;
	struct dso *e;
	unsigned int i;

	dso_thread_free();
	if (!c)
		return;
	for (i = 0; i < DSO_BUCKETS; i++) {
		while ((e = c->bucket[i])) {
			c->bucket[i] = e->next;
			symtab_free(e->tab);
			if (e->dwfl)
				dwfl_end(e->dwfl);
			free(e->path);
			free(e);
		}
	}
	free(c);
	mach->dsos = NULL;
}
