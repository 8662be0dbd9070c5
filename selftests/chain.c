// SPDX-License-Identifier: GPL-2.0
/*
 * A known call chain for the unwinder: main -> chain_a -> chain_b ->
 * chain_c, chain_c spinning.  Built -O2 -fomit-frame-pointer (-m64, -m32
 * and -mx32), so only DWARF CFI can walk it.  The calls are not tail
 * calls: each caller uses the callee's result.
 *
 * With "thread", chain_a runs on a second thread instead, from
 * chain_thread: glibc puts that thread's descriptor and TLS at the top
 * of its stack mapping, above the frames, and its chain ends in
 * start_thread and clone3 (or clone), whose CFI ends the walk.
 *
 * usage: chain SECONDS [thread]
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

__attribute__((noinline)) void *chain_thread(void *arg)
{
	sink = chain_a(*(double *)arg) & 1;
	return arg;
}

int main(int argc, char **argv)
{
	double secs, end;
	pthread_t t;

	if (argc < 2 || argc > 3 || (secs = atof(argv[1])) <= 0 ||
	    (argc == 3 && strcmp(argv[2], "thread"))) {
		fprintf(stderr, "usage: %s SECONDS [thread]\n", argv[0]);
		return 2;
	}
	if (getenv("PERFREGS_WORK_SCALE") && atof(getenv("PERFREGS_WORK_SCALE")) > 0)
		secs *= atof(getenv("PERFREGS_WORK_SCALE"));	/* slow kernels */
	printf("chain abi=%s pid=%d\n", ABI, (int)getpid());
	fflush(stdout);
	end = now() + secs;
	if (argc == 3) {
		if (pthread_create(&t, NULL, chain_thread, &end) ||
		    pthread_join(t, NULL)) {
			fprintf(stderr, "%s: cannot run a thread\n", argv[0]);
			return 1;
		}
	} else {
		sink = chain_a(end) & 1;
	}
	return 0;
}
