// SPDX-License-Identifier: GPL-2.0
/*
 * Security and robustness: what an unprivileged user sees, whether a
 * record ever carries a byte the writer did not write (the module fills
 * new rings with 0xa5 when poison_rings=1), and whether every allocation
 * failure on the session paths is handled (fail-nth fault injection, on
 * kernels built with CONFIG_FAULT_INJECTION: make check-debug).
 * The data pages being read-only is test_ioctl's mmap_rules.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include "kselftest_harness.h"
#include "common.h"

#define USER_TOP	0x0000800000000000ULL
#define POISON64	0xa5a5a5a5a5a5a5a5ULL
#define POISON_PARAM	"/sys/module/perfregs/parameters/poison_rings"

/* Half user spinning, half system calls: samples in both modes. */
static void __attribute__((noreturn)) busy_child(void)
{
	volatile unsigned long x = 0;
	unsigned long i;

	for (;;) {
		for (i = 0; i < 200000; i++)
			x += i;
		for (i = 0; i < 2000; i++)
			syscall(SYS_getppid);
	}
}

/*
 * Exec'ed, not just forked: a process that dropped root is not dumpable
 * until it execs, and the ptrace rules refuse to watch it.  A shell
 * loop whose redirection makes system calls: time in both modes.
 */
static pid_t start_busy(void)
{
	pid_t p = fork();
	char path[64], comm[32];
	int i;

	if (p == 0) {
		execl("/bin/sh", "sh", "-c", "while :; do : </dev/null; done", NULL);
		busy_child();
	}
	for (i = 0; i < 200 && p > 0; i++) {	/* until it has exec'ed */
		snprintf(path, sizeof(path), "/proc/%d/comm", p);
		if (!read_file(path, comm, sizeof(comm)) && !strcmp(comm, "sh"))
			break;
		usleep(10000);
	}
	return p;
}

/* ---- an unprivileged user --------------------------------------------- */

struct unpriv_result {
	int config_err, nmi_err, all_err;
	size_t samples, kernel_flagged, kernel_addr, iregs_differ;
};

/* As nobody: sample an own child; never a kernel address. */
static void unpriv_child(int out)
{
	struct unpriv_result res = { 0 };
	struct perfregs_config cfg;
	struct sample_set set = { 0 };
	struct prf_reader r;
	pid_t busy;
	size_t i, j;

	if (setgid(65534) || setuid(65534))
		_exit(2);
	busy = start_busy();
	if (prf_open(&r, NULL))
		_exit(3);
	prf_config_default(&cfg);
	cfg.event = PERFREGS_EV_NMI;
	cfg.flags = PERFREGS_CF_EXCLUDE_KERNEL;
	cfg.pid = busy;
	res.nmi_err = ioctl(r.fd, PERFREGS_IOC_CONFIG, &cfg) ? errno : 0;
	prf_config_default(&cfg);
	cfg.flags = PERFREGS_CF_EXCLUDE_KERNEL;
	res.all_err = ioctl(r.fd, PERFREGS_IOC_CONFIG, &cfg) ? errno : 0;
	cfg.pid = busy;
	cfg.period = 200000;
	res.config_err = -prf_config(&r, &cfg);
	if (!res.config_err && !prf_start(&r)) {
		for (i = 0; i < 10; i++) {
			usleep(100000);
			prf_drain(&r, collect_record, &set);
		}
		prf_stop(&r);
		prf_drain(&r, collect_record, &set);
	}
	res.samples = set.n;
	/*
	 * User mode only: no kernel flag, IP and SP below the user top, and
	 * the interrupt registers are the user registers, value for value
	 * (a kernel frame would leak through them).
	 */
	for (i = 0; i < set.n; i++) {
		struct perfregs_rec_sample *s = set.s[i];
		static const int ipsp[] = { PERFREGS_REG_IP, PERFREGS_REG_SP };
		uint64_t iv, uv;

		if (s->flags & PERFREGS_SF_KERNEL)
			res.kernel_flagged++;
		for (j = 0; j < 2; j++)
			if ((sample_ireg(s, ipsp[j], &iv) && iv >= USER_TOP) ||
			    (sample_ureg(s, ipsp[j], &uv) && uv >= USER_TOP)) {
				res.kernel_addr++;
				break;
			}
		for (j = 0; j < PERFREGS_REG_MAX; j++)
			if (sample_ireg(s, j, &iv) && sample_ureg(s, j, &uv) && iv != uv) {
				res.iregs_differ++;
				break;
			}
	}
	kill(busy, SIGKILL);
	waitpid(busy, NULL, 0);
	if (write(out, &res, sizeof(res)) != sizeof(res))
		_exit(4);
	_exit(0);
}

TEST(unprivileged_sees_no_kernel)
{
	struct unpriv_result res = { 0 };
	char old[16] = "";
	int fds[2], st;
	pid_t p;

	if (!module_loaded())
		SKIP(return, "perfregs is not loaded");
	if (geteuid())
		SKIP(return, "must start as root to drop privileges");
	ASSERT_EQ(0, read_file("/proc/sys/kernel/perf_event_paranoid", old, sizeof(old)));
	ASSERT_EQ(0, write_file("/proc/sys/kernel/perf_event_paranoid", "2"));
	ASSERT_EQ(0, pipe(fds));
	p = fork();
	if (p == 0) {
		close(fds[0]);
		unpriv_child(fds[1]);
	}
	close(fds[1]);
	EXPECT_EQ(sizeof(res), read(fds[0], &res, sizeof(res)));
	waitpid(p, &st, 0);
	write_file("/proc/sys/kernel/perf_event_paranoid", old);
	EXPECT_EQ(0, WEXITSTATUS(st));
	EXPECT_EQ(EACCES, res.nmi_err) TH_LOG("raw NMIs for an unprivileged user");
	EXPECT_EQ(EACCES, res.all_err) TH_LOG("every task for an unprivileged user");
	ASSERT_EQ(0, res.config_err) TH_LOG("own child, user mode only: %s",
					    strerror(res.config_err));
	TH_LOG("%zu samples as nobody: %zu kernel-mode, %zu with a kernel IP/SP, "
	       "%zu whose interrupt registers are not the user's",
	       res.samples, res.kernel_flagged, res.kernel_addr, res.iregs_differ);
	EXPECT_LT(20, res.samples);
	EXPECT_EQ(0, res.kernel_flagged);
	EXPECT_EQ(0, res.kernel_addr);
	EXPECT_EQ(0, res.iregs_differ);
}

/* ---- every byte of every record is written ------------------------------ */

struct byte_check {
	size_t samples, lost, partial_stacks, bad;
	char why[256];
};

static void bad(struct byte_check *c, const char *what, int cpu, uint32_t off)
{
	if (!c->bad++)
		snprintf(c->why, sizeof(c->why), "%s (cpu %d, record size %u)",
			 what, cpu, off);
}

static bool has_poison(const void *p, size_t len)
{
	const uint64_t *w = p;
	size_t i;

	for (i = 0; i < len / 8; i++)
		if (w[i] == POISON64)
			return true;
	return false;
}

static int check_bytes(void *arg, int cpu, const struct perfregs_rec_header *h)
{
	struct byte_check *c = arg;

	if (h->size % 8 || h->size < sizeof(*h)) {
		bad(c, "record size not a multiple of 8", cpu, h->size);
		return 0;
	}
	if (has_poison(h, h->size))
		bad(c, "a 0xa5 word inside a record", cpu, h->size);
	if (h->type == PERFREGS_REC_LOST) {
		c->lost++;
		if (h->size != sizeof(struct perfregs_rec_lost))
			bad(c, "LOST record size", cpu, h->size);
		return 0;
	}
	if (h->type != PERFREGS_REC_SAMPLE) {
		bad(c, "unknown record type", cpu, h->size);
		return 0;
	}
	const struct perfregs_rec_sample *s = (const void *)h;
	size_t nregs = __builtin_popcountll(s->iregs_mask) +
		       __builtin_popcountll(s->uregs_mask);
	size_t want = sizeof(*s) + 8 * nregs;
	size_t i = strnlen(s->comm, sizeof(s->comm));

	c->samples++;
	if (s->reserved || s->reserved2)
		bad(c, "reserved field not zero", cpu, h->size);
	for (; i < sizeof(s->comm); i++)
		if (s->comm[i])
			bad(c, "comm not zero after its end", cpu, h->size);
	if (s->flags & PERFREGS_SF_STACK) {
		const uint64_t *size = (const void *)((const char *)s + want);
		const uint8_t *stack = (const void *)(size + 1);
		uint64_t copied;

		if (want + 16 > h->size || *size > h->size - want - 16) {
			bad(c, "stack block larger than the record", cpu, h->size);
			return 0;
		}
		memcpy(&copied, stack + *size, 8);
		want += 16 + *size;
		if (copied > *size)
			bad(c, "stack_copied > stack_size", cpu, h->size);
		else if (copied < *size)
			c->partial_stacks++;
		for (i = copied; i < *size; i++)
			if (stack[i]) {
				bad(c, "stack beyond stack_copied not zero", cpu, h->size);
				break;
			}
	}
	if (want != h->size)
		bad(c, "record size does not match its contents", cpu, h->size);
	return 0;
}

TEST(records_fully_written)
{
	struct byte_check c = { 0 };
	struct perfregs_config cfg;
	struct prf_reader r;
	char old[8] = "N";
	pid_t busy;
	int i;

	if (!module_loaded())
		SKIP(return, "perfregs is not loaded");
	ASSERT_EQ(0, read_file(POISON_PARAM, old, sizeof(old)))
		TH_LOG("no %s: an old module?", POISON_PARAM);
	ASSERT_EQ(0, write_file(POISON_PARAM, "1"));
	busy = start_busy();
	ASSERT_EQ(0, prf_open(&r, NULL));
	prf_config_default(&cfg);
	cfg.pid = busy;
	cfg.period = 500000;
	/* room for about three samples: stalls lose records (LOST records) */
	cfg.data_pages = 32;
	/* more than the stack holds above the SP: copies come up short */
	cfg.stack_bytes = 32768;
	ASSERT_EQ(0, prf_config(&r, &cfg));
	write_file(POISON_PARAM, old);
	ASSERT_EQ(0, prf_start(&r));
	for (i = 0; i < 12; i++) {
		usleep(i % 2 ? 250000 : 5000);
		ASSERT_LE(0, prf_drain(&r, check_bytes, &c));
	}
	prf_stop(&r);
	ASSERT_LE(0, prf_drain(&r, check_bytes, &c));
	prf_close(&r);
	kill(busy, SIGKILL);
	waitpid(busy, NULL, 0);
	TH_LOG("%zu samples, %zu LOST records, %zu short stack copies",
	       c.samples, c.lost, c.partial_stacks);
	EXPECT_EQ(0, c.bad) TH_LOG("%zu bad records, first: %s", c.bad, c.why);
	EXPECT_LT(0, c.samples);
	EXPECT_LT(0, c.lost) TH_LOG("no LOST record was checked");
	EXPECT_LT(0, c.partial_stacks) TH_LOG("no short stack copy was checked");
}

/* ---- fault injection on every allocation of the session paths ----------- */

FIXTURE(faults) {
	char ignore_slab[8], ignore_page[8], min_order[8], verbose_slab[8],
	     verbose_page[8];
	bool saved;
};

#define DBG "/sys/kernel/debug/"
FIXTURE_SETUP(faults)
{
	if (access("/proc/thread-self/fail-nth", W_OK) ||
	    access(DBG "failslab/ignore-gfp-wait", W_OK))
		return;
	self->saved =
		!read_file(DBG "failslab/ignore-gfp-wait", self->ignore_slab, 8) &&
		!read_file(DBG "fail_page_alloc/ignore-gfp-wait", self->ignore_page, 8) &&
		!read_file(DBG "fail_page_alloc/min-order", self->min_order, 8) &&
		!read_file(DBG "failslab/verbose", self->verbose_slab, 8) &&
		!read_file(DBG "fail_page_alloc/verbose", self->verbose_page, 8);
}

FIXTURE_TEARDOWN(faults)
{
	if (!self->saved)
		return;
	write_file(DBG "failslab/ignore-gfp-wait", self->ignore_slab);
	write_file(DBG "fail_page_alloc/ignore-gfp-wait", self->ignore_page);
	write_file(DBG "fail_page_alloc/min-order", self->min_order);
	write_file(DBG "failslab/verbose", self->verbose_slab);
	write_file(DBG "fail_page_alloc/verbose", self->verbose_page);
}

/*
 * fail-nth is opened once, before any fault is armed: opening it later
 * would itself allocate, and take the fault meant for the module.
 */
static int fail_nth(int fd, int n)
{
	char buf[16];
	int len = snprintf(buf, sizeof(buf), "%d", n);

	return pwrite(fd, buf, len, 0) == len ? 0 : -1;
}

static int fail_nth_left(int fd)
{
	char buf[16] = "";

	if (pread(fd, buf, sizeof(buf) - 1, 0) <= 0)
		return -1;
	return atoi(buf);
}

static bool errno_ok(int e)
{
	return e == 0 || e == ENOMEM || e == EINVAL || e == EAGAIN;
}

/* Fail the 1st, 2nd, ... allocation of config, mmap, start, stop. */
TEST_F_TIMEOUT(faults, every_allocation_fails_cleanly, 600)
{
	struct perfregs_config cfg;
	struct prf_reader r;
	int n, fd, left, cfg_err, start_err, odd = 0, failed_ops = 0;

	if (!module_loaded())
		SKIP(return, "perfregs is not loaded");
	if (!self->saved)
		SKIP(return, "no fail-nth fault injection in this kernel (make check-debug has it)");
	ASSERT_EQ(0, write_file(DBG "failslab/ignore-gfp-wait", "N"));
	ASSERT_EQ(0, write_file(DBG "fail_page_alloc/ignore-gfp-wait", "N"));
	ASSERT_EQ(0, write_file(DBG "fail_page_alloc/min-order", "0"));
	write_file(DBG "failslab/verbose", "0");
	write_file(DBG "fail_page_alloc/verbose", "0");
	prf_config_default(&cfg);
	cfg.data_pages = 2;
	cfg.stack_bytes = 64;
	fd = open("/proc/thread-self/fail-nth", O_RDWR);
	ASSERT_LE(0, fd);
	for (n = 1; n < 2000; n++) {
		ASSERT_EQ(0, prf_open(&r, NULL));
		ASSERT_EQ(0, fail_nth(fd, n));
		cfg_err = -prf_config(&r, &cfg);
		start_err = cfg_err ? EINVAL : -prf_start(&r);
		if (!start_err) {
			usleep(2000);
			prf_stop(&r);
		}
		left = fail_nth_left(fd);
		fail_nth(fd, 0);
		prf_close(&r);
		ASSERT_LE(0, left);
		failed_ops += cfg_err || start_err;
		if (!errno_ok(cfg_err) || !errno_ok(start_err)) {
			if (!odd++)
				TH_LOG("fault %d: config %s, start %s", n,
				       strerror(cfg_err), strerror(start_err));
		}
		if (left > 0)	/* no n-th fault point: all passed */
			break;
	}
	close(fd);
	TH_LOG("%d fault points on config+mmap+start+stop, %d made an operation fail",
	       n - 1, failed_ops);
	EXPECT_EQ(0, odd) TH_LOG("errors other than ENOMEM/EINVAL/EAGAIN");
	EXPECT_LT(5, n) TH_LOG("too few fault points reached");
	EXPECT_LT(0, failed_ops);
	/* and everything works again afterwards */
	ASSERT_EQ(0, prf_open(&r, NULL));
	EXPECT_EQ(0, prf_config(&r, &cfg));
	EXPECT_EQ(0, prf_start(&r));
	EXPECT_EQ(0, prf_stop(&r));
	prf_close(&r);
}

PERFREGS_HARNESS_MAIN
