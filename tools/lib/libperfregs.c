// SPDX-License-Identifier: GPL-2.0
/*
 * The userspace side of /dev/perfregs (libperfregs.h): open a session,
 * configure it with a perf "witness" event, map and walk its rings.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <dirent.h>
#include <stdio.h>
#include <linux/perf_event.h>
#include <linux/hw_breakpoint.h>
#include "libperfregs.h"

/* Reader side of the ring protocol; see include/uapi/linux/perfregs.h. */
#define prf_load_acquire(p)	__atomic_load_n((p), __ATOMIC_ACQUIRE)
#define prf_store_release(p, v)	__atomic_store_n((p), (v), __ATOMIC_RELEASE)

static int prf_fail(int err)
{
	errno = err;
	return -err;
}

void prf_config_default(struct perfregs_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	/*
	 * kchain_max (minor 2) and uchain_max (minor 3) only when set:
	 * prf_config() sends the size it needs
	 */
	cfg->size = PERFREGS_CONFIG_SIZE_VER1;
	cfg->event = PERFREGS_EV_CPU_CLOCK;
	cfg->data_pages = 64;
	cfg->period = 1000000;		/* 1 ms of cpu-clock */
	cfg->iregs_mask = PERFREGS_MASK_64;
	cfg->uregs_mask_32 = PERFREGS_MASK_32;
	cfg->uregs_mask_64 = PERFREGS_MASK_64;
	cfg->pid = -1;
	cfg->perf_fd = -1;	/* prf_config() opens the witness */
}

/* The perf event a configuration stands for, as the module's policy.c. */
static int prf_witness_attr(const struct perfregs_config *cfg,
			    struct perf_event_attr *a)
{
	static const struct {
		uint32_t type;
		uint64_t config;
	} map[PERFREGS_EV_MAX] = {
#define PERFREGS_EVENT(name, id, type, config, period) [id] = { type, config },
#include <perfregs/events.h>
	};

	if (cfg->event >= PERFREGS_EV_MAX)
		return -EINVAL;
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = map[cfg->event].type;
	a->config = map[cfg->event].config;
	a->disabled = 1;
	a->exclude_hv = 1;
	a->exclude_user = !!(cfg->flags & PERFREGS_CF_EXCLUDE_USER);
	a->exclude_kernel = !!(cfg->flags & PERFREGS_CF_EXCLUDE_KERNEL);
	/*
	 * What the session samples, so that perf's answer covers it: user
	 * registers, the user stack, and interrupt registers when kernel
	 * ones may come (which makes perf ask lockdown too).
	 */
	a->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_REGS_USER;
	a->sample_regs_user = (1ULL << PERFREGS_REG_IP) | (1ULL << PERFREGS_REG_SP);
	if (cfg->stack_bytes) {
		a->sample_type |= PERF_SAMPLE_STACK_USER;
		a->sample_stack_user = cfg->stack_bytes;
	}
	if (!(cfg->flags & PERFREGS_CF_EXCLUDE_KERNEL)) {
		a->sample_type |= PERF_SAMPLE_REGS_INTR;
		a->sample_regs_intr = a->sample_regs_user;
	}
	/*
	 * Call chains, kernel (minor 2) and user (minor 3): perf checks the
	 * depth against kernel.perf_event_max_stack (EOVERFLOW) and, for a
	 * kernel chain, perf_allow_kernel().  A config of an older size has
	 * neither.
	 */
	if (cfg->size >= PERFREGS_CONFIG_SIZE_VER2 && (cfg->kchain_max || cfg->uchain_max)) {
		a->sample_type |= PERF_SAMPLE_CALLCHAIN;
		a->exclude_callchain_user = !cfg->uchain_max;
		a->exclude_callchain_kernel = !cfg->kchain_max;
		a->sample_max_stack = (uint16_t)(cfg->kchain_max > cfg->uchain_max ?
						 cfg->kchain_max : cfg->uchain_max);
	}
	if (cfg->event == PERFREGS_EV_BREAKPOINT) {
		/* PERFREGS_BP_* have the values of HW_BREAKPOINT_* */
		a->bp_type = cfg->bp_type;
		a->bp_addr = cfg->bp_addr;
		a->bp_len = cfg->bp_len;
		a->sample_period = 1;
	} else if (cfg->event == PERFREGS_EV_NMI) {
		a->sample_period = 1000000;
	} else {
		a->freq = !!(cfg->flags & PERFREGS_CF_FREQ);
		a->sample_period = cfg->period;
	}
	return 0;
}

/* A thread of process pid that perf can still attach to, or -errno. */
static int prf_witness_task(struct perf_event_attr *a, int pid)
{
	char path[64];
	struct dirent *de;
	DIR *dir;
	int fd = syscall(SYS_perf_event_open, a, pid, -1, -1, PERF_FLAG_FD_CLOEXEC);

	if (fd >= 0 || errno != ESRCH)
		return fd >= 0 ? fd : -errno;
	/* its main thread has exited: another of its threads will do */
	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	dir = opendir(path);
	if (!dir)
		return -ESRCH;
	while ((de = readdir(dir))) {
		int tid = atoi(de->d_name);

		if (tid <= 0 || tid == pid)
			continue;
		fd = syscall(SYS_perf_event_open, a, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
		if (fd >= 0 || errno != ESRCH)
			break;
	}
	closedir(dir);
	return fd >= 0 ? fd : -errno;
}

int prf_witness_open(const struct perfregs_config *cfg)
{
	const uint64_t *bits = (const uint64_t *)(uintptr_t)cfg->cpus_ptr;
	unsigned int nbits = cfg->cpus_bytes * 8, cpu;
	struct perf_event_attr a;
	int fd, ret, seen = 0;

	ret = prf_witness_attr(cfg, &a);
	if (ret)
		return ret;
	if (cfg->pid >= 0)
		return prf_witness_task(&a, cfg->pid);
	/* a list the module will refuse anyway: any CPU will do */
	if (!cfg->cpus_bytes || cfg->cpus_bytes % 8 ||
	    cfg->cpus_bytes > PERFREGS_MAX_CPU_BYTES)
		bits = NULL;
	/*
	 * A CPU event on any CPU the session samples proves it for all:
	 * perf's CPU rules do not depend on the CPU.  An offline CPU gives
	 * ENODEV; one past the last EINVAL, as does an event perf refuses:
	 * that is the event's fault only if no CPU before existed.
	 */
	for (cpu = 0; bits ? cpu < nbits : cpu < 8 * PERFREGS_MAX_CPU_BYTES; cpu++) {
		if (bits && !(bits[cpu / 64] & (1ULL << (cpu % 64))))
			continue;
		fd = syscall(SYS_perf_event_open, &a, -1, (int)cpu, -1,
			     PERF_FLAG_FD_CLOEXEC);
		if (fd >= 0)
			return fd;
		if (errno == ENODEV) {
			seen = 1;
			continue;
		}
		if (errno == EINVAL && seen)
			break;
		return -errno;
	}
	return -ENODEV;
}

int prf_open(struct prf_reader *r, const char *path)
{
	memset(r, 0, sizeof(*r));
	r->fd = open(path ? path : PERFREGS_DEVICE, O_RDWR | O_CLOEXEC);
	if (r->fd < 0)
		return -errno;
	r->version.size = sizeof(r->version);
	if (ioctl(r->fd, PERFREGS_IOC_VERSION, &r->version) < 0) {
		int err = errno;

		close(r->fd);
		r->fd = -1;
		return prf_fail(err);
	}
	if (r->version.major != PERFREGS_ABI_MAJOR) {
		close(r->fd);
		r->fd = -1;
		return prf_fail(EPROTO);
	}
	return 0;
}

static void prf_unmap(struct prf_reader *r)
{
	unsigned int i;

	for (i = 0; i < r->nr_rings; i++) {
		munmap(r->rings[i].ctl, r->version.page_size);
		munmap((void *)r->rings[i].data, r->rings[i].size);
		free(r->rings[i].scratch);
	}
	free(r->rings);
	r->rings = NULL;
	r->nr_rings = 0;
}

/*
 * The size of cfg as it goes to the module: the 136 bytes of minor 2
 * only with call chains (kchain_max; uchain_max, minor 3), so that a module before
 * them, which takes what it knows and refuses nonzero bytes past it
 * (E2BIG), is sent nothing new without them; else cfg's own size, at
 * most that of minor 1 (a caller may have cut it to VER0 for minor 0).
 */
static uint32_t prf_config_size(const struct perfregs_config *cfg)
{
	if (cfg->kchain_max || cfg->uchain_max)
		return PERFREGS_CONFIG_SIZE_VER2;
	return cfg->size < PERFREGS_CONFIG_SIZE_VER1 ? cfg->size : PERFREGS_CONFIG_SIZE_VER1;
}

int prf_config(struct prf_reader *r, const struct perfregs_config *cfg)
{
	size_t ps = r->version.page_size;
	struct perfregs_config c = *cfg;
	unsigned int cpu;
	int ret = 0;

	prf_unmap(r);
	r->witness_errno = 0;
	c.size = prf_config_size(cfg);
	if (cfg->perf_fd < 0) {
		int fd = prf_witness_open(&c);

		if (fd < 0) {
			r->witness_errno = -fd;
			return prf_fail(-fd);
		}
		c.perf_fd = fd;
		if (ioctl(r->fd, PERFREGS_IOC_CONFIG, &c) < 0)
			ret = -errno;
		close(fd);
		if (ret)
			return prf_fail(-ret);
	} else if (ioctl(r->fd, PERFREGS_IOC_CONFIG, &c) < 0) {
		return -errno;
	}
	r->cfg = *cfg;
	r->rings = calloc(r->version.nr_cpu_ids, sizeof(*r->rings));
	if (!r->rings)
		return prf_fail(ENOMEM);
	for (cpu = 0; cpu < r->version.nr_cpu_ids; cpu++) {
		struct prf_cpu_ring *ring = &r->rings[r->nr_rings];
		off_t off = PERFREGS_MMAP_CTL(cpu, cfg->data_pages) * ps;
		void *ctl, *data;

		ctl = mmap(NULL, ps, PROT_READ | PROT_WRITE, MAP_SHARED, r->fd, off);
		if (ctl == MAP_FAILED) {
			if (errno == EINVAL)
				continue;	/* not a possible CPU */
			goto out_unmap;
		}
		off = PERFREGS_MMAP_DATA(cpu, cfg->data_pages) * ps;
		data = mmap(NULL, (size_t)cfg->data_pages * ps, PROT_READ,
			    MAP_SHARED, r->fd, off);
		if (data == MAP_FAILED) {
			munmap(ctl, ps);
			goto out_unmap;
		}
		ring->cpu = cpu;
		ring->ctl = ctl;
		ring->data = data;
		ring->size = (uint64_t)cfg->data_pages * ps;
		ring->scratch = malloc(ring->size);
		r->nr_rings++;
		if (!ring->scratch)
			goto out_unmap;
	}
	return 0;

out_unmap: {
		int err = errno ? errno : ENOMEM;

		prf_unmap(r);
		return prf_fail(err);
	}
}

int prf_start(struct prf_reader *r)
{
	return ioctl(r->fd, PERFREGS_IOC_START) < 0 ? -errno : 0;
}

int prf_stop(struct prf_reader *r)
{
	return ioctl(r->fd, PERFREGS_IOC_STOP) < 0 ? -errno : 0;
}

void prf_close(struct prf_reader *r)
{
	prf_unmap(r);
	if (r->fd >= 0)
		close(r->fd);
	r->fd = -1;
}

void prf_span_copy(void *dst, const void *a, size_t alen, const void *b,
		   size_t off, size_t len)
{
	size_t k = off < alen ? (alen - off < len ? alen - off : len) : 0;

	if (k)
		memcpy(dst, (const uint8_t *)a + off, k);
	if (len > k)
		memcpy((uint8_t *)dst + k, (const uint8_t *)b + (off + k - alen), len - k);
}

long prf_walk(const void *a, size_t alen, const void *b, size_t blen,
	      void *scratch, size_t scratch_size, prf_record_fn fn, void *arg,
	      int cpu, size_t *consumed)
{
	size_t off = 0, total = alen + blen, left, len;
	const struct perfregs_rec_header *rec;
	struct perfregs_rec_header hdr;
	long n = 0, ret = 0;

	while (off < total) {
		left = total - off;
		if (left < sizeof(hdr)) {
			ret = -EBADMSG;
			break;
		}
		/*
		 * Records are 8-aligned and so is the end of a ring: a header
		 * never straddles a and b, unless a's length is not a multiple
		 * of 8 (a ring read from a tail that is not a record's).
		 */
		if (off + sizeof(hdr) <= alen) {
			rec = (const void *)((const uint8_t *)a + off);
		} else if (off >= alen) {
			rec = (const void *)((const uint8_t *)b + (off - alen));
		} else {
			prf_span_copy(&hdr, a, alen, b, off, sizeof(hdr));
			rec = &hdr;
		}
		/* read once: the bytes may be shared with a writer (a ring, a file) */
		len = __atomic_load_n(&rec->size, __ATOMIC_RELAXED);
		if (len < sizeof(hdr) || len % 8 || len > left) {
			ret = -EBADMSG;
			break;
		}
		if (off < alen && off + len > alen) {
			/* it wraps: fn sees it whole, or its first scratch_size bytes */
			if (scratch_size < sizeof(hdr)) {
				ret = -ENOBUFS;
				break;
			}
			prf_span_copy(scratch, a, alen, b, off,
				      len < scratch_size ? len : scratch_size);
			rec = scratch;
		}
		off += len;
		n++;
		if (fn && fn(arg, cpu, rec,
			     rec == scratch && len > scratch_size ? scratch_size : len))
			break;
	}
	if (consumed)
		*consumed = off;
	return ret ? ret : n;
}

/* What prf_drain_ring() hands each record through prf_walk(). */
struct drain_walk {
	struct prf_reader *r;
	prf_record_fn fn;
	void *arg;
	int stop;
};

static int drain_record(void *arg, int cpu, const struct perfregs_rec_header *rec,
			size_t size)
{
	struct drain_walk *w = arg;
	struct prf_reader *r = w->r;

	if (rec->type == PERFREGS_REC_SAMPLE) {
		r->samples++;
	} else if (rec->type == PERFREGS_REC_LOST) {
		struct perfregs_rec_lost l;
		int i;

		if (prf_lost_copy(rec, size, &l))
			for (i = 0; i < PERFREGS_LOST_MAX; i++)
				r->lost[i] += prf_lost_of(&l, i);
	}
	r->records++;
	if (w->fn && w->fn(w->arg, cpu, rec, size)) {
		w->stop = 1;
		return 1;
	}
	return 0;
}

static long prf_drain_ring(struct prf_reader *r, struct prf_cpu_ring *ring,
			   prf_record_fn fn, void *arg, int *stop)
{
	struct drain_walk w = { .r = r, .fn = fn, .arg = arg };
	uint64_t head, tail, pos, len, first;
	bool skip = false;
	size_t used;
	long n = 0;

	/* C: the load of data_head is an acquire, pairs with the kernel's B. */
	head = prf_load_acquire(&ring->ctl->data_head);
	tail = ring->ctl->data_tail;
	if (head != tail && r->before_records)
		r->before_records(r->before_arg);
	if (tail < head) {
		len = head - tail;
		pos = tail & (ring->size - 1);
		first = ring->size - pos < len ? ring->size - pos : len;
		/*
		 * More than a ring's worth cannot be records the kernel
		 * published (and would take prf_walk() past the data
		 * pages): skip it, as prf_drain_raw() does.
		 */
		if (len > ring->size) {
			n = -EBADMSG;
			skip = true;
		} else {
			/* the scratch holds a whole ring: every record whole */
			n = prf_walk(ring->data + pos, first, ring->data, len - first,
				     ring->scratch, ring->size, drain_record, &w,
				     ring->cpu, &used);
			tail += used;
			/*
			 * A malformed header: what follows cannot be parsed.
			 * Bytes fewer than a header stay, as they always did
			 * (reported again at the next drain).
			 */
			if (n < 0 && head - tail >= sizeof(struct perfregs_rec_header))
				skip = true;
		}
	}
	if (w.stop)
		*stop = 1;
	if (skip)
		tail = head;	/* skip what we cannot parse */
	/*
	 * D: the release orders our loads of the records before the tail
	 * store; pairs with the kernel's A (and with J, K of prf_peek()).
	 */
	prf_store_release(&ring->ctl->data_tail, tail);
	return n;
}

long prf_drain(struct prf_reader *r, prf_record_fn fn, void *arg)
{
	long total = 0, n;
	unsigned int i;
	int stop = 0, bad = 0;

	for (i = 0; i < r->nr_rings && !stop; i++) {
		n = prf_drain_ring(r, &r->rings[i], fn, arg, &stop);
		if (n < 0)
			bad = (int)n;
		else
			total += n;
	}
	return bad ? prf_fail(-bad) : total;
}

long prf_drain_raw(struct prf_reader *r, prf_span_fn span, void *arg)
{
	long total = 0;
	unsigned int i;
	int bad = 0;

	for (i = 0; i < r->nr_rings; i++) {
		struct prf_cpu_ring *ring = &r->rings[i];
		uint64_t head, tail, pos, len, first;
		int stop = 0;

		/* C: the load of data_head is an acquire, pairs with the kernel's B. */
		head = prf_load_acquire(&ring->ctl->data_head);
		tail = ring->ctl->data_tail;
		if (head == tail)
			continue;
		if (r->before_records)
			r->before_records(r->before_arg);
		len = head - tail;
		if (head < tail || len > ring->size || len % 8) {
			bad = EBADMSG;	/* skip what we cannot trust */
		} else {
			pos = tail & (ring->size - 1);
			first = ring->size - pos < len ? ring->size - pos : len;
			stop = span(arg, ring->cpu, ring->data + pos, first, ring->data,
				    len - first);
			total += (long)len;
		}
		/* D: loads of the records before the tail store; pairs with A */
		prf_store_release(&ring->ctl->data_tail, head);
		if (stop)
			break;
	}
	return bad ? prf_fail(bad) : total;
}

long prf_peek(struct prf_reader *r, prf_record_fn fn, void *arg)
{
	union {
		struct perfregs_rec_sample s;
		uint8_t b[sizeof(struct perfregs_rec_sample)];
	} copy;
	long n = 0;
	unsigned int i;

	for (i = 0; i < r->nr_rings; i++) {
		struct prf_cpu_ring *ring = &r->rings[i];
		uint64_t mask = ring->size - 1, head, pos, tail, tasks;

		/*
		 * H: the new-task count first, an acquire; pairs with the
		 * kernel's G: it publishes a record before it counts it, so
		 * the records below head include every task counted.
		 */
		tasks = prf_load_acquire(&ring->ctl->new_tasks);
		/* C: as in prf_drain_ring(), pairs with the kernel's B */
		head = prf_load_acquire(&ring->ctl->data_head);
		/* J: the drain may run in another thread; pairs with its D */
		pos = prf_load_acquire(&ring->ctl->data_tail);
		if (ring->peeked > pos && ring->peeked <= head)
			pos = ring->peeked;
		/*
		 * A tail past the head, or more than a ring behind it, is no
		 * tail the kernel left (anyone holding the session can write
		 * it): nothing to look at, as prf_drain_ring() skips it too.
		 */
		if (head - pos > ring->size)
			pos = head;
		while (head - pos >= sizeof(struct perfregs_rec_header)) {
			uint64_t off = pos & mask, len, size;
			struct perfregs_rec_header *h = &copy.s.header;

			/* the ring from off on: its data, then its data again */
			prf_span_copy(copy.b, ring->data, ring->size, ring->data, off,
				      sizeof(*h));
			size = h->size;	/* once: the copy below reads the ring again */
			if (size < sizeof(*h) || size % 8 || size > head - pos)
				break;	/* prf_drain() will report it */
			/* only the fixed part */
			len = size < sizeof(copy) ? size : sizeof(copy);
			prf_span_copy(copy.b, ring->data, ring->size, ring->data, off, len);
			h->size = size;
			/*
			 * A drain in another thread may have consumed the record
			 * while we copied it, and the kernel reused its bytes:
			 * the copy is good only if data_tail is still at or
			 * before it.  K: the fence orders the copy before the
			 * load; pairs with D, the release of data_tail in the
			 * drain.
			 */
			__atomic_thread_fence(__ATOMIC_ACQUIRE);
			tail = __atomic_load_n(&ring->ctl->data_tail, __ATOMIC_RELAXED);
			if (tail > pos) {
				pos = tail < head ? tail : head;
				continue;	/* consumed: already decoded */
			}
			fn(arg, ring->cpu, h, len);
			pos += size;
			n++;
		}
		ring->peeked = pos;
		/* what we looked at: poll() reports POLLPRI past it */
		if (prf_has_new_tasks(r))
			__atomic_store_n(&ring->ctl->new_tasks_seen, tasks,
					 __ATOMIC_RELAXED);
	}
	return n;
}

/* Poll the session for events, and fd (if >= 0) for input. */
static int prf_poll(struct prf_reader *r, short events, int fd, int timeout_ms)
{
	struct pollfd pfd[2] = {
		{ .fd = r->fd, .events = events },
		{ .fd = fd, .events = POLLIN },
	};
	int ret = poll(pfd, fd >= 0 ? 2 : 1, timeout_ms);

	if (ret < 0)
		return -errno;
	if (!ret)
		return 0;
	return pfd[0].revents | (pfd[1].revents ? PRF_WAIT_WOKEN : 0);
}

int prf_wait_new_task(struct prf_reader *r, int wake_fd, int timeout_ms)
{
	if (!prf_has_new_tasks(r))
		return prf_fail(EOPNOTSUPP);
	return prf_poll(r, POLLPRI, wake_fd, timeout_ms);
}

int prf_wait(struct prf_reader *r, int timeout_ms)
{
	return prf_poll(r, POLLIN, -1, timeout_ms);
}

int prf_wait_also(struct prf_reader *r, int fd, int timeout_ms)
{
	return prf_poll(r, POLLIN, fd, timeout_ms);
}

uint64_t prf_produced(const struct prf_reader *r)
{
	uint64_t sum = 0;
	unsigned int i;

	for (i = 0; i < r->nr_rings; i++)
		sum += __atomic_load_n(&r->rings[i].ctl->produced, __ATOMIC_RELAXED);
	return sum;
}

uint64_t prf_lost_total(const struct prf_reader *r, int cause)
{
	uint64_t sum = 0;
	unsigned int i;

	for (i = 0; i < r->nr_rings; i++)
		sum += __atomic_load_n(&r->rings[i].ctl->lost[cause], __ATOMIC_RELAXED);
	return sum;
}
