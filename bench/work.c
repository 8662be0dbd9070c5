// SPDX-License-Identifier: GPL-2.0
/*
 * A fixed amount of CPU-bound work, for overhead measurements: prints
 * the wall time it took in nanoseconds.  usage: work ITERATIONS
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 0) : 100000000UL;
	unsigned long i, acc = 1;
	struct timespec a, b;

	clock_gettime(CLOCK_MONOTONIC, &a);
	for (i = 0; i < n; i++)
		acc = acc * 6364136223846793005UL + i;
	sink = acc;
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("work_ns=%ld\n", (b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec));
	return 0;
}
