// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz /dev/perfregs for a bounded time, two ways at once.
 *
 * Walkers (PERFREGS_FUZZ_WALKERS threads) each own two sessions and walk
 * them through the states of module/session.c: fresh (just opened),
 * configured, mapped (a ring's control or data pages mmapped), started,
 * stopped and reset, each of the last four mapped or not.  In every
 * state they try every ioctl (CONFIG valid, hostile field by field and
 * with bad pointers, VERSION of every size and bad ones, START, STOP,
 * RESET, unknown numbers), mmap and munmap of control and data pages
 * (and hostile mmaps), mprotect, writes of random and boundary values
 * into every field of the control page (while sampling too: data_tail
 * one ring behind the next boundary minus 4, and the like), read, write,
 * lseek, poll, fork with the rings mapped (the child maps and touches
 * them and exits), and close and reopen (with the rings left mapped
 * and touched a while).  Each walker keeps its sessions' states in a
 * model that only it changes, and checks every answer of the kernel
 * against what session.c says it must be (START on a fresh session
 * -EINVAL, CONFIG while started or mapped -EBUSY, RESET while started
 * -EBUSY, a hostile CONFIG its own errno in every state, ...), and the
 * control pages and records it can trust after RESET, STOP and reads.
 * A mismatch fails, and prints the session's operations in the corpus
 * format.  The sessions sample the test itself, a spinner per walker
 * that the walker kills while sessions sample it, spinners several
 * walkers share, and a process that exec()s itself and busybox's shell
 * in a loop.  The walkers pick, now and then, the ioctl tried least in
 * the state, or the move to the state reached least from it: 10 s see
 * every one.
 *
 * Chaos threads (PERFREGS_FUZZ_THREADS) share fd slots and mappings and
 * throw random and structured-invalid arguments at every ioctl, mmap
 * and file operation, and fork, also at sessions they arm (configured,
 * mapped, sampling), so that close, munmap, mmap and fork from one
 * thread race with the rings and their writers on another.
 *
 * First, every file of the corpus is replayed on one thread, each a
 * result of its own: operation sequences that found bugs, the .ops
 * files of selftests/fuzz_corpus/ (the build copies them next to this
 * binary; README there says the format).
 *
 * Output is KTAP.  "# fuzz inputs: N" counts every operation tried; the
 * inputs per second, a table of states x operations, the control-page
 * fields written and the state transitions seen follow.  A result fails
 * when an ioctl was never tried in some state, another operation never
 * at all (fork never with rings mapped), a field never written while
 * sampling, a transition session.c allows never seen, or a target never
 * shared, killed or exec()ing while sampled, or chaos never hit a
 * session that sampled.  The kernel log is checked by run_guest.sh
 * after every result line; this program also checks that every error
 * is a documented errno and that the module unloads after.
 *
 * Environment: PERFREGS_FUZZ_SECONDS (default 10), PERFREGS_FUZZ_THREADS
 * (chaos threads, default 4), PERFREGS_FUZZ_WALKERS (default 4),
 * PERFREGS_FUZZ_SEED (default: the time, printed), PERFREGS_FUZZ_CORPUS
 * (another corpus directory), PERFREGS_FUZZ_HOTPLUG (1: another program
 * takes CPUs offline and online meanwhile, as test_stress does in a
 * soak; the corpus files that do it themselves are skipped then), and
 * PERFREGS_KO (the module to reload at the end; run_guest.sh sets it).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "common.h"

#define NR_SLOTS	8
#define NR_MAPS		16
#define NR_TARGETS	2
#define NR_ARENA	16	/* places for the chaos threads' shared mappings */
#define ARENA_PAGES	16
#define CHAOS_FD	256	/* the chaos threads' fds are 256 and up ... */
#define WALKER_FD	512	/* ... walker w's 512 + 24 w and up */
#define MAX_WALKERS	16	/* the corpus replays as walker MAX_WALKERS */
#define MAX_CPUS	64	/* CPUs the walkers map rings of */

static atomic_int slots[NR_SLOTS];	/* fds, -1 for none */
static atomic_int armed[NR_SLOTS];	/* the fd of a slot, while it samples */
static pid_t targets[NR_TARGETS];	/* spinning children to sample */
static atomic_ulong nr_ops;
static atomic_ulong errno_seen[256];	/* by errno */
static atomic_int stop;
static size_t page;
static uint8_t *guard;			/* a page, then a PROT_NONE page */
static uint8_t *arena;			/* NR_ARENA places, PROT_NONE when empty */
static atomic_int arena_fd[NR_ARENA];	/* the fd mapped at each place */
static uint64_t seed0;
static char self_exe[4096];
static pid_t exec_target;		/* exec()s itself and /bin/sh in turn */
static uint64_t possible_cpus;		/* bitmap, CPUs below MAX_CPUS */
static unsigned int nr_cpu_ids, ncpus;	/* the module's; CPUs below MAX_CPUS */
static uint64_t simd_offered;		/* VERSION's PERFREGS_SIMD_* */
static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;

/* the errnos the module documents, plus what the VFS and perf add */
static const int allowed[] = {
	0, EINVAL, ENOTTY, EFAULT, EBUSY, EACCES, EPERM, ESRCH, ENOMEM,
	ENOSPC, E2BIG, ENODEV, ENOENT, EOPNOTSUPP, EAGAIN, EBADF, EINTR,
	EMFILE, ENXIO, EOVERFLOW, ESPIPE,
};
/* how deep the chaos threads got: successful configs, starts, mappings */
static atomic_ulong nr_configured, nr_started, nr_mapped;
/* chaos on sessions that sample with their rings mapped */
static atomic_ulong nr_armed, armed_close, armed_munmap, armed_mmap, armed_fork;

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

static void note_errno(int e)
{
	atomic_fetch_add(&errno_seen[e & 255], 1);
	atomic_fetch_add(&nr_ops, 1);
}

static void note(long ret)
{
	note_errno(ret < 0 ? errno : 0);
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

/* ---- memory that may not be there ----------------------------------------- */

/*
 * Rings another thread may unmap, data pages that refuse writes, a
 * control page mapped read-only: an access that faults jumps back here
 * (SA_NODEFER: nothing to unblock after the jump).  A fault outside a
 * guarded access is a bug of ours, and kills us.
 */
static __thread sigjmp_buf *volatile fault_jmp;

static void on_fault(int sig)
{
	if (fault_jmp)
		siglongjmp(*fault_jmp, sig);
	signal(sig, SIG_DFL);
}

/* Load or store a 4- or 8-byte word: 0, or the signal it took. */
static int guarded(volatile void *p, int width, bool store, uint64_t *v)
{
	sigjmp_buf jb;
	int sig = sigsetjmp(jb, 0);

	if (!sig) {
		fault_jmp = &jb;
		if (store && width == 4)
			*(volatile uint32_t *)p = *v;
		else if (store)
			*(volatile uint64_t *)p = *v;
		else
			*v = width == 4 ? *(volatile uint32_t *)p : *(volatile uint64_t *)p;
	}
	fault_jmp = NULL;
	return sig;
}

static uint64_t peek64(volatile void *p)
{
	uint64_t v = 0;

	guarded(p, 8, false, &v);
	return v;
}

/* Read a byte of every page: 0, or the signal it took. */
static int touch_pages(const volatile uint8_t *p, size_t len)
{
	sigjmp_buf jb;
	int sig = sigsetjmp(jb, 0);
	size_t i;

	if (!sig) {
		fault_jmp = &jb;
		for (i = 0; i < len; i += page)
			(void)p[i];
	}
	fault_jmp = NULL;
	return sig;
}

/* ---- the chaos threads ------------------------------------------------------ */

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

/*
 * An open slot mostly; now and then a closed one (-1).  Its index in
 * *slot.  The chaos threads' fds are all 256 and up (open_chaos()), so
 * a stale one never names a walker's session, whose fds are 512 and up.
 */
static int get_fd(uint64_t *s, int *slot)
{
	int i, j = 0, fd = -1;

	for (i = 0; i < 3 && fd < 0; i++) {
		j = rnd(s) % NR_SLOTS;
		fd = atomic_load(&slots[j]);
	}
	if (slot)
		*slot = j;
	return fd;
}

/* Is fd, just taken from slot i, a session that samples with its rings mapped? */
static bool is_armed(int i, int fd)
{
	return fd >= 0 && atomic_load(&armed[i]) == fd;
}

/* open() with the fd moved to min and up (close-on-exec), or -1. */
static int open_at(int flags, int min)
{
	int fd = open(PERFREGS_DEVICE, flags | O_CLOEXEC), moved;

	if (fd < 0)
		return -1;
	moved = fcntl(fd, F_DUPFD_CLOEXEC, min);
	close(fd);
	return moved;
}

static void op_ioctl(uint64_t *s)
{
	static const unsigned int sizes[] = { 0, 8, 24, 119, 120, 128, 4096, 16383 };
	uint8_t buf[8192] __attribute__((aligned(8)));
	struct perfregs_config *c = (struct perfregs_config *)buf;
	uint64_t cpus[16];
	unsigned long cmd;
	void *arg = buf;
	int fd = get_fd(s, NULL), witness = -1;

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
	int slot, fd = get_fd(s, &slot), pages = 1 << (rnd(s) % 4);
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
		if (is_armed(slot, fd))
			atomic_fetch_add(&armed_mmap, 1);
		m->addr = p;
		m->len = len;
	}
}

/* A value that means something to a ring, or any value. */
static uint64_t ring_value(uint64_t *s, uint64_t head, uint64_t size)
{
	size = size && !(size & (size - 1)) ? size : page;
	switch (rnd(s) % 6) {
	case 0:		/* just before the end, a ring behind */
		return ((head | (size - 1)) + 1) - 4 - (rnd(s) % 2 ? size : 0);
	case 1:
		return head - size + 1 + rnd(s) % 16;
	case 2:
		return head + 8 * (rnd(s) % 64);
	case 3:
		return pick(s, interesting, NR_INTERESTING);
	default:
		return rnd(s);
	}
}

/*
 * Read every page of a mapping; scribble on it as on a control page
 * (data_tail!).  Guarded: the mapping may be gone (a fork's child has
 * none of them), or refuse writes.
 */
static void scribble(uint64_t *s, void *addr, size_t len)
{
	volatile struct perfregs_ctl *c = addr;
	uint64_t head, size, v;

	touch_pages(addr, len);
	if (len < sizeof(struct perfregs_ctl))
		return;
	head = peek64(&c->data_head);
	size = peek64(&c->data_size);
	v = ring_value(s, head, size);
	if (rnd(s) % 2)
		guarded(&c->data_tail, 8, true, &v);	/* the field the kernel reads */
	else if (rnd(s) % 2)
		guarded(&c->new_tasks_seen, 8, true, &v);	/* and the other one */
	else
		guarded((volatile uint64_t *)c + rnd(s) % (sizeof(*c) / 8), 8, true, &v);
}

static void op_touch(uint64_t *s, struct mapping *maps)
{
	struct mapping *m = &maps[rnd(s) % NR_MAPS];

	if (!m->addr || !(m->prot & PROT_READ))
		return;
	scribble(s, m->addr, m->len);
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

/*
 * The arena: NR_ARENA places of ARENA_PAGES pages that every chaos
 * thread maps rings at and unmaps (by mapping PROT_NONE over them, never
 * leaving a hole another mmap() could take), and scribbles on, guarded:
 * a ring one thread reads may be unmapped by another at any time.
 */
static uint8_t *arena_place(int j)
{
	return arena + (size_t)j * ARENA_PAGES * page;
}

static bool fd_armed(int fd)
{
	int i;

	for (i = 0; fd >= 0 && i < NR_SLOTS; i++)
		if (atomic_load(&armed[i]) == fd && atomic_load(&slots[i]) == fd)
			return true;
	return false;
}

static void arena_unmap(int j)
{
	int fd = atomic_exchange(&arena_fd[j], -1);

	if (fd_armed(fd))
		atomic_fetch_add(&armed_munmap, 1);
	mmap(arena_place(j), ARENA_PAGES * page, PROT_NONE,
	     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0);
	atomic_fetch_add(&nr_ops, 1);
}

/* Map a ring of fd at place j: mmap() anywhere, then mremap() it there. */
static int arena_map(int j, int fd, uint64_t pgoff, size_t len, int prot)
{
	void *p = mmap(NULL, len, prot, MAP_SHARED, fd, (off_t)(pgoff * page));
	void *q;

	note(p == MAP_FAILED ? -1 : 0);
	if (p == MAP_FAILED)
		return -1;
	atomic_fetch_add(&nr_mapped, 1);
	if (fd_armed(fd))
		atomic_fetch_add(&armed_mmap, 1);
	q = mremap(p, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, arena_place(j));
	if (q == MAP_FAILED) {
		munmap(p, len);
		return -1;
	}
	atomic_store(&arena_fd[j], fd);
	return 0;
}

static void op_arena(uint64_t *s)
{
	int j = rnd(s) % NR_ARENA, slot, fd, pages = 1 << (rnd(s) % 3);
	int cpu = rnd(s) % (ncpus + 1);

	switch (rnd(s) % 4) {
	case 0:
		arena_unmap(j);
		break;
	case 1:
		fd = get_fd(s, &slot);
		if (rnd(s) % 2)
			arena_map(j, fd, PERFREGS_MMAP_CTL(cpu, pages), page,
				  PROT_READ | PROT_WRITE);
		else
			arena_map(j, fd, PERFREGS_MMAP_DATA(cpu, pages), pages * page,
				  PROT_READ);
		break;
	default:
		scribble(s, arena_place(j), rnd(s) % 2 ? page : ARENA_PAGES * page);
		atomic_fetch_add(&nr_ops, 1);
	}
}

/*
 * A valid CONFIG of fd with a witness made for it: 1 to 4 data pages, a
 * period from base to twice that, a target of targets[] half the time.
 */
static void chaos_config(uint64_t *s, int fd, struct perfregs_config *c,
			 uint64_t base)
{
	int w;

	prf_config_default(c);
	c->data_pages = 1 << (rnd(s) % 3);
	c->period = base + rnd(s) % (4 * base);
	c->flags = rnd(s) % 2 ? PERFREGS_CF_OVERWRITE : 0;
	if (rnd(s) % 2)
		c->pid = targets[rnd(s) % NR_TARGETS];
	c->perf_fd = w = prf_witness_open(c);
	if (ioctl(fd, PERFREGS_IOC_CONFIG, c) == 0) {
		atomic_fetch_add(&nr_configured, 1);
		note(0);
	} else {
		note(-1);
	}
	if (w >= 0)
		close(w);
}

/*
 * Arm a slot: a session configured, its first CPU's rings mapped in the
 * arena, started, then put in the slot, so that the other threads close
 * it, unmap and map its rings and fork while it samples.
 */
static void op_arm(uint64_t *s)
{
	struct perfregs_config c;
	int i = rnd(s) % NR_SLOTS, j = rnd(s) % (NR_ARENA - 1), fd, old;
	int cpu = __builtin_ctzll(possible_cpus);

	fd = open_at(O_RDWR, CHAOS_FD);
	note(fd);
	if (fd < 0)
		return;
	chaos_config(s, fd, &c, 500000);
	if (arena_map(j, fd, PERFREGS_MMAP_CTL(cpu, c.data_pages), page,
		      PROT_READ | PROT_WRITE) ||
	    arena_map(j + 1, fd, PERFREGS_MMAP_DATA(cpu, c.data_pages),
		      c.data_pages * page, PROT_READ)) {
		close(fd);
		return;
	}
	if (ioctl(fd, PERFREGS_IOC_START) == 0) {
		atomic_fetch_add(&nr_armed, 1);
		atomic_fetch_add(&nr_started, 1);
		note(0);
	} else {
		note(-1);
	}
	old = atomic_exchange(&slots[i], fd);
	atomic_store(&armed[i], fd);
	if (old >= 0)
		close(old);
}

/*
 * A slot's session, whatever it is doing and whoever maps it: STOP, a
 * valid CONFIG (EBUSY while any thread has its rings mapped, racing
 * their mmap() and munmap()), START.
 */
static void op_rearm(uint64_t *s)
{
	struct perfregs_config c;
	int fd = get_fd(s, NULL);

	note(ioctl(fd, PERFREGS_IOC_STOP));
	chaos_config(s, fd, &c, 5000000);
	if (ioctl(fd, PERFREGS_IOC_START) == 0) {
		atomic_fetch_add(&nr_started, 1);
		note(0);
	} else {
		note(-1);
	}
}

static void op_file(uint64_t *s)
{
	int i = rnd(s) % NR_SLOTS, fd, old;
	char buf[256];
	struct pollfd pfd;

	switch (rnd(s) % 9) {
	case 0: case 6: case 7:
		fd = open_at(rnd(s) % 4 ? O_RDWR : O_RDONLY, CHAOS_FD);
		note(fd);
		if (fd >= 0) {
			old = atomic_exchange(&slots[i], fd);
			atomic_store(&armed[i], -1);
			if (old >= 0)
				close(old);
		}
		break;
	case 1:
		old = atomic_exchange(&slots[i], -1);
		if (old >= 0 && atomic_exchange(&armed[i], -1) == old)
			atomic_fetch_add(&armed_close, 1);
		if (old >= 0)
			note(close(old));
		break;
	case 2:
		note(read(get_fd(s, NULL), buf, rnd(s) % sizeof(buf)));
		break;
	case 3:
		note(write(get_fd(s, NULL), buf, rnd(s) % sizeof(buf)));
		break;
	case 4:
		pfd.fd = get_fd(s, NULL);
		pfd.events = POLLIN | POLLOUT | POLLPRI;
		note(poll(&pfd, 1, rnd(s) % 3));
		break;
	case 5:
		note(lseek(get_fd(s, NULL), rnd(s) % 4096, SEEK_SET));
		break;
	default:
		if (rnd(s) % 2)
			op_arm(s);
		else
			op_rearm(s);
	}
}

static void op_fork(uint64_t *s, struct mapping *maps);

static const char *const chaos_name[] = {
	"ioctl", "mmap", "touch", "mprotect", "file", "arena", "fork",
};
static atomic_ulong chaos_ns[7], chaos_n[7];

static void one_op(uint64_t *s, struct mapping *maps)
{
	struct timespec t0, t1;
	int k;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	switch (rnd(s) % 18) {
	case 0: case 1: case 2: case 3: case 4: case 5:
		k = 0;
		op_ioctl(s);
		break;
	case 6: case 7: case 8:
		k = 1;
		op_mmap(s, maps);
		break;
	case 9: case 10:
		k = 2;
		op_touch(s, maps);
		break;
	case 11:
		k = 3;
		op_mprotect(s, maps);
		break;
	case 12: case 13: case 14:
		k = 4;
		op_file(s);
		break;
	case 15: case 16:
		k = 5;
		op_arena(s);
		break;
	default:
		k = 6;
		if (rnd(s) % 16 == 0)
			op_fork(s, maps);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	atomic_fetch_add(&chaos_ns[k], (t1.tv_sec - t0.tv_sec) * 1000000000UL +
			 t1.tv_nsec - t0.tv_nsec);
	atomic_fetch_add(&chaos_n[k], 1);
}

/*
 * A child with copies of every fd (none of the rings: they are
 * VM_DONTCOPY) does a little, then exits.
 */
static void op_fork(uint64_t *s, struct mapping *maps)
{
	pid_t pid;
	int i;

	for (i = 0; i < NR_SLOTS; i++)
		if (is_armed(i, atomic_load(&slots[i]))) {
			atomic_fetch_add(&armed_fork, 1);
			break;
		}
	pid = fork();
	if (pid == 0) {
		for (i = 0; i < 20; i++) {
			switch (rnd(s) % 4) {
			case 0:
				op_ioctl(s);
				break;
			case 1:
				op_touch(s, maps);
				break;
			case 2:
				op_arena(s);
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

/* ---- targets ---------------------------------------------------------------- */

static void busy_ms(long ms)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do
		clock_gettime(CLOCK_MONOTONIC, &t);
	while ((t.tv_sec - t0.tv_sec) * 1000000000L + t.tv_nsec - t0.tv_nsec <
	       ms * 1000000L);
}

/*
 * The targets are small processes of their own, started with
 * posix_spawn(): a fork() of this big, busy process costs the guest
 * dearly (its page tables, then copy-on-write faults in every thread).
 * They sleep most of the time: on an emulated machine every busy cycle
 * is taken from the fuzzing.
 */
static pid_t spawn(char *const argv[])
{
	pid_t pid;

	return posix_spawn(&pid, self_exe, NULL, NULL, argv, environ) ? -1 : pid;
}

/* A spinner: busy 1 ms in every 10. */
static int spin_loop(void)
{
	struct timespec nap = { 0, 9000000 };

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() == 1)
		return 0;
	for (;;) {
		busy_ms(1);
		nanosleep(&nap, NULL);
	}
}

static pid_t spinner(void)
{
	return spawn((char *[]){ "test_fuzz", "--spin", NULL });
}

/*
 * The exec() target: this program exec()s busybox's shell, which
 * exec()s itself seven times (waiting 50 ms each time on a pipe that
 * never gets data) and then this program again.  Each exec() writes a
 * byte to a file the test keeps open: its size counts them.  A static
 * busybox exec()s cheaply under emulation; without one, this program
 * exec()s itself.  argv: self --exec-loop FD EXE
 */
static int exec_loop(char **argv)
{
	static const char script[] =
		"printf x >&$2; read -t 0.05 x; n=$(($3 + 1)); "
		"if [ $n -lt 8 ]; then exec /bin/busybox sh -c \"$0\" \"$0\" \"$1\" \"$2\" $n; fi; "
		"exec \"$1\" --exec-loop \"$2\" \"$1\"";
	char *again[] = { argv[3], "--exec-loop", argv[2], argv[3], NULL };

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() == 1)	/* the test is gone */
		return 0;
	if (write(atoi(argv[2]), "x", 1) != 1)
		return 1;
	busy_ms(1);
	usleep(50000);
	execl("/bin/busybox", "sh", "-c", script, script, argv[3], argv[2], "0", NULL);
	execv(argv[3], again);
	return 1;
}

static int exec_fd = -1;

static uint64_t execs(void)
{
	struct stat st;

	return fstat(exec_fd, &st) ? 0 : st.st_size;
}

static pid_t start_exec_target(void)
{
	posix_spawn_file_actions_t fa;
	char fdstr[16];
	int p[2];
	pid_t pid;

	exec_fd = memfd_create("perfregs-fuzz-execs", 0);
	if (exec_fd < 0 || pipe2(p, O_CLOEXEC))
		return -1;
	snprintf(fdstr, sizeof(fdstr), "%d", exec_fd);
	/* its standard input: a pipe nobody writes to, for the shell's waits */
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, p[0], 0);
	if (posix_spawn(&pid, self_exe, &fa, NULL,
			(char *[]){ "test_fuzz", "--exec-loop", fdstr, self_exe, NULL },
			environ))
		pid = -1;
	posix_spawn_file_actions_destroy(&fa);
	close(p[0]);		/* p[1] stays open until the end */
	/*
	 * An exec() is slow under emulation, and the fuzzing keeps every
	 * CPU busy: without a higher priority it comes too seldom to land
	 * inside the sessions that sample it.
	 */
	if (pid > 0)
		setpriority(PRIO_PROCESS, pid, -10);
	return pid;
}

/* ---- the walkers' model of a session ---------------------------------------- */

/*
 * What session.c keeps of a session is configured, running and the
 * number of live mappings (s->mmaps).  The phases below split
 * "configured, not running" by the last ioctl that got it there, for
 * the coverage table; the kernel treats them alike.
 */
enum phase { PH_FRESH, PH_CONFIGURED, PH_STARTED, PH_STOPPED, PH_RESET };

enum state {
	ST_FRESH, ST_CONFIGURED, ST_MAPPED, ST_STARTED, ST_STARTED_M,
	ST_STOPPED, ST_STOPPED_M, ST_RESET, ST_RESET_M, NR_ST
};
static const char *const st_name[NR_ST] = {
	"fresh", "configured", "mapped", "started", "started+mapped",
	"stopped", "stopped+mapped", "reset", "reset+mapped",
};

static int st_of(int phase, bool mapped)
{
	static const int base[] = {
		[PH_FRESH] = ST_FRESH, [PH_CONFIGURED] = ST_CONFIGURED,
		[PH_STARTED] = ST_STARTED, [PH_STOPPED] = ST_STOPPED,
		[PH_RESET] = ST_RESET,
	};

	return base[phase] + (mapped && phase != PH_FRESH);
}

static int st_phase(int st)
{
	static const int ph[NR_ST] = {
		PH_FRESH, PH_CONFIGURED, PH_CONFIGURED, PH_STARTED, PH_STARTED,
		PH_STOPPED, PH_STOPPED, PH_RESET, PH_RESET,
	};

	return ph[st];
}

static bool st_mapped(int st)
{
	return st != ST_FRESH && st_of(st_phase(st), true) == st;
}

enum verb {
	/* the ioctls: every state must see each of them */
	V_CONFIG, V_CONFIG_BAD, V_CONFIG_FAULT, V_VERSION, V_VERSION_BAD,
	V_START, V_STOP, V_RESET, V_IOCTL,
	/* the other operations on a session */
	V_MMAP, V_MMAP_BAD, V_MUNMAP, V_MPROTECT, V_CTL, V_TOUCH, V_READ,
	V_POLL, V_FORK, V_REOPEN,
	NR_SV,
	/* the walker's own; the CPU ones only in corpus files (see fuzz_corpus/README) */
	V_KILL = NR_SV, V_SPIN, V_CPU_OFFLINE, V_CPU_ONLINE, NR_VERBS
};
#define NR_IOCTL_V	(V_IOCTL + 1)
static const char *const verb_name[NR_VERBS] = {
	"config", "config-bad", "config-fault", "version", "version-bad",
	"start", "stop", "reset", "ioctl", "mmap", "mmap-bad", "munmap",
	"mprotect", "ctl", "touch", "read", "poll", "fork", "reopen",
	"kill-target", "spin", "cpu-offline", "cpu-online",
};
/* the coverage table's column heads */
static const char *const verb_col[NR_SV] = {
	"config", "cfg-bad", "cfg-flt", "version", "ver-bad", "start", "stop",
	"reset", "ioc-unk", "mmap", "mmap-bad", "munmap", "mprot", "ctl-wr",
	"touch", "rd/wr", "poll", "fork", "reopen",
};

/* Operations on a mapping need one. */
static bool verb_applies(int verb, int st)
{
	switch (verb) {
	case V_MUNMAP: case V_MPROTECT: case V_CTL: case V_TOUCH:
		return st_mapped(st);
	default:
		return true;
	}
}

/*
 * Where an operation that succeeds takes a session, by session.c: CONFIG
 * only while neither running nor mapped, START and RESET only when
 * configured and not running, STOP only when running; mmap() only once
 * configured, munmap() of the last mapping, close and reopen from
 * anywhere.  The operations that move sessions, for the transitions
 * the coverage check expects.
 */
static const int moves[] = {
	V_CONFIG, V_START, V_STOP, V_RESET, V_MMAP, V_MUNMAP, V_REOPEN,
};
#define NR_MOVES	((int)(sizeof(moves) / sizeof(moves[0])))

static int next_st(int st, int verb)
{
	int ph = st_phase(st);
	bool m = st_mapped(st);

	switch (verb) {
	case V_CONFIG:
		return ph != PH_STARTED && !m ? ST_CONFIGURED : st;
	case V_START:
		return ph != PH_FRESH && ph != PH_STARTED ? st_of(PH_STARTED, m) : st;
	case V_STOP:
		return ph == PH_STARTED ? st_of(PH_STOPPED, m) : st;
	case V_RESET:
		return ph != PH_FRESH && ph != PH_STARTED ? st_of(PH_RESET, m) : st;
	case V_MMAP:
		return ph != PH_FRESH ? st_of(ph, true) : st;
	case V_MUNMAP:		/* of the last mapping */
		return st_of(ph, false);
	case V_REOPEN:
		return ST_FRESH;
	default:
		return st;
	}
}

/* What the session samples: the walker picks a target for each CONFIG. */
enum target { TGT_SELF, TGT_SPIN, TGT_EXEC, TGT_SHARED, TGT_ALL, TGT_CPUS, NR_TGT };
static const char *const tgt_name[NR_TGT] = {
	"self", "spin", "exec", "shared", "all", "cpus",
};

static const char *const ev_name[PERFREGS_EV_MAX] = {
	"cpu-clock", "task-clock", "page-faults", "context-switches",
	"cycles", "instructions", "breakpoint", "nmi",
};

static const char *const flag_name[] = {
	"freq", "exclude-user", "exclude-kernel", "overwrite", "nmi-unknown",
	"inherit",
};

/* The fields of the control page, each written in every mapped state. */
enum field {
	F_VERSION, F_CPU, F_DATA_SIZE, F_DATA_HEAD, F_DATA_TAIL, F_PRODUCED,
	F_LOST, F_NEW_TASKS, F_NEW_TASKS_SEEN, F_RESERVED, NR_FIELDS
};
static const struct {
	const char *name;
	size_t off;
	int width, n;
} fields[NR_FIELDS] = {
#define FIELD(f, n) #f, offsetof(struct perfregs_ctl, f), \
	sizeof(((struct perfregs_ctl *)0)->f) / (n), (n)
	{ FIELD(version, 1) },
	{ FIELD(cpu, 1) },
	{ FIELD(data_size, 1) },
	{ FIELD(data_head, 1) },
	{ FIELD(data_tail, 1) },
	{ FIELD(produced, 1) },
	{ FIELD(lost, PERFREGS_LOST_SLOTS) },
	{ FIELD(new_tasks, 1) },
	{ FIELD(new_tasks_seen, 1) },
	{ FIELD(reserved, 64 - 15) },
#undef FIELD
};

/*
 * A value written into the control page, evaluated at each write from
 * the data_head there: a literal, head + arg, the next ring boundary
 * above head + arg ("edge"), or that boundary one ring back + arg
 * ("ring": ring:-4 keeps data_tail one ring behind the next boundary
 * minus 4, issue 18's crash).
 */
enum vkind { VK_LIT, VK_HEAD, VK_EDGE, VK_RING, NR_VK };
static const char *const vk_name[NR_VK] = { "lit", "head", "edge", "ring" };

static uint64_t vk_eval(int kind, int64_t arg, uint64_t head, uint64_t size)
{
	uint64_t edge = (head | (size - 1)) + 1;

	switch (kind) {
	case VK_HEAD:
		return head + arg;
	case VK_EDGE:
		return edge + arg;
	case VK_RING:
		return edge - size + arg;
	default:
		return arg;
	}
}

/* Hostile CONFIGs: a valid one with one thing broken, and its errno. */
enum {
	CB_SIZE_SMALL, CB_SIZE_PAGE, CB_SIZE_TAIL, CB_FLAGS, CB_EVENT,
	CB_PAGES_ZERO, CB_PAGES_NPOT, CB_PAGES_BIG, CB_PERIOD_ZERO,
	CB_PERIOD_SIGN, CB_IREGS, CB_UREGS32, CB_PID, CB_INHERIT_ALL,
	CB_INHERIT_NMI, CB_WAKEUP, CB_NMI_UNKNOWN, CB_STACK_ODD, CB_STACK_BIG,
	CB_STACK_HALF, CB_CPUS_PID, CB_CPUS_BYTES, CB_CPUS_NOLIST,
	CB_CPUS_EMPTY, CB_CPUS_BEYOND, CB_BP_FIELDS, CB_BP_TYPE, CB_RESERVED0,
	CB_RESERVED, CB_NO_PROCESS, CB_NO_WITNESS, CB_NOT_PERF, CB_W_PERIOD,
	CB_W_TARGET, CB_W_EXCL, CB_W_STACK, CB_SIMD, CB_KCHAIN, CB_W_KCHAIN, CB_UCHAIN, CB_W_UCHAIN, NR_CB
};
static const struct {
	const char *name;
	int err;
} cfg_bad[NR_CB] = {
	{ "size-small", EINVAL }, { "size-page", E2BIG }, { "size-tail", E2BIG },
	{ "flags", EINVAL }, { "event", EINVAL }, { "pages-zero", EINVAL },
	{ "pages-npot", EINVAL }, { "pages-big", EINVAL },
	{ "period-zero", EINVAL }, { "period-sign", EINVAL },
	{ "iregs", EINVAL }, { "uregs32", EINVAL }, { "pid", EINVAL },
	{ "inherit-all", EINVAL }, { "inherit-nmi", EINVAL },
	{ "wakeup", EINVAL }, { "nmi-unknown", EINVAL },
	{ "stack-odd", EINVAL }, { "stack-big", EINVAL },
	{ "stack-half", EINVAL }, { "cpus-pid", EINVAL },
	{ "cpus-bytes", EINVAL }, { "cpus-nolist", EINVAL },
	{ "cpus-empty", EINVAL }, { "cpus-beyond", EINVAL },
	{ "bp-fields", EINVAL }, { "bp-type", EINVAL },
	{ "reserved0", EINVAL }, { "reserved", EINVAL },
	{ "no-process", ESRCH }, { "no-witness", EBADF },
	{ "not-perf", EBADF }, { "witness-period", EACCES },
	{ "witness-target", EACCES }, { "witness-exclude", EACCES },
	{ "witness-stack", EACCES }, { "simd", EINVAL },
	{ "kchain", EINVAL }, { "witness-kchain", EACCES },
	{ "uchain", EINVAL }, { "witness-uchain", EACCES },
};

/* CONFIG at a bad address */
enum { CF_NULL, CF_KERNEL, CF_LOW, CF_GUARD, CF_CPUS, NR_CF };
static const char *const cfg_fault[NR_CF] = { "null", "kernel", "low", "guard", "cpus" };

/* VERSION that must fail, and its errno */
enum { VB_SMALL, VB_PAGE, VB_NULL, VB_KERNEL, VB_GUARD, NR_VB };
static const struct {
	const char *name;
	int err;
} ver_bad[NR_VB] = {
	{ "small", EINVAL }, { "page", E2BIG }, { "null", EFAULT },
	{ "kernel", EFAULT }, { "guard", EFAULT },
};

/* mmap that must fail */
enum { MB_PRIVATE, MB_LEN, MB_CPU, MB_WDATA, MB_BEYOND, MB_INDEX, MB_ZERO, NR_MB };
static const char *const mmap_bad[NR_MB] = {
	"private", "len", "cpu", "write-data", "beyond", "index", "zero",
};

/*
 * One operation of a walker: everything it does is decided here, so
 * that its line in the corpus format does it again.
 */
struct op {
	uint8_t verb, sess, kind, target, event, field, fidx, vkind;
	bool data, part, keep;
	int16_t cpu;		/* -1: every CPU mapped */
	int16_t map;
	uint32_t flags, pages, stack, wakeup, size, prot, n, cmd, simd, kchain, uchain;
	uint64_t period, mask;
	int64_t varg;
};

#define NR_WSESS	2	/* sessions per walker */
#define NR_WMAPS	16	/* mappings per session */
#define LOG_OPS		2048	/* the walker's last operations */
#define SESSION_LIFE	600	/* operations before a session is reopened */
#define MAX_PAGES	8	/* data pages of the walkers' rings */

struct wmap {
	uint8_t *addr;
	size_t len;
	int cpu;
	bool data;		/* the data pages, else the control page */
	bool whole;		/* all of it still mapped */
	int prot;
};

/* What a walker can trust in a ring's control page. */
struct wring {
	bool head_ok;		/* data_head is the kernel's */
	bool tail_ok;		/* data_tail is a record boundary below it */
	bool ctl_clean;		/* version, cpu, data_size as CONFIG left them */
};

struct wsess {
	int fd;
	int phase;
	struct perfregs_config cfg;	/* the one CONFIG took */
	int target, target_gen;		/* TGT_SPIN: the walker's spinner then */
	uint64_t rings;			/* CPUs with a ring */
	uint64_t cpus;			/* cfg.cpus_ptr points here */
	struct wmap maps[NR_WMAPS];
	int nmaps;
	struct wring ring[MAX_CPUS];
	uint64_t exec0;			/* TGT_EXEC: its exec()s at START */
	bool exec_seen;			/* one came since */
	int shared_id;			/* its target's in on_target[], started */
	unsigned long ops;		/* since it was opened */
	unsigned long opened;		/* the walker's op count then */
};

struct walker {
	int idx;
	uint64_t rnd;
	struct wsess s[NR_WSESS];
	pid_t spin;
	int spin_gen;
	uint8_t *guard;			/* two pages: RW, then PROT_NONE */
	uint8_t *buf;			/* two pages of ioctl argument */
	uint8_t *scratch;		/* a record that wraps */
	uint64_t cpus[2];		/* a CPU bitmap for CONFIG */
	struct perfregs_config cfg_tried;	/* what the last CONFIG asked */
	volatile uint64_t bp_var;	/* what breakpoint sessions watch */
	struct op log[LOG_OPS];
	unsigned long nlog;
	bool replay;
	unsigned long skipped;		/* CONFIGs perf refused the witness of */
	int mismatches;
};

/* What the walkers saw, for the tables */
static atomic_ulong cov[NR_ST][NR_SV];
static atomic_ulong cov_field[NR_ST][NR_FIELDS];
static atomic_ulong trans[NR_ST][NR_ST];
static atomic_ulong walker_ops, witness_refused, start_nospace;
static atomic_ulong verb_ns[NR_VERBS], verb_n[NR_VERBS];	/* time spent */
static atomic_ulong nr_mismatch, kill_started, exec_started, shared_target;
#define NR_SHARED_IDS	(4 + MAX_WALKERS + 1)
static atomic_int on_target[NR_SHARED_IDS];	/* started sessions per target */
static bool expected[NR_ST][NR_ST];		/* transitions session.c allows */
static atomic_int hurry;			/* half the time gone */
static atomic_ulong hurried;			/* operations picked in a hurry */

static pid_t target_pid(const struct walker *w, int target)
{
	switch (target) {
	case TGT_SELF:
		return getpid();
	case TGT_SPIN:
		return w->spin;
	case TGT_EXEC:
		return exec_target;
	case TGT_SHARED:
		return targets[0];
	default:
		return -1;
	}
}

static int shared_id(const struct walker *w, int target)
{
	switch (target) {
	case TGT_SELF: case TGT_EXEC: case TGT_SHARED:
		return target;
	case TGT_SPIN:
		return 4 + w->idx;
	default:
		return -1;
	}
}

/*
 * CPUs that can go offline (they have an online file), and those a
 * corpus file took offline.  Another program may take the first kind
 * offline at any time, and does when foreign_plug is set; a corpus
 * file replays with nobody else doing it, unless foreign_plug is set.
 */
static uint64_t pluggable_cpus, unplugged_cpus;
static bool foreign_plug;

static bool target_dead(const struct walker *w, const struct wsess *s)
{
	return s->target == TGT_SPIN && s->target_gen != w->spin_gen;
}

static int sess_st(const struct wsess *s)
{
	return st_of(s->phase, s->nmaps > 0);
}

static uint64_t ring_size(const struct wsess *s)
{
	return (uint64_t)s->cfg.data_pages * page;
}

/* ---- the corpus format: one operation a line ---------------------------------- */

static void fmt_op(const struct op *op, char *b, size_t len)
{
	size_t n;
	int i;

#define ADD(...) (n += snprintf(b + n, n < len ? len - n : 0, __VA_ARGS__))
	n = 0;
	ADD("%s", verb_name[op->verb]);
	if (op->verb < NR_SV)
		ADD(" %d", op->sess);
	switch (op->verb) {
	case V_CONFIG:
		ADD(" target=%s", tgt_name[op->target]);
		if (op->target == TGT_CPUS)
			ADD(" cpus=0x%" PRIx64, op->mask);
		ADD(" event=%s pages=%u period=%" PRIu64, ev_name[op->event],
		    op->pages, op->period);
		for (i = 0; i < 6; i++)
			if (op->flags & (1U << i))
				ADD("%s%s", op->flags & ((1U << i) - 1) ? "," : " flags=",
				    flag_name[i]);
		if (op->stack)
			ADD(" stack=%u", op->stack);
		if (op->wakeup)
			ADD(" wakeup=%u", op->wakeup);
		if (op->simd)
			ADD(" simd=0x%x", op->simd);
		if (op->kchain)
			ADD(" kchain=%u", op->kchain);
		if (op->uchain)
			ADD(" uchain=%u", op->uchain);
		if (op->size != sizeof(struct perfregs_config))
			ADD(" size=%u", op->size);
		break;
	case V_CONFIG_BAD:
		ADD(" bad=%s target=%s", cfg_bad[op->kind].name, tgt_name[op->target]);
		break;
	case V_CONFIG_FAULT:
		ADD(" fault=%s", cfg_fault[op->kind]);
		break;
	case V_VERSION:
		ADD(" size=%u", op->size);
		break;
	case V_VERSION_BAD:
		ADD(" bad=%s", ver_bad[op->kind].name);
		break;
	case V_IOCTL:
		ADD(" cmd=0x%x", op->cmd);
		break;
	case V_MMAP:
		ADD(" %s cpu=%d prot=%s", op->data ? "data" : "ctl", op->cpu,
		    op->prot & PROT_WRITE ? "rw" : "r");
		break;
	case V_MMAP_BAD:
		ADD(" bad=%s cpu=%d", mmap_bad[op->kind], op->cpu);
		break;
	case V_MUNMAP:
		ADD(" map=%d%s", op->map, op->part ? " part=1" : "");
		break;
	case V_MPROTECT:
		ADD(" map=%d prot=%s", op->map, op->prot & PROT_WRITE ? "rw" : "r");
		break;
	case V_CTL:
		if (op->cpu < 0)
			ADD(" cpu=all");
		else
			ADD(" cpu=%d", op->cpu);
		ADD(" field=%s", fields[op->field].name);
		if (fields[op->field].n > 1)
			ADD("[%u]", op->fidx);
		ADD(" val=%s:%" PRId64, vk_name[op->vkind], op->varg);
		if (op->n > 1)
			ADD(" n=%u", op->n);
		break;
	case V_REOPEN:
		if (op->keep)
			ADD(" keep=1");
		break;
	case V_SPIN:
		ADD(" ms=%u", op->n);
		break;
	case V_CPU_OFFLINE:
	case V_CPU_ONLINE:
		ADD(" cpu=%d", op->cpu);
		break;
	}
#undef ADD
}

static int lookup(const char *v, const char *const *names, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (names[i] && !strcmp(v, names[i]))
			return i;
	return -1;
}

/* Parse one line into *op: 1, 0 for a blank or comment line, -1 with why. */
static int parse_op(char *line, struct op *op, char *why, size_t whylen)
{
	char *tok, *save, *fsave, *key = "", *val = NULL;
	int v, i;

	line[strcspn(line, "#\n")] = 0;
	tok = strtok_r(line, " \t", &save);
	if (!tok)
		return 0;
	memset(op, 0, sizeof(*op));
	op->size = sizeof(struct perfregs_config);
	op->pages = 1;
	op->n = 1;
	op->prot = PROT_READ | PROT_WRITE;
	v = lookup(tok, verb_name, NR_VERBS);
	if (v < 0) {
		snprintf(why, whylen, "unknown operation '%s'", tok);
		return -1;
	}
	op->verb = v;
	if (v < NR_SV) {
		tok = strtok_r(NULL, " \t", &save);
		if (!tok || (op->sess = atoi(tok)) >= NR_WSESS || !strchr("0123456789", *tok)) {
			snprintf(why, whylen, "%s: a session number below %d first", verb_name[v], NR_WSESS);
			return -1;
		}
	}
	if (v == V_VERSION)
		op->size = sizeof(struct perfregs_version);
	while ((tok = strtok_r(NULL, " \t", &save))) {
		key = tok;
		val = strchr(tok, '=');
		if (val)
			*val++ = 0;
		if (!val && (!strcmp(key, "ctl") || !strcmp(key, "data"))) {
			op->data = key[0] == 'd';
			op->prot = op->data ? PROT_READ : PROT_READ | PROT_WRITE;
			continue;
		}
		if (!val)
			goto bad;
		if (!strcmp(key, "target") && (i = lookup(val, tgt_name, NR_TGT)) >= 0) {
			op->target = i;
		} else if (!strcmp(key, "cpus")) {
			op->mask = strtoull(val, NULL, 0);
		} else if (!strcmp(key, "event") &&
			   (i = lookup(val, ev_name, PERFREGS_EV_MAX)) >= 0) {
			op->event = i;
		} else if (!strcmp(key, "pages")) {
			op->pages = strtoul(val, NULL, 0);
		} else if (!strcmp(key, "period")) {
			op->period = strtoull(val, NULL, 0);
		} else if (!strcmp(key, "flags")) {
			for (tok = strtok_r(val, ",", &fsave); tok;
			     tok = strtok_r(NULL, ",", &fsave)) {
				i = lookup(tok, flag_name, 6);
				if (i < 0)
					goto bad;
				op->flags |= 1U << i;
			}
		} else if (!strcmp(key, "stack")) {
			op->stack = strtoul(val, NULL, 0);
		} else if (!strcmp(key, "wakeup")) {
			op->wakeup = strtoul(val, NULL, 0);
		} else if (!strcmp(key, "size")) {
			op->size = strtoul(val, NULL, 0);
		} else if (!strcmp(key, "simd")) {
			op->simd = strtoul(val, NULL, 0);
		} else if (!strcmp(key, "kchain")) {
			op->kchain = strtoul(val, NULL, 0);
		} else if (!strcmp(key, "uchain")) {
			op->uchain = strtoul(val, NULL, 0);
		} else if (!strcmp(key, "bad") && v == V_CONFIG_BAD) {
			for (i = 0; i < NR_CB && strcmp(val, cfg_bad[i].name); i++)
				;
			if (i == NR_CB)
				goto bad;
			op->kind = i;
		} else if (!strcmp(key, "bad") && v == V_VERSION_BAD) {
			for (i = 0; i < NR_VB && strcmp(val, ver_bad[i].name); i++)
				;
			if (i == NR_VB)
				goto bad;
			op->kind = i;
		} else if (!strcmp(key, "bad") && v == V_MMAP_BAD &&
			   (i = lookup(val, mmap_bad, NR_MB)) >= 0) {
			op->kind = i;
		} else if (!strcmp(key, "fault") && (i = lookup(val, cfg_fault, NR_CF)) >= 0) {
			op->kind = i;
		} else if (!strcmp(key, "cmd")) {
			op->cmd = strtoul(val, NULL, 0);
		} else if (!strcmp(key, "cpu")) {
			op->cpu = !strcmp(val, "all") ? -1 : atoi(val);
		} else if (!strcmp(key, "prot")) {
			op->prot = !strcmp(val, "rw") ? PROT_READ | PROT_WRITE : PROT_READ;
		} else if (!strcmp(key, "map")) {
			op->map = atoi(val);
		} else if (!strcmp(key, "part")) {
			op->part = atoi(val);
		} else if (!strcmp(key, "keep")) {
			op->keep = atoi(val);
		} else if (!strcmp(key, "n") || !strcmp(key, "ms")) {
			op->n = strtoul(val, NULL, 0);
		} else if (!strcmp(key, "field")) {
			char *idx = strchr(val, '[');

			if (idx)
				*idx++ = 0;
			for (i = 0; i < NR_FIELDS && strcmp(val, fields[i].name); i++)
				;
			if (i == NR_FIELDS)
				goto bad;
			op->field = i;
			op->fidx = idx ? atoi(idx) : 0;
			if (op->fidx >= fields[i].n)
				goto bad;
		} else if (!strcmp(key, "val")) {
			char *arg = strchr(val, ':');

			if (!arg)
				goto bad;
			*arg++ = 0;
			i = lookup(val, vk_name, NR_VK);
			if (i < 0)
				goto bad;
			op->vkind = i;
			op->varg = strtoll(arg, NULL, 0);
		} else {
			goto bad;
		}
	}
	if (v == V_IOCTL && (op->cmd == PERFREGS_IOC_START || op->cmd == PERFREGS_IOC_STOP ||
			     op->cmd == PERFREGS_IOC_RESET)) {
		snprintf(why, whylen, "ioctl: use start, stop or reset");
		return -1;
	}
	return 1;
bad:
	snprintf(why, whylen, "%s: cannot use '%s%s%s'", verb_name[v], key,
		 val ? "=" : "", val ? val : "");
	return -1;
}

/* ---- what session.c must answer ----------------------------------------------- */

struct expect {
	int err;		/* the errno, 0 for success */
	int alt, alt2;		/* others the kernel may give instead, or 0 */
};

/* What a sample record without its stack takes at most (session.c; no bases). */
#define REGS_RECORD	(sizeof(struct perfregs_rec_sample) + 16 * PERFREGS_REG_MAX + 16)

#define SIZELESS(cmd)	((cmd) & ~(_IOC_SIZEMASK << _IOC_SIZESHIFT))

/*
 * Which ioctl the module takes a number for (type, number and direction
 * for VERSION and CONFIG, whatever the size; the others exactly); -1
 * for a type the VFS answers itself (FIONBIO, FIFREEZE, FS_IOC_*, ...).
 */
static int ioctl_class(uint32_t cmd)
{
	static const uint8_t vfs_types[] = { 0x00, 0x12, 0x15, 'T', 'X', 'f', 0x94 };
	size_t i;

	if (SIZELESS(cmd) == SIZELESS(PERFREGS_IOC_VERSION))
		return V_VERSION;
	if (SIZELESS(cmd) == SIZELESS(PERFREGS_IOC_CONFIG))
		return V_CONFIG;
	if (cmd == PERFREGS_IOC_START)
		return V_START;
	if (cmd == PERFREGS_IOC_STOP)
		return V_STOP;
	if (cmd == PERFREGS_IOC_RESET)
		return V_RESET;
	for (i = 0; i < sizeof(vfs_types); i++)
		if (_IOC_TYPE(cmd) == vfs_types[i])
			return -1;
	return V_IOCTL;
}

static bool has_ring(const struct wsess *s, int cpu)
{
	return s->phase != PH_FRESH && cpu >= 0 && cpu < MAX_CPUS && (s->rings >> cpu & 1);
}

static struct expect model(const struct walker *w, const struct wsess *s,
			   const struct op *op)
{
	bool configured = s->phase != PH_FRESH, running = s->phase == PH_STARTED;
	struct expect e = { 0 };

	switch (op->verb) {
	case V_CONFIG:
		/*
		 * every check of the configuration comes first; SIMD state
		 * the CPU lacks is EOPNOTSUPP (a VER0 size has no simd_mask)
		 */
		if (op->size >= PERFREGS_CONFIG_SIZE_VER1 && op->simd & ~simd_offered)
			e.err = EOPNOTSUPP;
		else
			e.err = running || s->nmaps ? EBUSY : 0;
		break;
	case V_CONFIG_BAD:
		e.err = cfg_bad[op->kind].err;
		break;
	case V_CONFIG_FAULT:
		e.err = EFAULT;
		break;
	case V_VERSION_BAD:
		e.err = ver_bad[op->kind].err;
		break;
	case V_START:
		if (!configured)
			e.err = EINVAL;
		else if (running)
			e.err = EBUSY;
		else if (target_dead(w, s))
			e.err = ESRCH;
		/*
		 * A CPU session none of whose CPUs is online has no counter
		 * to start (source_perf.c): certain when a corpus file took
		 * them all offline, possible when they all can go.
		 */
		else if (s->cfg.pid < 0 && s->cfg.event != PERFREGS_EV_NMI &&
			 !(s->rings & ~unplugged_cpus))
			e.err = ENODEV;
		else {
			if (s->cfg.event == PERFREGS_EV_BREAKPOINT)
				e.alt = ENOSPC;	/* every debug register taken */
			if (s->cfg.pid < 0 && s->cfg.event != PERFREGS_EV_NMI &&
			    !(s->rings & ~pluggable_cpus) && (!w->replay || foreign_plug))
				e.alt2 = ENODEV;
		}
		break;
	case V_RESET:
		e.err = !configured ? EINVAL : running ? EBUSY : 0;
		break;
	case V_IOCTL:	/* the argument is a VERSION of 24 bytes */
		e.err = ioctl_class(op->cmd) == V_VERSION ? 0 :
			ioctl_class(op->cmd) == V_CONFIG ? EINVAL : ENOTTY;
		break;
	case V_MMAP:
		e.err = !has_ring(s, op->cpu) ? EINVAL :
			op->data && (op->prot & PROT_WRITE) ? EPERM : 0;
		break;
	case V_MMAP_BAD:
		e.err = op->kind == MB_WDATA && has_ring(s, op->cpu) ? EPERM : EINVAL;
		break;
	case V_MPROTECT:
		e.err = s->maps[op->map].data && (op->prot & PROT_WRITE) ? EACCES : 0;
		break;
	case V_READ:
		e.err = EINVAL;		/* the device has no read() */
		break;
	default:	/* VERSION, STOP, munmap, writes, touch, poll, fork, reopen */
		break;
	}
	return e;
}

/* ---- doing it ------------------------------------------------------------------- */

struct outcome {
	int err;
	bool skip;		/* not tried: perf refused the witness */
	char why[320];		/* a check besides the errno that failed */
};

static void __attribute__((format(printf, 2, 3)))
fail(struct outcome *o, const char *fmt, ...)
{
	va_list ap;

	if (o->why[0])
		return;
	va_start(ap, fmt);
	vsnprintf(o->why, sizeof(o->why), fmt, ap);
	va_end(ap);
}

static int sys_err(long ret)
{
	return ret < 0 ? errno : 0;
}

static const char *ename(int e)
{
	return e ? strerrorname_np(e) : "success";
}

static void build_config(struct walker *w, const struct op *op,
			 struct perfregs_config *c)
{
	prf_config_default(c);
	c->event = op->event;
	c->flags = op->flags;
	c->data_pages = op->pages;
	c->period = op->period;
	c->stack_bytes = op->stack;
	c->wakeup_bytes = op->wakeup;
	c->simd_mask = op->simd;
	c->kchain_max = op->kchain;
	c->uchain_max = op->uchain;
	/* the size CONFIG gets: the witness samples a chain only for VER2 */
	c->size = op->size < sizeof(*c) ? op->size : sizeof(*c);
	c->pid = target_pid(w, op->target);
	if (op->target == TGT_CPUS) {
		w->cpus[0] = op->mask;
		c->cpus_ptr = (uintptr_t)w->cpus;
		c->cpus_bytes = 8;
	}
	if (op->event == PERFREGS_EV_BREAKPOINT) {
		c->bp_addr = (uintptr_t)&w->bp_var;
		c->bp_type = PERFREGS_BP_W;
		c->bp_len = 8;
	}
}

static void do_config(struct walker *w, struct wsess *s, const struct op *op,
		      struct outcome *o)
{
	struct perfregs_config *c = &w->cfg_tried;
	int wfd;

	build_config(w, op, c);
	wfd = prf_witness_open(c);
	if (wfd < 0) {
		o->skip = true;
		atomic_fetch_add(&witness_refused, 1);
		return;
	}
	c->perf_fd = wfd;
	memset(w->buf, 0, 2 * page);
	memcpy(w->buf, c, sizeof(*c));
	((struct perfregs_config *)w->buf)->size = op->size;
	o->err = sys_err(ioctl(s->fd, PERFREGS_IOC_CONFIG, w->buf));
	close(wfd);
	c->perf_fd = -1;
}

static void do_config_bad(struct walker *w, struct wsess *s, const struct op *op,
			  struct outcome *o)
{
	struct perfregs_config c, wc, *arg = (void *)w->buf;
	struct op base = *op;
	bool tail = false, own_witness = false;
	int wfd = -1;

	base.event = PERFREGS_EV_CPU_CLOCK;
	base.pages = 2;
	base.period = 1000000;
	base.flags = base.stack = base.wakeup = 0;
	if (base.target == TGT_CPUS)
		base.target = TGT_ALL;
	build_config(w, &base, &c);
	wc = c;
	memset(w->cpus, 0, sizeof(w->cpus));
	switch (op->kind) {
	case CB_SIZE_SMALL:
		c.size = 64;
		break;
	case CB_SIZE_PAGE:
		c.size = page + 1;
		break;
	case CB_SIZE_TAIL:
		c.size = sizeof(c) + 8;
		tail = true;
		break;
	case CB_FLAGS:
		c.flags |= PERFREGS_CF_ALL + 1;
		break;
	case CB_EVENT:
		c.event = PERFREGS_EV_MAX;
		break;
	case CB_PAGES_ZERO:
		c.data_pages = 0;
		break;
	case CB_PAGES_NPOT:
		c.data_pages = 3;
		break;
	case CB_PAGES_BIG:
		c.data_pages = PERFREGS_MAX_DATA_PAGES * 2;
		break;
	case CB_PERIOD_ZERO:
		c.period = 0;
		break;
	case CB_PERIOD_SIGN:
		c.period = 1ULL << 63;
		break;
	case CB_IREGS:
		c.iregs_mask |= 1ULL << PERFREGS_REG_MAX;
		break;
	case CB_UREGS32:
		c.uregs_mask_32 |= 1ULL << PERFREGS_REG_R8;
		break;
	case CB_PID:
		c.pid = -2;
		break;
	case CB_INHERIT_ALL:
		c.pid = -1;
		c.flags |= PERFREGS_CF_INHERIT;
		break;
	case CB_INHERIT_NMI:
		c.pid = getpid();
		c.event = PERFREGS_EV_NMI;
		c.flags |= PERFREGS_CF_INHERIT;
		break;
	case CB_WAKEUP:
		c.wakeup_bytes = c.data_pages * page + 1;
		break;
	case CB_NMI_UNKNOWN:
		c.flags |= PERFREGS_CF_NMI_UNKNOWN;
		break;
	case CB_STACK_ODD:
		c.stack_bytes = 12;
		break;
	case CB_STACK_BIG:
		c.stack_bytes = PERFREGS_MAX_STACK_BYTES + 8;
		break;
	case CB_SIMD:		/* a component no ABI minor has */
		c.simd_mask = PERFREGS_SIMD_ALL + 1;
		break;
	case CB_KCHAIN:		/* deeper than perf's deepest */
		c.size = PERFREGS_CONFIG_SIZE_VER2;
		c.kchain_max = PERFREGS_MAX_KCHAIN + 1;
		break;
	case CB_W_KCHAIN:	/* a witness without the call chain */
		c.size = PERFREGS_CONFIG_SIZE_VER2;
		c.kchain_max = 4;
		own_witness = true;
		break;
	case CB_UCHAIN:		/* a user chain deeper than perf's deepest */
		c.size = PERFREGS_CONFIG_SIZE_VER2;
		c.uchain_max = PERFREGS_MAX_UCHAIN + 1;
		break;
	case CB_W_UCHAIN:	/* a witness without the user call chain */
		c.size = PERFREGS_CONFIG_SIZE_VER2;
		c.uchain_max = 4;
		own_witness = true;
		break;
	case CB_STACK_HALF:	/* a record must fit in half the ring */
		c.stack_bytes = c.data_pages * page / 2 - REGS_RECORD + 8;
		break;
	case CB_CPUS_PID:
		c.pid = getpid();
		w->cpus[0] = possible_cpus;
		c.cpus_ptr = (uintptr_t)w->cpus;
		c.cpus_bytes = 8;
		break;
	case CB_CPUS_BYTES:
	case CB_CPUS_NOLIST:
	case CB_CPUS_EMPTY:
	case CB_CPUS_BEYOND:
		c.pid = -1;
		w->cpus[0] = possible_cpus;
		c.cpus_ptr = (uintptr_t)w->cpus;
		c.cpus_bytes = 8;
		if (op->kind == CB_CPUS_BYTES)
			c.cpus_bytes = 12;
		else if (op->kind == CB_CPUS_NOLIST)
			c.cpus_ptr = 0;
		else if (op->kind == CB_CPUS_EMPTY)
			w->cpus[0] = 0;
		else if (nr_cpu_ids < 64 * 2) {	/* a CPU that can never exist */
			w->cpus[nr_cpu_ids / 64] |= 1ULL << (nr_cpu_ids % 64);
			c.cpus_bytes = 8 * (nr_cpu_ids / 64 + 1);
		}
		break;
	case CB_BP_FIELDS:
		c.bp_len = 4;
		break;
	case CB_BP_TYPE:
		c.event = PERFREGS_EV_BREAKPOINT;
		c.bp_addr = (uintptr_t)&w->bp_var;
		c.bp_len = 8;
		break;
	case CB_RESERVED0:
		c.reserved0 = 1;
		break;
	case CB_RESERVED:
		c.reserved[2] = 1;
		break;
	case CB_NO_PROCESS:
		c.pid = 0x3ffffff0;	/* above PID_MAX_LIMIT */
		break;
	case CB_NO_WITNESS:
		c.perf_fd = -1;
		break;
	case CB_NOT_PERF:
		c.perf_fd = s->fd;
		break;
	case CB_W_PERIOD:
		wc.period++;
		own_witness = true;
		break;
	case CB_W_TARGET:
		wc.pid = c.pid < 0 ? getpid() : -1;
		own_witness = true;
		break;
	case CB_W_EXCL:
		wc.flags ^= PERFREGS_CF_EXCLUDE_USER;
		own_witness = true;
		break;
	case CB_W_STACK:
		c.stack_bytes = 64;
		own_witness = true;
		break;
	}
	if (own_witness) {
		wfd = prf_witness_open(&wc);
		if (wfd < 0) {
			o->skip = true;
			atomic_fetch_add(&witness_refused, 1);
			return;
		}
		c.perf_fd = wfd;
	}
	memset(w->buf, 0, 2 * page);
	memcpy(w->buf, &c, sizeof(c));
	if (tail)
		w->buf[sizeof(c) + 7] = 1;
	o->err = sys_err(ioctl(s->fd, PERFREGS_IOC_CONFIG, w->buf));
	if (wfd >= 0)
		close(wfd);
	/* E2BIG: the kernel says the size it knows */
	if (o->err == E2BIG && arg->size != sizeof(c))
		fail(o, "E2BIG left size %u, not %zu", arg->size, sizeof(c));
}

static void do_config_fault(struct walker *w, struct wsess *s, const struct op *op,
			    struct outcome *o)
{
	struct perfregs_config c;
	void *arg = NULL;
	struct op base = *op;

	switch (op->kind) {
	case CF_KERNEL:
		arg = (void *)0xffffffff81000000ULL;
		break;
	case CF_LOW:
		arg = (void *)0x10000;
		break;
	case CF_GUARD:		/* the size can be read, the rest cannot */
		arg = w->guard + page - 64;
		*(uint32_t *)arg = sizeof(c);
		break;
	case CF_CPUS:		/* the CPU list cannot be read */
		base.target = TGT_ALL;
		base.event = PERFREGS_EV_CPU_CLOCK;
		base.pages = 1;
		base.period = 1000000;
		base.flags = base.stack = base.wakeup = 0;
		build_config(w, &base, &c);
		c.cpus_ptr = (uintptr_t)w->guard + page;
		c.cpus_bytes = 8;
		arg = &c;
		break;
	}
	o->err = sys_err(ioctl(s->fd, PERFREGS_IOC_CONFIG, arg));
}

static void do_version(struct walker *w, struct wsess *s, const struct op *op,
		       struct outcome *o)
{
	struct perfregs_version *v = (void *)w->buf;
	uint32_t i;

	memset(w->buf, 0xff, op->size);
	v->size = op->size;
	o->err = sys_err(ioctl(s->fd, PERFREGS_IOC_VERSION, v));
	if (o->err)
		return;
	if (v->size != sizeof(*v) || v->major != PERFREGS_ABI_MAJOR ||
	    v->minor != PERFREGS_ABI_MINOR || v->page_size != page ||
	    v->nr_cpu_ids != nr_cpu_ids || v->reserved)
		fail(o, "VERSION said size %u, %u.%u, page %u, %u CPUs, reserved %u",
		     v->size, v->major, v->minor, v->page_size, v->nr_cpu_ids, v->reserved);
	for (i = sizeof(*v); i < op->size; i++)
		if (w->buf[i]) {
			fail(o, "VERSION left byte %u of %u unzeroed", i, op->size);
			break;
		}
}

static void do_version_bad(struct walker *w, struct wsess *s, const struct op *op,
			   struct outcome *o)
{
	struct perfregs_version *v = (void *)w->buf;
	void *arg = v;

	memset(w->buf, 0, 2 * page);
	switch (op->kind) {
	case VB_SMALL:
		v->size = PERFREGS_VERSION_SIZE_VER0 - 8;
		break;
	case VB_PAGE:
		v->size = page + 1;
		break;
	case VB_NULL:
		arg = NULL;
		break;
	case VB_KERNEL:
		arg = (void *)0xffffffff81000000ULL;
		break;
	case VB_GUARD:		/* the size can be read, the rest not written */
		arg = w->guard + page - 8;
		*(uint32_t *)arg = sizeof(*v);
		break;
	}
	o->err = sys_err(ioctl(s->fd, PERFREGS_IOC_VERSION, arg));
	if (op->kind == VB_PAGE && v->size != sizeof(*v))
		fail(o, "E2BIG left size %u, not %zu", v->size, sizeof(*v));
}

static struct wmap *ctl_map(struct wsess *s, int cpu, bool writable)
{
	int i;

	for (i = 0; i < s->nmaps; i++)
		if (!s->maps[i].data && s->maps[i].cpu == cpu &&
		    (!writable || s->maps[i].prot & PROT_WRITE))
			return &s->maps[i];
	return NULL;
}

static struct wmap *data_map(struct wsess *s, int cpu)
{
	int i;

	for (i = 0; i < s->nmaps; i++)
		if (s->maps[i].data && s->maps[i].whole && s->maps[i].cpu == cpu)
			return &s->maps[i];
	return NULL;
}

/* After STOP: each control page mapped holds the kernel's head (and tail). */
static void check_stopped(struct wsess *s, struct outcome *o)
{
	bool ow = s->cfg.flags & PERFREGS_CF_OVERWRITE;
	volatile struct perfregs_ctl *c;
	uint64_t head, tail;
	int i;

	for (i = 0; i < s->nmaps; i++) {
		if (s->maps[i].data)
			continue;
		c = (void *)s->maps[i].addr;
		head = peek64(&c->data_head);
		tail = peek64(&c->data_tail);
		if (head % 8 || (ow && (tail % 8 || head - tail > ring_size(s))))
			fail(o, "after STOP, CPU %d's ring has head %#" PRIx64 " tail %#" PRIx64,
			     s->maps[i].cpu, head, tail);
	}
}

/* After RESET: every ring empty, every counter zero. */
static void check_reset(struct wsess *s, struct outcome *o)
{
	volatile struct perfregs_ctl *c;
	uint64_t sum = 0;
	int i, j;

	for (i = 0; i < s->nmaps; i++) {
		if (s->maps[i].data)
			continue;
		c = (void *)s->maps[i].addr;
		sum = peek64(&c->data_head) | peek64(&c->data_tail) |
		      peek64(&c->produced) | peek64(&c->new_tasks) |
		      peek64(&c->new_tasks_seen);
		for (j = 0; j < PERFREGS_LOST_SLOTS; j++)
			sum |= peek64(&c->lost[j]);
		if (sum)
			fail(o, "after RESET, CPU %d's control page is not all zero "
			     "(head %#" PRIx64 " tail %#" PRIx64 " produced %" PRIu64 ")",
			     s->maps[i].cpu, peek64(&c->data_head),
			     peek64(&c->data_tail), peek64(&c->produced));
	}
}

static void add_map(struct wsess *s, void *p, size_t len, int cpu, bool data, int prot)
{
	struct wmap *m = &s->maps[s->nmaps++];

	m->addr = p;
	m->len = len;
	m->cpu = cpu;
	m->data = data;
	m->whole = true;
	m->prot = prot;
}

static void drop_map(struct wsess *s, int i)
{
	memmove(&s->maps[i], &s->maps[i + 1], (s->nmaps - i - 1) * sizeof(s->maps[0]));
	s->nmaps--;
}

static void do_mmap(struct walker *w, struct wsess *s, const struct op *op,
		    struct outcome *o)
{
	unsigned int pages = s->phase != PH_FRESH ? s->cfg.data_pages : 1;
	uint64_t off = op->data ? PERFREGS_MMAP_DATA(op->cpu, pages) :
				  PERFREGS_MMAP_CTL(op->cpu, pages);
	size_t len = op->data ? pages * page : page;
	volatile struct perfregs_ctl *c;
	void *p;

	p = mmap(NULL, len, op->prot, MAP_SHARED, s->fd, (off_t)(off * page));
	if (p == MAP_FAILED) {
		o->err = errno;
		return;
	}
	add_map(s, p, len, op->cpu, op->data, op->prot);
	c = p;
	/* nobody wrote these since CONFIG: what the kernel put there */
	if (!op->data && has_ring(s, op->cpu) && s->ring[op->cpu].ctl_clean &&
	    (c->version != PERFREGS_ABI_MAJOR || c->cpu != (uint32_t)op->cpu ||
	     c->data_size != ring_size(s)))
		fail(o, "a new control page says version %u, CPU %u, %llu bytes",
		     c->version, c->cpu, (unsigned long long)c->data_size);
}

static void do_mmap_bad(struct walker *w, struct wsess *s, const struct op *op,
			struct outcome *o)
{
	unsigned int pages = s->phase != PH_FRESH ? s->cfg.data_pages : 1;
	uint64_t off = PERFREGS_MMAP_CTL(op->cpu, pages) * page;
	int prot = PROT_READ, flags = MAP_SHARED, cpu;
	size_t len = page;
	void *p;

	switch (op->kind) {
	case MB_PRIVATE:
		flags = MAP_PRIVATE;
		break;
	case MB_LEN:
		len = 2 * page;
		break;
	case MB_CPU:		/* the first CPU without a ring */
		for (cpu = 0; cpu < (int)nr_cpu_ids && has_ring(s, cpu); cpu++)
			;
		off = PERFREGS_MMAP_CTL(cpu, pages) * page;
		break;
	case MB_WDATA:
		off = PERFREGS_MMAP_DATA(op->cpu, pages) * page;
		len = pages * page;
		prot = PROT_READ | PROT_WRITE;
		break;
	case MB_BEYOND:
		off = (1ULL << 36) * page;
		break;
	case MB_INDEX:		/* past the data pages of a CPU, or not a page */
		off = pages > 1 ? (PERFREGS_MMAP_CTL(op->cpu, pages) + 2) * page :
				  off + page / 2;
		break;
	case MB_ZERO:
		len = 0;
		break;
	}
	p = mmap(NULL, len, prot, flags, s->fd, (off_t)off);
	if (p == MAP_FAILED)
		o->err = errno;
	else
		add_map(s, p, len ? len : page, op->cpu, op->kind == MB_WDATA, prot);
}

static void do_munmap(struct walker *w, struct wsess *s, const struct op *op,
		      struct outcome *o)
{
	struct wmap *m = &s->maps[op->map];

	if (op->part && m->len > page) {	/* the first page only */
		o->err = sys_err(munmap(m->addr, page));
		if (!o->err) {
			m->addr += page;
			m->len -= page;
			m->whole = false;
		}
		return;
	}
	o->err = sys_err(munmap(m->addr, m->len));
	if (!o->err)
		drop_map(s, op->map);
}

static void do_mprotect(struct walker *w, struct wsess *s, const struct op *op,
			struct outcome *o)
{
	struct wmap *m = &s->maps[op->map];

	o->err = sys_err(mprotect(m->addr, m->len, op->prot));
	if (!o->err)
		m->prot = op->prot;
}

/* Write n values into a field, each from the data_head of the moment. */
static int hammer(volatile uint8_t *field, int width, const struct op *op,
		  volatile struct perfregs_ctl *c, uint64_t size)
{
	sigjmp_buf jb;
	int sig = sigsetjmp(jb, 0);
	uint32_t i;
	uint64_t v;

	if (!sig) {
		fault_jmp = &jb;
		for (i = 0; i < op->n; i++) {
			v = vk_eval(op->vkind, op->varg, c->data_head, size);
			if (width == 4)
				*(volatile uint32_t *)field = v;
			else
				*(volatile uint64_t *)field = v;
		}
	}
	fault_jmp = NULL;
	return sig;
}

static void do_ctl(struct walker *w, struct wsess *s, const struct op *op,
		   struct outcome *o, int st)
{
	size_t off = fields[op->field].off + op->fidx * fields[op->field].width;
	struct wmap *m;
	int i, sig;

	for (i = 0; i < s->nmaps; i++) {
		m = &s->maps[i];
		if (m->data || (op->cpu >= 0 && m->cpu != op->cpu))
			continue;
		sig = hammer(m->addr + off, fields[op->field].width, op,
			     (void *)m->addr, ring_size(s));
		if (m->prot & PROT_WRITE && sig)
			fail(o, "a write to CPU %d's control page took signal %d", m->cpu, sig);
		if (!(m->prot & PROT_WRITE) && !sig)
			fail(o, "CPU %d's control page took a write where it is read-only",
			     m->cpu);
		if (sig || m->cpu >= MAX_CPUS)
			continue;
		if (op->field == F_DATA_HEAD)
			s->ring[m->cpu].head_ok = false;
		else if (op->field == F_DATA_TAIL)
			s->ring[m->cpu].tail_ok = false;
		else if (op->field <= F_DATA_SIZE)
			s->ring[m->cpu].ctl_clean = false;
	}
	atomic_fetch_add(&cov_field[st][op->field], 1);
}

static void do_touch(struct walker *w, struct wsess *s, const struct op *op,
		     struct outcome *o)
{
	bool data_tried = false;
	uint64_t v = 0;
	int i;

	for (i = 0; i < s->nmaps; i++) {
		struct wmap *m = &s->maps[i];

		if (touch_pages(m->addr, m->len))
			fail(o, "reading a mapped %s page of CPU %d faulted",
			     m->data ? "data" : "control", m->cpu);
		/* the data pages are read-only for good */
		if (m->data && !data_tried) {
			data_tried = true;
			if (!guarded(m->addr + m->len - 8, 8, true, &v))
				fail(o, "CPU %d's data pages took a write", m->cpu);
		}
	}
}

/* What check_ring() says of each record. */
struct rec_check {
	const struct perfregs_rec_header *bad;
	uint64_t n;
};

static int check_record(void *arg, int cpu, const struct perfregs_rec_header *h,
			size_t size)
{
	struct rec_check *rc = arg;

	rc->n++;
	if (h->type == PERFREGS_REC_SAMPLE ?
	    h->size < sizeof(struct perfregs_rec_sample) ||
	    ((const struct perfregs_rec_sample *)h)->cpu != (uint32_t)cpu :
	    h->type != PERFREGS_REC_LOST || h->size != sizeof(struct perfregs_rec_lost))
		rc->bad = h;
	return rc->bad != NULL;
}

/*
 * Read a ring whose head and tail the walker can trust, check every
 * record between them (whole, of a known type, of this CPU), and
 * consume them.  An overwrite ring only while stopped: the kernel moves
 * its tail while it runs.
 */
static void check_ring(struct walker *w, struct wsess *s, int cpu, struct outcome *o)
{
	struct wmap *cm = ctl_map(s, cpu, true), *dm = data_map(s, cpu);
	struct wring *r = &s->ring[cpu];
	bool ow = s->cfg.flags & PERFREGS_CF_OVERWRITE;
	struct perfregs_ctl *c;
	struct rec_check rc = { NULL, 0 };
	uint64_t head, tail, size = ring_size(s), pos, alen;
	long n;

	if (!cm)
		cm = ctl_map(s, cpu, false);
	if (!cm || !dm || !r->head_ok || !r->tail_ok || (ow && s->phase == PH_STARTED))
		return;
	c = (void *)cm->addr;
	head = __atomic_load_n(&c->data_head, __ATOMIC_ACQUIRE);
	tail = __atomic_load_n(&c->data_tail, __ATOMIC_RELAXED);
	if (head % 8 || tail % 8 || head - tail > size) {
		fail(o, "CPU %d's ring has head %#" PRIx64 " and tail %#" PRIx64,
		     cpu, head, tail);
		return;
	}
	pos = tail & (size - 1);
	alen = head - tail < size - pos ? head - tail : size - pos;
	n = prf_walk(dm->addr + pos, alen, dm->addr, head - tail - alen, w->scratch,
		     size, check_record, &rc, cpu, NULL);
	if (n < 0 || rc.bad)
		fail(o, "CPU %d's ring holds a malformed record after %" PRIu64
		     " good ones between %#" PRIx64 " and %#" PRIx64 "%s",
		     cpu, rc.n - !!rc.bad, tail, head,
		     rc.bad ? "" : " (header size)");
	if (cm->prot & PROT_WRITE) {
		__atomic_thread_fence(__ATOMIC_SEQ_CST);	/* D */
		__atomic_store_n(&c->data_tail, head, __ATOMIC_RELAXED);
	}
}

static void do_read(struct walker *w, struct wsess *s, const struct op *op,
		    struct outcome *o)
{
	char buf[64];
	int cpu;

	o->err = sys_err(read(s->fd, buf, sizeof(buf)));
	if (write(s->fd, buf, 8) != -1 || errno != EINVAL)
		fail(o, "write() did not give EINVAL");
	if (lseek(s->fd, 0, SEEK_SET) != -1 || errno != ESPIPE)
		fail(o, "lseek() did not give ESPIPE");
	for (cpu = 0; s->phase != PH_FRESH && cpu < (int)ncpus; cpu++)
		if (has_ring(s, cpu))
			check_ring(w, s, cpu, o);
}

/*
 * poll(): EPOLLERR alone on a session without a configuration; else
 * EPOLLHUP exactly when nothing more can come (not running, or the
 * target process gone); never EPOLLOUT.
 */
static void do_poll(struct walker *w, struct wsess *s, const struct op *op,
		    struct outcome *o)
{
	struct pollfd p = { s->fd, POLLIN | POLLPRI | POLLOUT, 0 };
	bool hup = s->phase != PH_STARTED || target_dead(w, s);
	int ret = poll(&p, 1, 0);

	o->err = sys_err(ret);
	if (ret < 0)
		return;
	if (s->phase == PH_FRESH ? p.revents != POLLERR :
	    p.revents & (POLLERR | POLLOUT | POLLNVAL) || !(p.revents & POLLHUP) != !hup)
		fail(o, "poll() gave %#x", p.revents);
}

/*
 * The child of a fork: none of the parent's rings are mapped in it
 * (VM_DONTCOPY); it maps a ring of the session itself, touches it, and
 * finds the session busy.  Its exit status says which step failed.
 */
static int fork_child(struct walker *w, struct wsess *s)
{
	bool configured = s->phase != PH_FRESH, running = s->phase == PH_STARTED;
	unsigned int pages = configured ? s->cfg.data_pages : 1;
	int i, wfd, cpu = configured ? __builtin_ctzll(s->rings) : 0;
	volatile struct perfregs_ctl *c;
	struct perfregs_version v = { .size = sizeof(v) };
	struct perfregs_config cfg = s->cfg;
	unsigned char vec;
	uint64_t x;
	void *data;

	for (i = 0; i < s->nmaps; i++)
		if (mincore(s->maps[i].addr, page, &vec) == 0 || errno != ENOMEM)
			return 10;
	if (ioctl(s->fd, PERFREGS_IOC_VERSION, &v) || v.major != PERFREGS_ABI_MAJOR)
		return 11;
	c = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_SHARED, s->fd,
		 (off_t)PERFREGS_MMAP_CTL(cpu, pages) * page);
	if (!configured)
		return c == MAP_FAILED && errno == EINVAL ? 0 : 12;
	if (c == MAP_FAILED)
		return 13;
	data = mmap(NULL, pages * page, PROT_READ, MAP_SHARED, s->fd,
		    (off_t)PERFREGS_MMAP_DATA(cpu, pages) * page);
	if (data == MAP_FAILED)
		return 14;
	if (touch_pages(data, pages * page) || touch_pages((void *)c, page))
		return 15;
	x = peek64(&c->new_tasks);
	if (guarded(&c->new_tasks_seen, 8, true, &x) ||
	    guarded(&c->reserved[0], 8, true, &x))
		return 16;
	/* mapped here, so busy whatever the parent's state */
	cfg.perf_fd = wfd = prf_witness_open(&cfg);
	if (wfd >= 0 && (ioctl(s->fd, PERFREGS_IOC_CONFIG, &cfg) == 0 || errno != EBUSY))
		return 17;
	if (running && (ioctl(s->fd, PERFREGS_IOC_START) == 0 || errno != EBUSY))
		return 18;
	if (running && (ioctl(s->fd, PERFREGS_IOC_RESET) == 0 || errno != EBUSY))
		return 19;
	return 0;
}

static void do_fork(struct walker *w, struct wsess *s, const struct op *op,
		    struct outcome *o)
{
	static const char *const step[] = {
		"saw a ring of its parent's mapped", "got no VERSION",
		"mapped a session without a configuration",
		"could not map the control page", "could not map the data pages",
		"faulted reading its rings", "faulted writing its control page",
		"was not refused CONFIG (EBUSY) with a ring mapped",
		"was not refused START of a running session",
		"was not refused RESET of a running session",
	};
	pid_t pid = fork();
	int st;

	if (pid == 0)
		_exit(fork_child(w, s));
	o->err = sys_err(pid);
	if (pid < 0)
		return;
	if (waitpid(pid, &st, 0) != pid)
		fail(o, "waitpid: %s", strerror(errno));
	else if (!WIFEXITED(st))
		fail(o, "the child of fork() died of signal %d", WTERMSIG(st));
	else if (WEXITSTATUS(st) >= 10 && WEXITSTATUS(st) < 20)
		fail(o, "the child of fork() %s", step[WEXITSTATUS(st) - 10]);
	else if (WEXITSTATUS(st))
		fail(o, "the child of fork() exited %d", WEXITSTATUS(st));
}

/* A started session goes: it no longer counts on its target. */
static void session_stopped(struct walker *w, struct wsess *s)
{
	if (s->shared_id >= 0)
		atomic_fetch_sub(&on_target[s->shared_id], 1);
	s->shared_id = -1;
}

static void unmap_all(struct wsess *s)
{
	while (s->nmaps) {
		munmap(s->maps[0].addr, s->maps[0].len);
		drop_map(s, 0);
	}
}

static int open_session(struct walker *w)
{
	return open_at(O_RDWR, WALKER_FD + 24 * w->idx);
}

/*
 * Close and open again.  With keep, the rings stay mapped a while after
 * the close (the session lives on, sampling if it was started), and are
 * read and scribbled on before they go.
 */
static void do_reopen(struct walker *w, struct wsess *s, const struct op *op,
		      struct outcome *o)
{
	struct op hostile = { .vkind = VK_RING, .varg = -4, .n = 64 };
	int i, round;

	if (s->phase == PH_STARTED)
		session_stopped(w, s);
	if (op->keep) {
		close(s->fd);
		for (round = 0; round < 4; round++) {
			for (i = 0; i < s->nmaps; i++) {
				struct wmap *m = &s->maps[i];

				if (touch_pages(m->addr, m->len))
					fail(o, "a ring mapped after its close() faulted");
				if (!m->data && m->prot & PROT_WRITE)
					hammer(m->addr + fields[F_DATA_TAIL].off, 8,
					       &hostile, (void *)m->addr, ring_size(s));
			}
			busy_ms(1);
		}
		unmap_all(s);
	} else {
		unmap_all(s);
		close(s->fd);
	}
	s->fd = open_session(w);
	o->err = s->fd < 0 ? errno : 0;
	s->phase = PH_FRESH;
	s->ops = 0;
	s->opened = w->nlog;
}

static void do_kill(struct walker *w)
{
	bool hit = false;
	int i;

	for (i = 0; i < NR_WSESS; i++)
		if (w->s[i].phase == PH_STARTED && w->s[i].target == TGT_SPIN &&
		    !target_dead(w, &w->s[i]))
			hit = true;
	kill(w->spin, SIGKILL);
	waitpid(w->spin, NULL, 0);
	w->spin = spinner();
	w->spin_gen++;
	if (hit)
		atomic_fetch_add(&kill_started, 1);
}

/* ---- one operation, checked --------------------------------------------------- */

/* Can op run on this session as it is?  (A corpus line may not fit.) */
static bool op_fits(struct wsess *s, const struct op *op, char *why, size_t len)
{
	int i;

	switch (op->verb) {
	case V_CONFIG:
		if (op->pages < 1 || op->pages > MAX_PAGES || op->size < PERFREGS_CONFIG_SIZE_VER0 ||
		    op->size > page || op->event >= PERFREGS_EV_MAX) {
			snprintf(why, len, "pages 1 to %d, size %d to %zu", MAX_PAGES,
				 PERFREGS_CONFIG_SIZE_VER0, page);
			return false;
		}
		return true;
	case V_VERSION:
		if (op->size < PERFREGS_VERSION_SIZE_VER0 || op->size > page) {
			snprintf(why, len, "size %d to %zu", PERFREGS_VERSION_SIZE_VER0, page);
			return false;
		}
		return true;
	case V_MMAP:
	case V_MMAP_BAD:
		if (s->nmaps == NR_WMAPS || op->cpu < 0 || op->cpu >= MAX_CPUS) {
			snprintf(why, len, "%d mappings at most, a CPU below %d",
				 NR_WMAPS, MAX_CPUS);
			return false;
		}
		return true;
	case V_MUNMAP:
	case V_MPROTECT:
		if (op->map >= s->nmaps) {
			snprintf(why, len, "no mapping %d", op->map);
			return false;
		}
		return true;
	case V_CTL:
		for (i = 0; i < s->nmaps; i++)
			if (!s->maps[i].data && (op->cpu < 0 || s->maps[i].cpu == op->cpu))
				return true;
		snprintf(why, len, "no control page of CPU %d mapped", op->cpu);
		return false;
	default:
		return true;
	}
}

/* The session's state after an operation that did what the model said. */
static void apply(struct walker *w, struct wsess *s, const struct op *op,
		  const struct outcome *o)
{
	int cpu;

	if (o->err)
		return;
	switch (op->verb) {
	case V_CONFIG:
		s->phase = PH_CONFIGURED;
		s->cfg = w->cfg_tried;
		s->target = op->target;
		s->target_gen = w->spin_gen;
		s->rings = possible_cpus;
		if (op->target == TGT_CPUS) {
			s->rings &= op->mask;
			s->cpus = op->mask;
			s->cfg.cpus_ptr = (uintptr_t)&s->cpus;
		}
		for (cpu = 0; cpu < MAX_CPUS; cpu++)
			s->ring[cpu] = (struct wring){ true, true, true };
		break;
	case V_START:
		s->phase = PH_STARTED;
		s->shared_id = shared_id(w, s->target);
		if (s->shared_id >= 0 && atomic_fetch_add(&on_target[s->shared_id], 1))
			atomic_fetch_add(&shared_target, 1);
		s->exec0 = execs();
		s->exec_seen = false;
		break;
	case V_STOP:
		if (s->phase != PH_STARTED)
			break;
		session_stopped(w, s);
		s->phase = PH_STOPPED;
		/* STOP stores the kernel's head, and its tail in overwrite mode */
		for (cpu = 0; cpu < MAX_CPUS; cpu++) {
			s->ring[cpu].head_ok = true;
			if (s->cfg.flags & PERFREGS_CF_OVERWRITE)
				s->ring[cpu].tail_ok = true;
		}
		break;
	case V_RESET:
		s->phase = PH_RESET;
		for (cpu = 0; cpu < MAX_CPUS; cpu++)
			s->ring[cpu].head_ok = s->ring[cpu].tail_ok = true;
		break;
	}
}

static void print_log(struct walker *w, int sess)
{
	unsigned long i = w->nlog > LOG_OPS ? w->nlog - LOG_OPS : 0;
	struct wsess *s = &w->s[sess];
	char line[256];

	if (s->opened < i)
		printf("#   (its first %lu operations are no longer in the log)\n", i - s->opened);
	else
		i = s->opened;
	for (; i < w->nlog; i++) {
		const struct op *op = &w->log[i % LOG_OPS];

		if (op->verb < NR_SV && op->sess != sess)
			continue;
		fmt_op(op, line, sizeof(line));
		printf("#   %s\n", line);
	}
}

static void mismatch(struct walker *w, struct wsess *s, const struct op *op, int from,
		     const struct expect *e, const struct outcome *o)
{
	unsigned long n = atomic_fetch_add(&nr_mismatch, 1);
	char line[256];

	w->mismatches++;
	if (n >= 10 && !w->replay)
		return;
	fmt_op(op, line, sizeof(line));
	pthread_mutex_lock(&out_lock);
	if (!s)		/* the walker's own operation */
		printf("# mismatch: '%s': %s\n", line, o->why);
	else if (o->why[0])
		printf("# mismatch: '%s' in state %s: %s\n", line, st_name[from], o->why);
	else
		printf("# mismatch: '%s' in state %s: %s, but session.c says %s%s%s%s%s\n",
		       line, st_name[from], ename(o->err), ename(e->err),
		       e->alt ? " or " : "", e->alt ? ename(e->alt) : "",
		       e->alt2 ? " or " : "", e->alt2 ? ename(e->alt2) : "");
	if (!w->replay) {
		printf("# walker %d, session %d, since it was opened"
		       " (selftests/fuzz_corpus format):\n", w->idx, op->sess);
		print_log(w, op->sess);
	}
	fflush(stdout);
	pthread_mutex_unlock(&out_lock);
}

/* Take a CPU offline or bring it online: 0 or an errno. */
static int set_online(int cpu, bool on)
{
	char path[64];
	int fd, err = 0;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online", cpu);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, on ? "1" : "0", 1) != 1)
		err = errno;
	if (fd >= 0)
		close(fd);
	if (!err && on)
		unplugged_cpus &= ~(1ULL << cpu);
	else if (!err)
		unplugged_cpus |= 1ULL << cpu;
	return err;
}

/* A corpus file's cpu-offline or cpu-online. */
static void do_plug(const struct op *op, struct outcome *o)
{
	bool on = op->verb == V_CPU_ONLINE;
	int err = set_online(op->cpu, on);

	if (err)
		fail(o, "CPU %d did not go %s: %s", op->cpu, on ? "online" : "offline",
		     strerror(err));
}

/* After a mismatch the model cannot be trusted: start the session anew. */
static void resync(struct walker *w, struct wsess *s)
{
	if (s->phase == PH_STARTED)
		session_stopped(w, s);
	unmap_all(s);
	close(s->fd);
	s->fd = open_session(w);
	s->phase = PH_FRESH;
	s->ops = 0;
	s->opened = w->nlog;
}

/*
 * Do op and check the kernel's answer against the model: false on a
 * mismatch (printed, and the session started anew).
 */
static bool run_op(struct walker *w, const struct op *op)
{
	struct wsess *s = op->verb < NR_SV ? &w->s[op->sess] : NULL;
	struct outcome o = { 0 };
	struct expect e = { 0 };
	int from = s ? sess_st(s) : 0, to;
	struct timespec t0, t1;

	w->log[w->nlog++ % LOG_OPS] = *op;
	w->bp_var++;		/* a write for the breakpoint sessions */
	if (s && !op_fits(s, op, o.why, sizeof(o.why))) {
		mismatch(w, s, op, from, &e, &o);
		return false;
	}
	if (s)
		e = model(w, s, op);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	switch (op->verb) {
	case V_CONFIG:
		do_config(w, s, op, &o);
		break;
	case V_CONFIG_BAD:
		do_config_bad(w, s, op, &o);
		break;
	case V_CONFIG_FAULT:
		do_config_fault(w, s, op, &o);
		break;
	case V_VERSION:
		do_version(w, s, op, &o);
		break;
	case V_VERSION_BAD:
		do_version_bad(w, s, op, &o);
		break;
	case V_START:
		o.err = sys_err(ioctl(s->fd, PERFREGS_IOC_START));
		if (o.err == ENOSPC)
			atomic_fetch_add(&start_nospace, 1);
		break;
	case V_STOP:
		o.err = sys_err(ioctl(s->fd, PERFREGS_IOC_STOP));
		if (!o.err && s->phase == PH_STARTED)
			check_stopped(s, &o);
		break;
	case V_RESET:
		o.err = sys_err(ioctl(s->fd, PERFREGS_IOC_RESET));
		if (!o.err)
			check_reset(s, &o);
		break;
	case V_IOCTL:
		memset(w->buf, 0, 2 * page);
		*(uint32_t *)w->buf = sizeof(struct perfregs_version);
		o.err = sys_err(ioctl(s->fd, (unsigned long)op->cmd, w->buf));
		break;
	case V_MMAP:
		do_mmap(w, s, op, &o);
		break;
	case V_MMAP_BAD:
		do_mmap_bad(w, s, op, &o);
		break;
	case V_MUNMAP:
		do_munmap(w, s, op, &o);
		break;
	case V_MPROTECT:
		do_mprotect(w, s, op, &o);
		break;
	case V_CTL:
		do_ctl(w, s, op, &o, from);
		break;
	case V_TOUCH:
		do_touch(w, s, op, &o);
		break;
	case V_READ:
		do_read(w, s, op, &o);
		break;
	case V_POLL:
		do_poll(w, s, op, &o);
		break;
	case V_FORK:
		do_fork(w, s, op, &o);
		break;
	case V_REOPEN:
		do_reopen(w, s, op, &o);
		break;
	case V_KILL:
		do_kill(w);
		break;
	case V_SPIN:
		busy_ms(op->n);
		break;
	case V_CPU_OFFLINE:
	case V_CPU_ONLINE:
		do_plug(op, &o);
		break;
	}
	if (o.why[0] && !s) {	/* the walker's own operation failed */
		mismatch(w, NULL, op, 0, &e, &o);
		return false;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	atomic_fetch_add(&verb_ns[op->verb], (t1.tv_sec - t0.tv_sec) * 1000000000UL +
			 t1.tv_nsec - t0.tv_nsec);
	atomic_fetch_add(&verb_n[op->verb], 1);
	if (o.skip) {
		w->skipped++;
		return true;
	}
	atomic_fetch_add(&walker_ops, 1);
	note_errno(o.err);
	if (!s)
		return true;
	s->ops++;
	atomic_fetch_add(&cov[from][op->verb], 1);
	if ((o.err != e.err && (!e.alt || o.err != e.alt) &&
	     (!e.alt2 || o.err != e.alt2)) || o.why[0]) {
		mismatch(w, s, op, from, &e, &o);
		resync(w, s);
		return false;
	}
	apply(w, s, op, &o);
	if (s->phase == PH_STARTED && s->target == TGT_EXEC && !s->exec_seen &&
	    execs() != s->exec0) {
		s->exec_seen = true;
		atomic_fetch_add(&exec_started, 1);
	}
	to = sess_st(s);
	if (to != from)
		atomic_fetch_add(&trans[from][to], 1);
	return true;
}

/* ---- the walkers ------------------------------------------------------------------ */

/* A CPU with a ring in the session, or any CPU while it has none. */
static int some_cpu(struct walker *w, struct wsess *s)
{
	uint64_t set = s->phase != PH_FRESH ? s->rings : possible_cpus;
	int n = __builtin_popcountll(set), k = rnd(&w->rnd) % n, cpu;

	for (cpu = 0; ; cpu++)
		if ((set >> cpu & 1) && !k--)
			return cpu;
}

/* The field written least often in this state, and how often. */
static unsigned long least_field(int st, int *field)
{
	unsigned long least = ~0UL, c;
	int f;

	for (f = 0; f < NR_FIELDS; f++) {
		c = atomic_load(&cov_field[st][f]);
		if (c < least) {
			least = c;
			if (field)
				*field = f;
		}
	}
	return least;
}

/* Does the coverage check still miss something in this state? */
static bool st_needy(int st)
{
	int v, to;

	for (v = 0; v < NR_IOCTL_V; v++)
		if (!atomic_load(&cov[st][v]))
			return true;
	for (to = 0; to < NR_ST; to++)
		if (expected[st][to] && !atomic_load(&trans[st][to]))
			return true;
	return st == ST_STARTED_M && !least_field(st, NULL);
}

/*
 * The first move of a shortest way to a state where something is still
 * missing, or -1.  (A way through munmap() may take one per mapping.)
 */
static int navigate(struct wsess *s, int st)
{
	int first[NR_ST], queue[NR_ST], head = 0, tail = 0, i, to, at;

	for (i = 0; i < NR_ST; i++)
		first[i] = -2;
	first[st] = -1;
	queue[tail++] = st;
	while (head < tail) {
		at = queue[head++];
		if (at != st && st_needy(at))
			return first[at];
		for (i = 0; i < NR_MOVES; i++) {
			to = next_st(at, moves[i]);
			if (to == at || first[to] != -2 ||
			    (at == st && moves[i] == V_MUNMAP && !s->nmaps))
				continue;
			first[to] = at == st ? moves[i] : first[at];
			queue[tail++] = to;
		}
	}
	return -1;
}

/*
 * Now and then the ioctl reached least often in this state, else an
 * operation not reached twice there (for writes into the control page,
 * the field written least), or the
 * move to the state reached least often from here (munmap() steers
 * toward the unmapped state one mapping at a time): every cell and
 * every transition gets its turn early.  Else by weight.
 */
static int pick_verb(struct walker *w, struct wsess *s, int st)
{
	static const uint8_t weight[NR_SV] = {
		[V_CONFIG] = 10, [V_CONFIG_BAD] = 4, [V_CONFIG_FAULT] = 2,
		[V_VERSION] = 2, [V_VERSION_BAD] = 2, [V_START] = 10,
		[V_STOP] = 7, [V_RESET] = 5, [V_IOCTL] = 2, [V_MMAP] = 7,
		[V_MMAP_BAD] = 3, [V_MUNMAP] = 9, [V_MPROTECT] = 2,
		[V_CTL] = 12, [V_TOUCH] = 3, [V_READ] = 4, [V_POLL] = 3,
		[V_FORK] = 1, [V_REOPEN] = 1,
	};
	unsigned long least, c;
	int v, i, to, best = -1, total = 0, r, first = rnd(&w->rnd) % NR_SV;

	/*
	 * Half the time gone and something still missing (a loaded
	 * machine, a slow kernel): mostly go and get it.
	 */
	if (atomic_load(&hurry) && rnd(&w->rnd) % 4) {
		for (i = 0; i < NR_SV && best < 0; i++) {
			v = (first + i) % NR_SV;
			if (v < NR_IOCTL_V && !atomic_load(&cov[st][v]))
				best = v;
		}
		for (i = 0; i < NR_MOVES && best < 0; i++) {
			to = next_st(st, moves[i]);
			if (expected[st][to] && !atomic_load(&trans[st][to]) &&
			    (moves[i] != V_MUNMAP || s->nmaps))
				best = moves[i];
		}
		if (best < 0 && st == ST_STARTED_M && !least_field(st, NULL))
			best = V_CTL;
		if (best < 0 && !st_needy(st))
			best = navigate(s, st);
		if (best >= 0) {
			atomic_fetch_add(&hurried, 1);
			return best;
		}
	}
	switch (rnd(&w->rnd) % 8) {
	case 0:
	case 1:
		/* the ioctls first: the coverage check wants each in every state */
		least = 8;
		for (i = 0; i < NR_SV; i++) {
			v = (first + i) % NR_SV;
			c = atomic_load(&cov[st][v]);
			if (v < NR_IOCTL_V && c < least) {
				least = c;
				best = v;
			}
		}
		if (best >= 0)
			break;
		least = 2;
		for (i = 0; i < NR_SV; i++) {
			v = (first + i) % NR_SV;
			c = v == V_CTL ? least_field(st, NULL) : atomic_load(&cov[st][v]);
			if (v >= NR_IOCTL_V && verb_applies(v, st) && c < least) {
				least = c;
				best = v;
			}
		}
		break;
	case 2:
		least = 16;
		for (i = 0; i < NR_MOVES; i++) {
			v = moves[(first + i) % NR_MOVES];
			to = next_st(st, v);
			if (to == st || (v == V_MUNMAP && !s->nmaps))
				continue;
			c = atomic_load(&trans[st][to]);
			if (c < least) {
				least = c;
				best = v;
			}
		}
		break;
	}
	if (best >= 0)
		return best;
	for (v = 0; v < NR_SV; v++)
		if (verb_applies(v, st))
			total += weight[v];
	r = rnd(&w->rnd) % total;
	for (v = 0; ; v++) {
		if (!verb_applies(v, st))
			continue;
		if (r < weight[v])
			return v;
		r -= weight[v];
	}
}

static void gen_config(struct walker *w, struct op *op)
{
	static const uint8_t tgts[] = {
		TGT_SELF, TGT_SELF, TGT_SPIN, TGT_SPIN, TGT_EXEC, TGT_EXEC,
		TGT_EXEC, TGT_SHARED, TGT_ALL, TGT_ALL, TGT_CPUS,
	};
	uint64_t *r = &w->rnd;
	bool task = (op->target = tgts[rnd(r) % sizeof(tgts)]) < TGT_ALL, light;
	uint32_t e = rnd(r) % 32, size, max;

	op->event = e < 14 ? PERFREGS_EV_CPU_CLOCK :
		    e < 18 ? (task ? PERFREGS_EV_TASK_CLOCK : PERFREGS_EV_CPU_CLOCK) :
		    e < 23 ? PERFREGS_EV_PAGE_FAULTS :
		    e < 27 ? PERFREGS_EV_CONTEXT_SWITCHES :
		    e < 31 ? PERFREGS_EV_NMI : PERFREGS_EV_BREAKPOINT;
	op->pages = 1 << (rnd(r) % 4);
	size = op->pages * page;
	/*
	 * Spinners and the exec() target sleep most of the time and can be
	 * sampled often; this test's own threads and every CPU less: the
	 * samples cost the emulated guest the time the fuzzing needs.
	 */
	light = op->target == TGT_SPIN || op->target == TGT_EXEC || op->target == TGT_SHARED;
	switch (op->event) {
	case PERFREGS_EV_CPU_CLOCK:
	case PERFREGS_EV_TASK_CLOCK:
		op->period = (light ? 200000 : 2000000) + rnd(r) % 4000000;
		if (rnd(r) % 8 == 0) {
			op->flags |= PERFREGS_CF_FREQ;
			op->period = light ? 100 + rnd(r) % 900 : 50 + rnd(r) % 200;
		}
		break;
	case PERFREGS_EV_PAGE_FAULTS:
		op->period = light ? 1 + rnd(r) % 16 : 64 + rnd(r) % 512;
		break;
	case PERFREGS_EV_CONTEXT_SWITCHES:
		op->period = light ? 1 + rnd(r) % 8 : 32 + rnd(r) % 256;
		break;
	case PERFREGS_EV_NMI:
		if (rnd(r) % 4 == 0)
			op->flags |= PERFREGS_CF_NMI_UNKNOWN;
		break;
	default:
		op->period = 1;
	}
	if (rnd(r) % 2)
		op->flags |= PERFREGS_CF_OVERWRITE;
	if (rnd(r) % 4 == 0)
		op->flags |= PERFREGS_CF_EXCLUDE_KERNEL;
	if (rnd(r) % 16 == 0)
		op->flags |= PERFREGS_CF_EXCLUDE_USER;
	if (task && op->event != PERFREGS_EV_NMI && rnd(r) % 8 == 0)
		op->flags |= PERFREGS_CF_INHERIT;
	if (rnd(r) % 4 == 0) {
		max = size / 2 - REGS_RECORD;
		if (max > 4096)
			max = 4096;
		op->stack = 8 * (1 + rnd(r) % (max / 8));
	}
	if (rnd(r) % 4 == 0)
		op->wakeup = rnd(r) % (size + 1);
	/*
	 * Some of the SIMD state the CPU offers, in a ring whose half holds
	 * it without a stack even with AVX-512's 2 KiB of zmm.
	 */
	if (!op->stack && op->pages >= 4 && rnd(r) % 4 == 0)
		op->simd = simd_offered & rnd(r);
	/*
	 * Kernel call chains (minor 2), in every kernel-mode sample: in a
	 * ring whose half holds the deepest without a stack or SIMD state.
	 */
	if (!op->stack && !op->simd && !(op->flags & PERFREGS_CF_EXCLUDE_KERNEL) &&
	    rnd(r) % 3 == 0)
		op->kchain = 1 + rnd(r) % PERFREGS_MAX_KCHAIN;
	/*
	 * User call chains through the frame pointers (minor 3): whatever
	 * the sampled tasks' frame pointers hold, in a ring whose half
	 * holds both chains at their deepest beside a small stack.
	 */
	if (op->pages >= 2 && !op->simd && op->stack <= 512 && rnd(r) % 3 == 0)
		op->uchain = 1 + rnd(r) % PERFREGS_MAX_UCHAIN;
	if (rnd(r) % 8 == 0)	/* a bigger structure, zero beyond ours */
		op->size = (const uint32_t[]){ 128, 256, 4096 }[rnd(r) % 3];
	if (op->target == TGT_CPUS)
		op->mask = rnd(r) % 3 == 0 ? possible_cpus : 1ULL << some_cpu(w, &w->s[op->sess]);
}

static uint32_t gen_cmd(uint64_t *r)
{
	uint32_t cmd;

	for (;;) {
		switch (rnd(r) % 4) {
		case 0:		/* a number we do not have */
			cmd = _IOC(rnd(r) % 4, PERFREGS_IOC_MAGIC, 5 + rnd(r) % 251,
				   rnd(r) % (1 << _IOC_SIZEBITS));
			break;
		case 1:		/* START, STOP, RESET with a size */
			cmd = _IOC(rnd(r) % 4, PERFREGS_IOC_MAGIC, 2 + rnd(r) % 3,
				   1 + rnd(r) % ((1 << _IOC_SIZEBITS) - 1));
			break;
		case 2:		/* VERSION and CONFIG in the wrong direction */
			cmd = _IOC(rnd(r) % 4, PERFREGS_IOC_MAGIC, rnd(r) % 2,
				   rnd(r) % (1 << _IOC_SIZEBITS));
			break;
		default:
			cmd = rnd(r);
		}
		if (ioctl_class(cmd) == V_IOCTL)
			return cmd;
	}
}

static void gen_value(struct walker *w, struct wsess *s, struct op *op)
{
	uint64_t *r = &w->rnd;

	switch (rnd(r) % 8) {
	case 0:		/* issue 18's: one ring behind the next boundary minus 4 */
		op->vkind = VK_RING;
		op->varg = -4;
		break;
	case 1:
		op->vkind = VK_RING;
		op->varg = (int64_t)(rnd(r) % 33) - 16;
		break;
	case 2:
		op->vkind = VK_EDGE;
		op->varg = (int64_t)(rnd(r) % 33) - 16;
		break;
	case 3:		/* around head, 8-aligned or not */
		op->vkind = VK_HEAD;
		op->varg = (int64_t)(rnd(r) % 128) * 8 - 512 + (rnd(r) % 4 ? 0 : rnd(r) % 8);
		break;
	case 4:		/* a ring behind head, just past */
		op->vkind = VK_HEAD;
		op->varg = -(int64_t)ring_size(s) + 1 + rnd(r) % 16;
		break;
	case 5:
		op->vkind = VK_LIT;
		op->varg = pick(r, interesting, NR_INTERESTING);
		break;
	default:
		op->vkind = VK_LIT;
		op->varg = rnd(r);
	}
}

static void gen_op(struct walker *w, struct op *op)
{
	uint64_t *r = &w->rnd;
	struct wsess *s;
	int st, i, f = 0, sampled = 0;

	memset(op, 0, sizeof(*op));
	op->n = 1;
	op->size = sizeof(struct perfregs_config);
	op->pages = 1;
	op->prot = PROT_READ | PROT_WRITE;
	/* the walker's spinner dies now and then, mostly while sampled */
	for (i = 0; i < NR_WSESS; i++)
		sampled += w->s[i].phase == PH_STARTED && w->s[i].target == TGT_SPIN &&
			   !target_dead(w, &w->s[i]);
	if (rnd(r) % (sampled ? 24 : 256) == 0) {
		op->verb = V_KILL;
		return;
	}
	if (rnd(r) % 128 == 0) {
		op->verb = V_SPIN;
		op->n = 1 + rnd(r) % 4;
		return;
	}
	op->sess = rnd(r) % NR_WSESS;
	s = &w->s[op->sess];
	st = sess_st(s);
	op->verb = s->ops >= SESSION_LIFE ? V_REOPEN : pick_verb(w, s, st);
	/* a session sampling the exec() target mostly waits for one */
	if ((op->verb == V_STOP || op->verb == V_REOPEN) && s->phase == PH_STARTED &&
	    s->target == TGT_EXEC && !s->exec_seen && rnd(r) % 4) {
		op->verb = V_SPIN;
		op->n = 2;
		return;
	}
	/* a bad mmap() may map too (the model checks it has room for one) */
	if ((op->verb == V_MMAP || op->verb == V_MMAP_BAD) && s->nmaps == NR_WMAPS)
		op->verb = V_MUNMAP;
	if (op->verb == V_CTL) {	/* it needs a control page */
		for (i = 0; i < s->nmaps && s->maps[i].data; i++)
			;
		if (i == s->nmaps)
			op->verb = s->nmaps == NR_WMAPS ? V_MUNMAP : V_MMAP;
	}
	switch (op->verb) {
	case V_CONFIG:
		gen_config(w, op);
		break;
	case V_CONFIG_BAD:
		op->kind = rnd(r) % NR_CB;
		op->target = (const uint8_t[]){ TGT_SELF, TGT_SPIN, TGT_ALL }[rnd(r) % 3];
		break;
	case V_CONFIG_FAULT:
		op->kind = rnd(r) % NR_CF;
		break;
	case V_VERSION:
		/* ours, or any size the module takes: VER0's (24) to a page */
		op->size = rnd(r) % 2 ? sizeof(struct perfregs_version) :
			   PERFREGS_VERSION_SIZE_VER0 +
			   rnd(r) % (page - PERFREGS_VERSION_SIZE_VER0 + 1);
		break;
	case V_VERSION_BAD:
		op->kind = rnd(r) % NR_VB;
		break;
	case V_IOCTL:
		op->cmd = gen_cmd(r);
		break;
	case V_MMAP:
		op->data = rnd(r) % 2;
		op->cpu = some_cpu(w, s);
		op->prot = op->data || rnd(r) % 4 == 0 ? PROT_READ : PROT_READ | PROT_WRITE;
		break;
	case V_MMAP_BAD:
		op->kind = rnd(r) % NR_MB;
		op->cpu = some_cpu(w, s);
		break;
	case V_MUNMAP:
		op->map = rnd(r) % s->nmaps;
		op->part = s->maps[op->map].len > page && rnd(r) % 4 == 0;
		break;
	case V_MPROTECT:
		op->map = rnd(r) % s->nmaps;
		op->prot = rnd(r) % 2 ? PROT_READ : PROT_READ | PROT_WRITE;
		break;
	case V_CTL:
		for (i = 0; s->maps[i].data; i++)
			;
		op->cpu = rnd(r) % 3 == 0 ? -1 : s->maps[i].cpu;
		op->field = rnd(r) % NR_FIELDS;
		if (rnd(r) % 2 || least_field(st, NULL) < 4) {
			least_field(st, &f);
			op->field = f;
		}
		op->fidx = rnd(r) % fields[op->field].n;
		gen_value(w, s, op);
		if (rnd(r) % 8 == 0)
			op->n = 1 + rnd(r) % 256;
		break;
	case V_REOPEN:
		op->keep = rnd(r) % 2;
		break;
	}
}

static void walker_init(struct walker *w, int idx)
{
	int i;

	memset(w, 0, sizeof(*w));
	w->idx = idx;
	w->rnd = seed0 ^ (0x2545f4914f6cdd1dULL * (idx + 7));
	w->guard = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	mprotect(w->guard + page, page, PROT_NONE);
	w->buf = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	w->scratch = malloc(MAX_PAGES * page);
	w->spin = spinner();
	for (i = 0; i < NR_WSESS; i++) {
		w->s[i].fd = open_session(w);
		w->s[i].shared_id = -1;
	}
}

static void walker_fini(struct walker *w)
{
	int i;

	for (i = 0; i < NR_WSESS; i++) {
		if (w->s[i].phase == PH_STARTED)
			session_stopped(w, &w->s[i]);
		unmap_all(&w->s[i]);
		close(w->s[i].fd);
	}
	kill(w->spin, SIGKILL);
	waitpid(w->spin, NULL, 0);
	munmap(w->guard, 2 * page);
	munmap(w->buf, 2 * page);
	free(w->scratch);
}

static void *walker_main(void *arg)
{
	struct walker *w = calloc(1, sizeof(*w));
	struct op op;

	walker_init(w, (int)(uintptr_t)arg);
	while (!atomic_load(&stop)) {
		gen_op(w, &op);
		run_op(w, &op);
	}
	walker_fini(w);
	return NULL;
}

/* ---- the corpus ------------------------------------------------------------------- */

static const char *corpus_dir(void)
{
	static char dir[4200];
	const char *e = getenv("PERFREGS_FUZZ_CORPUS");

	if (e && *e)
		return e;
	snprintf(dir, sizeof(dir), "%s/fuzz_corpus", selftest_dir());
	return dir;
}

static int is_ops(const struct dirent *d)
{
	size_t n = strlen(d->d_name);

	return n > 4 && !strcmp(d->d_name + n - 4, ".ops");
}

/*
 * Replay one file on this thread, from fresh sessions: every operation
 * checked as the walkers check theirs.  Returns the mismatches, -1 when
 * the file does not parse (or a CPU it took offline stayed so), or -2
 * when it cannot run here; why says why.
 */
static int replay(const char *path, int *nops, char *why, size_t whylen)
{
	struct walker *w = calloc(1, sizeof(*w));
	char line[1024];
	struct op op;
	FILE *fp = fopen(path, "r");
	int lineno = 0, ret = 0, fails;
	unsigned long skipped;

	*nops = 0;
	if (!fp || !w) {
		snprintf(why, whylen, "cannot open it: %s", strerror(errno));
		free(w);
		return -1;
	}
	/* first the whole file: does it parse, can its CPUs go offline here? */
	while (fgets(line, sizeof(line), fp)) {
		lineno++;
		ret = parse_op(line, &op, why, whylen);
		if (ret < 0) {
			size_t n = strlen(why);

			snprintf(why + n, whylen - n, " (line %d)", lineno);
			break;
		}
		if (ret && (op.verb == V_CPU_OFFLINE || op.verb == V_CPU_ONLINE) &&
		    (op.cpu < 0 || op.cpu >= MAX_CPUS || !(pluggable_cpus >> op.cpu & 1) ||
		     geteuid() || foreign_plug)) {
			snprintf(why, whylen, foreign_plug ?
				 "CPU %d goes offline and online by another program meanwhile "
				 "(PERFREGS_FUZZ_HOTPLUG) (line %d)" :
				 "CPU %d cannot go offline here (line %d)", op.cpu, lineno);
			ret = -2;
			break;
		}
	}
	if (ret < 0) {
		fclose(fp);
		free(w);
		return ret;
	}
	rewind(fp);
	lineno = 0;
	walker_init(w, MAX_WALKERS);
	w->replay = true;
	while (fgets(line, sizeof(line), fp)) {
		lineno++;
		if (parse_op(line, &op, why, whylen) <= 0)
			continue;
		++*nops;
		skipped = w->skipped;
		if (!run_op(w, &op)) {
			pthread_mutex_lock(&out_lock);
			printf("#   at line %d of %s\n", lineno, path);
			pthread_mutex_unlock(&out_lock);
		} else if (w->skipped != skipped) {
			/*
			 * What follows would test a fresh session, not the
			 * file's: a failure, unless a CPU it names may have
			 * gone offline under it.
			 */
			printf("# line %d of %s: perf refused the CONFIG's witness%s\n",
			       lineno, path, foreign_plug ? " (CPUs come and go meanwhile)" : "");
			w->mismatches += !foreign_plug;
		}
	}
	fclose(fp);
	fails = w->mismatches;
	walker_fini(w);
	free(w);
	/* every CPU the file took offline comes back */
	while (unplugged_cpus) {
		int cpu = __builtin_ctzll(unplugged_cpus);
		int err = set_online(cpu, true);

		if (err) {
			snprintf(why, whylen, "CPU %d did not come back online: %s",
				 cpu, strerror(err));
			unplugged_cpus &= ~(1ULL << cpu);
			ret = -1;
		}
	}
	return ret < 0 ? ret : fails;
}

/* ---- the report ------------------------------------------------------------------- */

/*
 * Print the tables to out; returns how many required cells and
 * transitions were missed (out /dev/null: only count them).
 */
static int coverage_report(FILE *out)
{
	char missing[4096] = "";
	size_t mlen = 0;
	int st, v, f, to, nmiss = 0;

#define MISS(...) (nmiss++, mlen += snprintf(missing + mlen, \
	mlen < sizeof(missing) ? sizeof(missing) - mlen : 0, __VA_ARGS__))
	fprintf(out, "# coverage: inputs by state (rows) and operation (columns); - where it cannot apply.\n"
	       "# Required: every ioctl (the first nine) in every state, every other operation\n"
	       "# somewhere (fork with rings mapped), every field written while sampling, every\n"
	       "# transition session.c allows, and the targets' and chaos' cases below.\n");
	fprintf(out, "# %-15s", "");
	for (v = 0; v < NR_SV; v++)
		fprintf(out, " %8s", verb_col[v]);
	fprintf(out, "\n");
	for (st = 0; st < NR_ST; st++) {
		fprintf(out, "# %-15s", st_name[st]);
		for (v = 0; v < NR_SV; v++) {
			unsigned long n = atomic_load(&cov[st][v]);

			if (!verb_applies(v, st)) {
				fprintf(out, " %8s", "-");
				continue;
			}
			fprintf(out, " %8lu", n);
			if (!n && v < NR_IOCTL_V)
				MISS(" %s x %s", st_name[st], verb_name[v]);
		}
		fprintf(out, "\n");
	}
	/* the other operations: each somewhere, fork() with rings mapped */
	for (v = NR_IOCTL_V; v < NR_SV; v++) {
		unsigned long n = 0;

		for (st = 0; st < NR_ST; st++)
			if (verb_applies(v, st) && (v != V_FORK || st_mapped(st)))
				n += atomic_load(&cov[st][v]);
		if (!n)
			MISS(" %s%s", verb_name[v], v == V_FORK ? " with rings mapped" : "");
	}
	fprintf(out, "# control-page fields written, by state\n# %-15s", "");
	for (f = 0; f < NR_FIELDS; f++)
		fprintf(out, " %14s%s", fields[f].name, fields[f].n > 1 ? "[]" : "  ");
	fprintf(out, "\n");
	for (st = 0; st < NR_ST; st++) {
		if (!st_mapped(st))
			continue;
		fprintf(out, "# %-15s", st_name[st]);
		for (f = 0; f < NR_FIELDS; f++) {
			unsigned long n = atomic_load(&cov_field[st][f]);

			fprintf(out, " %16lu", n);
			/* every field while sampling, the point of issue 18 */
			if (!n && st == ST_STARTED_M)
				MISS(" %s x %s", st_name[st], fields[f].name);
		}
		fprintf(out, "\n");
	}
	fprintf(out, "# state transitions seen (* expected but never seen, ! not expected)\n");
	for (st = 0; st < NR_ST; st++)
		for (to = 0; to < NR_ST; to++) {
			unsigned long n = atomic_load(&trans[st][to]);

			if (!n && !expected[st][to])
				continue;
			fprintf(out, "#   %-15s -> %-15s %8lu%s\n", st_name[st], st_name[to], n,
			       !n ? " *" : !expected[st][to] ? " !" : "");
			if (!n || !expected[st][to])
				MISS(" %s -> %s%s", st_name[st], st_name[to],
				     n ? " (not expected)" : "");
		}
	fprintf(out, "# targets: %lu STARTs on a target another session sampled, "
	       "%lu spinners killed while sampled, %lu sessions sampled an exec() "
	       "(of %" PRIu64 " exec()s)\n", atomic_load(&shared_target),
	       atomic_load(&kill_started), atomic_load(&exec_started), execs());
	if (!atomic_load(&shared_target))
		MISS(" a target sampled by two sessions");
	if (!atomic_load(&kill_started))
		MISS(" a target killed while sampled");
	if (!atomic_load(&exec_started))
		MISS(" a target exec()ing while sampled");
	fprintf(out, "# chaos on sampling sessions: %lu armed, %lu closed, %lu unmapped, "
	       "%lu mapped, %lu forks\n", atomic_load(&nr_armed),
	       atomic_load(&armed_close), atomic_load(&armed_munmap),
	       atomic_load(&armed_mmap), atomic_load(&armed_fork));
	if (!atomic_load(&armed_close) || !atomic_load(&armed_munmap) ||
	    !atomic_load(&armed_mmap) || !atomic_load(&armed_fork))
		MISS(" chaos (close, munmap, mmap, fork) on a sampling session");
	if (nmiss)
		fprintf(out, "# never reached:%s\n", missing);
#undef MISS
	return nmiss;
}

/* ---- main ---------------------------------------------------------------------- */

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

/* The possible CPUs below MAX_CPUS, from sysfs: "0-3,5". */
static uint64_t read_possible(void)
{
	char buf[256], *p = buf;
	uint64_t set = 0;
	long a, b;

	if (read_file("/sys/devices/system/cpu/possible", buf, sizeof(buf)))
		return 1;
	while (*p) {
		a = b = strtol(p, &p, 10);
		if (*p == '-')
			b = strtol(p + 1, &p, 10);
		for (; a <= b && a < MAX_CPUS; a++)
			set |= 1ULL << a;
		if (*p != ',')
			break;
		p++;
	}
	return set ? set : 1;
}

static void setup(void)
{
	struct sigaction sa = { .sa_handler = on_fault, .sa_flags = SA_NODEFER };
	struct perfregs_version v = { .size = sizeof(v) };
	struct rlimit rl;
	int fd, i, j;

	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	fd = open(PERFREGS_DEVICE, O_RDWR);
	if (fd >= 0 && ioctl(fd, PERFREGS_IOC_VERSION, &v) == 0)
		nr_cpu_ids = v.nr_cpu_ids;
	if (fd >= 0 && v.size >= PERFREGS_VERSION_SIZE_VER1)
		simd_offered = v.simd_offered;
	if (fd >= 0)
		close(fd);
	/* what the state machine allows: each operation that moves a session */
	for (i = 0; i < NR_ST; i++)
		for (j = 0; j < NR_MOVES; j++)
			if (next_st(i, moves[j]) != i)
				expected[i][next_st(i, moves[j])] = true;
	possible_cpus = read_possible();
	foreign_plug = env_long("PERFREGS_FUZZ_HOTPLUG", 0) != 0;
	for (i = 0; i < MAX_CPUS; i++) {
		char path[64];

		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online", i);
		if ((possible_cpus >> i & 1) && access(path, W_OK) == 0)
			pluggable_cpus |= 1ULL << i;
	}
	ncpus = 64 - __builtin_clzll(possible_cpus);
	if (!nr_cpu_ids)
		nr_cpu_ids = ncpus;
	arena = mmap(NULL, NR_ARENA * ARENA_PAGES * page, PROT_NONE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	for (i = 0; i < NR_ARENA; i++)
		arena_fd[i] = -1;
	for (i = 0; i < NR_SLOTS; i++) {
		slots[i] = open_at(O_RDWR, CHAOS_FD);
		armed[i] = -1;
	}
	for (i = 0; i < NR_TARGETS; i++)
		targets[i] = spinner();
	exec_target = start_exec_target();
}

int main(int argc, char **argv)
{
	long secs = env_long("PERFREGS_FUZZ_SECONDS", 10);
	long nthreads = env_long("PERFREGS_FUZZ_THREADS", 4);
	long nwalkers = env_long("PERFREGS_FUZZ_WALKERS", 4);
	const char *ko = getenv("PERFREGS_KO");
	pthread_t th[64 + MAX_WALKERS];
	char cmd[512], bad[512] = "", why[512];
	struct dirent **files = NULL;
	struct timespec t0, t1;
	FILE *devnull;
	size_t i, len = 0;
	int nfiles, ok, test = 0, failed = 0, nmiss, fails, nops;
	double elapsed;
	unsigned long inputs;

	if (argc == 4 && !strcmp(argv[1], "--exec-loop"))
		return exec_loop(argv);
	if (argc == 2 && !strcmp(argv[1], "--spin"))
		return spin_loop();
	page = getpagesize();
	seed0 = env_long("PERFREGS_FUZZ_SEED", 0);
	if (!seed0)
		seed0 = (uint64_t)time(NULL) * 2654435761ULL | 1;
	nfiles = scandir(corpus_dir(), &files, is_ops, alphasort);
	printf("TAP version 13\n1..%d\n", (nfiles > 0 ? nfiles : 1) + 5);
	if (!module_loaded()) {
		for (i = 0; i < (size_t)(nfiles > 0 ? nfiles : 1) + 5; i++)
			printf("ok %zu # SKIP perfregs is not loaded\n", i + 1);
		return 4;
	}
	if (nthreads < 0 || nthreads > 64)
		nthreads = 4;
	if (nwalkers < 0 || nwalkers > MAX_WALKERS)
		nwalkers = 4;
	if (readlink("/proc/self/exe", self_exe, sizeof(self_exe) - 1) < 0) {
		printf("not ok 1 fuzz: cannot find this program\n");
		return 1;
	}
	guard = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (guard == MAP_FAILED || mprotect(guard + page, page, PROT_NONE)) {
		printf("not ok 1 fuzz: no guard page\n");
		return 1;
	}
	setup();

	/* the corpus first, on this thread alone */
	if (nfiles <= 0) {
		printf("not ok %d corpus: no *.ops in %s\n", ++test, corpus_dir());
		failed++;
	}
	for (i = 0; nfiles > 0 && i < (size_t)nfiles; i++) {
		char path[8192];

		snprintf(path, sizeof(path), "%s/%s", corpus_dir(), files[i]->d_name);
		printf("# corpus: replaying %s\n", files[i]->d_name);
		fflush(stdout);
		clock_gettime(CLOCK_MONOTONIC, &t0);
		fails = replay(path, &nops, why, sizeof(why));
		clock_gettime(CLOCK_MONOTONIC, &t1);
		printf("# corpus: %s took %.1f s\n", files[i]->d_name,
		       t1.tv_sec - t0.tv_sec + (t1.tv_nsec - t0.tv_nsec) / 1e9);
		if (fails == -2)
			printf("ok %d corpus %s # SKIP %s\n", ++test, files[i]->d_name, why);
		else if (fails < 0)
			printf("not ok %d corpus %s: %s\n", ++test, files[i]->d_name, why);
		else
			printf("%s %d corpus %s: %d operations, %d not as session.c says\n",
			       fails ? "not ok" : "ok", ++test, files[i]->d_name, nops, fails);
		failed += fails != 0 && fails != -2;
		fflush(stdout);
		free(files[i]);
	}
	free(files);
	atomic_store(&nr_mismatch, 0);
	memset(cov, 0, sizeof(cov));
	memset(cov_field, 0, sizeof(cov_field));
	memset(trans, 0, sizeof(trans));
	memset(verb_ns, 0, sizeof(verb_ns));
	memset(verb_n, 0, sizeof(verb_n));
	atomic_store(&walker_ops, 0);

	printf("# fuzz: %ld s, %ld chaos threads, %ld walkers, seed 0x%" PRIx64
	       " (PERFREGS_FUZZ_SEED=0x%" PRIx64 " repeats it)\n",
	       secs, nthreads, nwalkers, seed0, seed0);
	fflush(stdout);
	inputs = atomic_load(&nr_ops);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < (size_t)nthreads; i++)
		pthread_create(&th[i], NULL, worker, (void *)i);
	for (i = 0; i < (size_t)nwalkers; i++)
		pthread_create(&th[nthreads + i], NULL, walker_main, (void *)i);
	/*
	 * secs at least, then on until the coverage is complete, 6 x secs
	 * at most: coverage within a fixed budget on a slow emulator was a
	 * matter of time
	 */
	devnull = fopen("/dev/null", "w");
	for (i = 0; i < (size_t)secs ||
		    (i < 6 * (size_t)secs && (!devnull || coverage_report(devnull))); i++) {
		if (i == (size_t)secs / 2)
			atomic_store(&hurry, 1);
		sleep(1);
		if (i % 10 == 9) {
			pthread_mutex_lock(&out_lock);
			printf("# fuzz: %zu s, %lu inputs\n", i + 1, atomic_load(&nr_ops));
			fflush(stdout);
			pthread_mutex_unlock(&out_lock);
		}
	}
	atomic_store(&stop, 1);
	for (i = 0; i < (size_t)(nthreads + nwalkers); i++)
		pthread_join(th[i], NULL);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	elapsed = t1.tv_sec - t0.tv_sec + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	for (i = 0; i < NR_SLOTS; i++)
		if (slots[i] >= 0)
			close(slots[i]);
	for (i = 0; i < NR_ARENA; i++)
		arena_unmap(i);
	for (i = 0; i < NR_TARGETS; i++) {
		kill(targets[i], SIGKILL);
		waitpid(targets[i], NULL, 0);
	}
	kill(exec_target, SIGKILL);
	waitpid(exec_target, NULL, 0);

	inputs = atomic_load(&nr_ops) - inputs;
	printf("# fuzz inputs: %lu\n", atomic_load(&nr_ops));
	printf("# fuzz inputs per second: %.0f (walkers %.0f, chaos %.0f)\n",
	       inputs / elapsed, atomic_load(&walker_ops) / elapsed,
	       (inputs - atomic_load(&walker_ops)) / elapsed);
	printf("# errno counts:");
	for (i = 0; i < 256; i++)
		if (errno_seen[i])
			printf(" %s=%lu", i ? strerrorname_np(i) : "ok", errno_seen[i]);
	printf("\n");
	printf("# reached by the chaos threads: %lu configs, %lu starts, %lu mappings\n",
	       atomic_load(&nr_configured), atomic_load(&nr_started),
	       atomic_load(&nr_mapped));
	printf("# walkers: %lu operations, %lu not tried (perf refused the witness), "
	       "%lu STARTs found no debug register, %lu picked for what was still "
	       "missing at half time\n", atomic_load(&walker_ops),
	       atomic_load(&witness_refused), atomic_load(&start_nospace),
	       atomic_load(&hurried));
	printf("# chaos threads' time per operation (ms):");
	for (i = 0; i < 7; i++)
		if (chaos_n[i])
			printf(" %s %.2f", chaos_name[i], chaos_ns[i] / 1e6 / chaos_n[i]);
	printf("\n");
	printf("# walkers' time per operation (ms):");
	for (i = 0; i < NR_VERBS; i++)
		if (verb_n[i])
			printf(" %s %.2f", verb_name[i], verb_ns[i] / 1e6 / verb_n[i]);
	printf("\n");
	if (devnull)
		fclose(devnull);
	nmiss = coverage_report(stdout);

	/* a fuzzer that never gets past the argument checks proves little */
	ok = inputs && atomic_load(&nr_configured) && atomic_load(&nr_started) &&
	     atomic_load(&nr_mapped) && atomic_load(&walker_ops);
	printf("%s %d fuzz ran %lu inputs in %.0f s on %ld threads and %ld walkers\n",
	       ok ? "ok" : "not ok", ++test, inputs, elapsed, nthreads, nwalkers);
	failed += !ok;

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
	printf("%s %d every error was a documented errno%s%s\n",
	       len ? "not ok" : "ok", ++test, len ? ": unexpected" : "", bad);
	failed += len != 0;
	printf("%s %d every walker's answer was what session.c says (%lu mismatches)\n",
	       atomic_load(&nr_mismatch) ? "not ok" : "ok", ++test,
	       atomic_load(&nr_mismatch));
	failed += atomic_load(&nr_mismatch) != 0;
	printf("# MEASURE never_reached %d == 0\n", nmiss);
	printf("%s %d coverage: every ioctl in every state, every transition, every field while sampling%s\n",
	       nmiss ? "not ok" : "ok", ++test, nmiss ? " (see never reached)" : "");
	failed += nmiss != 0;
	fflush(stdout);

	if (!ko) {
		printf("ok %d # SKIP PERFREGS_KO not set: cannot reload the module\n", ++test);
		return failed ? 1 : 0;
	}
	snprintf(cmd, sizeof(cmd), "rmmod perfregs && insmod '%s'", ko);
	ok = run(cmd) == 0;
	printf("%s %d the module unloads and loads after fuzzing\n", ok ? "ok" : "not ok", ++test);
	return failed || !ok ? 1 : 0;
}
