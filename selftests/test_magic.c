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

/*
 * Sample workload for its whole life and check every sample in its loop.
 * Returns the number of in-loop samples, or -1 after a failed check.
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
	int status, inloop = 0, bad = 0, own = 0;
	uint64_t bytes = 0;
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
	for (;;) {
		prf_wait(&r, 50);
		EXPECT_LE(0, prf_drain(&r, collect_record, &set));
		if (waitpid(w.pid, &status, WNOHANG) == w.pid)
			break;
	}
	prf_stop(&r);
	EXPECT_LE(0, prf_drain(&r, collect_record, &set));
	EXPECT_EQ(0, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	/* a ring of a page or two may overflow under emulation: judged below */
	if (pages >= 64)
		EXPECT_EQ(prf_produced(&r), set.n) TH_LOG("samples lost");

	for (i = 0; i < set.n; i++) {
		const struct perfregs_rec_sample *s = set.s[i];
		uint64_t ip, v;

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
		EXPECT_LE(8ULL * pages * getpagesize(), bytes);
	prf_close(&r);
	sample_set_free(&set);
	EXPECT_EQ(0, bad);
	EXPECT_LE(50, inloop) TH_LOG("too few samples in the loop to judge");
	return bad ? -1 : inloop;
}

TEST(magic_x86_64)
{
	int n = run_magic(_metadata, "magic_64", "2", PERFREGS_ABI_64,
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
	int n = run_magic(_metadata, "magic_64", "2", PERFREGS_ABI_64,
			  magic64, sizeof(magic64) / sizeof(magic64[0]), 2);

	if (n == -2)
		SKIP(return, "magic_64 was not built");
	if (n == -3)
		SKIP(return, "perfregs is not loaded");
}

PERFREGS_HARNESS_MAIN
