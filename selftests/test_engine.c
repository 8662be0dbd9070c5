// SPDX-License-Identifier: GPL-2.0
/*
 * The sampling engine: every event source, per-ABI register masks, NMI
 * samples, loss accounting in discard mode, overwrite mode, wake-ups at
 * the watermark, concurrent sessions, CPU hotplug, stack snapshots,
 * reset and the privilege rules.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <poll.h>
#include <pthread.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include "kselftest_harness.h"
#include "common.h"

#define VALID64 (PERFREGS_MASK_64 & ~((1ULL << PERFREGS_REG_DS) | \
		 (1ULL << PERFREGS_REG_ES) | (1ULL << PERFREGS_REG_FS) | \
		 (1ULL << PERFREGS_REG_GS)))
#define VALID32 (VALID64 & PERFREGS_MASK_32)
#define R(x) (1ULL << PERFREGS_REG_##x)

/* Children that make each software event happen. */
static volatile uint64_t bp_target;

static void spin_child_for_ms(int ms)
{
	uint64_t end = now_ns() + ms * 1000000ULL;

	while (now_ns() < end)
		;
}

static void spin_child(int seconds)
{
	spin_child_for_ms(seconds * 1000);
	_exit(0);
}

/* 64 page faults: touch 64 fresh anonymous pages */
static void fault_round(void)
{
	char *p = mmap(NULL, 64 << 12, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int i;

	if (p == MAP_FAILED)
		_exit(1);
	for (i = 0; i < 64; i++)
		p[i << 12] = 1;
	munmap(p, 64 << 12);
}

static void fault_child(int seconds)
{
	uint64_t end = now_ns() + seconds * 1000000000ULL;

	while (now_ns() < end)
		fault_round();
	_exit(0);
}

/*
 * Half in the kernel (page faults), half in user mode (a spin as long
 * as the faults took): both modes are sampled often, however fast the
 * kernel.  fault_child() alone gave exclude_kernel 10 user-mode samples
 * in a second.
 */
static void mixed_child(int seconds)
{
	uint64_t end = now_ns() + seconds * 1000000000ULL, t0, t1;

	while (now_ns() < end) {
		t0 = now_ns();
		fault_round();
		t1 = now_ns();
		while (now_ns() < t1 + (t1 - t0))
			;
	}
	_exit(0);
}

/* A fixed number of faults, however slow the kernel: rounds * 64 */
static void fault_rounds_child(int rounds)
{
	while (rounds-- > 0)
		fault_round();
	_exit(0);
}

static void switch_child(int seconds)
{
	uint64_t end = now_ns() + seconds * 1000000000ULL;

	while (now_ns() < end)
		usleep(100);
	_exit(0);
}

static void write_child(int seconds)
{
	uint64_t end = now_ns() + seconds * 1000000000ULL;

	while (now_ns() < end) {
		bp_target++;
		usleep(100);
	}
	_exit(0);
}

/*
 * A child runs for its seconds once let go (child_go()), after the
 * session's START: on the KMSAN kernel under TCG (make check-debug) the
 * parent was held off the CPU for seconds at a time, a 4-second
 * child was gone by START, and START said ESRCH.  It waits a minute
 * at most, and goes when its parent does.
 */
#define HELD_MAX	8
static struct held {
	pid_t pid;
	int fd;
} held[HELD_MAX];

static pid_t start_child(void (*fn)(int), int seconds)
{
	struct pollfd go = { .events = POLLIN };
	int p[2], i;
	pid_t pid;
	char b;

	if (pipe(p))
		return -1;
	pid = fork();
	if (pid == 0) {
		close(p[1]);
		go.fd = p[0];
		/* child_go() closes the write end; read() sees EOF */
		if (poll(&go, 1, 60000) > 0 && read(p[0], &b, 1) < 0)
			_exit(97);
		close(p[0]);
		fn((int)(seconds * work_scale() + 0.5));
	}
	close(p[0]);
	for (i = 0; pid > 0 && i < HELD_MAX; i++) {
		if (!held[i].pid) {
			held[i] = (struct held){ .pid = pid, .fd = p[1] };
			return pid;
		}
	}
	close(p[1]);	/* no room (or no child): it goes at once */
	return pid;
}

/* Let a child of start_child() run: sampling is on. */
static void child_go(pid_t pid)
{
	int i;

	for (i = 0; i < HELD_MAX; i++) {
		if (held[i].pid == pid && pid > 0) {
			/*
			 * EOF is the signal: no write, which would raise
			 * SIGPIPE here when the child is already dead (a
			 * skipped test kills it, then reaps it through
			 * child_status(), which calls us)
			 */
			close(held[i].fd);
			held[i].pid = 0;
		}
	}
}

static int child_status(pid_t pid)
{
	int status;

	child_go(pid);
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/*
 * Sample until the child exits (or ms pass when child <= 0); returns the
 * child's exit status, 0 without a child.
 */
static struct rusage child_usage;	/* of the child run_session() reaped */

static int run_session(struct prf_reader *r, struct sample_set *set,
		       pid_t child, int ms)
{
	uint64_t end = now_ns() + (uint64_t)(ms * work_scale()) * 1000000;
	int status = 0;

	child_go(child);

	for (;;) {
		prf_wait(r, 20);
		prf_drain(r, collect_record, set);
		if (child > 0 && wait4(child, &status, WNOHANG, &child_usage) == child) {
			status = WIFEXITED(status) ? WEXITSTATUS(status) : 128;
			break;
		}
		if (child <= 0 && now_ns() >= end)
			break;
	}
	prf_stop(r);
	prf_drain(r, collect_record, set);
	return status;
}

/* Samples received plus samples counted lost: what the module produced. */
static uint64_t accounted(const struct prf_reader *r, const struct sample_set *set)
{
	return set->n + prf_lost_total(r, PERFREGS_LOST_FULL) +
	       prf_lost_total(r, PERFREGS_LOST_NESTED);
}

static bool no_pmu(int err)
{
	return err == -ENOENT || err == -EOPNOTSUPP || err == -ENODEV;
}

FIXTURE(engine) {
	struct prf_reader r;
	struct perfregs_config cfg;
	struct sample_set set;
};

FIXTURE_SETUP(engine)
{
	if (!module_loaded())
		SETUP_SKIP("perfregs is not loaded");
	ASSERT_EQ(0, prf_open(&self->r, NULL));
	prf_config_default(&self->cfg);
	self->cfg.data_pages = 128;
	memset(&self->set, 0, sizeof(self->set));
}

FIXTURE_TEARDOWN(engine)
{
	prf_close(&self->r);
	sample_set_free(&self->set);
}

/* One source: its samples carry exactly the masks asked for. */
FIXTURE_VARIANT(engine) {
	uint32_t event;
	void (*child)(int);
	uint64_t period;
	uint32_t want_ctx;	/* 0: any */
	bool hw;
};

FIXTURE_VARIANT_ADD(engine, cpu_clock) {
	.event = PERFREGS_EV_CPU_CLOCK, .child = spin_child, .period = 1000000,
	.want_ctx = PERFREGS_SF_CTX_IRQ,
};
FIXTURE_VARIANT_ADD(engine, task_clock) {
	.event = PERFREGS_EV_TASK_CLOCK, .child = spin_child, .period = 1000000,
	.want_ctx = PERFREGS_SF_CTX_IRQ,
};
FIXTURE_VARIANT_ADD(engine, page_faults) {
	.event = PERFREGS_EV_PAGE_FAULTS, .child = fault_child, .period = 16,
	.want_ctx = PERFREGS_SF_CTX_EXCEPTION,
};
FIXTURE_VARIANT_ADD(engine, context_switches) {
	.event = PERFREGS_EV_CONTEXT_SWITCHES, .child = switch_child, .period = 4,
	.want_ctx = PERFREGS_SF_CTX_EXCEPTION,
};
FIXTURE_VARIANT_ADD(engine, breakpoint) {
	.event = PERFREGS_EV_BREAKPOINT, .child = write_child, .period = 1,
	.want_ctx = PERFREGS_SF_CTX_EXCEPTION,
};
FIXTURE_VARIANT_ADD(engine, cycles) {
	.event = PERFREGS_EV_CYCLES, .child = spin_child, .period = 1000000,
	.want_ctx = PERFREGS_SF_CTX_NMI, .hw = true,
};
FIXTURE_VARIANT_ADD(engine, instructions) {
	.event = PERFREGS_EV_INSTRUCTIONS, .child = spin_child, .period = 1000000,
	.want_ctx = PERFREGS_SF_CTX_NMI, .hw = true,
};

TEST_F(engine, source_masks)
{
	uint64_t imask = R(IP) | R(SP) | R(FLAGS) | R(CS) | R(DS) | R(R9);
	uint64_t umask = R(IP) | R(SP) | R(BX) | R(R15) | R(GS);
	size_t i, mine = 0, ctx_ok = 0;
	pid_t child;
	int ret;

	child = start_child(variant->child, 1);
	ASSERT_LT(0, child);
	self->cfg.event = variant->event;
	self->cfg.period = variant->period;
	self->cfg.pid = child;
	self->cfg.iregs_mask = imask;
	self->cfg.uregs_mask_64 = umask;
	self->cfg.uregs_mask_32 = umask & PERFREGS_MASK_32;
	if (variant->event == PERFREGS_EV_BREAKPOINT) {
		self->cfg.bp_addr = (uintptr_t)&bp_target;
		self->cfg.bp_type = PERFREGS_BP_W;
		self->cfg.bp_len = 8;
	}
	ret = prf_config(&self->r, &self->cfg);
	/* the witness: perf_event_open() already says there is no PMU */
	if (!ret)
		ret = prf_start(&self->r);
	if (variant->hw && no_pmu(ret)) {
		kill(child, SIGKILL);
		child_status(child);
		SKIP(return, "no hardware PMU here (%s)", strerror(-ret));
	}
	ASSERT_EQ(0, ret) TH_LOG("start: %s", strerror(-ret));
	child_go(child);
	EXPECT_EQ(0, run_session(&self->r, &self->set, child, 0));

	for (i = 0; i < self->set.n; i++) {
		const struct perfregs_rec_sample *s = self->set.s[i];

		EXPECT_EQ(child, (pid_t)s->pid);
		/* a context switch's frame: perf fills in ip, sp and cs only */
		EXPECT_EQ(imask & (variant->event == PERFREGS_EV_CONTEXT_SWITCHES ?
				   R(IP) | R(SP) | R(CS) : VALID64), s->iregs_mask);
		if (s->abi == PERFREGS_ABI_64) {
			/*
			 * gs, a selector, is the user's when the interrupt hit
			 * user mode, or the kernel with interrupts on (the
			 * iregs' flags say): a context switch's frame has none
			 */
			uint64_t want = umask & VALID64, fl = 0;

			if (!(s->flags & PERFREGS_SF_KERNEL) ||
			    (sample_ireg(s, PERFREGS_REG_FLAGS, &fl) && (fl & 0x200)))
				want |= umask & R(GS);
			EXPECT_EQ(want, s->uregs_mask);
		} else {
			EXPECT_EQ(0, s->uregs_mask) TH_LOG("abi %u", s->abi);
		}
		EXPECT_EQ(0, s->reserved);
		if (s->pid == (uint32_t)child)
			mine++;
		if (!variant->want_ctx ||
		    (s->flags & PERFREGS_SF_CTX_MASK) == variant->want_ctx)
			ctx_ok++;
	}
	TH_LOG("%zu samples, %zu of the child, %zu in the expected context",
	       self->set.n, mine, ctx_ok);
	MEASURE("child_samples", mine, >=, 10);
	EXPECT_EQ(self->set.n, ctx_ok);
	EXPECT_EQ(prf_produced(&self->r), accounted(&self->r, &self->set));
}


/* ---- one session, no variants ------------------------------------------ */

FIXTURE(sess) {
	struct prf_reader r;
	struct perfregs_config cfg;
	struct sample_set set;
};

FIXTURE_SETUP(sess)
{
	if (!module_loaded())
		SETUP_SKIP("perfregs is not loaded");
	ASSERT_EQ(0, prf_open(&self->r, NULL));
	prf_config_default(&self->cfg);
	memset(&self->set, 0, sizeof(self->set));
}

FIXTURE_TEARDOWN(sess)
{
	prf_close(&self->r);
	sample_set_free(&self->set);
}

static int start_workload(struct workload *w, const char *name,
			  const char *seconds, char *why, size_t len)
{
	static char path[512];
	char *argv[] = { path, (char *)seconds, NULL };

	snprintf(path, sizeof(path), "%s/%s", selftest_dir(), name);
	if (access(path, X_OK)) {
		snprintf(why, len, "%s was not built", name);
		return -2;
	}
	return workload_start(w, argv, why, len);
}

/* One all-CPU session, a 32-bit and a 64-bit task: each gets its mask. */
TEST_F_TIMEOUT(sess, split_masks_32_64, 90)
{
	uint64_t m32 = R(BX) | R(SI) | R(DI) | R(BP) | R(IP) | R(SP);
	uint64_t m64 = R(BX) | R(BP) | R(R12) | R(R13) | R(R14) | R(R15) | R(IP);
	struct workload w32, w64;
	char why[256];
	size_t i, n32 = 0, n64 = 0;
	int ret;

	uint64_t deadline, t0;

	/* both spin until killed: sampled until each has its 20 */
	ret = start_workload(&w32, "magic_32", "inf", why, sizeof(why));
	if (ret == -2)
		SKIP(return, "%s", why);
	ASSERT_EQ(0, ret) TH_LOG("%s", why);
	ASSERT_EQ(0, start_workload(&w64, "magic_64", "inf", why, sizeof(why)))
		TH_LOG("%s", why);
	self->cfg.data_pages = 256;
	self->cfg.uregs_mask_32 = m32;
	self->cfg.uregs_mask_64 = m64;
	self->cfg.iregs_mask = R(IP);
	ASSERT_EQ(0, prf_config(&self->r, &self->cfg));
	ASSERT_EQ(0, prf_start(&self->r));
	t0 = now_ns();
	deadline = t0 + (uint64_t)(60e9 * work_scale());
	for (i = 0; (n32 < 20 || n64 < 20) && now_ns() < deadline;) {
		prf_wait(&self->r, 20);
		prf_drain(&self->r, collect_record, &self->set);
		for (; i < self->set.n; i++) {
			n32 += self->set.s[i]->pid == (uint32_t)w32.pid && self->set.s[i]->uregs_mask;
			n64 += self->set.s[i]->pid == (uint32_t)w64.pid && self->set.s[i]->uregs_mask;
		}
	}
	measure_until("until_ms", t0, deadline);
	prf_stop(&self->r);
	prf_drain(&self->r, collect_record, &self->set);
	/* still spinning when killed: no crash, no early end */
	kill(w32.pid, SIGKILL);
	kill(w64.pid, SIGKILL);
	EXPECT_EQ(128 + SIGKILL, workload_wait(&w32));
	EXPECT_EQ(128 + SIGKILL, workload_wait(&w64));
	n32 = n64 = 0;
	for (i = 0; i < self->set.n; i++) {
		const struct perfregs_rec_sample *s = self->set.s[i];

		if (s->pid == (uint32_t)w32.pid && s->uregs_mask) {
			n32++;
			EXPECT_EQ(PERFREGS_ABI_32, s->abi);
			EXPECT_EQ(m32, s->uregs_mask);
		} else if (s->pid == (uint32_t)w64.pid && s->uregs_mask) {
			n64++;
			EXPECT_EQ(PERFREGS_ABI_64, s->abi);
			EXPECT_EQ(m64, s->uregs_mask);
		}
	}
	TH_LOG("%zu samples of the 32-bit task, %zu of the 64-bit one", n32, n64);
	MEASURE_WAITED("samples_32", n32, >=, 20);
	MEASURE_WAITED("samples_64", n64, >=, 20);
}

/* Count NMI samples while something sends NMIs. */
static size_t nmi_samples(struct sample_set *set)
{
	size_t i, n = 0;

	for (i = 0; i < set->n; i++)
		if ((set->s[i]->flags & PERFREGS_SF_CTX_MASK) == PERFREGS_SF_CTX_NMI)
			n++;
	return n;
}

TEST_F(sess, nmi_sysrq_backtrace)
{
	int fd, i;

	fd = open("/proc/sysrq-trigger", O_WRONLY);
	if (fd < 0)
		SKIP(return, "no /proc/sysrq-trigger");
	self->cfg.event = PERFREGS_EV_NMI;
	self->cfg.period = 0;
	ASSERT_EQ(0, prf_config(&self->r, &self->cfg));
	ASSERT_EQ(0, prf_start(&self->r));
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(1, write(fd, "l", 1));
		usleep(100000);
	}
	close(fd);
	run_session(&self->r, &self->set, 0, 200);
	TH_LOG("%zu samples, %zu in NMI context", self->set.n, nmi_samples(&self->set));
	/* sysrq-l sent backtrace NMIs (the host's count too: see the catalogue) */
	MEASURE("nmi_samples", nmi_samples(&self->set), >=, 3);
	EXPECT_EQ(self->set.n, nmi_samples(&self->set));
	EXPECT_EQ(prf_produced(&self->r), accounted(&self->r, &self->set));
}

TEST_F_TIMEOUT(sess, nmi_injected_by_host, 90)
{
	const char *hz = getenv("PERFREGS_VM_NMI_HZ");

	if (!hz || atof(hz) <= 0)
		SKIP(return, "the guest runner injects no NMIs (tools/vm/run --nmi-hz)");
	self->cfg.event = PERFREGS_EV_NMI;
	self->cfg.period = 0;
	self->cfg.flags |= PERFREGS_CF_NMI_UNKNOWN;
	uint64_t t0, deadline;

	ASSERT_EQ(0, prf_config(&self->r, &self->cfg));
	ASSERT_EQ(0, prf_start(&self->r));
	/* until two have come (it sampled 3 s and had 62 at 20 Hz) */
	t0 = now_ns();
	deadline = t0 + (uint64_t)(60e9 * work_scale());
	while (nmi_samples(&self->set) < 2 && now_ns() < deadline) {
		prf_wait(&self->r, 20);
		prf_drain(&self->r, collect_record, &self->set);
	}
	measure_until("until_ms", t0, deadline);
	prf_stop(&self->r);
	prf_drain(&self->r, collect_record, &self->set);
	TH_LOG("%zu NMI samples at %s Hz injected, in %.2f s", nmi_samples(&self->set), hz,
	       (now_ns() - t0) / 1e9);
	MEASURE_WAITED("nmi_samples", nmi_samples(&self->set), >=, 2);
}

/* Discard mode, a reader that stalls: received + lost == produced. */
TEST_F(sess, discard_accounting)
{
	uint64_t lost_ctl;
	pid_t child;
	int i;

	child = start_child(spin_child, 2);
	self->cfg.data_pages = 1;
	self->cfg.period = 100000;	/* 10 kHz: fills a page in a few ms */
	self->cfg.pid = child;
	ASSERT_EQ(0, prf_config(&self->r, &self->cfg));
	ASSERT_EQ(0, prf_start(&self->r));
	child_go(child);
	for (i = 0; i < 4; i++) {
		usleep(300000);		/* stall */
		prf_drain(&self->r, collect_record, &self->set);
	}
	EXPECT_EQ(0, run_session(&self->r, &self->set, child, 0));
	lost_ctl = prf_lost_total(&self->r, PERFREGS_LOST_FULL) +
		   prf_lost_total(&self->r, PERFREGS_LOST_NESTED);
	TH_LOG("produced %llu, received %zu, lost %llu (in-band %llu)",
	       (unsigned long long)prf_produced(&self->r), self->set.n,
	       (unsigned long long)lost_ctl,
	       (unsigned long long)(self->r.lost[PERFREGS_LOST_FULL] +
				    self->r.lost[PERFREGS_LOST_NESTED]));
	MEASURE("lost", lost_ctl, >, 0);	/* the stalled reader lost some */
	EXPECT_EQ(prf_produced(&self->r), self->set.n + lost_ctl);
	EXPECT_EQ(lost_ctl, self->r.lost[PERFREGS_LOST_FULL] +
			    self->r.lost[PERFREGS_LOST_NESTED])
		TH_LOG("LOST records disagree with the control page");
}

/* Overwrite mode keeps the newest records. */
TEST_F(sess, overwrite_keeps_newest)
{
	uint64_t stop_ns, last = 0, prev = 0;
	size_t i, bytes = 0;
	pid_t child;

	child = start_child(spin_child, 1);
	self->cfg.data_pages = 2;
	self->cfg.period = 200000;
	self->cfg.pid = child;
	self->cfg.flags |= PERFREGS_CF_OVERWRITE;
	ASSERT_EQ(0, prf_config(&self->r, &self->cfg));
	ASSERT_EQ(0, prf_start(&self->r));
	child_go(child);
	EXPECT_EQ(0, child_status(child));
	stop_ns = now_ns();
	ASSERT_EQ(0, prf_stop(&self->r));
	ASSERT_LE(0, prf_drain(&self->r, collect_record, &self->set));
	for (i = 0; i < self->set.n; i++) {
		const struct perfregs_rec_sample *s = self->set.s[i];

		bytes += s->header.size;
		if (s->cpu == self->set.s[0]->cpu) {
			EXPECT_LT(prev, s->time) TH_LOG("records out of order");
			prev = s->time;
		}
		if (s->time > last)
			last = s->time;
	}
	TH_LOG("produced %llu, kept %zu (%zu bytes), newest %.1f ms before stop",
	       (unsigned long long)prf_produced(&self->r), self->set.n, bytes,
	       (stop_ns - last) / 1e6);
	MEASURE("overwritten", prf_produced(&self->r) - self->set.n, >, 0);
	EXPECT_LE(2 * 4096 / 2, bytes) TH_LOG("less than half the buffer kept");
	/* the newest records kept: the parent's wake-up after the exit, in us */
	MEASURE("newest_before_stop_us", (stop_ns - last) / 1000, <,
		(long long)(100000 * work_scale()));
	EXPECT_EQ(0, self->r.lost[PERFREGS_LOST_FULL]);
}

/* poll() wakes when a ring holds wakeup_bytes, not before. */
TEST_F(sess, poll_watermark)
{
	struct pollfd pfd;
	uint64_t fill = 0;
	unsigned int i;
	pid_t child;
	int ret;

	child = start_child(spin_child, 2);
	self->cfg.data_pages = 16;
	self->cfg.wakeup_bytes = 16384;
	self->cfg.pid = child;
	ASSERT_EQ(0, prf_config(&self->r, &self->cfg));
	ASSERT_EQ(0, prf_start(&self->r));
	pfd.fd = self->r.fd;
	pfd.events = POLLIN;
	/*
	 * Started, and the child held until now: nothing can be there yet
	 * (after child_go() this raced with the child's first samples)
	 */
	EXPECT_EQ(0, poll(&pfd, 1, 0)) TH_LOG("readable right after start");
	child_go(child);
	ret = poll(&pfd, 1, 5000);
	EXPECT_EQ(1, ret);
	EXPECT_TRUE(pfd.revents & POLLIN);
	for (i = 0; i < self->r.nr_rings; i++) {
		struct perfregs_ctl *c = self->r.rings[i].ctl;
		uint64_t f = c->data_head - c->data_tail;

		if (f > fill)
			fill = f;
	}
	TH_LOG("woken with %llu bytes in the fullest ring", (unsigned long long)fill);
	EXPECT_LE(16384, fill);
	kill(child, SIGKILL);
	child_status(child);
	ret = poll(&pfd, 1, 2000);
	EXPECT_TRUE(pfd.revents & POLLHUP) TH_LOG("no hang-up once the target is gone");
}

/*
 * A MAP_SHARED page, seen across both forks: the child says it has
 * pinned itself (NT_PINNED); the test tells it when to fork (NT_FORK),
 * and the forked process spins until the test has looked (NT_DONE), so
 * that its parent stays asleep in waitpid() however slowly the guest
 * runs.  None of it is a matter of time.
 */
static volatile int *newtask_done;
#define NT_DONE		0
#define NT_PINNED	1
#define NT_FORK		2

/* Spin on one CPU until told, then fork a process that spins there too. */
static void newtask_child(int seconds)
{
	uint64_t end;
	cpu_set_t one;
	pid_t pid;

	prctl(PR_SET_PDEATHSIG, SIGKILL);	/* if the test stops early */
	CPU_ZERO(&one);
	CPU_SET(sched_getcpu(), &one);
	if (sched_setaffinity(0, sizeof(one), &one))
		_exit(1);
	newtask_done[NT_PINNED] = 1;
	end = now_ns() + 120 * 1000000000ULL;	/* a bound, if none tells */
	while (!newtask_done[NT_FORK] && now_ns() < end)
		;
	pid = fork();
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		end = now_ns() + 120 * 1000000000ULL;	/* a bound, if none tells */
		while (!newtask_done[NT_DONE] && now_ns() < end)
			;
		_exit(0);
	}
	_exit(pid > 0 && child_status(pid) == 0 ? 0 : 1);
}

/* The first line of /proc/PID/FILE into buf; false if unreadable. */
static bool proc_read(pid_t pid, const char *file, char *buf, size_t len)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, file);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return false;
	n = read(fd, buf, len - 1);
	close(fd);
	buf[n > 0 ? n : 0] = 0;
	return n > 0;
}

/*
 * Is pid asleep in wait4() (waitpid()), within ms?  State S in
 * /proc/PID/stat ("pid (comm) S ...") alone is not enough: on its way
 * there the task may sleep in S elsewhere (in child_go()'s write, or a
 * page fault on the guest's 9p root), and is sampled again when it
 * wakes: a POLLPRI after the acknowledgement, once in three loaded runs
 * on 6.1 (tools/flaky.py).  Its system call (/proc/PID/syscall: the
 * number first) says where it sleeps.
 */
static bool wait_asleep(pid_t pid, int ms)
{
	uint64_t end = now_ns() + (uint64_t)ms * 1000000;
	char buf[512], *p;

	do {
		if (!proc_read(pid, "stat", buf, sizeof(buf)))
			return false;
		p = strrchr(buf, ')');
		if (p && p[1] == ' ' && p[2] == 'S' &&
		    proc_read(pid, "syscall", buf, sizeof(buf)) &&
		    (atoi(buf) == __NR_wait4
#ifdef __NR_waitpid
		     || atoi(buf) == __NR_waitpid	/* an i386 build's waitpid() */
#endif
		    ))
			return true;
		usleep(10000);
	} while (now_ns() < end);
	return false;
}

static uint64_t new_tasks_ack(struct prf_reader *r)
{
	uint64_t sum = 0;
	unsigned int i;

	for (i = 0; i < r->nr_rings; i++) {
		struct perfregs_ctl *c = r->rings[i].ctl;
		uint64_t n = __atomic_load_n(&c->new_tasks, __ATOMIC_ACQUIRE);

		__atomic_store_n(&c->new_tasks_seen, n, __ATOMIC_RELAXED);
		sum += n;
	}
	return sum;
}

/*
 * The lengths of name the test has seen a sample of (bit len), in a
 * MAP_SHARED page: the child holds each name until then (a minute at
 * most), not for a fixed 200 ms, which a stalled vCPU could use up.
 */
static volatile unsigned int *names_seen;

/* Names of every length, each until seen: "a", "bb", ..., 15 o's. */
static void names_child(int seconds)
{
	char name[17];
	uint64_t end;
	int len;

	for (len = 1; len <= 15; len++) {
		memset(name, 'a' + len - 1, len);
		name[len] = 0;
		if (prctl(PR_SET_NAME, name))
			_exit(1);
		end = now_ns() + 60 * 1000000000ULL;
		while (!(*names_seen & (1U << len)) && now_ns() < end)
			;
	}
	_exit(0);
}

/* Which name a comm is (its length), 0 before the first, -1 if neither. */
static int comm_name_len(const char *c)
{
	size_t len = strnlen(c, 16);
	char want[16] = "";

	if (!strcmp(c, "test_engine"))
		return 0;
	if (len < 1 || len > 15)
		return -1;
	memset(want, 'a' + len - 1, len);
	return memcmp(c, want, 16) ? -1 : (int)len;
}

/*
 * Each sample's comm is the task's name at the time, NUL-padded to 16
 * bytes: names of 1 to 15 bytes cross the word boundary of the copy.
 */
TEST_F(sess, comm_names)
{
	unsigned int seen = 0, bad = 0, other = 0;
	size_t i = 0;
	int status = 0, nl;
	uint64_t end;
	pid_t child;

	names_seen = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
			  -1, 0);
	ASSERT_NE(MAP_FAILED, names_seen);
	child = start_child(names_child, 0);
	self->cfg.pid = child;
	ASSERT_EQ(0, prf_config(&self->r, &self->cfg));
	ASSERT_EQ(0, prf_start(&self->r));
	child_go(child);
	/*
	 * tell it each name was seen: it goes on to the next; a wrong comm
	 * or a name never seen within 20 s x scale ends it (inside the
	 * harness's 30 s, so that what was seen is printed below)
	 */
	end = now_ns() + (uint64_t)(20e9 * work_scale());
	while (waitpid(child, &status, WNOHANG) != child) {
		prf_wait(&self->r, 20);
		prf_drain(&self->r, collect_record, &self->set);
		for (; i < self->set.n; i++) {
			nl = comm_name_len(self->set.s[i]->comm);
			if (nl > 0)
				*names_seen |= 1U << nl;
			else if (nl < 0)
				end = 0;
		}
		if (now_ns() > end) {
			kill(child, SIGKILL);
			waitpid(child, &status, 0);
			break;
		}
	}
	EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status))
		TH_LOG("the child did not go through every name (status %#x)", status);
	prf_stop(&self->r);
	prf_drain(&self->r, collect_record, &self->set);
	munmap((void *)names_seen, 4096);
	for (i = 0; i < self->set.n; i++) {
		const char *c = self->set.s[i]->comm;
		size_t len = strnlen(c, 16);
		char want[16] = "";

		if (len < 1 || len > 15) {
			bad++;
			continue;
		}
		memset(want, 'a' + len - 1, len);
		if (!memcmp(c, want, 16)) {
			seen |= 1U << len;
			continue;
		}
		if (!strcmp(c, "test_engine"))
			other++;	/* before the first rename */
		else if (bad++ < 3)
			TH_LOG("sample %zu: comm \"%.16s\" (%zu bytes)", i, c, len);
	}
	TH_LOG("%zu samples, %d of 15 name lengths seen (missing %#x), %u before the first rename",
	       self->set.n, __builtin_popcount(seen), 0xfffeU & ~seen, other);
	EXPECT_EQ(0, bad);
	EXPECT_EQ(0xfffeU, seen);
}

/* Drain while waiting up to ms for POLLPRI; true if it came. */
static bool wait_pri(struct prf_reader *r, struct sample_set *set, int ms)
{
	struct pollfd pfd = { .fd = r->fd, .events = POLLPRI | POLLIN };
	uint64_t end = now_ns() + (uint64_t)ms * 1000000;

	do {
		int left = (int)((end - now_ns()) / 1000000);

		pfd.revents = 0;
		if (poll(&pfd, 1, left > 0 ? left : 0) < 0)
			return false;
		if (pfd.revents & POLLPRI)
			return true;
		prf_drain(r, collect_record, set);
	} while (now_ns() < end);
	return false;
}

/*
 * POLLPRI: a sample of a new process (or image) on a CPU, not yet seen.
 * One task pinned to one CPU is new once; the process it forks is new
 * again.  Userspace acknowledges through new_tasks_seen.
 */
/* its deadlines add up to about 30 s: past the harness's default */
TEST_F_TIMEOUT(sess, poll_new_task, 90)
{
	struct pollfd pfd = { .fd = self->r.fd, .events = POLLPRI };
	uint64_t first, quiet, second;
	bool late, again;
	size_t mark, i;
	pid_t child;

	uint64_t end;

	newtask_done = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, newtask_done);
	child = start_child(newtask_child, 0);
	child_go(child);	/* it runs before the session starts */

	self->cfg.pid = child;
	self->cfg.flags |= PERFREGS_CF_INHERIT;	/* and the process it forks */
	ASSERT_EQ(0, prf_config(&self->r, &self->cfg));
	ASSERT_TRUE(prf_has_new_tasks(&self->r));
	poll(&pfd, 1, 0);	/* POLLHUP: not started */
	EXPECT_FALSE(pfd.revents & POLLPRI) TH_LOG("POLLPRI before start");
	/* the child pins itself first (it was a 100 ms sleep) */
	end = now_ns() + (uint64_t)(10e9 * work_scale());
	while (!newtask_done[NT_PINNED] && now_ns() < end)
		usleep(1000);
	ASSERT_TRUE(newtask_done[NT_PINNED]) TH_LOG("the child never pinned itself");
	ASSERT_EQ(0, prf_start(&self->r));
	EXPECT_TRUE(wait_pri(&self->r, &self->set, 5000))
		TH_LOG("no POLLPRI for the first task");
	first = new_tasks_ack(&self->r);
	EXPECT_EQ(1, first) TH_LOG("one pinned task counted %llu times",
				   (unsigned long long)first);
	/* the same task, sampled on: nothing new (the ring is drained) */
	EXPECT_FALSE(wait_pri(&self->r, &self->set, 500))
		TH_LOG("POLLPRI with no new task");
	quiet = new_tasks_ack(&self->r);
	EXPECT_EQ(first, quiet);
	/* its child, a new process on the same CPU: only now */
	newtask_done[NT_FORK] = 1;
	EXPECT_TRUE(wait_pri(&self->r, &self->set, (int)(10000 * work_scale())))
		TH_LOG("no POLLPRI for the forked process");
	/*
	 * The parent may be sampled again on its way into waitpid(), after
	 * its child was: new once more.  Once it sleeps there, only the
	 * child runs on that CPU, and nothing is new any more.
	 */
	EXPECT_TRUE(wait_asleep(child, (int)(10000 * work_scale())))
		TH_LOG("the parent never slept in waitpid()");
	second = new_tasks_ack(&self->r);
	TH_LOG("new tasks: %llu at first, %llu after the fork",
	       (unsigned long long)first, (unsigned long long)second);
	EXPECT_LT(quiet, second);
	mark = self->set.n;
	late = poll(&pfd, 1, 0) != 0;
	EXPECT_FALSE(late) TH_LOG("POLLPRI after the acknowledgement");
	again = wait_pri(&self->r, &self->set, 500);
	EXPECT_FALSE(again) TH_LOG("POLLPRI with only the forked process running");
	if (late || again) {
		prf_drain(&self->r, collect_record, &self->set);
		for (i = mark > 8 ? mark - 8 : 0; i < self->set.n && i < mark + 24; i++) {
			const struct perfregs_rec_sample *s = self->set.s[i];

			TH_LOG("%s sample %zu: time %llu cpu %u pid %u tid %u flags %#x abi %u",
			       i < mark ? "before" : "after", i, (unsigned long long)s->time,
			       s->cpu, s->pid, s->tid, s->flags, s->abi);
		}
	}
	newtask_done[NT_DONE] = 1;
	EXPECT_EQ(0, run_session(&self->r, &self->set, child, 0));
	munmap((void *)newtask_done, 4096);
	EXPECT_LT(0, self->set.n);
}

/*
 * Two sessions at once on the same task, at different periods, both
 * complete.  Page faults count exactly, so the periods show in the
 * sample counts whatever the (emulated) timers do.
 */
TEST_F(sess, two_sessions)
{
	struct perfregs_config c2;
	struct sample_set set2 = { 0 };
	struct prf_reader r2;
	pid_t child;
	int status, go[2];

	/*
	 * 4096 faults, from when both sessions run: 256 and 128 samples,
	 * however slow the kernel (faulting for a second gave 50 and 24 on
	 * the debug kernel).
	 */
	ASSERT_EQ(0, pipe(go));
	child = fork();
	if (child == 0) {
		char b;

		close(go[1]);
		if (read(go[0], &b, 1) != 1)
			_exit(1);
		fault_rounds_child(64);
	}
	close(go[0]);
	self->cfg.pid = child;
	self->cfg.event = PERFREGS_EV_PAGE_FAULTS;
	self->cfg.period = 16;
	self->cfg.data_pages = 256;
	c2 = self->cfg;
	c2.period = 32;
	c2.uregs_mask_64 = R(IP);
	ASSERT_EQ(0, prf_open(&r2, NULL));
	ASSERT_EQ(0, prf_config(&self->r, &self->cfg));
	ASSERT_EQ(0, prf_config(&r2, &c2));
	ASSERT_EQ(0, prf_start(&self->r));
	ASSERT_EQ(0, prf_start(&r2));
	ASSERT_EQ(1, write(go[1], "g", 1));
	close(go[1]);
	while (waitpid(child, &status, WNOHANG) != child) {
		prf_wait(&self->r, 20);
		prf_drain(&self->r, collect_record, &self->set);
		prf_drain(&r2, collect_record, &set2);
	}
	prf_stop(&self->r);
	prf_stop(&r2);
	prf_drain(&self->r, collect_record, &self->set);
	prf_drain(&r2, collect_record, &set2);
	TH_LOG("every 16 faults: %zu samples, every 32: %zu", self->set.n, set2.n);
	EXPECT_EQ(prf_produced(&self->r), accounted(&self->r, &self->set));
	EXPECT_EQ(prf_produced(&r2), accounted(&r2, &set2));
	EXPECT_LT(50, set2.n);
	/* twice as many, give or take the faults of start and exit */
	EXPECT_LT(prf_produced(&r2) * 18 / 10, prf_produced(&self->r));
	EXPECT_GT(prf_produced(&r2) * 22 / 10, prf_produced(&self->r));
	if (set2.n)
		EXPECT_EQ(R(IP), set2.s[0]->uregs_mask);
	sample_set_free(&set2);
	prf_close(&r2);
}

static int cpu_online_set(int cpu, int on)
{
	char path[128];
	int fd, ok;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online", cpu);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	ok = write(fd, on ? "1" : "0", 1) == 1;
	close(fd);
	return ok ? 0 : -errno;
}

/* CPU 1's samples in set from *i on, before and from t_on. */
static void cpu1_count(const struct sample_set *set, size_t *i, uint64_t t_on,
		       uint64_t *before, uint64_t *after)
{
	for (; *i < set->n; (*i)++) {
		if (set->s[*i]->cpu != 1)
			continue;
		if (!t_on || set->s[*i]->time < t_on)
			(*before)++;
		else
			(*after)++;
	}
}

/* A CPU goes offline and comes back while an all-CPU session samples. */
TEST_F_TIMEOUT(sess, cpu_hotplug, 90)
{
	uint64_t t_on = 0, before = 0, after = 0, end, t0;
	pid_t child;
	size_t i = 0;
	cpu_set_t set;

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		SKIP(return, "needs two CPUs");
	if (access("/sys/devices/system/cpu/cpu1/online", W_OK))
		SKIP(return, "CPU 1 cannot be taken offline here");
	child = fork();
	if (child == 0) {	/* keep CPU 1 busy whenever it is up */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		CPU_ZERO(&set);
		CPU_SET(1, &set);
		for (;;) {
			/* again after each offline, which moved it */
			sched_setaffinity(0, sizeof(set), &set);
			spin_child_for_ms(10);
		}
	}
	ASSERT_EQ(0, prf_config(&self->r, &self->cfg));
	ASSERT_EQ(0, prf_start(&self->r));
	/*
	 * Each step waits for its condition, not a fixed 300, 300 and
	 * 500 ms: CPU 1 sampled before it goes offline, and more than 10
	 * samples of it after it came back (deadlines far past it)
	 */
	t0 = now_ns();
	end = t0 + (uint64_t)(30e9 * work_scale());
	while (!before && now_ns() < end) {
		prf_wait(&self->r, 20);
		prf_drain(&self->r, collect_record, &self->set);
		cpu1_count(&self->set, &i, 0, &before, &after);
	}
	measure_until("until_ms_before", t0, end);
	ASSERT_EQ(0, cpu_online_set(1, 0));
	prf_drain(&self->r, collect_record, &self->set);
	cpu1_count(&self->set, &i, 0, &before, &after);
	ASSERT_EQ(0, cpu_online_set(1, 1));
	t_on = now_ns();
	end = t_on + (uint64_t)(30e9 * work_scale());
	while (after <= 10 && now_ns() < end) {
		prf_wait(&self->r, 20);
		prf_drain(&self->r, collect_record, &self->set);
		cpu1_count(&self->set, &i, t_on, &before, &after);
	}
	measure_until("until_ms_after", t_on, end);
	kill(child, SIGKILL);
	child_status(child);
	run_session(&self->r, &self->set, 0, 0);
	cpu1_count(&self->set, &i, t_on, &before, &after);
	TH_LOG("CPU 1: %llu samples before it went offline, %llu after it came back",
	       (unsigned long long)before, (unsigned long long)after);
	MEASURE_WAITED("cpu1_before", before, >, 0);
	/* sampling resumed on CPU 1 */
	MEASURE_WAITED("cpu1_after", after, >, 10);
	EXPECT_EQ(prf_produced(&self->r), accounted(&self->r, &self->set));
}

/* Field @field of /proc/PID/stat (startstack 28, arg_start 48), 0 if none. */
static uint64_t stat_field(pid_t pid, int field)
{
	unsigned long long v = 0;
	char path[64], buf[1024], *p;
	ssize_t n;
	int fd, i;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	p = strrchr(buf, ')');
	/* field 3 follows the comm */
	for (i = 3; p && i <= field; i++)
		p = strchr(p + 1, ' ');
	if (p)
		sscanf(p + 1, "%llu", &v);
	return v;
}

/* A sample's stack block: its size and how much was copied. */
static const unsigned char *sample_stack(const struct perfregs_rec_sample *s,
					 uint64_t *size, uint64_t *copied)
{
	unsigned int nregs = __builtin_popcountll(s->iregs_mask) +
			     __builtin_popcountll(s->uregs_mask);
	const uint64_t *p = (const uint64_t *)s->regs + nregs;

	*size = p[0];
	memcpy(copied, (const char *)(p + 1) + *size, sizeof(*copied));
	return (const unsigned char *)(p + 1);
}

/*
 * A main-thread snapshot from sp asked for more than reaches AT_RANDOM
 * (top): the whole 8-byte words below it, none of its random bytes, and
 * one word at least.
 */
static uint64_t stack_words_below(uint64_t top, uint64_t sp)
{
	uint64_t n = (top - sp) & ~7ULL;

	return n ? n : 8;
}

/* AT_RANDOM of pid, from /proc/PID/auxv (32-bit words if is32); 0 if none. */
static uint64_t auxv_random(pid_t pid, bool is32)
{
	unsigned char buf[4096];
	char path[64];
	uint64_t type, val;
	ssize_t n, i, w = is32 ? 4 : 8;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/auxv", pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf));
	close(fd);
	for (i = 0; i + 2 * w <= n; i += 2 * w) {
		type = val = 0;
		memcpy(&type, buf + i, w);
		memcpy(&val, buf + i + w, w);
		if (type == 25)		/* AT_RANDOM */
			return val;
		if (!type)
			break;
	}
	return 0;
}

/*
 * Sample until want snapshots of the workload's loop are in (a 500 ms
 * window gave 91..145), a minute at most.
 */
#define WANT_SNAPSHOTS	50

static void sample_loop_stacks(struct prf_reader *r, struct sample_set *set,
			       const struct workload *w, size_t want)
{
	uint64_t t0 = now_ns(), end = t0 + (uint64_t)(60e9 * work_scale()), ip;
	size_t i = 0, n = 0;

	while (n < want && now_ns() < end) {
		prf_wait(r, 20);
		prf_drain(r, collect_record, set);
		for (; i < set->n; i++)
			n += (set->s[i]->flags & PERFREGS_SF_STACK) &&
			     sample_ureg(set->s[i], PERFREGS_REG_IP, &ip) &&
			     ip >= w->loop_start && ip < w->loop_end;
	}
	measure_until("until_ms", t0, end);
}

/*
 * The stack snapshot is the user stack from SP.  In magic_64's spin loop
 * SP points at the five registers magic_spin() saved, and above them is
 * its return address into main(): a known value, read live from
 * /proc/PID/mem.  (The saved registers are main()'s, which change from
 * one pass to the next, so they are compared only for the record.)
 */
TEST_F_TIMEOUT(sess, user_stack_snapshot, 90)
{
	struct workload w;
	char why[256], path[64];
	size_t i, checked = 0, bad = 0, differ = 0;
	uint64_t top;
	int memfd;

	/* it spins until killed: alive when its stack is read below */
	ASSERT_EQ(0, start_workload(&w, "magic_64", "inf", why, sizeof(why)))
		TH_LOG("%s", why);
	top = auxv_random(w.pid, false);	/* the copies end there */
	ASSERT_LT(512, top);
	self->cfg.pid = w.pid;
	self->cfg.stack_bytes = 512;
	self->cfg.data_pages = 256;
	ASSERT_EQ(0, prf_config(&self->r, &self->cfg));
	ASSERT_EQ(0, prf_start(&self->r));
	sample_loop_stacks(&self->r, &self->set, &w, WANT_SNAPSHOTS);
	prf_stop(&self->r);
	prf_drain(&self->r, collect_record, &self->set);
	snprintf(path, sizeof(path), "/proc/%d/mem", w.pid);
	memfd = open(path, O_RDONLY);
	ASSERT_LE(0, memfd);
	for (i = 0; i < self->set.n; i++) {
		const struct perfregs_rec_sample *s = self->set.s[i];
		unsigned int nregs = __builtin_popcountll(s->iregs_mask) +
				     __builtin_popcountll(s->uregs_mask);
		const uint64_t *p = (const uint64_t *)s->regs + nregs;
		uint64_t ip, sp, size, copied, want, live[64];

		if (!(s->flags & PERFREGS_SF_STACK))
			continue;
		size = p[0];
		copied = *(const uint64_t *)((const char *)(p + 1) + size);
		want = 512;
		if (sample_ureg(s, PERFREGS_REG_SP, &sp) && sp < top && top - sp < 512)
			want = stack_words_below(top, sp);
		EXPECT_EQ(want, size);
		EXPECT_EQ(s->header.size, (char *)(p + 2) + size - (char *)s);
		if (!sample_ureg(s, PERFREGS_REG_IP, &ip) ||
		    !sample_ureg(s, PERFREGS_REG_SP, &sp) ||
		    ip < w.loop_start || ip >= w.loop_end)
			continue;
		EXPECT_EQ(512, copied);
		if (pread(memfd, live, sizeof(live), sp) != sizeof(live))
			continue;
		checked++;
		if (p[1 + 5] != live[5]) {	/* the return address */
			if (bad++ < 3)
				TH_LOG("sample %zu: return address 0x%llx, live 0x%llx",
				       i, (unsigned long long)p[6],
				       (unsigned long long)live[5]);
		}
		if (memcmp(live, p + 1, copied))
			differ++;
	}
	close(memfd);
	kill(w.pid, SIGKILL);
	workload_wait(&w);
	TH_LOG("%zu in-loop snapshots: %zu wrong return address, %zu differ "
	       "somewhere from the live stack", checked, bad, differ);
	MEASURE_WAITED("loop_snapshots", checked, >=, WANT_SNAPSHOTS);
	EXPECT_EQ(0, bad);
}

/*
 * Asked for more stack than the main thread's frames take, the kernel
 * copies from SP up to the 16 random bytes AT_RANDOM points to (whole
 * words below them, not one of those bytes), above
 * argc, the argv and envp pointers and the auxiliary vector, and no
 * further: above are a random gap of up to 8 KiB and the argument and
 * environment strings (8 KiB of them in this guest), no frame.  In the
 * magic workload's spin loop every snapshot must end there, be that
 * long in the record, and match the live stack in its last bytes (the
 * auxiliary vector, which does not change).  i386 tasks keep their
 * vector in 32-bit words.
 */
static void stack_ends_below_the_strings(struct __test_metadata *_metadata,
					 FIXTURE_DATA(sess) *self,
					 const char *name, bool is32)
{
	size_t i, checked = 0, bad = 0, differ = 0;
	char why[256], path[64];
	struct workload w;
	uint64_t top;
	int memfd;

	/*
	 * it spins until killed: alive when its stack is read below (a 2 s
	 * workload could be gone, pread() read nothing and every snapshot
	 * counted as differing)
	 */
	ASSERT_EQ(0, start_workload(&w, name, "inf", why, sizeof(why)))
		TH_LOG("%s", why);
	top = auxv_random(w.pid, is32);
	ASSERT_LT(stat_field(w.pid, 28), top);	/* above startstack */
	ASSERT_GT(stat_field(w.pid, 48), top);	/* below arg_start */
	self->cfg.pid = w.pid;
	self->cfg.stack_bytes = 32768;
	self->cfg.data_pages = 256;
	ASSERT_EQ(0, prf_config(&self->r, &self->cfg));
	ASSERT_EQ(0, prf_start(&self->r));
	sample_loop_stacks(&self->r, &self->set, &w, WANT_SNAPSHOTS);
	prf_stop(&self->r);
	prf_drain(&self->r, collect_record, &self->set);
	snprintf(path, sizeof(path), "/proc/%d/mem", w.pid);
	memfd = open(path, O_RDONLY);
	ASSERT_LE(0, memfd);
	for (i = 0; i < self->set.n; i++) {
		const struct perfregs_rec_sample *s = self->set.s[i];
		uint64_t ip, sp, size, copied, want, tail;
		const unsigned char *stack;
		unsigned char live[128];

		if (!(s->flags & PERFREGS_SF_STACK))
			continue;
		stack = sample_stack(s, &size, &copied);
		EXPECT_EQ(s->header.size, stack + size + 8 - (const unsigned char *)s);
		if (!sample_ureg(s, PERFREGS_REG_IP, &ip) ||
		    !sample_ureg(s, PERFREGS_REG_SP, &sp) ||
		    ip < w.loop_start || ip >= w.loop_end)
			continue;
		checked++;
		want = stack_words_below(top, sp);
		if (copied != want || size != want || sp + size > top) {
			if (bad++ < 3)
				TH_LOG("sample %zu: sp 0x%llx, %llu bytes to AT_RANDOM, "
				       "%llu copied, size %llu", i,
				       (unsigned long long)sp, (unsigned long long)want,
				       (unsigned long long)copied, (unsigned long long)size);
			continue;
		}
		tail = copied < sizeof(live) ? copied : sizeof(live);
		if (pread(memfd, live, tail, sp + copied - tail) != (ssize_t)tail ||
		    memcmp(live, stack + copied - tail, tail))
			differ++;
	}
	close(memfd);
	kill(w.pid, SIGKILL);
	workload_wait(&w);
	TH_LOG("%s: %zu in-loop snapshots of 32768 bytes asked: %zu not ending "
	       "at AT_RANDOM (0x%llx), %zu whose last bytes differ from the "
	       "live stack", name, checked, bad, (unsigned long long)top, differ);
	MEASURE_WAITED("loop_snapshots", checked, >=, WANT_SNAPSHOTS);
	EXPECT_EQ(0, bad);
	EXPECT_EQ(0, differ);
}

TEST_F_TIMEOUT(sess, user_stack_ends_below_the_strings_64, 90)
{
	stack_ends_below_the_strings(_metadata, self, "magic_64", false);
}

TEST_F_TIMEOUT(sess, user_stack_ends_below_the_strings_32, 90)
{
	stack_ends_below_the_strings(_metadata, self, "magic_32", true);
}

/*
 * Elsewhere, on a thread's stack or one a program made, the copy ends
 * at the first page the kernel cannot read, and the reservation gives
 * back the rest: the record carries the bytes copied, rounded up to 8,
 * not the 32768 asked.  The spinner's stack has an inaccessible page
 * right above it.
 */
TEST_F_TIMEOUT(sess, user_stack_trimmed_at_a_fault, 90)
{
	size_t i, checked = 0, bad = 0;
	uint64_t top, sp, end, t0;
	pid_t pid;

	pid = start_own_stack_spinner(&top);
	ASSERT_LT(0, pid);
	self->cfg.pid = pid;
	self->cfg.stack_bytes = 32768;
	self->cfg.data_pages = 256;
	ASSERT_EQ(0, prf_config(&self->r, &self->cfg));
	ASSERT_EQ(0, prf_start(&self->r));
	/* until WANT_SNAPSHOTS near the top (500 ms gave 119) */
	t0 = now_ns();
	end = t0 + (uint64_t)(60e9 * work_scale());
	for (i = 0; checked < WANT_SNAPSHOTS && now_ns() < end;) {
		prf_wait(&self->r, 20);
		prf_drain(&self->r, collect_record, &self->set);
		for (; i < self->set.n; i++)
			checked += (self->set.s[i]->flags & PERFREGS_SF_STACK) &&
				   sample_ureg(self->set.s[i], PERFREGS_REG_SP, &sp) &&
				   sp < top && top - sp <= 4096;
	}
	measure_until("until_ms", t0, end);
	prf_stop(&self->r);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	prf_drain(&self->r, collect_record, &self->set);
	checked = 0;
	for (i = 0; i < self->set.n; i++) {
		const struct perfregs_rec_sample *s = self->set.s[i];
		uint64_t size, copied;
		const unsigned char *stack;

		if (!(s->flags & PERFREGS_SF_STACK) ||
		    !sample_ureg(s, PERFREGS_REG_SP, &sp) ||
		    sp >= top || top - sp > 4096)
			continue;
		stack = sample_stack(s, &size, &copied);
		EXPECT_EQ(s->header.size, stack + size + 8 - (const unsigned char *)s);
		checked++;
		if (copied != top - sp || size != ((copied + 7) & ~7ULL)) {
			if (bad++ < 3)
				TH_LOG("sample %zu: sp 0x%llx, %llu bytes to the fault, "
				       "%llu copied, size %llu", i, (unsigned long long)sp,
				       (unsigned long long)(top - sp),
				       (unsigned long long)copied, (unsigned long long)size);
		}
	}
	TH_LOG("%zu snapshots on the spinner's own stack: %zu not trimmed to "
	       "the fault at 0x%llx", checked, bad, (unsigned long long)top);
	MEASURE_WAITED("snapshots_near_top", checked, >=, WANT_SNAPSHOTS);
	EXPECT_EQ(0, bad);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * -F: the kernel sets the period for the asked frequency.  For cpu-clock
 * perf makes 250 Hz a fixed 4 ms hrtimer period; what shows it is the
 * time between the child's consecutive samples, not their rate: under
 * TCG expirations are lost whenever the emulator's one thread is busy
 * elsewhere (182 samples per CPU-second were measured, against a floor
 * of 150: a 1.2x margin set by the host's load).  Nor do the gaps
 * between samples show it reliably: late callbacks spread them (the
 * 10th percentile was 2.1 ms on an idle host, the lower quartile 7.3
 * ms with the host loaded; 6.1 and 6.12, 2026-12-07).  So a second
 * session samples the same child at the same time with a fixed 4 ms
 * period: both hrtimers lose what the emulator loses, and the kernel
 * made the frequency right when both produce as much.  A wrong period
 * shows as a ratio far from 1 (1 ms gives about twice the samples of
 * 4 ms under TCG, 36 % and 73 % of nominal).
 */
TEST_F(sess, frequency_mode)
{
	pid_t child = start_child(spin_child, 2);
	uint64_t *gap, p10 = 0, freq_n, fixed_n;
	struct perfregs_config c2;
	struct prf_reader r2;
	double rate, cpu;
	size_t i, n;

	self->cfg.pid = child;
	c2 = self->cfg;
	self->cfg.flags |= PERFREGS_CF_FREQ;
	self->cfg.period = 250;		/* Hz */
	c2.period = 4000000;		/* ns: what 250 Hz is */
	c2.data_pages = 256;		/* drained at the end only */
	ASSERT_EQ(0, prf_open(&r2, NULL));
	ASSERT_EQ(0, prf_config(&self->r, &self->cfg));
	ASSERT_EQ(0, prf_config(&r2, &c2));
	ASSERT_EQ(0, prf_start(&self->r));
	ASSERT_EQ(0, prf_start(&r2));
	child_go(child);
	EXPECT_EQ(0, run_session(&self->r, &self->set, child, 0));
	prf_stop(&r2);
	freq_n = prf_produced(&self->r);
	fixed_n = prf_produced(&r2);
	prf_close(&r2);
	/* per second of the child's CPU time: all cpu-clock can count */
	cpu = child_usage.ru_utime.tv_sec + child_usage.ru_utime.tv_usec / 1e6 +
	      child_usage.ru_stime.tv_sec + child_usage.ru_stime.tv_usec / 1e6;
	ASSERT_LT(0.5, cpu);
	rate = self->set.n / cpu;
	n = self->set.n;
	ASSERT_LT(10, n);
	gap = calloc(n, sizeof(*gap));
	ASSERT_NE(NULL, gap);
	for (i = 0; i < n; i++)
		gap[i] = self->set.s[i]->time;
	qsort(gap, n, sizeof(*gap), cmp_u64);
	for (i = 0; i + 1 < n; i++)
		gap[i] = gap[i + 1] - gap[i];
	qsort(gap, n - 1, sizeof(*gap), cmp_u64);
	p10 = gap[(n - 1) / 10];
	TH_LOG("%zu samples in %.2f s of CPU at 250 Hz asked: %.0f/s; gaps between them: 10th percentile %.2f ms, lower quartile %.2f ms, median %.2f ms; produced %llu, with a fixed 4 ms period %llu",
	       n, cpu, rate, p10 / 1e6, gap[(n - 1) / 4] / 1e6, gap[(n - 1) / 2] / 1e6,
	       (unsigned long long)freq_n, (unsigned long long)fixed_n);
	free(gap);
	/*
	 * as many as the fixed 4 ms period's, within 1.5x either way: the
	 * distance from it in percent of the larger, under 34 (2/3 of it).
	 * Measured 2026-12-07, loaded: 100 to 104 in percent, a distance
	 * of 0 to 4 against 34, over 8x away.
	 */
	ASSERT_LT(0, fixed_n);
	ASSERT_LT(0, freq_n);
	MEASURE("freq_fixed_apart_pct",
		100 - 100 * (freq_n < fixed_n ? freq_n : fixed_n) /
		(freq_n < fixed_n ? fixed_n : freq_n), <, 34);
}

/* A CPU list: samples come from those CPUs only. */
TEST_F_TIMEOUT(sess, cpu_list, 90)
{
	uint64_t cpus[1] = { 1ULL << 0 }, end, t0;
	size_t i, other = 0;

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		SKIP(return, "needs two CPUs");
	self->cfg.cpus_ptr = (uintptr_t)cpus;
	self->cfg.cpus_bytes = sizeof(cpus);
	ASSERT_EQ(0, prf_config(&self->r, &self->cfg));
	EXPECT_EQ(1, self->r.nr_rings) TH_LOG("a ring for each CPU listed, no more");
	ASSERT_EQ(0, prf_start(&self->r));
	/* until more than 100 (500 ms gave 281), a minute at most */
	t0 = now_ns();
	end = t0 + (uint64_t)(60e9 * work_scale());
	while (self->set.n <= 100 && now_ns() < end) {
		prf_wait(&self->r, 20);
		prf_drain(&self->r, collect_record, &self->set);
	}
	measure_until("until_ms", t0, end);
	run_session(&self->r, &self->set, 0, 0);
	for (i = 0; i < self->set.n; i++)
		if (self->set.s[i]->cpu != 0)
			other++;
	TH_LOG("%zu samples, %zu not on CPU 0", self->set.n, other);
	MEASURE_WAITED("samples", self->set.n, >, 100);
	EXPECT_EQ(0, other);
}

/* exclude_kernel / exclude_user, and kernel threads have no user regs. */
/* The idle task (pid 0) or a kernel thread (PF_KTHREAD in its stat). */
static bool is_kthread(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long flags = 0;
	int i;

	if (pid == 0)
		return true;
	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if (read_file(path, buf, sizeof(buf)))
		return false;
	p = strrchr(buf, ')');	/* comm may hold spaces */
	for (i = 0; p && i < 7; i++)	/* state ppid pgrp session tty tpgid flags */
		p = strchr(p + 1, ' ');
	if (p)
		flags = strtoul(p + 1, NULL, 10);
	return flags & 0x00200000;	/* PF_KTHREAD */
}

TEST_F_TIMEOUT(sess, exclude_and_kernel_threads, 90)
{
	size_t i, kern = 0, user = 0, kthread = 0, kthread_uregs = 0;
	pid_t child = start_child(mixed_child, 1);
	uint64_t end, t0;

	self->cfg.pid = child;
	self->cfg.flags |= PERFREGS_CF_EXCLUDE_KERNEL;
	ASSERT_EQ(0, prf_config(&self->r, &self->cfg));
	ASSERT_EQ(0, prf_start(&self->r));
	child_go(child);
	run_session(&self->r, &self->set, child, 0);
	for (i = 0; i < self->set.n; i++)
		if (self->set.s[i]->flags & PERFREGS_SF_KERNEL)
			kern++;
	TH_LOG("exclude_kernel: %zu samples, %zu in kernel mode", self->set.n, kern);
	MEASURE("exclude_kernel_samples", self->set.n, >, 10);
	EXPECT_EQ(0, kern);
	sample_set_free(&self->set);

	child = start_child(mixed_child, 1);
	self->cfg.pid = child;
	self->cfg.flags = PERFREGS_CF_EXCLUDE_USER;
	ASSERT_EQ(0, prf_config(&self->r, &self->cfg));
	ASSERT_EQ(0, prf_start(&self->r));
	child_go(child);
	run_session(&self->r, &self->set, child, 0);
	for (i = 0; i < self->set.n; i++) {
		const struct perfregs_rec_sample *s = self->set.s[i];

		if (!(s->flags & PERFREGS_SF_KERNEL))
			user++;
		/* in the kernel on behalf of a task: its entry frame */
		else if ((s->flags & PERFREGS_SF_UREGS_MASK) != PERFREGS_SF_UREGS_ENTRY)
			user += 1000;
	}
	TH_LOG("exclude_user: %zu samples, %zu bad", self->set.n, user);
	MEASURE("exclude_user_samples", self->set.n, >, 10);
	EXPECT_EQ(0, user);
	sample_set_free(&self->set);

	/* all CPUs, kernel only: idle and kernel threads show up */
	self->cfg.pid = -1;
	self->cfg.flags = PERFREGS_CF_EXCLUDE_USER;
	ASSERT_EQ(0, prf_config(&self->r, &self->cfg));
	ASSERT_EQ(0, prf_start(&self->r));
	/* until more than 10 of kernel threads (300 ms gave 139) */
	t0 = now_ns();
	end = t0 + (uint64_t)(60e9 * work_scale());
	for (i = 0; kthread <= 10 && now_ns() < end;) {
		prf_wait(&self->r, 20);
		prf_drain(&self->r, collect_record, &self->set);
		for (; i < self->set.n; i++)
			kthread += is_kthread(self->set.s[i]->pid);
	}
	measure_until("until_ms", t0, end);
	run_session(&self->r, &self->set, 0, 0);
	kthread = 0;
	for (i = 0; i < self->set.n; i++) {
		const struct perfregs_rec_sample *s = self->set.s[i];

		if (is_kthread(s->pid)) {	/* the idle task, kworkers... */
			kthread++;
			if (s->uregs_mask || s->abi != PERFREGS_ABI_NONE ||
			    (s->flags & PERFREGS_SF_UREGS_MASK) || s->image_ino)
				kthread_uregs++;
		}
	}
	TH_LOG("%zu samples of kernel threads, %zu of them with user registers",
	       kthread, kthread_uregs);
	MEASURE_WAITED("kthread_samples", kthread, >, 10);
	EXPECT_EQ(0, kthread_uregs);
}

static void *spin_thread(void *arg)
{
	uint64_t end = now_ns() + 500000000ULL;

	while (now_ns() < end)
		;
	return arg;
}

/* A process target follows threads created after sampling started. */
static void threads_child(int seconds)
{
	pthread_t t[3];
	int i;

	usleep(300000);	/* after the session started */
	for (i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, spin_thread, NULL);
	for (i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	_exit(0);
}

TEST_F(sess, follows_new_threads)
{
	pid_t child = start_child(threads_child, 0);
	size_t i, j, ntids = 0, fewest = SIZE_MAX;
	uint32_t tids[64];
	size_t per[64] = { 0 };

	self->cfg.pid = child;
	ASSERT_EQ(0, prf_config(&self->r, &self->cfg));
	ASSERT_EQ(0, prf_start(&self->r));
	child_go(child);
	EXPECT_EQ(0, run_session(&self->r, &self->set, child, 0));
	for (i = 0; i < self->set.n; i++) {
		uint32_t tid = self->set.s[i]->tid;

		EXPECT_EQ(child, (pid_t)self->set.s[i]->pid);
		for (j = 0; j < ntids && tids[j] != tid; j++)
			;
		if (j == ntids && ntids < 64)
			tids[ntids++] = tid;
		if (j < ntids)
			per[j]++;
	}
	/*
	 * the three new ones: the main thread only sleeps and may never
	 * have the millisecond of CPU a sample takes (4 of 4 were needed)
	 */
	for (i = 0, j = 0; i < ntids; i++) {
		if (tids[i] == (uint32_t)child)
			continue;
		j++;
		if (per[i] < fewest)
			fewest = per[i];
	}
	TH_LOG("%zu samples from %zu threads, %zu of them new, the fewest of a new one %zu",
	       self->set.n, ntids, j, j ? fewest : 0);
	EXPECT_EQ(3, j);
	/*
	 * each spun 500 ms at a 1 ms period: what could miss one is how
	 * many samples it had, so that is the margin
	 */
	MEASURE("fewest_samples_of_a_new_thread", j ? fewest : 0, >=, 1);
}

/* epoll works on the device like poll. */
TEST_F(sess, epoll)
{
	struct epoll_event ev = { .events = EPOLLIN }, out;
	pid_t child = start_child(spin_child, 1);
	int ep;

	self->cfg.pid = child;
	self->cfg.data_pages = 16;
	self->cfg.wakeup_bytes = 8192;
	ASSERT_EQ(0, prf_config(&self->r, &self->cfg));
	ep = epoll_create1(0);
	ASSERT_LE(0, ep);
	ASSERT_EQ(0, epoll_ctl(ep, EPOLL_CTL_ADD, self->r.fd, &ev));
	ASSERT_EQ(0, prf_start(&self->r));
	child_go(child);
	EXPECT_EQ(1, epoll_wait(ep, &out, 1, 5000));
	EXPECT_TRUE(out.events & EPOLLIN);
	close(ep);
	run_session(&self->r, &self->set, child, 0);
}

TEST_F_TIMEOUT(sess, reset, 90)
{
	pid_t child = start_child(spin_child, 1);
	uint64_t end;

	self->cfg.pid = child;
	ASSERT_EQ(0, prf_config(&self->r, &self->cfg));
	EXPECT_EQ(0, ioctl(self->r.fd, PERFREGS_IOC_RESET));
	ASSERT_EQ(0, prf_start(&self->r));
	child_go(child);
	/* until it produced something (it was a 200 ms sleep) */
	end = now_ns() + (uint64_t)(30e9 * work_scale());
	while (!prf_produced(&self->r) && now_ns() < end)
		usleep(1000);
	EXPECT_EQ(-1, ioctl(self->r.fd, PERFREGS_IOC_RESET));
	EXPECT_EQ(EBUSY, errno);
	prf_stop(&self->r);
	EXPECT_LT(0, prf_produced(&self->r));
	EXPECT_EQ(0, ioctl(self->r.fd, PERFREGS_IOC_RESET));
	EXPECT_EQ(0, prf_produced(&self->r));
	EXPECT_EQ(0, self->r.rings[0].ctl->data_head);
	EXPECT_EQ(0, self->r.rings[0].ctl->data_tail);
	kill(child, SIGKILL);
	child_status(child);
}

struct priv_case {
	pid_t target;
	uint32_t flags;
	int32_t pid;
};

static int priv_config(void *arg)
{
	struct priv_case *c = arg;
	struct perfregs_config cfg;
	int fd = open(PERFREGS_DEVICE, O_RDWR);

	if (fd < 0)
		return 100 + errno;
	prf_config_default(&cfg);
	cfg.pid = c->pid;
	cfg.flags = c->flags;
	/* the witness: what perf_event_open() says decides */
	cfg.perf_fd = prf_witness_open(&cfg);
	if (cfg.perf_fd < 0)
		return -cfg.perf_fd;
	return ioctl(fd, PERFREGS_IOC_CONFIG, &cfg) ? errno : 0;
}

TEST(privilege_rules)
{
	char old[16] = "";
	struct priv_case c = { 0 };
	pid_t mine, roots;
	int fd, i;

	if (!module_loaded())
		SKIP(return, "perfregs is not loaded");
	if (geteuid())
		SKIP(return, "must start as root");
	fd = open("/proc/sys/kernel/perf_event_paranoid", O_RDONLY);
	ASSERT_LE(0, fd);
	ASSERT_LT(0, read(fd, old, sizeof(old) - 1));
	close(fd);
	roots = start_child(switch_child, 3);
	child_go(roots);	/* it runs before the session starts */
	mine = fork();
	if (mine == 0) {	/* a process of nobody's, dumpable again by exec */
		if (setgid(65534) || setuid(65534))
			_exit(99);
		execl("/bin/sleep", "sleep", "60", NULL);
		_exit(98);
	}
	/*
	 * until it has exec'ed: before, it is not dumpable, hence not ours
	 * (20 s x scale, as test_security's wait_comm(); it was 5 s, and
	 * ran on silently)
	 */
	for (i = 0; i < 2000 * work_scale(); i++) {
		char path[64], comm[32] = "";

		snprintf(path, sizeof(path), "/proc/%d/comm", mine);
		if (!read_file(path, comm, sizeof(comm)) && !strcmp(comm, "sleep"))
			break;
		usleep(10000);
	}
	ASSERT_GT(2000 * work_scale(), i) TH_LOG("nobody's child never ran sleep");

	ASSERT_EQ(0, write_file("/proc/sys/kernel/perf_event_paranoid", "2"));
	c = (struct priv_case){ .pid = mine, .flags = PERFREGS_CF_EXCLUDE_KERNEL };
	EXPECT_EQ(0, as_nobody(priv_config, &c)) TH_LOG("own process, user only");
	c = (struct priv_case){ .pid = mine, .flags = 0 };
	EXPECT_EQ(EACCES, as_nobody(priv_config, &c)) TH_LOG("kernel samples");
	c = (struct priv_case){ .pid = roots, .flags = PERFREGS_CF_EXCLUDE_KERNEL };
	EXPECT_EQ(EACCES, as_nobody(priv_config, &c)) TH_LOG("root's process");
	c = (struct priv_case){ .pid = -1, .flags = PERFREGS_CF_EXCLUDE_KERNEL };
	EXPECT_EQ(EACCES, as_nobody(priv_config, &c)) TH_LOG("every task");
	ASSERT_EQ(0, write_file("/proc/sys/kernel/perf_event_paranoid", "3"));
	c = (struct priv_case){ .pid = mine, .flags = PERFREGS_CF_EXCLUDE_KERNEL };
	EXPECT_EQ(EACCES, as_nobody(priv_config, &c)) TH_LOG("paranoid 3");
	write_file("/proc/sys/kernel/perf_event_paranoid", old);
	kill(mine, SIGKILL);
	kill(roots, SIGKILL);
	child_status(mine);
	child_status(roots);
}

PERFREGS_HARNESS_MAIN
