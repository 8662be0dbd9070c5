// SPDX-License-Identifier: GPL-2.0
/*
 * JIT code's names from perf maps: /tmp/perf-PID.map, "START SIZE NAME"
 * a line, START and SIZE in hex (an 0x before them taken, as perf's
 * strtoull() does), NAME the rest of the line after one blank.  Node.js
 * --perf-basic-prof, JVM agents, LuaJIT, Python -X perf and .NET write
 * them; perf and samply read them at report time, for an IP in an
 * anonymous executable mapping.  Here an IP that lies in none of the
 * file mappings the machine keeps (aspace.c keeps no anonymous one)
 * asks the map of its process.
 *
 * Live, a process's map is found in its own /tmp, through its root
 * (/proc/PID/root/tmp/perf-NSPID.map, NSPID its pid in its own pid
 * namespace, the last of NSpid in /proc/PID/status), opened while it
 * lives (jitmap_note(), when it is learnt, or at the first IP no
 * mapping names) and kept open (JITMAP_FDS_MAX of them), so that the
 * map stays readable after the process exits and its root goes.  A
 * map not found so is looked for in our own /tmp, as /tmp/perf-PID.map,
 * once the process is gone, if its pid namespace was ours.  A map file
 * must be a regular file (not followed through a symbolic link) of
 * root's, of ours or of the process's.  It is read on from where it
 * was, up to its last whole line, when an IP it does not name yet asks
 * (at most every JITMAP_REREAD_NS), and to its end for a recording
 * (jitmap_final()): so a line written after the sample still names it,
 * as perf's report does.  A recording holds the lines taken, not the
 * file's bytes (ITEM_JITMAP); -i reads those, never the local /tmp.
 *
 * Lines the file has twice or that overlap: the later line names the
 * addresses it covers (the newer code there).  A lookup looks at the 64
 * entries starting nearest below the address, as dso.c's does.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include "types.h"
#include "util.h"
#include "intern.h"
#include "learnt.h"
#include "diag.h"
#include "jitdump.h"
#include "jitmap.h"

struct jitent {
	uint64_t start, end;
	uint64_t time;			/* a jitdump's load: its CLOCK_MONOTONIC ns; else 0 */
	uint32_t name_off, name_len;	/* in names */
};

/* Where a process's JIT names come from: a perf map, or a jitdump. */
enum jit_kind { JIT_MAP, JIT_DUMP };

struct jitproc {
	uint32_t pid, nspid;
	enum jit_kind kind;
	bool live;		/* read from files (else a recording's) */
	bool identified;	/* nspid, uid, own_ns from /proc/PID/status */
	bool own_ns;		/* its pid namespace is ours */
	bool uid_known;
	uid_t uid;
	int fd;			/* the map file kept open, or -1 */
	char dso[40];		/* "/tmp/perf-NSPID.map" */
	char *path;		/* JIT_DUMP: its file as the process names it, interned */
	bool bad;		/* JIT_DUMP: not a jitdump, or malformed: not read on */
	struct jitent *e;	/* in the file's order */
	size_t n, cap;
	uint32_t *by_start;	/* e's indices by start, then order; n of them */
	char *names;
	size_t names_len, names_cap;
	uint64_t read_off;	/* bytes of the file taken: up to a line's start */
	bool skipping;		/* in a line over JITMAP_LINE_MAX, to its end */
	uint64_t next_read;	/* ns: not read again before */
	bool full;		/* a budget reached: said */
	bool named;		/* named an address: its dso was handed out */
	struct jitproc *next;
};

struct jitmaps {
	pthread_mutex_t lock;
	struct jitproc *bucket[256];
	unsigned int nprocs, nfds;
	unsigned int evict_at;	/* the bucket proc_evict() looks at first */
	uint64_t bytes;		/* entries and names kept, all processes */
	bool scanned;
};

static pthread_mutex_t jit_make_lock = PTHREAD_MUTEX_INITIALIZER;

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static struct jitmaps *jit_get(struct machine *mach, bool make)
{
	/* acquire: pairs with the release below */
	struct jitmaps *j = __atomic_load_n(&mach->jit, __ATOMIC_ACQUIRE);

	if (j || !make)
		return j;
	pthread_mutex_lock(&jit_make_lock);
	j = mach->jit;
	if (!j && (j = calloc(1, sizeof(*j)))) {
		pthread_mutex_init(&j->lock, NULL);
		__atomic_store_n(&mach->jit, j, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&jit_make_lock);
	return j;
}

static struct jitproc *proc_find(struct jitmaps *j, uint32_t pid, enum jit_kind kind)
{
	struct jitproc *p;

	for (p = j->bucket[(pid * 2654435761U) >> 24]; p; p = p->next)
		if (p->pid == pid && p->kind == kind)
			return p;
	return NULL;
}

/* The dso a name of p's is shown with: its map's path as perf names it, or its jitdump's. */
static const char *proc_dso(const struct jitproc *p)
{
	return p->kind == JIT_DUMP && p->path ? p->path : p->dso;
}

static void proc_clear(struct jitmaps *j, struct jitproc *p)
{
	j->bytes -= p->n * (sizeof(*p->e) + sizeof(*p->by_start)) + p->names_len;
	free(p->e);
	free(p->by_start);
	free(p->names);
	p->e = NULL;
	p->by_start = NULL;
	p->names = NULL;
	p->n = p->cap = p->names_len = p->names_cap = 0;
	p->read_off = 0;
	p->skipping = false;
	p->bad = false;		/* a jitdump written anew is walked again */
}

/*
 * One process that holds nothing (no entry, no file open, never named
 * an address) let go, for a new one: in a live run every process learnt
 * is noted, most with no map, and the first JITMAP_PROCS_MAX of them
 * kept every later one out (a JIT started after 1024 processes was never
 * named).  True if one was.
 */
static bool proc_evict(struct jitmaps *j)
{
	unsigned int i;

	for (i = 0; i < 256; i++) {
		struct jitproc **pp = &j->bucket[(j->evict_at + i) & 255], *p;

		for (; (p = *pp); pp = &p->next) {
			if (p->n || p->fd >= 0 || p->named)
				continue;
			*pp = p->next;
			proc_clear(j, p);
			str_put(p->path);
			free(p);
			j->nprocs--;
			j->evict_at = (j->evict_at + i + 1) & 255;
			return true;
		}
	}
	return false;
}

static struct jitproc *proc_get(struct machine *mach, struct jitmaps *j, uint32_t pid,
				uint32_t nspid, bool live, enum jit_kind kind)
{
	struct jitproc *p = proc_find(j, pid, kind);
	unsigned int h = (pid * 2654435761U) >> 24;

	if (p)
		return p;
	if (j->nprocs >= JITMAP_PROCS_MAX && !proc_evict(j)) {
		diag(mach, "JIT maps: more than %u maps and jitdumps of processes, "
		     "the others' left out", JITMAP_PROCS_MAX);
		return NULL;
	}
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->pid = pid;
	p->nspid = nspid;
	p->kind = kind;
	p->live = live;
	p->fd = -1;
	snprintf(p->dso, sizeof(p->dso), "/tmp/perf-%" PRIu32 ".map", nspid);
	p->next = j->bucket[h];
	j->bucket[h] = p;
	j->nprocs++;
	return p;
}

/* A hex number of at most 16 digits, an 0x before it taken; false: none. */
static bool hex_field(const char **pp, const char *end, uint64_t *v)
{
	const char *p = *pp;
	unsigned int digits = 0;

	if (end - p > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		p += 2;
	*v = 0;
	for (; p < end; p++, digits++) {
		int c = (unsigned char)*p, d;

		if (c >= '0' && c <= '9')
			d = c - '0';
		else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
			d = (c | 0x20) - 'a' + 10;
		else
			break;
		if (digits == 16)
			return false;	/* past 2^64 */
		*v = *v << 4 | (uint64_t)d;
	}
	*pp = p;
	return digits > 0;
}

static bool grow(void **a, size_t *cap, size_t need, size_t each)
{
	size_t n = *cap ? *cap : 64;
	void *x;

	if (need <= *cap)
		return true;
	while (n < need)
		n *= 2;
	x = realloc(*a, n * each);
	if (!x)
		return false;
	*a = x;
	*cap = n;
	return true;
}

static void proc_full(struct machine *mach, struct jitproc *p, const char *what)
{
	if (!p->full)
		diag(mach, "JIT map of process %" PRIu32 ": %s, the rest left out", p->pid, what);
	p->full = true;
}

/* An entry kept, within the budgets; or skipped. */
static void entry_add(struct machine *mach, struct jitmaps *j, struct jitproc *p,
		      uint64_t start, uint64_t size, uint64_t time, const char *q, size_t nlen)
{
	struct jitent *e;
	size_t cost;

	if (!size || start + size < start || !nlen)
		return;		/* no code, or past 2^64, or no name */
	cost = sizeof(*e) + sizeof(*p->by_start) + nlen;
	if (p->n >= JITMAP_ENTRIES_MAX) {
		proc_full(mach, p, "more entries than its budget");
		return;
	}
	if (j->bytes + cost > JITMAP_TOTAL_MAX) {
		proc_full(mach, p, "the JIT maps' memory budget reached");
		return;
	}
	if (!grow((void **)&p->e, &p->cap, p->n + 1, sizeof(*p->e)) ||
	    !grow((void **)&p->names, &p->names_cap, p->names_len + nlen, 1))
		return;
	e = &p->e[p->n++];
	e->start = start;
	e->end = start + size;
	e->time = time;
	e->name_off = (uint32_t)p->names_len;
	e->name_len = (uint32_t)nlen;
	memcpy(p->names + p->names_len, q, nlen);
	p->names_len += nlen;
	j->bytes += cost;
}

/*
 * One line (no newline) of a map: its entry kept, or skipped.  A
 * jitdump's lines (proc_text()) may hold its load's time after SIZE, as
 * "@TIME" in hex.
 */
static void map_line(struct machine *mach, struct jitmaps *j, struct jitproc *p,
		     const char *s, size_t len)
{
	const char *end = s + len, *q = s;
	uint64_t start, size, time = 0;

	if (!hex_field(&q, end, &start) || q == end || (*q != ' ' && *q != '\t'))
		return;
	while (q < end && (*q == ' ' || *q == '\t'))
		q++;
	if (!hex_field(&q, end, &size) || q == end || (*q != ' ' && *q != '\t'))
		return;
	q++;
	if (p->kind == JIT_DUMP && q < end && *q == '@') {
		q++;
		if (!hex_field(&q, end, &time) || q == end || *q != ' ')
			return;
		q++;
	}
	entry_add(mach, j, p, start, size, time, q, (size_t)(end - q));
}

static int by_start_cmp(const void *a, const void *b, void *arg)
{
	const struct jitent *e = arg;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	if (e[x].start != e[y].start)
		return e[x].start < e[y].start ? -1 : 1;
	return x < y ? -1 : x > y;
}

/* The index by start, after entries were added. */
static void proc_sort(struct jitproc *p)
{
	uint32_t *s = realloc(p->by_start, (p->n ? p->n : 1) * sizeof(*s));
	size_t i;

	if (!s) {
		free(p->by_start);
		p->by_start = NULL;
		return;
	}
	for (i = 0; i < p->n; i++)
		s[i] = (uint32_t)i;
	qsort_r(s, p->n, sizeof(*s), by_start_cmp, p->e);
	p->by_start = s;
}

/* The whole lines of text, each an entry; a last line with no newline is not taken. */
static size_t map_text(struct machine *mach, struct jitmaps *j, struct jitproc *p,
		       const char *text, size_t len)
{
	size_t i = 0;

	while (i < len) {
		const char *nl = memchr(text + i, '\n', len - i);
		size_t l;

		if (!nl)
			break;
		l = (size_t)(nl - (text + i));
		if (l <= JITMAP_LINE_MAX)
			map_line(mach, j, p, text + i, l);
		i += l + 1;
	}
	return i;
}

/* From /proc/PID/status: its uid and its pid in its own namespace. */
static void proc_identify(struct jitproc *p)
{
	char path[48], buf[8192], *l;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%" PRIu32 "/status", p->pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return;
	buf[n] = 0;
	p->identified = true;
	p->own_ns = true;	/* a kernel before NSpid (4.1) has one namespace */
	l = strstr(buf, "\nUid:");
	if (l) {
		unsigned int r, e;

		if (sscanf(l + 5, "%u %u", &r, &e) == 2) {
			p->uid = (uid_t)e;
			p->uid_known = true;
		}
	}
	l = strstr(buf, "\nNSpid:");
	if (l) {
		char *end = strchr(l + 1, '\n'), *q = l + 7;
		unsigned int fields = 0;
		unsigned long v, last = p->pid;

		if (end)
			*end = 0;
		while (*q) {
			char *after;

			v = strtoul(q, &after, 10);
			if (after == q)
				break;
			last = v;
			fields++;
			q = after;
		}
		if (fields && last <= UINT32_MAX) {
			p->nspid = (uint32_t)last;
			p->own_ns = fields == 1;
		}
	}
	snprintf(p->dso, sizeof(p->dso), "/tmp/perf-%" PRIu32 ".map", p->nspid);
}

/*
 * path opened if it is a regular file of root's, ours or the process's;
 * not through a symbolic link at its end unless follow (map_files' own,
 * which lead to the very file mapped).
 */
static int open_follow(const char *path, const struct jitproc *p, bool follow)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | (follow ? 0 : O_NOFOLLOW));
	struct stat st;

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) ||
	    (st.st_uid && st.st_uid != geteuid() && !(p->uid_known && st.st_uid == p->uid))) {
		close(fd);
		return -1;
	}
	return fd;
}

static int open_checked(const char *path, const struct jitproc *p)
{
	return open_follow(path, p, false);
}

/*
 * The jitdump of a live process: the file it maps (a writer maps it for
 * perf to see) named jit-NSPID.dump, in /proc/PID/maps (at most its
 * first JITDUMP_MAPS_LINES lines), opened through the process's root.
 */
static int dump_open(struct jitproc *p)
{
	char path[PATH_MAX], want[32], line[PATH_MAX + 128], range[64], mf[96];
	unsigned int lines = 0;
	size_t wl, root;
	FILE *f;
	int fd;

	snprintf(path, sizeof(path), "/proc/%" PRIu32 "/maps", p->pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	wl = (size_t)snprintf(want, sizeof(want), "/jit-%" PRIu32 ".dump", p->nspid);
	root = (size_t)snprintf(path, sizeof(path), "/proc/%" PRIu32 "/root", p->pid);
	path[0] = 0;
	while (lines++ < JITDUMP_MAPS_LINES && fgets(line, sizeof(line), f)) {
		char *name = strchr(line, '/');
		size_t n = name ? strcspn(name, "\n") : 0;

		if (n > wl && !memcmp(name + n - wl, want, wl) &&
		    (size_t)snprintf(path, sizeof(path), "/proc/%" PRIu32 "/root%.*s", p->pid,
				     (int)n, name) < sizeof(path))
			break;
		path[0] = 0;
	}
	fclose(f);
	if (!path[0])
		return -1;
	/*
	 * the very file it maps (root may open map_files): no path to walk,
	 * no directory of the process's to lead us elsewhere; else by its
	 * path through its root
	 */
	if (sscanf(line, "%63[0-9a-f-]", range) == 1) {
		snprintf(mf, sizeof(mf), "/proc/%" PRIu32 "/map_files/%s", p->pid, range);
		fd = open_follow(mf, p, true);
		if (fd >= 0)
			goto opened;
	}
	fd = open_checked(path, p);
opened:
	if (fd >= 0 && !p->path)
		p->path = str_intern(path + root, NULL);	/* as the process names it */
	return fd;
}

/* The map file of a live process, through its root; else ours, once it is gone. */
static int proc_open(struct jitproc *p)
{
	char path[80];
	int fd;

	if (!p->identified)
		proc_identify(p);
	if (p->kind == JIT_DUMP)
		return dump_open(p);
	snprintf(path, sizeof(path), "/proc/%" PRIu32 "/root/tmp/perf-%" PRIu32 ".map",
		 p->pid, p->nspid);
	fd = open_checked(path, p);
	if (fd >= 0)
		return fd;
	snprintf(path, sizeof(path), "/proc/%" PRIu32, p->pid);
	if (!access(path, F_OK) || (p->identified && !p->own_ns))
		return -1;	/* alive with no map yet, or in a namespace of its own */
	snprintf(path, sizeof(path), "/tmp/perf-%" PRIu32 ".map", p->pid);
	return open_checked(path, p);
}

struct dump_ctx {
	struct machine *mach;
	struct jitmaps *j;
	struct jitproc *p;
};

/*
 * A load kept as a map's line is: a name with a newline, or too long for
 * a line of the recording (proc_text()), is left out, else -i would read
 * other entries than the live decoder had.
 */
static void dump_entry(void *arg, uint64_t addr, uint64_t size, uint64_t time,
		       const char *name, size_t len)
{
	struct dump_ctx *c = arg;

	if (len + 3 * 18 > JITMAP_LINE_MAX || memchr(name, '\n', len))
		return;
	entry_add(c->mach, c->j, c->p, addr, size, time, name, len);
}

/* A live process's jitdump walked on from where it was, to its end or its budget. */
static void dump_read(struct machine *mach, struct jitmaps *j, struct jitproc *p, int fd,
		      char *buf, size_t chunk, uint64_t fsize)
{
	struct dump_ctx c = { mach, j, p };

	while (!p->bad && p->read_off < JITDUMP_FILE_MAX && p->read_off < fsize) {
		uint64_t room = (fsize < JITDUMP_FILE_MAX ? fsize : JITDUMP_FILE_MAX) - p->read_off;
		size_t want = room < chunk ? (size_t)room : chunk;	/* not past fsize */
		ssize_t r = pread(fd, buf, want, (off_t)p->read_off);
		long n;

		if (r <= 0)
			break;
		n = jitdump_parse((unsigned char *)buf, (size_t)r, p->read_off,
				  fsize - p->read_off, JITMAP_LINE_MAX, dump_entry, &c);
		if (n < 0) {
			p->bad = true;
			proc_full(mach, p, "not a jitdump of this machine's byte order, or a "
				  "record shorter than its header");
		}
		if (n <= 0)
			break;	/* its end, or a record being written */
		p->read_off += (uint64_t)n;
	}
	if (p->read_off >= JITDUMP_FILE_MAX)
		proc_full(mach, p, "larger than its budget");
}

/* A live process's map read on from where it was, to its end or its budget. */
static void proc_read(struct machine *mach, struct jitmaps *j, struct jitproc *p)
{
	const size_t chunk = 65536;	/* more than JITMAP_LINE_MAX */
	size_t before = p->n;
	struct stat st;
	char *buf;
	int fd;

	p->next_read = mono_ns() + JITMAP_REREAD_NS;
	fd = p->fd >= 0 ? p->fd : proc_open(p);
	if (fd < 0) {
		/*
		 * a jitdump is looked for in the whole of /proc/PID/maps:
		 * not every 100 ms for each process that has none
		 */
		if (p->kind == JIT_DUMP)
			p->next_read = mono_ns() + JITDUMP_REFIND_NS;
		return;
	}
	if (fstat(fd, &st))
		st.st_size = 0;		/* a jitdump is walked no further */
	else if ((uint64_t)st.st_size < p->read_off) {
		proc_clear(j, p);	/* written anew */
		/*
		 * sorted again whatever it holds now: as many lines as before
		 * left the index proc_clear() freed unmade, and every name lost
		 */
		before = SIZE_MAX;
	}
	buf = malloc(chunk);
	if (buf && p->kind == JIT_DUMP) {
		dump_read(mach, j, p, fd, buf, chunk, st.st_size);
		goto read;
	}
	while (buf && p->read_off < JITMAP_FILE_MAX) {
		size_t want = JITMAP_FILE_MAX - p->read_off < chunk ?
			      JITMAP_FILE_MAX - p->read_off : chunk, i = 0;
		ssize_t r = pread(fd, buf, want, (off_t)p->read_off);

		if (r <= 0)
			break;
		if (p->skipping) {
			char *nl = memchr(buf, '\n', (size_t)r);

			if (!nl) {
				p->read_off += (uint64_t)r;
				continue;
			}
			i = (size_t)(nl - buf) + 1;
			p->skipping = false;
		}
		i += map_text(mach, j, p, buf + i, (size_t)r - i);
		p->read_off += i;
		if ((size_t)r - i > JITMAP_LINE_MAX) {
			p->skipping = true;	/* a line too long: to its newline */
			p->read_off += (size_t)r - i;
		} else if ((size_t)r < want || !i) {
			break;		/* its end (a line being written waits), or its budget's */
		}
	}
	if (p->read_off + JITMAP_LINE_MAX >= JITMAP_FILE_MAX)
		proc_full(mach, p, "larger than its budget");
read:
	free(buf);
	if (p->fd < 0 && j->nfds < JITMAP_FDS_MAX) {
		p->fd = fd;
		j->nfds++;
	} else if (p->fd != fd) {
		close(fd);
	}
	if (p->n != before)
		proc_sort(p);
}

void jitmap_note(struct machine *mach, uint32_t pid)
{
	struct jitmaps *j = jit_get(mach, true);
	enum jit_kind kind;
	struct jitproc *p;

	if (!j || !mach->live || !pid)
		return;
	pthread_mutex_lock(&j->lock);
	for (kind = JIT_MAP; kind <= JIT_DUMP; kind++) {
		p = proc_find(j, pid, kind);
		if (!p && (p = proc_get(mach, j, pid, pid, true, kind))) {
			proc_identify(p);
			if (j->nfds < JITMAP_FDS_MAX && (p->fd = proc_open(p)) >= 0)
				j->nfds++;
		}
	}
	pthread_mutex_unlock(&j->lock);
}

/*
 * The entry naming addr at time (a sample's, CLOCK_MONOTONIC ns; 0:
 * unknown): of those that hold it, the latest load at or before time,
 * as perf inject --jit orders them (code reused at an address names
 * the samples of each in turn); else the latest line.  -1: none.
 */
static long proc_lookup(const struct jitproc *p, uint64_t addr, uint64_t time)
{
	size_t lo = 0, hi = p->n, i;
	long best = -1, timed = -1;

	if (!p->by_start)
		return -1;
	while (lo < hi) {	/* the first entry starting above addr */
		size_t mid = (lo + hi) / 2;

		if (p->e[p->by_start[mid]].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (i = lo; i-- > 0 && lo - i <= 64;) {
		uint32_t k = p->by_start[i];

		if (addr >= p->e[k].end)
			continue;
		if ((long)k > best)
			best = (long)k;
		if (time && p->e[k].time && p->e[k].time <= time &&
		    (timed < 0 || p->e[k].time > p->e[timed].time ||
		     (p->e[k].time == p->e[timed].time && (long)k > timed)))
			timed = (long)k;
	}
	return timed >= 0 ? timed : best;
}

int jitmap_symbol(struct machine *mach, uint32_t pid, uint64_t time, uint64_t lookup,
		  uint64_t show, char *buf, size_t len, const char **dso)
{
	struct jitmaps *j = jit_get(mach, mach->live);
	char name[JITMAP_LINE_MAX + 1];
	static const enum jit_kind order[] = { JIT_DUMP, JIT_MAP };	/* a dump's sizes are exact */
	struct jitproc *p;
	unsigned int o;
	int ret = -1;
	long k;

	if (!j || !pid)
		return -1;
	pthread_mutex_lock(&j->lock);
	for (o = 0; o < 2 && ret; o++) {
		p = proc_find(j, pid, order[o]);
		if (!p && mach->live && (p = proc_get(mach, j, pid, pid, true, order[o])))
			proc_identify(p);
		if (!p)
			continue;
		k = proc_lookup(p, lookup, time);
		if (k < 0 && p->live && mono_ns() >= p->next_read) {
			proc_read(mach, j, p);
			k = proc_lookup(p, lookup, time);
		}
		if (k >= 0) {
			const struct jitent *e = &p->e[k];

			memcpy(name, p->names + e->name_off, e->name_len);
			name[e->name_len] = 0;
			sym_offset(buf, len, name, show - e->start);
			if (dso)
				*dso = proc_dso(p);	/* p is kept to the end: proc_evict() */
			p->named = true;
			ret = 0;
		}
	}
	pthread_mutex_unlock(&j->lock);
	return ret;
}

void jitmap_load(struct machine *mach, uint32_t pid, uint32_t nspid, const char *text,
		 size_t len)
{
	struct jitmaps *j = jit_get(mach, true);
	enum jit_kind kind = JIT_MAP;
	char path[PATH_MAX] = "";
	struct jitproc *p;

	if (!j || !pid)
		return;
	if (len > JITMAP_FILE_MAX)
		len = JITMAP_FILE_MAX;
	/* "#jitdump PATH" first: the lines of a jitdump (proc_text()) */
	if (len > 9 && !memcmp(text, "#jitdump ", 9)) {
		const char *nl = memchr(text, '\n', len);
		size_t n = nl ? (size_t)(nl - text) - 9 : 0;

		if (!nl || n >= sizeof(path) || memchr(text + 9, 0, n))
			return;		/* no whole path: nothing of it can be named right */
		memcpy(path, text + 9, n);
		path[n] = 0;
		len -= (size_t)(nl + 1 - text);
		text = nl + 1;
		kind = JIT_DUMP;
	}
	pthread_mutex_lock(&j->lock);
	p = proc_get(mach, j, pid, nspid, false, kind);
	if (p) {
		proc_clear(j, p);
		p->nspid = nspid;
		snprintf(p->dso, sizeof(p->dso), "/tmp/perf-%" PRIu32 ".map", nspid);
		if (kind == JIT_DUMP && !p->path)
			p->path = str_intern(path, NULL);
		map_text(mach, j, p, text, len);
		proc_sort(p);
	}
	pthread_mutex_unlock(&j->lock);
}

void jitmap_load_dump(struct machine *mach, uint32_t pid, uint32_t nspid, const char *path,
		      const unsigned char *buf, size_t len)
{
	struct jitmaps *j = jit_get(mach, true);
	struct dump_ctx c = { mach, j, NULL };
	struct jitproc *p;

	if (!j || !pid)
		return;
	pthread_mutex_lock(&j->lock);
	p = proc_get(mach, j, pid, nspid, false, JIT_DUMP);
	if (p) {
		proc_clear(j, p);
		p->nspid = nspid;
		if (!p->path)
			p->path = str_intern(path, NULL);
		c.p = p;
		if (jitdump_parse(buf, len < JITDUMP_FILE_MAX ? len : JITDUMP_FILE_MAX, 0,
				  len < JITDUMP_FILE_MAX ? len : JITDUMP_FILE_MAX, JITMAP_LINE_MAX,
				  dump_entry, &c) < 0)
			proc_full(mach, p, "not a jitdump of this machine's byte order, or a "
				  "record shorter than its header");
		proc_sort(p);
	}
	pthread_mutex_unlock(&j->lock);
}

/*
 * The lines p took, as "START SIZE NAME\n", in the file's order, a
 * jitdump's after a line "#jitdump PATH" (jitmap_load()): malloc()ed.
 */
static char *proc_text(const struct jitproc *p, size_t *len)
{
	size_t head = p->kind == JIT_DUMP && p->path ? 10 + strlen(p->path) : 0;
	size_t cap = head + p->names_len + p->n * 3 * 18 + 1, at = 0, i;	/* 3 hex + blank */
	char *t = malloc(cap);

	if (!t)
		return NULL;
	if (head) {
		if (head >= JITMAP_FILE_MAX || memchr(p->path, '\n', head - 10)) {
			free(t);
			return NULL;
		}
		at = (size_t)sprintf(t, "#jitdump %s\n", p->path);
	}
	for (i = 0; i < p->n; i++) {
		const struct jitent *e = &p->e[i];
		char *q = t + at;

		if (at + 3 * 18 + e->name_len > JITMAP_FILE_MAX)
			break;
		q = put_hex(q, e->start, 0);
		*q++ = ' ';
		q = put_hex(q, e->end - e->start, 0);
		*q++ = ' ';
		if (e->time) {		/* a jitdump's load (map_line()) */
			*q++ = '@';
			q = put_hex(q, e->time, 0);
			*q++ = ' ';
		}
		memcpy(q, p->names + e->name_off, e->name_len);
		q += e->name_len;
		*q++ = '\n';
		at = (size_t)(q - t);
	}
	*len = at;
	return t;
}

void jitmap_final(struct machine *mach)
{
	struct jitmaps *j = jit_get(mach, false);
	struct jitproc *p;
	unsigned int h;

	if (!j)
		return;
	pthread_mutex_lock(&j->lock);
	for (h = 0; h < 256; h++)
		for (p = j->bucket[h]; p; p = p->next) {
			char *t;
			size_t len;

			if (p->live)
				proc_read(mach, j, p);
			if (!p->n || !(t = proc_text(p, &len)))
				continue;
			learnt_jitmap(mach, p->pid, p->nspid, t, len);
		}
	pthread_mutex_unlock(&j->lock);
}

void jitmap_set_scanned(struct machine *mach)
{
	struct jitmaps *j = jit_get(mach, true);

	if (j)
		j->scanned = true;
}

bool jitmap_scanned(const struct machine *mach)
{
	const struct jitmaps *j = mach->jit;

	return j && j->scanned;
}

void jitmap_free(struct machine *mach)
{
	struct jitmaps *j = mach->jit;
	unsigned int h;

	if (!j)
		return;
	for (h = 0; h < 256; h++)
		while (j->bucket[h]) {
			struct jitproc *p = j->bucket[h];

			j->bucket[h] = p->next;
			proc_clear(j, p);
			if (p->fd >= 0)
				close(p->fd);
			str_put(p->path);
			free(p);
		}
	pthread_mutex_destroy(&j->lock);
	free(j);
	mach->jit = NULL;
}
