/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the realprog workloads share (selftests/test_realprog.py reads
 * their output): the clock, their arguments, and lines on stdout that
 * tell the test where their code is, read from /proc/self/maps, so that
 * the test knows which samples fell where without asking the tool under
 * test:
 *
 *   rp pid PID abi ABI
 *   rp map TAG 0xSTART 0xEND          an executable mapping whose path
 *                                     contains what the workload asked for
 *   rp phase TAG START_NS END_NS      CLOCK_MONOTONIC, the samples' clock
 *
 * Every line is flushed as it is written.
 */
#ifndef REALPROG_H
#define REALPROG_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/auxv.h>
#include <unistd.h>

#if defined(__x86_64__) && defined(__ILP32__)
#define RP_ABI "x32"
#elif defined(__x86_64__)
#define RP_ABI "x86_64"
#else
#define RP_ABI "i386"
#endif

static inline long long rp_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static inline double rp_now(void)
{
	return rp_now_ns() / 1e9;
}

/* The vDSO image as the kernel mapped it, into path (for its symbols). */
static inline void rp_copy_vdso(const char *path)
{
	FILE *maps = fopen("/proc/self/maps", "r"), *out;
	unsigned long base = getauxval(AT_SYSINFO_EHDR), start, end;
	char line[512];

	while (base && maps && fgets(line, sizeof(line), maps)) {
		if (sscanf(line, "%lx-%lx", &start, &end) != 2 || start != base)
			continue;
		out = fopen(path, "w");
		if (out) {
			fwrite((const void *)base, 1, end - start, out);
			fclose(out);
		}
	}
	if (maps)
		fclose(maps);
}

/*
 * SECONDS from argv[1], times $PERFREGS_WORK_SCALE; exits 2 on misuse.
 * With maxargs 2, argv[2] may name a file for a copy of the vDSO.
 */
static inline double rp_seconds(int argc, char **argv, int maxargs, const char *usage)
{
	const char *e = getenv("PERFREGS_WORK_SCALE");
	double secs;

	if (argc < 2 || argc > maxargs + 1 || (secs = atof(argv[1])) <= 0) {
		fprintf(stderr, "usage: %s %s\n", argv[0], usage);
		exit(2);
	}
	if (e && atof(e) > 0)
		secs *= atof(e);	/* slow kernels */
	if (argc == 3)
		rp_copy_vdso(argv[2]);
	printf("rp pid %d abi %s\n", (int)getpid(), RP_ABI);
	fflush(stdout);
	return secs;
}

/*
 * Print the executable mappings whose line contains what ("librp.so",
 * "[vdso]") as "rp map TAG START END"; returns how many there were.
 */
static inline int rp_print_maps(const char *tag, const char *what)
{
	FILE *fp = fopen("/proc/self/maps", "r");
	char line[4096];
	int n = 0;

	if (!fp)
		return 0;
	while (fgets(line, sizeof(line), fp)) {
		unsigned long start, end;
		char perms[8];

		if (sscanf(line, "%lx-%lx %7s", &start, &end, perms) != 3 ||
		    perms[2] != 'x' || !strstr(line, what))
			continue;
		printf("rp map %s 0x%lx 0x%lx\n", tag, start, end);
		n++;
	}
	fclose(fp);
	fflush(stdout);
	return n;
}

static inline void rp_phase(const char *tag, long long start, long long end)
{
	printf("rp phase %s %lld %lld\n", tag, start, end);
	fflush(stdout);
}

#endif
