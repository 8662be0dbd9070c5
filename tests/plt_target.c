// SPDX-License-Identifier: GPL-2.0
/*
 * plt_target: calls through its PLT: clock_gettime() N times (argv[1],
 * default 0), getpid(), whose address it takes too (the GNU linker then
 * calls it through .plt.got), then prints "ready" and blocks in read(0)
 * until its standard input closes.  tests/plt_check.py builds it lazy,
 * -z now, with IBT's .plt.sec and -m32, samples it and names its PLT.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long i, n = argc > 1 ? atol(argv[1]) : 0;
	struct timespec ts = { 0 };
	pid_t (*take)(void) = getpid;	/* loaded from its GOT slot */
	char c;

	__asm__ volatile("" : "+r"(take));

	for (i = 0; i < n; i++)
		clock_gettime(CLOCK_MONOTONIC, &ts);
	printf("ready %ld %d %d\n", (long)ts.tv_nsec & 1, (int)getpid(), (int)take());
	fflush(stdout);
	return read(0, &c, 1) < 0;
}
