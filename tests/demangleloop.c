// SPDX-License-Identifier: GPL-2.0
/*
 * demangleloop: demangle_name() on one name N times, and what the heap
 * grew by (mallinfo2()'s bytes in use), then the name it gave: a name
 * whose demangling leaks shows it N times over.
 *
 * usage: demangleloop NAME N
 */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include "../tools/perfregs-dump/demangle.h"

int main(int argc, char **argv)
{
	char buf[DEMANGLE_OUT_MAX];
	size_t before, n = 0;
	long i, times;

	if (argc != 3) {
		fprintf(stderr, "usage: demangleloop NAME N\n");
		return 2;
	}
	times = atol(argv[2]);
	n = demangle_name(argv[1], buf, sizeof(buf));	/* libiberty's first use */
	before = mallinfo2().uordblks;
	for (i = 0; i < times; i++)
		n = demangle_name(argv[1], buf, sizeof(buf));
	printf("%zu %zu\n", mallinfo2().uordblks - before, n);
	if (n)
		printf("%s\n", buf);
	return 0;
}
