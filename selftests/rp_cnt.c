// SPDX-License-Identifier: GPL-2.0
/*
 * The container workload (selftests/test_container.py): calls
 * cnt_spin() of libcnt.so (found by its run path, $ORIGIN) for SECS
 * seconds.  usage: rp_cnt [SECS]
 */
#include <stdlib.h>
#include <time.h>

long cnt_spin(long n);

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 2.0;
	struct timespec t0, t;
	long sink = 0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		sink += cnt_spin(100000);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((double)(t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) / 1e9 < secs);
	return sink == 42;
}
