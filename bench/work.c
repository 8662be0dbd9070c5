// SPDX-License-Identifier: GPL-2.0
/*
 * A fixed amount of CPU-bound work, for overhead measurements: prints
 * the wall time it took in nanoseconds.  usage: work ITERATIONS [thread]
 *
 * With "thread" the work runs on a second thread, whose stack (a glibc
 * mapping with the thread's descriptor and TLS above the frames) has no
 * end a sampler can see, unlike the main thread's.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static volatile unsigned long sink;

static void *work(void *arg)
{
	unsigned long n = *(unsigned long *)arg;
	unsigned long i, acc = 1;

	for (i = 0; i < n; i++)
		acc = acc * 6364136223846793005UL + i;
	sink = acc;
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 0) : 100000000UL;
	struct timespec a, b;
	pthread_t t;

	clock_gettime(CLOCK_MONOTONIC, &a);
	if (argc > 2 && !strcmp(argv[2], "thread")) {
		if (pthread_create(&t, NULL, work, &n) || pthread_join(t, NULL))
			return 1;
	} else {
		work(&n);
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("work_ns=%ld\n", (b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec));
	return 0;
}
