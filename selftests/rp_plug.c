// SPDX-License-Identifier: GPL-2.0
/*
 * A plugin of rp_dlopen (rp_dlopen.c), built twice: -DPLUG=a gives
 * rp_plug_a.so with plug_a_hot, -DPLUG=b rp_plug_b.so with plug_b_hot.
 * The two are the same code with names of the same length, so their
 * layouts are the same and ld.so most likely maps B where A was.
 */
#include "realprog.h"

#define CAT3(a, b, c)	a##b##c
#define HOT(p)		CAT3(plug_, p, _hot)

volatile unsigned long plug_sink;

__attribute__((noinline)) unsigned long HOT(PLUG)(double end)
{
	unsigned long n = 0;

	do {
		unsigned long i;

		for (i = 0; i < 2000000UL; i++)	/* no call in here */
			n += i ^ plug_sink;
	} while (rp_now() < end);
	return n;
}
