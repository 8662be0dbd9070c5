// SPDX-License-Identifier: GPL-2.0
/*
 * A known call chain for the unwinder: main -> chain_a -> chain_b ->
 * chain_c, chain_c spinning.  Built -O2 -fomit-frame-pointer (-m64, -m32
 * and -mx32), so only DWARF CFI can walk it.  The calls are not tail
 * calls: each caller uses the callee's result.
 *
 * usage: chain SECONDS
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#if defined(__x86_64__) && defined(__ILP32__)
#define ABI "x32"
#elif defined(__x86_64__)
#define ABI "x86_64"
#else
#define ABI "i386"
#endif

static volatile unsigned long sink;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) unsigned long chain_c(double end)
{
	unsigned long n = 0;

	do {
		unsigned long i;

		for (i = 0; i < 20000000UL; i++)	/* no call in here */
			n += i ^ sink;
	} while (now() < end);
	return n;
}

__attribute__((noinline)) unsigned long chain_b(double end)
{
	return chain_c(end) * 3 + sink;
}

__attribute__((noinline)) unsigned long chain_a(double end)
{
	return chain_b(end) * 5 + sink;
}

int main(int argc, char **argv)
{
	double secs;

	if (argc != 2 || (secs = atof(argv[1])) <= 0) {
		fprintf(stderr, "usage: %s SECONDS\n", argv[0]);
		return 2;
	}
	if (getenv("PERFREGS_WORK_SCALE") && atof(getenv("PERFREGS_WORK_SCALE")) > 0)
		secs *= atof(getenv("PERFREGS_WORK_SCALE"));	/* slow kernels */
	printf("chain abi=%s pid=%d\n", ABI, (int)getpid());
	fflush(stdout);
	sink = chain_a(now() + secs) & 1;
	return 0;
}
