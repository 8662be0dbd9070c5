// SPDX-License-Identifier: GPL-2.0
/*
 * rp_main: a dynamic PIE whose hot code is in its own shared library,
 * librp.so (rp_lib.c), found by ld.so through the program's run path
 * ($ORIGIN): main -> rp_outer (here) -> lib_mid -> lib_hot (librp.so),
 * lib_hot spinning.  Built -m64 with GNU ld, -m32, and by clang with
 * lld; -O2 -fomit-frame-pointer, so only CFI unwinds it.
 *
 * usage: rp_main SECONDS
 * Prints (realprog.h) its pid and librp.so's executable mappings, then
 * spins SECONDS seconds and prints the phase.
 */
#include "realprog.h"

unsigned long lib_mid(double end);
static volatile unsigned long sink;

__attribute__((noinline)) unsigned long rp_outer(double end)
{
	return lib_mid(end) * 5 + sink;
}

int main(int argc, char **argv)
{
	double secs = rp_seconds(argc, argv, 1, "SECONDS");
	long long t0;

	if (!rp_print_maps("librp", "/librp.so")) {
		fprintf(stderr, "rp_main: librp.so is not mapped\n");
		return 1;
	}
	t0 = rp_now_ns();
	sink = rp_outer(rp_now() + secs) & 1;
	rp_phase("lib_hot", t0, rp_now_ns());
	return 0;
}
