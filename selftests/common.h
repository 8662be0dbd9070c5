/* SPDX-License-Identifier: GPL-2.0 */
/* Helpers shared by the perfregs selftests. */
#ifndef PERFREGS_SELFTEST_COMMON_H
#define PERFREGS_SELFTEST_COMMON_H

#include <setjmp.h>
#include <stdbool.h>
#include <stdlib.h>
#include <stdint.h>
#include <sys/types.h>
#include "../tools/lib/libperfregs.h"

/* A copy of every sample record drained from a session. */
struct sample_set {
	size_t n, cap;
	struct perfregs_rec_sample **s;
	uint64_t lost_records;	/* LOST records seen */
};

int collect_record(void *arg, int cpu, const struct perfregs_rec_header *rec,
			size_t size);
void sample_set_free(struct sample_set *set);

/* A user register of a sample, by PERFREGS_REG_*; false if absent. */
bool sample_ureg(const struct perfregs_rec_sample *s, int reg, uint64_t *val);
bool sample_ireg(const struct perfregs_rec_sample *s, int reg, uint64_t *val);

/* A workload started with its stdout on a pipe, its first line parsed. */
struct workload {
	pid_t pid;
	char abi[16];
	uint64_t loop_start, loop_end;
	char line[256];
};

/*
 * Start path with args; it prints "magic abi=X pid=N loop=0xA-0xB" first.
 * Returns 0, or -1 with a reason in why.
 */
int workload_start(struct workload *w, char *const argv[], char *why,
		   size_t whylen);
int workload_wait(struct workload *w);	/* its exit status */

/*
 * A child spinning forever on a stack of its own: 64 KiB of an
 * anonymous mapping with an inaccessible page above it, so that a
 * stack snapshot from its SP ends at *top, the first byte it cannot
 * read.  Returns its pid (kill it), or -1.
 */
pid_t start_own_stack_spinner(uint64_t *top);

/* Directory of the test binary, for finding workloads and the tool. */
const char *selftest_dir(void);

/* CLOCK_MONOTONIC in ns. */
uint64_t now_ns(void);

/*
 * $PERFREGS_WORK_SCALE, default 1: how much longer workloads and timed
 * sessions run on a slow kernel (the workloads read it themselves).
 */
double work_scale(void);

/* Write val to a (sysfs, procfs) file: 0 or -1. */
int write_file(const char *path, const char *val);
/* Read a small file into buf, without its trailing newline: 0 or -1. */
int read_file(const char *path, char *buf, size_t len);
/* Whether this is a PREEMPT_RT kernel. */
bool kernel_is_rt(void);

/*
 * The module's parameters (/sys/module/perfregs/parameters/NAME): set
 * one (0 or -1), read one as a number (def if unreadable).
 */
int param_set(const char *name, const char *val);
long param_get(const char *name, long def);

/*
 * SKIP from a FIXTURE_SETUP.  The harness of the 6.1 tree (the one the
 * build extracts) runs the test body even after a setup that skipped:
 * only a failed setup ends the test early.  Jumping back to the
 * harness's setjmp() ends it as skipped, with no teardown (the setup
 * did not complete), on any harness version that has _metadata->env.
 */
#define SETUP_SKIP(fmt, ...) \
	SKIP(longjmp(_metadata->env, 1), fmt, ##__VA_ARGS__)

/*
 * State a test changes and must give back even when an ASSERT ends it:
 * save_state(path) remembers a file's value (sysctl, module parameter,
 * CPU online) before the test writes it; restore_state(), from a
 * fixture's teardown (which runs after a failed ASSERT too), writes the
 * saved values back, newest first.  param_path() names a parameter.
 */
int save_state(const char *path);
void restore_state(void);
const char *param_path(const char *name);

/* Run fn(arg) in a child as uid and gid 65534; its exit status. */
int as_nobody(int (*fn)(void *), void *arg);

/* Pin the caller to one CPU (-1: to every CPU again): 0 or -1. */
int pin_cpu(int cpu);

/*
 * The CPU that takes most of the NMIs the host injects (QEMU delivers
 * them to one CPU): the one whose NMI count in /proc/interrupts grows
 * most in ms milliseconds; -1 when none does.
 */
int nmi_cpu(int ms);
/* Wait up to ms milliseconds for pid's state (/proc/pid/stat) to be c. */
int wait_state(pid_t pid, char c, int ms);
/* true when the guest runner injects NMIs (tools/vm/run --nmi-hz HZ > 0) */
bool nmis_injected(void);

/*
 * A counted assertion whose outcome timing could decide: says what was
 * measured against what, as "# MEASURE QUANTITY VALUE OP THRESHOLD"
 * (tools/flaky.py gathers them per test over many runs, to show each
 * threshold's margin), then expects VALUE OP THRESHOLD.  Inside a test.
 */
#define MEASURE(quantity, value, op, threshold) do {				\
	long long __mv = (long long)(value), __mt = (long long)(threshold);	\
										\
	fprintf(stderr, "# MEASURE %s %lld %s %lld\n", (quantity), __mv, #op, __mt); \
	EXPECT_TRUE(__mv op __mt) TH_LOG("%s: %lld, wanted %s %lld", (quantity), \
					 __mv, #op, __mt);			\
} while (0)

/*
 * MEASURE() for a count the test sampled until it held (with a
 * deadline): it sits at the threshold by design, so its margin says
 * nothing; the line ends in "waited" and tools/flaky.py judges the
 * test by its measure_until() line instead.
 */
#define MEASURE_WAITED(quantity, value, op, threshold) do {			\
	long long __mv = (long long)(value), __mt = (long long)(threshold);	\
										\
	fprintf(stderr, "# MEASURE %s %lld %s %lld waited\n", (quantity), __mv, #op, \
		__mt);								\
	EXPECT_TRUE(__mv op __mt) TH_LOG("%s: %lld, wanted %s %lld", (quantity), \
					 __mv, #op, __mt);			\
} while (0)

/*
 * For a test that samples until its counts hold, with a deadline: how
 * long that took against the deadline, "# MEASURE WHAT ELAPSED_MS <
 * DEADLINE_MS" (t0 and deadline in now_ns()), printed only (the counts'
 * own MEASURE_WAITED lines decide; theirs sit at the threshold by
 * design, this one says how far from failing the run was).
 */
void measure_until(const char *what, uint64_t t0, uint64_t deadline);

/* Is the perfregs module loaded (is there a /dev/perfregs)? */
bool module_loaded(void);

/*
 * TEST_HARNESS_MAIN, with every test's timeout multiplied by
 * $PERFREGS_TIMEOUT_SCALE: a debug kernel under emulation is slow; and
 * only the tests whose name contains $PERFREGS_TEST, when it is set
 * (the 6.1 harness has no -t).  Only where kselftest_harness.h is
 * included.
 */
#define PERFREGS_HARNESS_MAIN						\
int main(int argc, char **argv)						\
{									\
	const char *e = getenv("PERFREGS_TIMEOUT_SCALE");		\
	const char *only = getenv("PERFREGS_TEST");			\
	int scale = e ? atoi(e) : 1;					\
	struct __fixture_metadata *f;					\
	struct __test_metadata *t, **link;				\
									\
	for (f = __fixture_list; f; f = f->next) {			\
		for (link = &f->tests; only && *only && *link;)		\
			if (!strstr((*link)->name, only))		\
				*link = (*link)->next;			\
			else						\
				link = &(*link)->next;			\
		for (t = f->tests; t && scale > 1; t = t->next)		\
			t->timeout *= scale;				\
	}								\
	return test_harness_run(argc, argv);				\
}

#endif
