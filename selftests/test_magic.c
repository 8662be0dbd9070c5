// SPDX-License-Identifier: GPL-2.0
/*
 * Known values: a workload holds magic values in registers in a spin
 * loop; every sample whose user IP lies inside the loop must carry
 * exactly those values, with the right ABI tag.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include "kselftest_harness.h"
#include "common.h"
#include "magic.h"

struct magic_check {
	int reg;
	uint64_t want;
	const char *name;
};

static const struct magic_check magic64[] = {
	{ PERFREGS_REG_BX, MAGIC64_RBX, "rbx" },
	{ PERFREGS_REG_BP, MAGIC64_RBP, "rbp" },
	{ PERFREGS_REG_R12, MAGIC64_R12, "r12" },
	{ PERFREGS_REG_R13, MAGIC64_R13, "r13" },
	{ PERFREGS_REG_R14, MAGIC64_R14, "r14" },
	{ PERFREGS_REG_R15, MAGIC64_R15, "r15" },
};

/* Samples of the loop to sample for (2 s runs gave about 700) */
#define WANT_LOOP	200

/*
 * Sample the workload until it has enough and check every sample in its
 * loop.  Returns the number of in-loop samples, or -1 after a failed check.
 */
static int run_magic(struct __test_metadata *_metadata, const char *name,
		     const char *seconds, uint32_t want_abi,
		     const struct magic_check *checks, size_t nchecks,
		     uint32_t pages)
{
	char path[512], why[256];
	char *argv[] = { path, (char *)seconds, NULL };
	struct perfregs_config cfg;
	struct sample_set set = { 0 };
	struct prf_reader r;
	struct workload w;
	int status = 0, inloop = 0, bad = 0, own = 0;
	uint64_t bytes = 0, end, ip, t0;
	size_t i, k;

	snprintf(path, sizeof(path), "%s/%s", selftest_dir(), name);
	if (access(path, X_OK))
		return -2;
	if (!module_loaded())
		return -3;
	if (workload_start(&w, argv, why, sizeof(why))) {
		TH_LOG("%s", why);
		return -1;
	}
	prf_config_default(&cfg);
	cfg.pid = w.pid;
	cfg.data_pages = pages;
	EXPECT_EQ(0, prf_open(&r, NULL));
	EXPECT_EQ(0, prf_config(&r, &cfg));
	EXPECT_EQ(0, prf_start(&r));
	/*
	 * The workload spins until killed: sample until 200 samples of its
	 * loop and, with small rings, 8 rings' worth of bytes through them
	 * (it was a 2 s run), or 20 s x scale
	 */
	t0 = now_ns();
	end = t0 + (uint64_t)(20e9 * work_scale());	/* in the harness's 30 s */
	for (k = 0;;) {
		prf_wait(&r, 50);
		EXPECT_LE(0, prf_drain(&r, collect_record, &set));
		for (; k < set.n; k++) {
			bytes += set.s[k]->header.size;
			inloop += set.s[k]->pid == (uint32_t)w.pid &&
				  sample_ureg(set.s[k], PERFREGS_REG_IP, &ip) &&
				  ip >= w.loop_start && ip < w.loop_end;
		}
		if ((inloop >= WANT_LOOP &&
		     (pages >= 64 || bytes >= 8ULL * pages * getpagesize())) ||
		    now_ns() > end)
			break;
		if (waitpid(w.pid, &status, WNOHANG) == w.pid) {
			w.pid = -1;
			break;
		}
	}
	measure_until("until_ms", t0, end);
	prf_stop(&r);
	EXPECT_LE(0, prf_drain(&r, collect_record, &set));
	/* it was still spinning: no crash, no early end */
	EXPECT_LT(0, w.pid) TH_LOG("%s ended by itself, status %#x", name, status);
	if (w.pid > 0) {
		kill(w.pid, SIGKILL);
		waitpid(w.pid, &status, 0);
	}
	/*
	 * A ring of a page or two may overflow under emulation: judged
	 * below.  A 1 MiB ring drained every 50 ms needs seconds of stall
	 * to overflow: the reader's latency is the property.
	 */
	if (pages >= 64)
		MEASURE("lost", prf_produced(&r) - set.n, ==, 0);
	inloop = 0;
	bytes = 0;

	for (i = 0; i < set.n; i++) {
		const struct perfregs_rec_sample *s = set.s[i];
		uint64_t v;

		bytes += s->header.size;
		if (s->pid != (uint32_t)w.pid)
			continue;
		own++;
		if (!sample_ureg(s, PERFREGS_REG_IP, &ip))
			continue;
		if (ip < w.loop_start || ip >= w.loop_end)
			continue;
		inloop++;
		if (s->abi != want_abi) {
			if (bad++ < 5)
				TH_LOG("sample %zu ip 0x%llx: abi %u, want %u", i,
				       (unsigned long long)ip, s->abi, want_abi);
			continue;
		}
		for (k = 0; k < nchecks; k++) {
			if (!sample_ureg(s, checks[k].reg, &v) || v != checks[k].want) {
				if (bad++ < 5)
					TH_LOG("sample %zu ip 0x%llx: %s = 0x%llx, want 0x%llx",
					       i, (unsigned long long)ip, checks[k].name,
					       (unsigned long long)v,
					       (unsigned long long)checks[k].want);
			}
		}
	}
	TH_LOG("%s: %zu samples (%llu bytes, %u-page rings, %llu produced), "
	       "%d of the workload, %d in its loop, %d bad", name, set.n,
	       (unsigned long long)bytes, pages,
	       (unsigned long long)prf_produced(&r), own, inloop, bad);
	/* small rings: records must have gone round them many times */
	if (pages < 64)
		MEASURE("sample_bytes", bytes, >=, 8LL * pages * getpagesize());
	prf_close(&r);
	sample_set_free(&set);
	EXPECT_EQ(0, bad);
	MEASURE_WAITED("loop_samples", inloop, >=, WANT_LOOP);
	return bad ? -1 : inloop;
}

TEST(magic_x86_64)
{
	int n = run_magic(_metadata, "magic_64", "inf", PERFREGS_ABI_64,
			  magic64, sizeof(magic64) / sizeof(magic64[0]), 256);

	if (n == -2)
		SKIP(return, "magic_64 was not built");
	if (n == -3)
		SKIP(return, "perfregs is not loaded");
}

/*
 * The same through 2-page rings: a record of every 20 or so straddles
 * the end of the ring, and the module writes those piecewise rather
 * than in place.  Both paths must give the same values.
 */
TEST(magic_x86_64_small_ring)
{
	int n = run_magic(_metadata, "magic_64", "inf", PERFREGS_ABI_64,
			  magic64, sizeof(magic64) / sizeof(magic64[0]), 2);

	if (n == -2)
		SKIP(return, "magic_64 was not built");
	if (n == -3)
		SKIP(return, "perfregs is not loaded");
}

PERFREGS_HARNESS_MAIN
