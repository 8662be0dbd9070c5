// SPDX-License-Identifier: GPL-2.0
/*
 * librp.so, the shared library of rp_main (rp_main.c): lib_mid calls
 * lib_hot, which spins.  Neither is inlined nor a tail call: lib_mid uses
 * lib_hot's result after the call.  -fomit-frame-pointer: only the CFI
 * walks these frames.
 */
#include "realprog.h"

volatile unsigned long lib_sink;

__attribute__((noinline)) unsigned long lib_hot(double end)
{
	unsigned long n = 0;

	do {
		unsigned long i;

		for (i = 0; i < 2000000UL; i++)	/* no call in here */
			n += i ^ lib_sink;
	} while (rp_now() < end);
	return n;
}

__attribute__((noinline)) unsigned long lib_mid(double end)
{
	return lib_hot(end) * 7 + lib_sink;
}
