// SPDX-License-Identifier: GPL-2.0
/*
 * Address spaces from side-band events, as perf builds them: every
 * executable mapping of a process as it is made (perf's MMAP2), a new,
 * empty space at each exec (COMM with the exec flag), the parent's
 * space copied at a fork.  Each change publishes a new version of the
 * process's space, valid from the event's time on, so a sample finds
 * the mappings its task had when it was taken, whatever order samples
 * and events are read in: a library dlclose()d and another dlopen()ed
 * at the same address name each sample by its time.
 *
 * The events and the samples share a clock: the module stamps samples
 * with ktime_get_mono_fast_ns(), which is what perf uses for an event
 * opened with use_clockid and CLOCK_MONOTONIC (sideband.c).  A mapping
 * is reported before mmap() returns, so before any sample in it.
 *
 * A process no event has told us about (it existed before sampling
 * started, under -a) has no space: its maps come from /proc/PID/maps
 * as before (symbols.c).  Changes are made by the decoding thread only
 * (live: the drains, under learn_lock; or a recording's reader, while
 * --threads' workers look versions up, space_event_later()); what
 * mappings learn lazily (their file, bias, symbols) any decoding thread
 * fills in, under symbols.c's lock; the learner thread only asks
 * space_tracked().
 * A version is whole before the release store that publishes it, and
 * stays until session_free().
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "types.h"
#include "intern.h"
#include "maps.h"
#include "files.h"
#include "dso.h"
#include "vdso.h"
#include "learnt.h"
#include "diag.h"
#include "jitmap.h"
#include "aspace.h"

/*
 * A process's address space as the side-band events built it (perf's
 * MMAP2, COMM exec, FORK): its versions, newest first.  A version is
 * never changed once published; a change publishes a new one.
 */
struct space {
	uint32_t pid;
	struct task_maps *newest;
	struct task_maps *first;	/* before any event: unknown or empty */
	struct sb_entry *log;		/* its events, in time order */
	struct task_maps **vers;	/* the version after each event */
	size_t n, cap;
	struct task_maps *retired;	/* versions replaced after a late event */
	bool full;			/* given up: see space_give_up() */
	uint64_t last_fork;		/* the latest fork of a child of it */
	struct space_link *children;	/* the processes it forked */
	uint64_t visited;		/* by children_rebuild(): its stamp */
	uint32_t linked_ppid;		/* the parent it was last linked to, */
	bool linked;			/* if any */
	struct space *next;
};

/*
 * A process forked by another: on the parent's children, or on the
 * machine's orphans while the parent (ppid) has no space of its own.
 */
struct space_link {
	struct space *child;
	uint32_t ppid;
	uint64_t time;			/* of the fork */
	struct space_link *next;
};

static unsigned int space_hash(uint32_t pid)
{
	return (pid * 2654435761U) >> 24;
}

static struct space *space_find(struct machine *mach, uint32_t pid)
{
	struct space *sp;

	/* acquire: pairs with the release in space_get() */
	for (sp = __atomic_load_n(&mach->spaces[space_hash(pid)], __ATOMIC_ACQUIRE);
	     sp; sp = sp->next)
		if (sp->pid == pid)
			return sp;
	return NULL;
}

static struct space *space_get(struct machine *mach, uint32_t pid)
{
	unsigned int h = space_hash(pid);
	struct space *sp = space_find(mach, pid);

	if (sp)
		return sp;
	sp = calloc(1, sizeof(*sp));
	if (!sp)
		return NULL;
	sp->pid = pid;
	sp->next = mach->spaces[h];
	/* release: the space is whole before a lock-free space_find() sees it */
	__atomic_store_n(&mach->spaces[h], sp, __ATOMIC_RELEASE);
	return sp;
}

static struct task_maps *version_new(uint32_t pid, uint64_t t0, unsigned int cap)
{
	struct task_maps *tm = calloc(1, sizeof(*tm));

	if (!tm)
		return NULL;
	tm->pid = pid;
	tm->t0 = t0;
	if (cap) {
		tm->m = calloc(cap, sizeof(*tm->m));
		if (!tm->m) {
			free(tm);
			return NULL;
		}
	}
	return tm;
}

static void version_free(struct task_maps *tm)
{
	unsigned int i;

	for (i = 0; i < tm->n; i++) {
		str_put(tm->m[i].path);
		str_put(tm->m[i].local);
	}
	free(tm->m);
	free(tm);
}

/*
 * A copy; what was resolved about the file (base, symbols) stays.
 * That a worker may be learning right now (--threads: a recording's
 * side-band events are applied while the workers print the samples
 * before them, space_event_later()), so it is copied under the lock it
 * is learnt under (symbols.c); the strings it points to never change,
 * and are shared (intern.c): the copy takes a reference to each.
 */
static void mapping_copy(struct mapping *dst, const struct mapping *src)
{
	symbols_lock();
	*dst = *src;
	symbols_unlock();
	/*
	 * A [vdso] resolved before its image was known (local "": the image
	 * item came after the mapping's event, in a recording this tool did
	 * not write) is not carried over: the copy asks again when first
	 * used.  Whether the copy found it resolved depended on whether a
	 * sample of the old version had been printed before the event was
	 * applied, which with --threads it need not have been: one thread
	 * and two named the copy's samples differently.
	 */
	if (dst->local && !dst->local[0] && !strcmp(dst->path, "[vdso]")) {
		dst->local = NULL;
		dst->syms = NULL;
		dst->base = 0;
		dst->first = 0;
		dst->base_known = false;
	}
	/* what was copied, not src->local again: a worker may have resolved src since */
	str_ref(dst->path);
	str_ref(dst->local);
}

const struct task_maps *space_at(struct machine *mach, uint32_t pid, uint64_t time)
{
	struct space *sp = space_find(mach, pid);
	const struct task_maps *tm;

	if (!sp)
		return NULL;
	/* acquire: pairs with the releases in space_insert() and space_new() */
	for (tm = __atomic_load_n(&sp->newest, __ATOMIC_ACQUIRE); tm; tm = tm->older)
		if (tm->t0 <= time)
			return tm;
	return NULL;
}

struct task_maps *maps_for_sample(struct machine *mach,
				  const struct perfregs_rec_sample *s)
{
	const struct task_maps *tm = space_at(mach, s->pid, s->time);

	if (tm && !tm->unknown)
		return (struct task_maps *)tm;
	return maps_find(mach, s->pid, s->image_ino);
}

/*
 * The symbol of user address lookup of sample s, in its task's mappings
 * then; *path (if not NULL) the file of the mapping that holds it, or
 * "" (until the end of the session).  An address in none of them (JIT
 * code lies in anonymous mappings, which are not kept) is named by the
 * process's perf map, if it has one (jitmap.c), and *path is the map's.
 */
int user_symbol(struct machine *mach, const struct perfregs_rec_sample *s,
		uint64_t lookup, uint64_t show, unsigned int flags, char *buf, size_t len,
		const char **path)
{
	struct task_maps *tm = maps_for_sample(mach, s);
	unsigned int i;

	if (path)
		*path = "";
	for (i = 0; tm && i < tm->n; i++)
		if (lookup >= tm->m[i].start && lookup < tm->m[i].end) {
			if (path && tm->m[i].path)
				*path = tm->m[i].path;
			return mapping_symbol(mach, &tm->m[i], lookup, show, flags, buf, len);
		}
	return jitmap_symbol(mach, s->pid, s->time, lookup, show, buf, len, path);
}

/* The first of the task's mappings of s that holds user address addr, NULL: none. */
struct mapping *user_mapping(struct machine *mach, const struct perfregs_rec_sample *s,
			     uint64_t addr)
{
	struct task_maps *tm = maps_for_sample(mach, s);
	unsigned int i;

	for (i = 0; tm && i < tm->n; i++)
		if (addr >= tm->m[i].start && addr < tm->m[i].end)
			return &tm->m[i];
	return NULL;
}

/* Do side-band events tell about this process?  Any thread may ask. */
bool space_tracked(struct machine *mach, uint32_t pid)
{
	return space_find(mach, pid) != NULL;
}

/* Worth keeping for symbols: code from a file, or the vDSO. */
static bool mapping_wanted(const struct sb_event *ev)
{
	static const char *const anon[] = {	/* what perf calls anonymous */
		"//anon", "/anon_hugepage", "/dev/zero", "/SYSV",
	};
	unsigned int i;

	if (!(ev->prot & PROT_EXEC) || !ev->name || ev->start >= ev->end)
		return false;
	if (!strcmp(ev->name, "[vdso]"))
		return true;
	for (i = 0; i < sizeof(anon) / sizeof(anon[0]); i++)
		if (!strncmp(ev->name, anon[i], strlen(anon[i])))
			return false;	/* JIT code: still replaces what it overlaps */
	return ev->name[0] == '/';
}

/*
 * A new mapping replaces whatever it overlaps, as mmap() does: the
 * parts of an old mapping outside it stay, with their file offsets.
 * The version after it, or NULL when nothing changes.
 */
static struct task_maps *apply_mmap(struct machine *mach, const struct task_maps *cur,
				    const struct sb_event *ev)
{
	bool want = mapping_wanted(ev), changed = want;
	struct task_maps *tm;
	unsigned int i;

	if (cur->unknown || ev->end <= ev->start)
		return NULL;
	tm = version_new(cur->pid, ev->time, cur->n + 2);
	if (!tm)
		return NULL;
	for (i = 0; i < cur->n; i++) {
		struct mapping *o = &cur->m[i];

		if (o->end <= ev->start || o->start >= ev->end) {
			mapping_copy(&tm->m[tm->n++], o);
			continue;
		}
		changed = true;
		/* a piece keeps the bias of the whole: learn it first */
		mapping_base(mach, o);
		if (o->start < ev->start) {
			mapping_copy(&tm->m[tm->n], o);
			tm->m[tm->n++].end = ev->start;
		}
		if (o->end > ev->end) {
			mapping_copy(&tm->m[tm->n], o);
			tm->m[tm->n].pgoff += ev->end - o->start;
			tm->m[tm->n++].start = ev->end;
		}
	}
	if (!changed) {
		version_free(tm);
		return NULL;
	}
	if (want) {
		struct mapping *m;

		for (i = 0; i < tm->n && tm->m[i].start < ev->start; i++)
			;
		memmove(&tm->m[i + 1], &tm->m[i], (tm->n - i) * sizeof(*tm->m));
		m = &tm->m[i];
		memset(m, 0, sizeof(*m));
		tm->n++;
		m->start = ev->start;
		m->end = ev->end;
		m->pgoff = ev->pgoff;
		/* the event's own, in the log: interned (space_insert()) */
		m->path = str_ref(ev->name);
		m->local = str_ref(ev->local);
		if (ev->build_id_len <= sizeof(m->build_id)) {
			m->build_id_len = ev->build_id_len;
			memcpy(m->build_id, ev->build_id, ev->build_id_len);
		}
	}
	return tm;
}

static struct task_maps *version_copy(const struct task_maps *from, uint32_t pid,
				      uint64_t t0)
{
	struct task_maps *tm = version_new(pid, t0, from ? from->n : 0);
	unsigned int i;

	if (!tm)
		return NULL;
	if (!from || from->unknown) {
		tm->unknown = true;
		return tm;
	}
	for (i = 0; i < from->n; i++)
		mapping_copy(&tm->m[tm->n++], &from->m[i]);
	return tm;
}

/*
 * One event of a process, kept in time order: the rings of different
 * CPUs are read one after the other, so a child's fork (written on its
 * parent's CPU) can come after its exec, or a migrated task's mappings
 * in another order than they were made (measured: xz run from sh on 6.1
 * had its FORK read after its EXEC, and half of its samples lost their
 * executable).  A late event rebuilds the versions after it.
 */
struct sb_entry {
	struct sb_event ev;		/* name and local owned */
	struct task_maps *snap;		/* SB_FORK: the parent's space then */
};

/*
 * Every version holds its own copy of the process's mappings, and a
 * late event rebuilds the versions after it: a hostile recording (or a
 * process that keeps remapping code) could make that grow without
 * bound.  So they are budgeted in bytes, all processes together: the
 * versions, a mapping's worth for each and one for each of its
 * mappings (as 2^20 of them and their mappings were, counted), and
 * the names of the events, each held once however many versions map
 * it (intern.c).  A count alone let each of a million copies hold a
 * path of 4 KiB (tests/mkbomb.c paths).  Past a budget, a process's
 * space is given up: unknown from then on, its maps come from /proc
 * as for an untracked one.
 */
#define SPACE_BYTES_BUDGET	(((size_t)1 << 20) * sizeof(struct mapping))	/* 96 MiB */
#define SPACE_NAMES_BUDGET	((size_t)64 << 20)
#define SPACE_EVENTS_MAX	(1U << 14)	/* events of one process */
#define VERSION_BYTES(n)	(((size_t)(n) + 1) * sizeof(struct mapping))
/* The most interning an event's names can take of the budget (intern.c). */
#define NAME_BYTES(s)		((s) ? strlen(s) + 64 : 0)

static bool space_over_budget(const struct machine *mach)
{
	return mach->space_bytes > SPACE_BYTES_BUDGET || mach->space_names > SPACE_NAMES_BUDGET;
}

/* The version after e, given the one before; prev itself if unchanged. */
static struct task_maps *apply(struct machine *mach, struct task_maps *prev,
			       const struct sb_entry *e)
{
	struct task_maps *tm = NULL;

	switch (e->ev.kind) {
	case SB_EXEC:
		tm = version_new(prev->pid, e->ev.time, 0);
		break;
	case SB_FORK:
		tm = version_copy(e->snap, prev->pid, e->ev.time);
		break;
	case SB_MMAP:
		tm = apply_mmap(mach, prev, &e->ev);
		break;
	}
	if (!tm)
		return prev;
	mach->space_bytes += VERSION_BYTES(tm->n);
	tm->older = prev;
	return tm;
}

static void space_give_up(struct machine *mach, struct space *sp)
{
	struct task_maps *tm = version_new(sp->pid, 0, 0);

	sp->full = true;
	if (!tm)
		return;
	tm->unknown = true;
	tm->older = sp->newest;	/* still reachable for session_free() */
	/* release: whole before a lock-free space_at() sees it; t0 0: for all times */
	__atomic_store_n(&sp->newest, tm, __ATOMIC_RELEASE);
	diag(mach, "process %u changed its mappings too often to follow; its symbols "
	     "come from /proc from now on", sp->pid);
}

/*
 * The versions from event i on are built again; those before stay.
 * Replaced ones are retired, not freed: a lock-free space_at() on
 * another thread may be looking at them.
 */
static void space_rebuild(struct machine *mach, struct space *sp, size_t i)
{
	struct task_maps *prev, *old, *next, *base;
	size_t k;

	base = i ? sp->vers[i - 1] : sp->first;
	for (old = sp->newest; old && old != base; old = next) {
		next = old->older;
		old->retired = sp->retired;
		sp->retired = old;
	}
	prev = base;
	for (k = i; k < sp->n; k++)
		prev = sp->vers[k] = apply(mach, prev, &sp->log[k]);
	/* release: the versions are whole before a lock-free space_at() sees them */
	__atomic_store_n(&sp->newest, prev, __ATOMIC_RELEASE);
}

/*
 * A late event of process pid at time t: the children it forked after
 * t got a copy of its space without it.  Take their copies again (and
 * so on down: their own children).  Only late events come here, and
 * only pid's own children are looked at: scanning every process for
 * them made a recording of 20000 processes and 20000 late events take
 * minutes (tests/mkstorm.c fan).
 */
static void children_rebuild(struct machine *mach, uint32_t pid, uint64_t t,
			     unsigned int depth)
{
	struct space *p = space_find(mach, pid);
	struct space_link *l;
	size_t k, first;

	if (!p || depth > 8)
		return;	/* a recording may claim forks in a circle */
	if (!depth)
		mach->rebuild_stamp++;
	for (l = p->children; l; l = l->next) {
		struct space *sp = l->child;

		/*
		 * Once per late event: a child linked twice (forks claimed
		 * by two parents in turn) is not scanned again.
		 */
		if (sp->visited == mach->rebuild_stamp)
			continue;
		sp->visited = mach->rebuild_stamp;
		first = sp->n;
		for (k = 0; k < sp->n && !sp->full; k++) {
			struct sb_entry *e = &sp->log[k];

			if (e->ev.kind != SB_FORK || e->ev.ppid != pid || e->ev.time < t)
				continue;
			if (space_over_budget(mach)) {
				space_give_up(mach, sp);
				break;
			}
			/* every fork since t: a pid pid forked again, too */
			if (e->snap)
				version_free(e->snap);
			e->snap = version_copy(space_at(mach, pid, e->ev.time), sp->pid,
					       e->ev.time);
			if (first == sp->n)
				first = k;
		}
		if (first == sp->n || sp->full)
			continue;
		space_rebuild(mach, sp, first);
		children_rebuild(mach, sp->pid, sp->log[first].ev.time, depth + 1);
	}
}

static void link_child(struct space_link **list, struct space *child, uint32_t ppid,
		       uint64_t time)
{
	struct space_link *l = malloc(sizeof(*l));

	if (!l)
		return;
	l->child = child;
	l->ppid = ppid;
	l->time = time;
	l->next = *list;
	*list = l;
}

#define ORPHANS_MAX	4096

/*
 * Child sp was forked by ppid: on ppid's children, for its late events.
 * Linked once per change of parent: duplicates (a recording alternating
 * parents) are skipped by children_rebuild()'s stamp.  A parent without
 * a space yet may get one later (its exec read after the fork): the
 * child waits on the orphans until then, at most ORPHANS_MAX of them.
 */
static void space_link_fork(struct machine *mach, struct space *sp, uint32_t ppid,
			    uint64_t time)
{
	struct space *p = space_find(mach, ppid);

	if (sp->linked && sp->linked_ppid == ppid)
		return;
	if (p) {
		link_child(&p->children, sp, ppid, time);
	} else if (mach->norphans < ORPHANS_MAX) {
		link_child(&mach->orphans, sp, ppid, time);
		mach->norphans++;
	} else {
		/*
		 * Under -a most parents are never tracked (running before
		 * the start): their orphans stay.  Past the cap a child is
		 * not linked; it loses only the events its parent's exec,
		 * read late, would have given its pre-exec copy.
		 */
		return;
	}
	sp->linked_ppid = ppid;
	sp->linked = true;
}

/* A new space for pid: the children that waited for it are its own. */
static void space_adopt(struct machine *mach, struct space *p)
{
	struct space_link **pl = &mach->orphans, *l;

	while ((l = *pl)) {
		if (l->ppid != p->pid) {
			pl = &l->next;
			continue;
		}
		*pl = l->next;
		mach->norphans--;
		l->next = p->children;
		p->children = l;
		if (p->last_fork < l->time)	/* its events before are late */
			p->last_fork = l->time;
	}
}

static void links_free(struct space_link *l)
{
	struct space_link *next;

	for (; l; l = next) {
		next = l->next;
		free(l);
	}
}

static void space_insert(struct machine *mach, struct space *sp, const struct sb_event *ev,
			 struct task_maps *snap)
{
	size_t i, added, added_local = 0;
	struct sb_entry *e;
	char *name, *local = NULL;

	if (sp->full)
		goto fail;
	if (space_over_budget(mach) || sp->n >= SPACE_EVENTS_MAX ||
	    mach->space_names + NAME_BYTES(ev->name) + NAME_BYTES(ev->local) > SPACE_NAMES_BUDGET) {
		space_give_up(mach, sp);
		goto fail;
	}
	if (sp->n == sp->cap) {
		size_t cap = sp->cap ? sp->cap * 2 : 16;
		struct sb_entry *l = realloc(sp->log, cap * sizeof(*l));
		struct task_maps **v;

		if (!l)
			goto fail;
		sp->log = l;
		v = realloc(sp->vers, cap * sizeof(*v));
		if (!v)
			goto fail;
		sp->vers = v;
		sp->cap = cap;
	}
	/* after every event of the same time or earlier: arrival order breaks ties */
	for (i = sp->n; i > 0 && sp->log[i - 1].ev.time > ev->time; i--)
		;
	/* what rebuilding the versions after it may cost, at most */
	if (mach->space_bytes + (sp->n - i + 1) * VERSION_BYTES(sp->newest->n + 2) >
	    SPACE_BYTES_BUDGET) {
		space_give_up(mach, sp);
		goto fail;
	}
	/* the log's names, shared with the mappings made of them */
	name = str_intern(ev->name ? ev->name : "", &added);
	if (ev->local)
		local = str_intern(ev->local, &added_local);
	if (!name || (ev->local && !local)) {
		str_put(name);
		str_put(local);
		goto fail;
	}
	mach->space_names += added + added_local;
	memmove(&sp->log[i + 1], &sp->log[i], (sp->n - i) * sizeof(*sp->log));
	memmove(&sp->vers[i + 1], &sp->vers[i], (sp->n - i) * sizeof(*sp->vers));
	sp->n++;
	e = &sp->log[i];
	e->ev = *ev;
	e->ev.name = name;
	e->ev.local = local;
	e->snap = snap;
	space_rebuild(mach, sp, i);
	if (ev->kind == SB_FORK) {
		struct space *p = space_find(mach, ev->ppid);

		if (p && p->last_fork < ev->time)
			p->last_fork = ev->time;
		space_link_fork(mach, sp, ev->ppid, ev->time);
	}
	if (ev->time < sp->last_fork)	/* late for a child forked since */
		children_rebuild(mach, sp->pid, ev->time, 0);
	return;
fail:
	if (snap)
		version_free(snap);
}

static struct space *space_new(struct machine *mach, uint32_t pid, bool unknown)
{
	struct space *sp = space_get(mach, pid);

	if (sp && !sp->first) {
		sp->first = version_new(pid, 0, 0);
		if (!sp->first)
			return NULL;
		space_adopt(mach, sp);
		sp->first->unknown = unknown;
		__atomic_store_n(&sp->newest, sp->first, __ATOMIC_RELEASE);
	}
	return sp;
}

/*
 * May ev be applied while other threads print samples taken up to time
 * `upto` (--threads, session.c), with the very output of one thread,
 * which prints them before it applies ev?  Yes when it changes no
 * version such a sample finds (space_at(), lock-free):
 *   - it comes after them (an event at a sample's very time is seen by
 *     it, t0 <= time), so it adds versions from its time on;
 *   - it is not late for a child forked since (children_rebuild()
 *     takes the copies again, and may give the child up), nor the
 *     first event of a process whose forks were read before it (the
 *     children it adopts are rebuilt the same way);
 *   - its process cannot be given up (space_give_up() publishes an
 *     unknown version for all times): its events and the versions a
 *     rebuild could make stay within the budgets, counted as if all of
 *     its versions were made again, each with every mapping the parent
 *     and the process have.
 * A new space, of an exec, a fork or SB_BEGIN, starts unknown before
 * its first event: space_at() found none before, and maps_for_sample()
 * treats both alike (/proc's maps of the recording).
 */
/* Do forks read before pid's space was made wait for it (space_adopt())? */
static bool has_orphans(const struct machine *mach, uint32_t pid)
{
	const struct space_link *l;

	for (l = mach->orphans; l; l = l->next)
		if (l->ppid == pid)
			return true;
	return false;
}

bool space_event_later(struct machine *mach, const struct sb_event *ev, uint64_t upto)
{
	struct space *sp = space_find(mach, ev->pid);
	const struct space *parent = NULL;
	size_t events, maps;

	switch (ev->kind) {
	case SB_EXIT:
	case SB_LOST:
	case SB_BEGIN:
		return true;
	case SB_MMAP:
		if (!sp || sp->full)
			return true;	/* dropped: not tracked, or given up */
		break;
	case SB_FORK:
		if (ev->pid == ev->ppid)
			return true;
		parent = space_find(mach, ev->ppid);
		break;
	case SB_EXEC:
		break;
	default:
		return false;
	}
	if (ev->time <= upto)
		return false;
	if (sp && (sp->full || ev->time < sp->last_fork))
		return false;
	if (!sp && has_orphans(mach, ev->pid))
		return false;	/* adopted: they may be rebuilt, or given up */
	events = sp ? sp->n + 1 : 1;
	maps = (sp && sp->newest ? sp->newest->n : 0) + 3;
	if (parent && parent->newest)
		maps += parent->newest->n;
	return events < SPACE_EVENTS_MAX &&
	       mach->space_bytes + events * maps * sizeof(struct mapping) <= SPACE_BYTES_BUDGET &&
	       mach->space_names + NAME_BYTES(ev->name) + NAME_BYTES(ev->local) <=
	       SPACE_NAMES_BUDGET;
}

bool space_event(struct machine *mach, const struct sb_event *ev)
{
	const struct task_maps *parent;
	struct space *sp = space_find(mach, ev->pid);

	switch (ev->kind) {
	case SB_MMAP:
		if (!sp)
			return false;	/* not tracked: /proc answers for it */
		space_insert(mach, sp, ev, NULL);
		break;
	case SB_EXEC:
		sp = space_new(mach, ev->pid, true);
		if (sp)
			space_insert(mach, sp, ev, NULL);
		break;
	case SB_FORK:
		/*
		 * A new process gets a copy of its parent's space at the
		 * fork; when the parent's is not known, neither is the
		 * child's.  A new thread (pid == ppid) shares its process's.
		 */
		if (ev->pid == ev->ppid)
			break;
		parent = space_at(mach, ev->ppid, ev->time);
		if ((!parent || parent->unknown) && !sp)
			break;
		sp = space_new(mach, ev->pid, true);
		if (sp)
			space_insert(mach, sp, ev, sp->full ? NULL :
				     version_copy(parent, ev->pid, ev->time));
		break;
	case SB_LOST:
		mach->sb_lost += ev->start;
		break;
	case SB_BEGIN:
		space_new(mach, ev->pid, true);
		break;
	default:
		break;		/* SB_EXIT: the space stays for late samples */
	}
	learnt_sb(mach, ev);
	return true;
}

/*
 * A process whose exec the side-band will report (COMMAND, before it
 * runs): tracked from now on, its mappings unknown until the exec.  As
 * an event (SB_BEGIN), so that the recording says so too.  A drain reads
 * the side-band rings one CPU after the other, so COMMAND's mappings
 * made on CPU 0 can be read before its exec on CPU 1 (and the mappings
 * of what it exec()s next under the same pid, if the drain came late).
 * Live they are kept, for the exec to come; a reader of the recording
 * that did not know the process was tracked dropped them as those of an
 * untracked process, and named none of the samples in them.
 */
void space_begin(struct machine *mach, uint32_t pid)
{
	struct sb_event ev = { .kind = SB_BEGIN, .pid = pid, .name = "" };

	space_event(mach, &ev);
}

/*
 * What file a new code mapping of a live task holds, while the task is
 * there to ask: a deleted file kept open through map_files, the
 * build-id (unless the kernel gave one), the image of a [vdso].  For
 * the side-band's MMAP2 and for -p's start from /proc alike.
 */
void mapping_identify(struct machine *mach, struct sb_event *ev)
{
	const struct blob *b;

	if (!mach->live || !(ev->prot & PROT_EXEC))
		return;
	if (ev->name[0] == '/') {
		ev->local = held_file(mach, ev->pid, ev->start, ev->end, ev->name);
		if (!ev->build_id_len)
			file_build_id(ev->local ? ev->local : ev->name, ev->build_id,
				      &ev->build_id_len);
	} else if (!strcmp(ev->name, "[vdso]") && !ev->build_id_len &&
		   (b = vdso_read(mach, ev->pid, ev->start, ev->end))) {
		ev->build_id_len = b->build_id_len;
		memcpy(ev->build_id, b->build_id, b->build_id_len);
	}
}

/*
 * A process that was there before sampling started (-p, or COMMAND
 * forked and waiting for its go): its space as /proc/PID/maps shows it
 * now, as events at time 0 (perf synthesizes MMAP records for such
 * processes the same way), so that the recording has them too; the
 * side-band reports its changes from here on.  False, and nothing done,
 * when /proc does not answer.
 */
bool space_seed(struct machine *mach, uint32_t pid)
{
	struct sb_event ev = { .kind = SB_EXEC, .pid = pid, .name = "" };
	char path[64], line[4096];
	FILE *fp;

	snprintf(path, sizeof(path), "/proc/%u/maps", pid);
	fp = fopen(path, "r");
	if (!fp)
		return false;
	space_event(mach, &ev);
	while (fgets(line, sizeof(line), fp)) {
		uint64_t inode;
		uint32_t dev;
		char perms[8];
		int pos = 0;

		if (maps_line(line, &ev.start, &ev.end, perms, &ev.pgoff, &dev, &inode,
			      &pos) || perms[2] != 'x')
			continue;
		line[strcspn(line, "\n")] = 0;
		ev.kind = SB_MMAP;
		ev.prot = PROT_READ | PROT_EXEC;
		ev.name = line + pos;
		ev.build_id_len = 0;
		mapping_identify(mach, &ev);
		space_event(mach, &ev);
		str_put(ev.local);
		ev.local = NULL;
	}
	fclose(fp);
	return true;
}

void spaces_free(struct machine *mach)
{
	unsigned int i;
	size_t k;

	for (i = 0; i < 256; i++) {
		while (mach->spaces[i]) {
			struct space *sp = mach->spaces[i];
			struct task_maps *tm, *next;

			mach->spaces[i] = sp->next;
			for (tm = sp->newest; tm; tm = next) {
				next = tm->older;
				version_free(tm);
			}
			for (tm = sp->retired; tm; tm = next) {
				next = tm->retired;
				version_free(tm);
			}
			for (k = 0; k < sp->n; k++) {
				str_put(sp->log[k].ev.name);
				str_put(sp->log[k].ev.local);
				if (sp->log[k].snap)
					version_free(sp->log[k].snap);
			}
			free(sp->log);
			free(sp->vers);
			links_free(sp->children);
			free(sp);
		}
	}
	links_free(mach->orphans);
	mach->orphans = NULL;
	mach->norphans = 0;
}
