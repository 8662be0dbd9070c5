// SPDX-License-Identifier: GPL-2.0
/*
 * dl_target: dlopen() LIB_A, print the address of its SYM_A, wait for a
 * line on stdin; dlclose() it, dlopen() LIB_B (ld.so most likely puts
 * it where LIB_A was), print its SYM_B, wait for a line; exit.  The
 * side-band test (tests/mksb.c) names samples at those addresses.
 *
 * usage: dl_target LIB_A SYM_A LIB_B SYM_B
 */
#include <dlfcn.h>
#include <stdio.h>

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
	void *h;

	if (argc != 5)
		return 2;
	if (phase(argv[1], argv[2], &h))
		return 1;
	dlclose(h);
	return phase(argv[3], argv[4], &h);
}
