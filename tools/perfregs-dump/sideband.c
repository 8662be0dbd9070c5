// SPDX-License-Identifier: GPL-2.0
/*
 * The side-band of a live session: what perf record itself learns its
 * address spaces from.  A dummy software event per CPU (per CPU and
 * thread for -p) reports, for the sampled tasks and what they fork,
 * every executable mapping as it is made (PERF_RECORD_MMAP2, with the
 * file's build-id), every exec (COMM with PERF_RECORD_MISC_COMM_EXEC),
 * fork and exit, stamped with CLOCK_MONOTONIC: the clock the module
 * stamps samples with (ktime_get_mono_fast_ns() on both sides), so an
 * event and a sample can be put in order.  aspace.c turns them into
 * versioned address spaces.
 *
 * Why not the module: its counters are kernel counters, which have no
 * perf ring to carry side-band records (the kernel writes those only
 * into an event's own buffer, and a kernel counter never gets one), and
 * hooking mmap, exec and fork from a module means kprobes on internals.
 * perf_event_open() checks these events like any other: the witness the
 * module asks for already proves the caller may watch this target.
 *
 * Ordering: a mapping is reported before mmap() returns, so before any
 * sample in it exists.  The drains of the module's rings call sb_drain()
 * after they have read a ring's head (prf_reader's before_records), so
 * every event a record being decoded or written depends on has been
 * applied (or written to the recording) before it.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "types.h"
#include "intern.h"
#include "aspace.h"
#include "sideband.h"

#ifndef PERF_RECORD_MISC_MMAP_BUILD_ID
#define PERF_RECORD_MISC_MMAP_BUILD_ID	(1 << 14)
#endif

struct sb_ring {
	int fd;			/* the event whose ring this is */
	struct perf_event_mmap_page *page;
	const uint8_t *data;
	uint64_t size;		/* data bytes, a power of two */
	size_t map_len;
};

struct sideband {
	int *fds;
	unsigned int nfds, capfds;
	struct sb_ring *rings;
	unsigned int nrings;
	uint64_t lost;		/* PERF_RECORD_LOST: events the kernel dropped */
	uint64_t events;
	pthread_mutex_t lock;	/* one drain at a time */
	uint8_t rec[65536];	/* a record that wraps, copied whole */
};

/* The sample_id_all trailer of sample_type TID | TIME. */
struct sb_id {
	uint32_t pid, tid;
	uint64_t time;
};

static int perf_open(struct perf_event_attr *a, int pid, int cpu, int group)
{
	return (int)syscall(SYS_perf_event_open, a, pid, cpu, group,
			    PERF_FLAG_FD_CLOEXEC);
}

static int online_cpus(uint8_t *on, int max)
{
	FILE *fp = fopen("/sys/devices/system/cpu/online", "r");
	int a, b, n = 0, i;
	char sep;

	if (!fp) {
		n = (int)sysconf(_SC_NPROCESSORS_ONLN);
		for (i = 0; i < n && i < max; i++)
			on[i] = 1;
		return n < max ? n : max;
	}
	while (fscanf(fp, "%d", &a) == 1) {
		b = a;
		sep = (char)fgetc(fp);
		if (sep == '-') {
			if (fscanf(fp, "%d", &b) != 1)
				break;
			sep = (char)fgetc(fp);
		}
		for (i = a; i <= b && i < max; i++) {
			on[i] = 1;
			if (i + 1 > n)
				n = i + 1;
		}
		if (sep != ',')
			break;
	}
	fclose(fp);
	return n;
}

static int add_fd(struct sideband *sb, int fd)
{
	if (sb->nfds == sb->capfds) {
		unsigned int cap = sb->capfds ? sb->capfds * 2 : 16;
		int *p = realloc(sb->fds, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		sb->fds = p;
		sb->capfds = cap;
	}
	sb->fds[sb->nfds++] = fd;
	return 0;
}

/*
 * The ring of one CPU.  Unprivileged users share perf_event_mlock_kb
 * per CPU with the module's rings: ask for 64 data pages, then fewer.
 */
static int map_ring(struct sideband *sb, int fd)
{
	long page = sysconf(_SC_PAGESIZE);
	struct sb_ring *r;
	unsigned int pages;
	void *p = MAP_FAILED;

	for (pages = 64; pages >= 4; pages /= 4) {
		p = mmap(NULL, (pages + 1) * page, PROT_READ | PROT_WRITE, MAP_SHARED,
			 fd, 0);
		if (p != MAP_FAILED)
			break;
	}
	if (p == MAP_FAILED)
		return -errno;
	r = realloc(sb->rings, (sb->nrings + 1) * sizeof(*r));
	if (!r) {
		munmap(p, (pages + 1) * page);
		return -ENOMEM;
	}
	sb->rings = r;
	r = &sb->rings[sb->nrings++];
	r->fd = fd;
	r->page = p;
	r->data = (const uint8_t *)p + page;
	r->size = (uint64_t)pages * page;
	r->map_len = (pages + 1) * page;
	return 0;
}

/* The threads of process pid, for -p: an event per thread and CPU. */
static int threads_of(int pid, int **tids)
{
	char path[64];
	struct dirent *de;
	int n = 0, cap = 0;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	dir = opendir(path);
	*tids = NULL;
	if (!dir) {
		*tids = malloc(sizeof(int));
		if (!*tids)
			return -ENOMEM;
		(*tids)[0] = pid;
		return 1;
	}
	while ((de = readdir(dir))) {
		int tid = atoi(de->d_name);

		if (tid <= 0)
			continue;
		if (n == cap) {
			int *p = realloc(*tids, (cap = cap ? cap * 2 : 16) * sizeof(int));

			if (!p) {
				closedir(dir);
				return -ENOMEM;
			}
			*tids = p;
		}
		(*tids)[n++] = tid;
	}
	closedir(dir);
	return n;
}

struct sideband *sb_open(int pid, bool inherit, char *err, size_t errlen)
{
	struct perf_event_attr a;
	struct sideband *sb;
	uint8_t on[4096] = { 0 };
	int ncpu, cpu, i, nt, *tids = NULL, ret;

	sb = calloc(1, sizeof(*sb));
	if (!sb) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	pthread_mutex_init(&sb->lock, NULL);
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_DUMMY;
	a.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	a.sample_id_all = 1;
	a.mmap = 1;
	a.mmap2 = 1;
	a.comm = 1;
	a.comm_exec = 1;
	a.task = 1;
	a.build_id = 1;
	a.use_clockid = 1;
	a.clockid = CLOCK_MONOTONIC;
	a.inherit = inherit && pid > 0;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	a.watermark = 1;
	a.wakeup_watermark = 16384;

	/* every thread there is now; inherit covers the ones made later */
	if (pid > 0) {
		nt = threads_of(pid, &tids);
	} else {
		nt = 1;
		tids = malloc(sizeof(int));
		if (tids)
			tids[0] = -1;
	}
	if (nt < 0 || !tids) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	ncpu = online_cpus(on, (int)sizeof(on));
	for (cpu = 0; cpu < ncpu; cpu++) {
		int leader = -1;

		if (!on[cpu])
			continue;
		for (i = 0; i < nt; i++) {
			int fd = perf_open(&a, tids[i], cpu, -1);

			if (fd < 0 && errno == EINVAL && a.build_id) {
				a.build_id = 0;	/* older kernels: read build-ids from files */
				fd = perf_open(&a, tids[i], cpu, -1);
			}
			if (fd < 0 && errno == ESRCH && i > 0)
				continue;	/* a thread that just ended */
			if (fd < 0) {
				snprintf(err, errlen, "perf_event_open of the side-band "
					 "event on CPU %d: %s", cpu, strerror(errno));
				goto fail;
			}
			if (add_fd(sb, fd)) {
				close(fd);
				snprintf(err, errlen, "out of memory");
				goto fail;
			}
			if (leader < 0) {
				ret = map_ring(sb, fd);
				if (ret) {
					snprintf(err, errlen, "mapping the side-band ring of "
						 "CPU %d: %s (perf_event_mlock_kb?)", cpu,
						 strerror(-ret));
					goto fail;
				}
				leader = fd;
			} else if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, leader)) {
				snprintf(err, errlen, "PERF_EVENT_IOC_SET_OUTPUT: %s",
					 strerror(errno));
				goto fail;
			}
		}
	}
	free(tids);
	if (!sb->nrings) {
		snprintf(err, errlen, "no CPU online");
		sb_close(sb);
		return NULL;
	}
	return sb;
fail:
	free(tids);
	sb_close(sb);
	return NULL;
}

static void sb_record_locked(struct sideband *sb, struct machine *mach,
			     const struct perf_event_header *h);

/*
 * Under learn_lock: the learner thread also keeps files open for
 * deleted mappings (held_file()) when it reads /proc.
 */
static void sb_record(struct sideband *sb, struct machine *mach,
		      const struct perf_event_header *h)
{
	if (mach->live)
		pthread_mutex_lock(&mach->learn_lock);
	sb_record_locked(sb, mach, h);
	if (mach->live)
		pthread_mutex_unlock(&mach->learn_lock);
}

static void sb_record_locked(struct sideband *sb, struct machine *mach,
			     const struct perf_event_header *h)
{
	const uint8_t *p = (const uint8_t *)h;
	struct sb_event ev = { 0 };
	struct sb_id id;
	size_t size = h->size;

	if (size < sizeof(*h) + sizeof(id))
		return;
	memcpy(&id, p + size - sizeof(id), sizeof(id));
	size -= sizeof(id);	/* the body ends where the trailer starts */
	ev.time = id.time;
	switch (h->type) {
	case PERF_RECORD_MMAP2: {
		struct {
			uint32_t pid, tid;
			uint64_t addr, len, pgoff;
			uint8_t bid_size, r1;
			uint16_t r2;
			uint8_t bid[20];
			uint32_t prot, flags;
		} mm;
		const char *name = (const char *)p + sizeof(*h) + sizeof(mm);

		if (size < sizeof(*h) + sizeof(mm) + 1 ||
		    !memchr(name, 0, size - sizeof(*h) - sizeof(mm)))
			return;
		memcpy(&mm, p + sizeof(*h), sizeof(mm));
		ev.kind = SB_MMAP;
		ev.pid = mm.pid;
		ev.start = mm.addr;
		ev.end = mm.addr + mm.len;
		ev.pgoff = mm.pgoff;
		ev.prot = mm.prot;
		ev.name = name;
		if ((h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) && mm.bid_size <= 20) {
			ev.build_id_len = mm.bid_size;
			memcpy(ev.build_id, mm.bid, mm.bid_size);
		}
		mapping_identify(mach, &ev);
		break;
	}
	case PERF_RECORD_COMM: {
		uint32_t ids[2];
		const char *comm = (const char *)p + sizeof(*h) + 8;

		if (!(h->misc & PERF_RECORD_MISC_COMM_EXEC) || size < sizeof(*h) + 9 ||
		    !memchr(comm, 0, size - sizeof(*h) - 8))
			return;
		memcpy(ids, p + sizeof(*h), sizeof(ids));
		ev.kind = SB_EXEC;
		ev.pid = ids[0];
		ev.name = comm;
		break;
	}
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT: {
		uint32_t ids[4];

		if (size < sizeof(*h) + sizeof(ids))
			return;
		memcpy(ids, p + sizeof(*h), sizeof(ids));
		ev.kind = h->type == PERF_RECORD_FORK ? SB_FORK : SB_EXIT;
		ev.pid = ids[0];
		ev.ppid = ids[1];
		if (ev.kind == SB_EXIT && ids[0] != ids[2])
			return;	/* a thread's exit */
		break;
	}
	case PERF_RECORD_LOST: {
		uint64_t v[2];

		if (size < sizeof(*h) + sizeof(v))
			return;
		memcpy(v, p + sizeof(*h), sizeof(v));
		sb->lost += v[1];
		ev.kind = SB_LOST;	/* counted, and kept in the recording */
		ev.start = v[1];
		break;
	}
	default:
		return;
	}
	sb->events++;
	space_event(mach, &ev);
	str_put(ev.local);
}

static int drain_ring(struct sideband *sb, struct sb_ring *r, struct machine *mach)
{
	uint64_t head, tail, mask = r->size - 1;
	int n = 0;

	/* acquire: pairs with the kernel's smp_store_release of data_head */
	head = __atomic_load_n(&r->page->data_head, __ATOMIC_ACQUIRE);
	tail = r->page->data_tail;
	while (tail < head) {
		struct perf_event_header h;
		uint64_t pos = tail & mask;

		if (head - tail < sizeof(h))
			break;
		/* the ring from pos on, around its end: its data, then its data again */
		prf_span_copy(&h, r->data, r->size, r->data, pos, sizeof(h));
		if (h.size < sizeof(h) || h.size % 8 || h.size > head - tail) {
			tail = head;	/* cannot happen with a sane kernel: skip all */
			break;
		}
		prf_span_copy(sb->rec, r->data, r->size, r->data, pos, h.size);
		sb_record(sb, mach, (const struct perf_event_header *)sb->rec);
		tail += h.size;
		n++;
	}
	/* release: our reads of the records are done before the kernel reuses them */
	__atomic_store_n(&r->page->data_tail, tail, __ATOMIC_RELEASE);
	return n;
}

int sb_drain(struct sideband *sb, struct machine *mach)
{
	unsigned int i;
	int n = 0;

	if (!sb)
		return 0;
	pthread_mutex_lock(&sb->lock);
	for (i = 0; i < sb->nrings; i++)
		n += drain_ring(sb, &sb->rings[i], mach);
	pthread_mutex_unlock(&sb->lock);
	return n;
}

/* The fds of the rings (one per CPU), to wait on: at most max. */
int sb_fds(const struct sideband *sb, int *fds, int max)
{
	unsigned int i;
	int n = 0;

	for (i = 0; sb && i < sb->nrings && n < max; i++)
		fds[n++] = sb->rings[i].fd;
	return n;
}

uint64_t sb_lost(const struct sideband *sb)
{
	return sb ? sb->lost : 0;
}

void sb_close(struct sideband *sb)
{
	unsigned int i;

	if (!sb)
		return;
	for (i = 0; i < sb->nrings; i++)
		munmap(sb->rings[i].page, sb->rings[i].map_len);
	for (i = 0; i < sb->nfds; i++)
		close(sb->fds[i]);
	free(sb->rings);
	free(sb->fds);
	pthread_mutex_destroy(&sb->lock);
	free(sb);
}
