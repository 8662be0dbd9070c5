// SPDX-License-Identifier: GPL-2.0
/*
 * rp_vdso: time spent in the vDSO.  vdso_caller calls
 * clock_gettime(CLOCK_MONOTONIC) in a loop for SECONDS: main ->
 * vdso_caller -> clock_gettime (libc) -> the vDSO's clock_gettime (or,
 * with a clock source the vDSO cannot read, its system call fallback).
 * Built -m64 and -m32, dynamic, -O2 -fomit-frame-pointer.
 *
 * usage: rp_vdso SECONDS [VDSO_COPY]
 * Prints (realprog.h) the executable mapping of [vdso]; with VDSO_COPY,
 * writes the vDSO image there first (its symbols, for the test).
 */
#include "realprog.h"

static volatile unsigned long sink;

__attribute__((noinline)) unsigned long vdso_caller(double secs)
{
	struct timespec ts;
	unsigned long n = 0;
	double end;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	end = ts.tv_sec + ts.tv_nsec / 1e9 + secs;
	do {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		n++;
	} while (ts.tv_sec + ts.tv_nsec / 1e9 < end);
	return n + sink;
}

int main(int argc, char **argv)
{
	double secs = rp_seconds(argc, argv, 2, "SECONDS [VDSO_COPY]");
	long long t0;
	unsigned long n;

	if (!rp_print_maps("vdso", "[vdso]")) {
		fprintf(stderr, "rp_vdso: no [vdso] mapping\n");
		return 1;
	}
	t0 = rp_now_ns();
	n = vdso_caller(secs);
	rp_phase("vdso_caller", t0, rp_now_ns());
	printf("rp calls %lu\n", n);
	return 0;
}
