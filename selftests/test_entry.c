// SPDX-License-Identifier: GPL-2.0
/*
 * NMIs that land while an entry from user mode is still building the
 * task's frame (on the user, entry, IST stack, or inside the frame):
 * the module must count them as entry races and give no user registers,
 * never a stale frame.  The workload (entry_race.c) enters the kernel
 * by int $0x80, SYSENTER, SYSCALL, page faults and IRQs, in a loop whose
 * registers and stack tell a stale frame from a fresh one; the host
 * injects NMIs, faster while this test runs (tools/vm/run reads the rate
 * from /run/vm/nmi-hz).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include "kselftest_harness.h"
#include "common.h"

#define NMI_RATE_FILE	"/run/vm/nmi-hz"

struct er_work {
	pid_t pid;
	char abi[16];
	uint64_t store[4], slot;
	uint64_t loop_start, loop_end, vsys_ret;	/* see entry_race.c */
	uint64_t vdso_start, vdso_end;
};

/* The workload's [vdso] (i386: __kernel_vsyscall's SYSENTER is there). */
static void er_vdso(struct er_work *w)
{
	char path[64], line[512];
	FILE *fp;

	snprintf(path, sizeof(path), "/proc/%d/maps", w->pid);
	fp = fopen(path, "r");
	while (fp && fgets(line, sizeof(line), fp))
		if (strstr(line, "[vdso]"))
			sscanf(line, "%" SCNx64 "-%" SCNx64, &w->vdso_start, &w->vdso_end);
	if (fp)
		fclose(fp);
}

static int er_start(struct er_work *w, const char *path, const char *arg, int cpu,
		    char *why, size_t whylen)
{
	char line[512];
	int fds[2];
	FILE *fp;

	if (pipe(fds))
		return -1;
	w->pid = fork();
	if (w->pid == 0) {
		pin_cpu(cpu);		/* where the NMIs come */
		dup2(fds[1], 1);
		close(fds[0]);
		execl(path, path, arg, NULL);
		_exit(127);
	}
	close(fds[1]);
	fp = fdopen(fds[0], "r");
	if (!fp || !fgets(line, sizeof(line), fp) ||
	    sscanf(line, "entry abi=%15s pid=%*d stores=%" SCNx64 ",%" SCNx64
		   ",%" SCNx64 ",%" SCNx64 " slot=%" SCNx64 " loop=%" SCNx64 "-%" SCNx64
		   " vsys_ret=%" SCNx64, w->abi,
		   &w->store[0], &w->store[1], &w->store[2], &w->store[3],
		   &w->slot, &w->loop_start, &w->loop_end, &w->vsys_ret) != 9) {
		snprintf(why, whylen, "%.200s printed no first line", path);
		return -1;
	}
	fclose(fp);
	er_vdso(w);
	return 0;
}

/*
 * Is this a frame of the loop?  Its IP in the loop; or (i386) in the
 * vDSO, in __kernel_vsyscall called from the loop: the return address
 * to er_vsys_ret among the words it pushes (ecx, edx, ebp).  Outside
 * the loop P no longer holds the slot (entry_race.c zeroes it), but a
 * frame there is not looked at either way.
 */
static bool er_loop_frame(const struct er_work *w, bool is32, uint64_t ip,
			  const uint8_t *stack, uint64_t copied)
{
	uint32_t word;
	uint64_t k;

	if (ip >= w->loop_start && ip < w->loop_end)
		return true;
	if (!is32 || ip < w->vdso_start || ip >= w->vdso_end)
		return false;
	for (k = 0; k < 4 && 4 * k + 4 <= copied; k++) {
		memcpy(&word, stack + 4 * k, 4);
		if (word == w->vsys_ret)
			return true;
	}
	return false;
}

struct er_count {
	size_t samples, entry, checked, stale, race, direct, unchecked;
	char first_stale[160];
};

/* Is this sample's entry frame stale?  See entry_race.c. */
static void er_check(const struct er_work *w, bool is32,
		     const struct perfregs_rec_sample *s, struct er_count *n)
{
	int c_reg = is32 ? PERFREGS_REG_SI : PERFREGS_REG_R12;
	int p_reg = is32 ? PERFREGS_REG_DI : PERFREGS_REG_R13;
	size_t width = is32 ? 4 : 8, nregs;
	uint64_t c, p, sp, ip, mem = 0, size, copied, off, want;
	const uint8_t *stack;
	int i;

	n->samples++;
	if (s->flags & PERFREGS_SF_ENTRY_RACE)
		n->race++;
	if ((s->flags & PERFREGS_SF_UREGS_MASK) == PERFREGS_SF_UREGS_DIRECT)
		n->direct++;
	if ((s->flags & PERFREGS_SF_UREGS_MASK) != PERFREGS_SF_UREGS_ENTRY)
		return;
	n->entry++;
	if (!(s->flags & PERFREGS_SF_STACK) || !sample_ureg(s, c_reg, &c) ||
	    !sample_ureg(s, p_reg, &p) || !sample_ureg(s, PERFREGS_REG_SP, &sp) ||
	    !sample_ureg(s, PERFREGS_REG_IP, &ip)) {
		n->unchecked++;
		return;
	}
	nregs = __builtin_popcountll(s->iregs_mask) + __builtin_popcountll(s->uregs_mask);
	memcpy(&size, (const char *)s->regs + 8 * nregs, 8);
	stack = (const uint8_t *)s->regs + 8 * nregs + 8;
	memcpy(&copied, stack + size, 8);
	off = p - sp;
	/*
	 * Only loop frames (er_loop_frame()), with P the slot within the
	 * copied stack.  The IP decides, by the loop's own labels: once
	 * the loop was left, r13 could still hold the slot in now()'s vDSO
	 * clock_gettime, whose r12 is its own, and an IRQ there made a
	 * fresh frame that looked stale (ip 0x7fff..9f4, 6.1, 2026-12-02;
	 * a byte range around the stores filtered it then, and i386 not at
	 * all).
	 */
	if (p != w->slot || p < sp || off + width > copied ||
	    !er_loop_frame(w, is32, ip, stack, copied)) {
		n->unchecked++;
		return;
	}
	memcpy(&mem, stack + off, width);
	want = 0;
	for (i = 0; i < 4; i++)
		if (ip == w->store[i])
			want = 1;	/* incremented, not yet stored */
	n->checked++;
	if (((c - mem) & (is32 ? 0xffffffffULL : ~0ULL)) != want) {
		if (!n->stale++)
			snprintf(n->first_stale, sizeof(n->first_stale),
				 "ip %#" PRIx64 " counter %#" PRIx64 " slot %#" PRIx64
				 " (cpu %u, kernel at the NMI: %s)", ip, c, mem,
				 s->cpu, s->flags & PERFREGS_SF_KERNEL ? "yes" : "no");
	}
}

/* The file may not exist yet: write_file() does not create files. */
static int set_nmi_rate(const char *hz)
{
	FILE *fp = fopen(NMI_RATE_FILE, "w");
	int ok;

	if (!fp)
		return -1;
	ok = fputs(hz, fp) >= 0;
	return fclose(fp) == 0 && ok ? 0 : -1;
}

FIXTURE(entry) {
	struct prf_reader r;
	struct perfregs_config cfg;
	struct sample_set set;
	struct er_work w;
	bool rate_set;
	int cpu;
};

FIXTURE_VARIANT(entry) {
	const char *binary;
	bool is32;
};

FIXTURE_VARIANT_ADD(entry, x86_64) {
	.binary = "entry_race_64",
	.is32 = false,
};

FIXTURE_VARIANT_ADD(entry, i386) {
	.binary = "entry_race_32",
	.is32 = true,
};

FIXTURE_SETUP(entry)
{
	char path[512];

	if (!module_loaded())
		SETUP_SKIP("perfregs is not loaded");
	if (!nmis_injected())
		SETUP_SKIP("no NMIs are injected here (tools/vm/run --nmi-hz)");
	snprintf(path, sizeof(path), "%s/%s", selftest_dir(), variant->binary);
	if (access(path, X_OK))
		SETUP_SKIP("%s not built (gcc-multilib?)", variant->binary);
	/* a rate for this test: many NMIs, so that many land in entry code */
	self->rate_set = !set_nmi_rate("400");
	self->cpu = nmi_cpu(300);
	ASSERT_LE(0, self->cpu) TH_LOG("no CPU takes the injected NMIs");
	ASSERT_EQ(0, prf_open(&self->r, NULL));
	prf_config_default(&self->cfg);
	self->cfg.event = PERFREGS_EV_NMI;
	self->cfg.iregs_mask = 0;
	self->cfg.stack_bytes = 256;
	self->cfg.data_pages = 256;
	self->w.pid = -1;
}

FIXTURE_TEARDOWN(entry)
{
	if (self->rate_set)
		set_nmi_rate("0");
	if (self->w.pid > 0) {
		kill(self->w.pid, SIGKILL);
		waitpid(self->w.pid, NULL, 0);
	}
	prf_close(&self->r);
	sample_set_free(&self->set);
}

/*
 * Until this many entry frames of the loop are checked and this many
 * NMIs landed in entry code (8 s gave 1553 and 780 of 2383 samples on
 * 6.1, x86-64): then the workload is killed, not after a fixed 8 s.
 */
#define WANT_CHECKED	400
#define WANT_RACES	20

TEST_F_TIMEOUT(entry, no_stale_frame, 120)
{
	struct er_count n = { 0 };
	char path[512], why[256];
	uint64_t t0, deadline;
	int status = 0;
	size_t i = 0;

	snprintf(path, sizeof(path), "%s/%s", selftest_dir(), variant->binary);
	ASSERT_EQ(0, er_start(&self->w, path, "inf", self->cpu, why, sizeof(why)))
		TH_LOG("%s", why);
	self->cfg.pid = self->w.pid;
	ASSERT_EQ(0, prf_config(&self->r, &self->cfg));
	ASSERT_EQ(0, prf_start(&self->r));
	t0 = now_ns();
	deadline = t0 + (uint64_t)(60e9 * work_scale());
	while ((n.checked < WANT_CHECKED || n.race < WANT_RACES) && !n.stale &&
	       now_ns() < deadline) {
		prf_wait(&self->r, 50);
		prf_drain(&self->r, collect_record, &self->set);
		for (; i < self->set.n; i++)
			er_check(&self->w, variant->is32, self->set.s[i], &n);
		if (waitpid(self->w.pid, &status, WNOHANG) == self->w.pid) {
			self->w.pid = -1;
			break;
		}
	}
	measure_until("until_ms", t0, deadline);
	ASSERT_LT(0, self->w.pid) TH_LOG("%s ended by itself, status %#x", variant->binary,
					 status);
	kill(self->w.pid, SIGKILL);
	waitpid(self->w.pid, NULL, 0);
	self->w.pid = -1;
	prf_stop(&self->r);
	prf_drain(&self->r, collect_record, &self->set);
	for (; i < self->set.n; i++)
		er_check(&self->w, variant->is32, self->set.s[i], &n);
	TH_LOG("%s: %zu NMI samples in %.1f s (rate %s): %zu in user mode, %zu from the entry frame "
	       "(%zu checked, %zu not), %zu entry races, %zu stale frames%s%s",
	       self->w.abi, n.samples, (now_ns() - t0) / 1e9,
	       self->rate_set ? "raised" : "not raised", n.direct, n.entry, n.checked,
	       n.unchecked, n.race, n.stale, n.stale ? "; first: " : "", n.first_stale);
	EXPECT_EQ(0, n.stale);
	MEASURE_WAITED("checked", n.checked, >=, WANT_CHECKED);
	/* NMIs did land in entry code, and were told apart */
	MEASURE_WAITED("entry_races", n.race, >=, WANT_RACES);
	EXPECT_EQ(n.race, prf_lost_total(&self->r, PERFREGS_LOST_ENTRY))
		TH_LOG("entry races flagged and counted differ");
}

PERFREGS_HARNESS_MAIN
