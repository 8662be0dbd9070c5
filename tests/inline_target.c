// SPDX-License-Identifier: GPL-2.0
/*
 * A program whose hot code is inlined, for the inline frames tests
 * (tests/inline_check.py): built with gcc -O2 -g, inner_step() is inlined
 * into middle_step(), itself inlined into outer_fn(), so that the symbol
 * table names only outer_fn() there, and the DWARF holds two nested
 * DW_TAG_inlined_subroutine.  It prints an address inside inner_step()
 * (the return address of where(), less one), then reads a line of stdin
 * from main -> outer_fn -> [middle_step -> inner_step] -> read(), where a
 * test stops it (mksnap), and exits.
 */
#include <stdio.h>
#include <unistd.h>

static volatile int sink;

__attribute__((noinline)) static char *where(void)
{
	__asm__ volatile("");
	return (char *)__builtin_return_address(0) - 1;
}

static inline __attribute__((always_inline)) int inner_step(int x)
{
	char c = 0, *at = where();		/* INNER_WHERE */

	printf("%p\n", (void *)at);
	fflush(stdout);
	if (read(0, &c, 1) < 0)			/* INNER_READ */
		x++;
	sink = x + c;
	return x * 3;
}

static inline __attribute__((always_inline)) int middle_step(int x)
{
	return inner_step(x + 1) + 2;		/* MIDDLE_CALL */
}

__attribute__((noinline)) int outer_fn(int x)
{
	return middle_step(x) * 5;		/* OUTER_CALL */
}

int main(void)
{
	return outer_fn(sink) == 12345;		/* MAIN_CALL */
}
