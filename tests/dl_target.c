// SPDX-License-Identifier: GPL-2.0
/*
 * dl_target: dlopen() LIB_A, print the address of its SYM_A, wait for a
 * line on stdin; dlclose() it, dlopen() LIB_B (ld.so most likely puts
 * it where LIB_A was), print its SYM_B, wait for a line; exit.  The
 * side-band test (tests/mksb.c) names samples at those addresses.
 *
 * With DL_TARGET_CPU=N in its environment it moves itself to CPU N
 * first: its exec's side-band events lie in the ring of the CPU it was
 * started on, the mappings of its dlopen() in CPU N's (tests/mkexec.c).
 *
 * usage: dl_target LIB_A SYM_A LIB_B SYM_B
 */
#define _GNU_SOURCE	/* sched_setaffinity */
#include <dlfcn.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

static int phase(const char *lib, const char *sym, void **h)
{
	char line[16];
	void *f;

	*h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	f = *h ? dlsym(*h, sym) : NULL;
	if (!f) {
		fprintf(stderr, "dl_target: %s: %s\n", lib, dlerror());
		return 1;
	}
	printf("%p\n", f);
	fflush(stdout);
	return !fgets(line, sizeof(line), stdin);
}

int main(int argc, char **argv)
{
	const char *cpu = getenv("DL_TARGET_CPU");
	cpu_set_t set;
	void *h;

	if (argc != 5)
		return 2;
	if (cpu) {
		CPU_ZERO(&set);
		CPU_SET(atoi(cpu), &set);
		if (sched_setaffinity(0, sizeof(set), &set)) {
			perror("dl_target: sched_setaffinity");
			return 1;
		}
	}
	if (phase(argv[1], argv[2], &h))
		return 1;
	dlclose(h);
	return phase(argv[3], argv[4], &h);
}
