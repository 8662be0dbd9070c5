// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz /dev/perfregs from several threads for a bounded time: random and
 * structured-invalid arguments to every ioctl, mmap with random offsets,
 * sizes and protections, random and boundary values written into every
 * field of mapped control pages while sessions sample (data_tail at
 * unaligned offsets just before the ring's end, in overwrite mode too),
 * read/write/poll/close/fork in every order.  The kernel log is checked
 * by run_guest.sh after every result line; this program checks that
 * every error is a documented errno and that the module unloads after.
 *
 * Environment: PERFREGS_FUZZ_SECONDS (default 10), PERFREGS_FUZZ_THREADS
 * (default 4), PERFREGS_FUZZ_SEED (default: the time, printed), and
 * PERFREGS_KO (the module to reload at the end; run_guest.sh sets it).
 * Output is KTAP; "# fuzz inputs: N" is the count of operations tried.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include "common.h"

#define NR_SLOTS	8
#define NR_MAPS		16
#define NR_TARGETS	2

static atomic_int slots[NR_SLOTS];	/* fds, -1 for none */
static pid_t targets[NR_TARGETS];	/* spinning children to sample */
static atomic_ulong nr_ops;
static atomic_ulong errno_seen[256];	/* by errno */
static atomic_int stop;
static size_t page;
static uint8_t *guard;			/* a page, then a PROT_NONE page */
static uint64_t seed0;

/* the errnos the module documents, plus what the VFS and perf add */
static const int allowed[] = {
	0, EINVAL, ENOTTY, EFAULT, EBUSY, EACCES, EPERM, ESRCH, ENOMEM,
	ENOSPC, E2BIG, ENODEV, ENOENT, EOPNOTSUPP, EAGAIN, EBADF, EINTR,
	EMFILE, ENXIO, EOVERFLOW, ESPIPE,
};
/* how deep the fuzzer got: successful configs, starts, mappings */
static atomic_ulong nr_configured, nr_started, nr_mapped;

static uint64_t rnd(uint64_t *s)	/* xorshift64* */
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dULL;
}

static uint64_t pick(uint64_t *s, const uint64_t *v, size_t n)
{
	return v[rnd(s) % n];
}

static void note(long ret)
{
	int e = ret < 0 ? errno : 0;

	atomic_fetch_add(&errno_seen[e & 255], 1);
	atomic_fetch_add(&nr_ops, 1);
}

static const uint64_t interesting[] = {
	0, 1, 2, 3, 7, 8, 63, 64, 65, 4095, 4096, 4097, 65528, 65536,
	0x7fffffff, 0x80000000, 0xffffffff, 0x100000000ULL,
	0x7fffffffffffffffULL, 0x8000000000000000ULL, ~0ULL,
	PERFREGS_MAX_DATA_PAGES, PERFREGS_MAX_DATA_PAGES * 2,
	PERFREGS_MAX_STACK_BYTES, PERFREGS_MAX_STACK_BYTES + 8,
	PERFREGS_MAX_CPU_BYTES, PERFREGS_MAX_CPU_BYTES + 1,
	PERFREGS_MASK_32, PERFREGS_MASK_64, PERFREGS_MASK_64 + 1,
	0xffffffff81000000ULL, 0xffff888000000000ULL,
};
#define NR_INTERESTING (sizeof(interesting) / sizeof(interesting[0]))

/* A pointer the kernel must handle: good, NULL, kernel, unmapped, straddling. */
static void *bad_ptr(uint64_t *s, void *good, size_t len)
{
	switch (rnd(s) % 8) {
	case 0:
		return NULL;
	case 1:
		return (void *)0xffffffff81000000ULL;
	case 2:
		return (void *)(uintptr_t)rnd(s);
	case 3:		/* the object runs into the PROT_NONE page */
		return guard + page - (len > 1 ? len / 2 : 1);
	case 4:
		return guard + page;
	default:
		return good;
	}
}

/* A witness for c mostly (CONFIG's perf_fd), before its fields break. */
static int fuzz_witness(uint64_t *s, const struct perfregs_config *c)
{
	struct perfregs_config w = *c;

	if (rnd(s) % 8 == 0)
		return -1;
	w.cpus_ptr = 0;		/* the list may point anywhere */
	w.cpus_bytes = 0;
	return prf_witness_open(&w);
}

static void fill_config(uint64_t *s, struct perfregs_config *c, uint64_t *cpus,
			size_t cpus_len, int *witness)
{
	uint64_t *f = (uint64_t *)c;
	int n, i;

	prf_config_default(c);
	c->data_pages = 1U << (rnd(s) % 4);
	c->period = 100000 + rnd(s) % 1000000;
	c->event = rnd(s) % (PERFREGS_EV_MAX + 1);
	c->flags = rnd(s) % 4 ? rnd(s) & PERFREGS_CF_ALL : (uint32_t)rnd(s);
	switch (rnd(s) % 5) {
	case 0:
		c->pid = getpid();
		break;
	case 1:
		c->pid = targets[rnd(s) % NR_TARGETS];
		break;
	case 2:
		c->pid = (int32_t)rnd(s);
		break;
	default:
		c->pid = -1;
	}
	if (rnd(s) % 3 == 0) {
		for (i = 0; i < (int)(cpus_len / 8); i++)
			cpus[i] = rnd(s) % 2 ? ~0ULL : rnd(s);
		c->cpus_ptr = (uintptr_t)bad_ptr(s, cpus, cpus_len);
		c->cpus_bytes = rnd(s) % 2 ? cpus_len : pick(s, interesting, NR_INTERESTING);
	}
	if (rnd(s) % 3 == 0)
		c->stack_bytes = rnd(s) % 2 ? (rnd(s) % 64) * 8 : pick(s, interesting, NR_INTERESTING);
	if (c->event == PERFREGS_EV_BREAKPOINT) {
		c->bp_addr = rnd(s) % 2 ? (uintptr_t)&nr_ops : pick(s, interesting, NR_INTERESTING);
		c->bp_type = rnd(s) % 9;
		c->bp_len = rnd(s) % 10;
	}
	*witness = fuzz_witness(s, c);
	c->perf_fd = *witness;
	/* then break 0 to 3 fields: any 8-byte word, any value */
	n = rnd(s) % 4;
	for (i = 0; i < n; i++) {
		int w = rnd(s) % (sizeof(*c) / 8);

		f[w] = rnd(s) % 2 ? pick(s, interesting, NR_INTERESTING) : rnd(s);
	}
	if (rnd(s) % 4)		/* mostly keep the size sane */
		c->size = rnd(s) % 4 ? sizeof(*c) : pick(s, interesting, NR_INTERESTING);
}

struct mapping {
	void *addr;
	size_t len;
	int prot;
};

/* An open slot mostly; now and then a closed one (-1). */
static int get_fd(uint64_t *s)
{
	int i, fd = -1;

	for (i = 0; i < 3 && fd < 0; i++)
		fd = atomic_load(&slots[rnd(s) % NR_SLOTS]);
	return fd;
}

static void op_ioctl(uint64_t *s)
{
	static const unsigned int sizes[] = { 0, 8, 24, 119, 120, 128, 4096, 16383 };
	uint8_t buf[8192] __attribute__((aligned(8)));
	struct perfregs_config *c = (struct perfregs_config *)buf;
	uint64_t cpus[16];
	unsigned long cmd;
	void *arg = buf;
	int fd = get_fd(s), witness = -1;

	memset(buf, 0, sizeof(buf));
	switch (rnd(s) % 10) {
	case 0: case 1: case 2: case 3:
		fill_config(s, c, cpus, sizeof(cpus), &witness);
		cmd = PERFREGS_IOC_CONFIG;
		if (c->size > sizeof(*c) && c->size <= sizeof(buf) && rnd(s) % 2)
			buf[sizeof(*c) + rnd(s) % (c->size - sizeof(*c))] = 1;
		break;
	case 4:
		((struct perfregs_version *)buf)->size =
			rnd(s) % 2 ? sizeof(struct perfregs_version) : rnd(s) % 64;
		cmd = PERFREGS_IOC_VERSION;
		break;
	case 5:
		cmd = PERFREGS_IOC_START;
		break;
	case 6:
		cmd = PERFREGS_IOC_STOP;
		break;
	case 7:
		cmd = PERFREGS_IOC_RESET;
		break;
	case 8:		/* our magic, any number, direction and size */
		cmd = _IOC(rnd(s) % 4, PERFREGS_IOC_MAGIC, rnd(s) % 8,
			   sizes[rnd(s) % 8]);
		break;
	default:
		cmd = rnd(s) % 2 ? (uint32_t)rnd(s) : rnd(s);
	}
	if (rnd(s) % 6 == 0)
		arg = bad_ptr(s, buf, sizeof(*c));
	if (ioctl(fd, cmd, arg) == 0) {
		if (cmd == PERFREGS_IOC_CONFIG)
			atomic_fetch_add(&nr_configured, 1);
		else if (cmd == PERFREGS_IOC_START)
			atomic_fetch_add(&nr_started, 1);
		note(0);
	} else {
		note(-1);
	}
	if (witness >= 0)
		close(witness);
}

static void op_mmap(uint64_t *s, struct mapping *maps)
{
	static const int prots[] = { PROT_READ, PROT_READ | PROT_WRITE, PROT_NONE,
				     PROT_READ | PROT_EXEC, PROT_WRITE };
	struct mapping *m = &maps[rnd(s) % NR_MAPS];
	int fd = get_fd(s), pages = 1 << (rnd(s) % 4);
	int cpu = rnd(s) % 3;
	uint64_t off;
	size_t len;
	void *p;

	if (m->addr) {
		munmap(m->addr, m->len);
		m->addr = NULL;
	}
	switch (rnd(s) % 4) {
	case 0:
		off = PERFREGS_MMAP_CTL(cpu, pages);
		len = page;
		break;
	case 1:
		off = PERFREGS_MMAP_DATA(cpu, pages);
		len = pages * page;
		break;
	case 2:
		off = rnd(s) % 64;
		len = (1 + rnd(s) % 16) * page;
		break;
	default:
		off = rnd(s) >> (rnd(s) % 64);
		len = rnd(s) % 2 ? page : rnd(s) % (1 << 24);
	}
	if (rnd(s) % 4 == 0)
		len += rnd(s) % page;
	m->prot = prots[rnd(s) % 5];
	p = mmap(NULL, len, m->prot, rnd(s) % 5 ? MAP_SHARED : MAP_PRIVATE, fd,
		 (off_t)(off * page));
	note(p == MAP_FAILED ? -1 : 0);
	if (p != MAP_FAILED) {
		atomic_fetch_add(&nr_mapped, 1);
		m->addr = p;
		m->len = len;
	}
}

/* Read every page of a mapping; scribble on writable ones (data_tail!). */
static void op_touch(uint64_t *s, struct mapping *maps)
{
	struct mapping *m = &maps[rnd(s) % NR_MAPS];
	volatile uint8_t *p = m->addr;
	size_t i;

	if (!p || !(m->prot & PROT_READ))
		return;
	for (i = 0; i < m->len; i += page)
		(void)p[i];
	if (m->prot & PROT_WRITE && m->len >= sizeof(struct perfregs_ctl)) {
		volatile struct perfregs_ctl *c = m->addr;
		volatile uint64_t *w = (volatile uint64_t *)c;
		uint64_t head = c->data_head, size = c->data_size, v;

		/*
		 * Values that mean something to a ring: just before its end,
		 * unaligned, a ring behind, ahead of head; or any value.
		 */
		size = size && !(size & (size - 1)) ? size : page;
		switch (rnd(s) % 6) {
		case 0:
			v = ((head | (size - 1)) + 1) - 4 - (rnd(s) % 2 ? size : 0);
			break;
		case 1:
			v = head - size + 1 + rnd(s) % 16;
			break;
		case 2:
			v = head + 8 * (rnd(s) % 64);
			break;
		case 3:
			v = pick(s, interesting, NR_INTERESTING);
			break;
		default:
			v = rnd(s);
		}
		if (rnd(s) % 2)
			c->data_tail = v;	/* the field the kernel reads */
		else if (rnd(s) % 2)
			c->new_tasks_seen = v;	/* and the other one */
		else
			w[rnd(s) % (sizeof(*c) / 8)] = v;	/* any field */
	}
	atomic_fetch_add(&nr_ops, 1);
}

static void op_mprotect(uint64_t *s, struct mapping *maps)
{
	struct mapping *m = &maps[rnd(s) % NR_MAPS];
	int prot = rnd(s) % 2 ? PROT_READ | PROT_WRITE : PROT_READ;

	if (!m->addr)
		return;
	if (mprotect(m->addr, m->len, prot) == 0)
		m->prot = prot;
	else
		note(-1);
}

static void op_file(uint64_t *s)
{
	int i = rnd(s) % NR_SLOTS, fd, old;
	char buf[256];
	struct pollfd pfd;

	switch (rnd(s) % 8) {
	case 0: case 6: case 7:
		fd = open(PERFREGS_DEVICE, rnd(s) % 4 ? O_RDWR : O_RDONLY);
		note(fd);
		if (fd >= 0) {
			old = atomic_exchange(&slots[i], fd);
			if (old >= 0)
				close(old);
		}
		break;
	case 1:
		old = atomic_exchange(&slots[i], -1);
		if (old >= 0)
			note(close(old));
		break;
	case 2:
		note(read(get_fd(s), buf, rnd(s) % sizeof(buf)));
		break;
	case 3:
		note(write(get_fd(s), buf, rnd(s) % sizeof(buf)));
		break;
	case 4:
		pfd.fd = get_fd(s);
		pfd.events = POLLIN | POLLOUT | POLLPRI;
		note(poll(&pfd, 1, rnd(s) % 3));
		break;
	default:
		note(lseek(get_fd(s), rnd(s) % 4096, SEEK_SET));
	}
}

static void op_fork(uint64_t *s, struct mapping *maps);

static void one_op(uint64_t *s, struct mapping *maps)
{
	switch (rnd(s) % 16) {
	case 0: case 1: case 2: case 3: case 4: case 5:
		op_ioctl(s);
		break;
	case 6: case 7: case 8:
		op_mmap(s, maps);
		break;
	case 9: case 10:
		op_touch(s, maps);
		break;
	case 11:
		op_mprotect(s, maps);
		break;
	case 12: case 13: case 14:
		op_file(s);
		break;
	default:
		if (rnd(s) % 16 == 0)
			op_fork(s, maps);
	}
}

/* A child with copies of every fd and mapping does a little, then exits. */
static void op_fork(uint64_t *s, struct mapping *maps)
{
	pid_t pid = fork();
	int i;

	if (pid == 0) {
		for (i = 0; i < 20; i++) {
			switch (rnd(s) % 3) {
			case 0:
				op_ioctl(s);
				break;
			case 1:
				op_touch(s, maps);
				break;
			default:
				op_mmap(s, maps);
			}
		}
		_exit(0);
	}
	if (pid > 0)
		waitpid(pid, NULL, 0);
	note(pid);
}

static void *worker(void *arg)
{
	uint64_t s = seed0 ^ (0x9e3779b97f4a7c15ULL * (uintptr_t)(arg + 1));
	struct mapping maps[NR_MAPS] = { 0 };
	int i;

	while (!atomic_load(&stop))
		one_op(&s, maps);
	for (i = 0; i < NR_MAPS; i++)
		if (maps[i].addr)
			munmap(maps[i].addr, maps[i].len);
	return NULL;
}

static pid_t spinner(void)
{
	pid_t pid = fork();

	if (pid == 0) {		/* busy 1 ms in every 5 */
		struct timespec t0, t, nap = { 0, 4000000 };

		for (;;) {
			clock_gettime(CLOCK_MONOTONIC, &t0);
			do
				clock_gettime(CLOCK_MONOTONIC, &t);
			while ((t.tv_sec - t0.tv_sec) * 1000000000L +
			       t.tv_nsec - t0.tv_nsec < 1000000);
			nanosleep(&nap, NULL);
		}
	}
	return pid;
}

static long env_long(const char *name, long def)
{
	const char *v = getenv(name);

	return v && *v ? strtol(v, NULL, 0) : def;
}

static int run(const char *cmd)
{
	int st = system(cmd);

	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

int main(void)
{
	long secs = env_long("PERFREGS_FUZZ_SECONDS", 10);
	long nthreads = env_long("PERFREGS_FUZZ_THREADS", 4);
	const char *ko = getenv("PERFREGS_KO");
	pthread_t th[64];
	char cmd[512], bad[512] = "";
	size_t i, len = 0;
	int ok;

	page = getpagesize();
	seed0 = env_long("PERFREGS_FUZZ_SEED", 0);
	if (!seed0)
		seed0 = (uint64_t)time(NULL) * 2654435761ULL | 1;
	printf("TAP version 13\n1..3\n");
	if (!module_loaded()) {
		printf("ok 1 # SKIP perfregs is not loaded\nok 2 # SKIP\nok 3 # SKIP\n");
		return 4;
	}
	if (nthreads < 1 || nthreads > 64)
		nthreads = 4;
	guard = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (guard == MAP_FAILED || mprotect(guard + page, page, PROT_NONE)) {
		printf("not ok 1 fuzz: no guard page\n");
		return 1;
	}
	for (i = 0; i < NR_SLOTS; i++)
		slots[i] = open(PERFREGS_DEVICE, O_RDWR);
	for (i = 0; i < NR_TARGETS; i++)
		targets[i] = spinner();
	printf("# fuzz: %ld s, %ld threads, seed 0x%" PRIx64
	       " (PERFREGS_FUZZ_SEED=0x%" PRIx64 " repeats it)\n",
	       secs, nthreads, seed0, seed0);
	fflush(stdout);
	for (i = 0; i < (size_t)nthreads; i++)
		pthread_create(&th[i], NULL, worker, (void *)i);
	for (i = 0; i < (size_t)secs; i++) {
		sleep(1);
		if (i % 10 == 9) {
			printf("# fuzz: %zu s, %lu inputs\n", i + 1, atomic_load(&nr_ops));
			fflush(stdout);
		}
	}
	atomic_store(&stop, 1);
	for (i = 0; i < (size_t)nthreads; i++)
		pthread_join(th[i], NULL);
	for (i = 0; i < NR_SLOTS; i++)
		if (slots[i] >= 0)
			close(slots[i]);
	for (i = 0; i < NR_TARGETS; i++) {
		kill(targets[i], SIGKILL);
		waitpid(targets[i], NULL, 0);
	}

	printf("# fuzz inputs: %lu\n# errno counts:", atomic_load(&nr_ops));
	for (i = 0; i < 256; i++)
		if (errno_seen[i])
			printf(" %s=%lu", i ? strerrorname_np(i) : "ok", errno_seen[i]);
	printf("\n");
	printf("# reached: %lu configs, %lu starts, %lu mappings\n",
	       atomic_load(&nr_configured), atomic_load(&nr_started),
	       atomic_load(&nr_mapped));
	/* a fuzzer that never gets past the argument checks proves little */
	printf("%s 1 fuzz ran %lu inputs in %ld s on %ld threads, sessions configured, started and mapped\n",
	       atomic_load(&nr_ops) && atomic_load(&nr_configured) &&
	       atomic_load(&nr_started) && atomic_load(&nr_mapped) ? "ok" : "not ok",
	       atomic_load(&nr_ops), secs, nthreads);

	for (i = 0; i < 256; i++) {
		size_t j;

		if (!errno_seen[i])
			continue;
		for (j = 0; j < sizeof(allowed) / sizeof(allowed[0]); j++)
			if (allowed[j] == (int)i)
				break;
		if (j == sizeof(allowed) / sizeof(allowed[0]))
			len += snprintf(bad + len, sizeof(bad) - len, " %s",
					strerrorname_np(i));
	}
	printf("%s 2 every error was a documented errno%s%s\n",
	       len ? "not ok" : "ok", len ? ": unexpected" : "", bad);
	fflush(stdout);

	if (!ko) {
		printf("ok 3 # SKIP PERFREGS_KO not set: cannot reload the module\n");
		return len ? 1 : 0;
	}
	snprintf(cmd, sizeof(cmd), "rmmod perfregs && insmod '%s'", ko);
	ok = run(cmd) == 0;
	printf("%s 3 the module unloads and loads after fuzzing\n", ok ? "ok" : "not ok");
	return len || !ok ? 1 : 0;
}
