// SPDX-License-Identifier: GPL-2.0
/*
 * rp_sys: system calls from a dynamic i386 program.  sys_caller calls
 * getppid() in a loop for SECONDS; i386 glibc enters the kernel through
 * the vDSO's __kernel_vsyscall (sysenter or syscall), so a sample taken
 * in the kernel has the entry frame's user IP in __kernel_vsyscall:
 * main -> sys_caller -> getppid (libc) -> __kernel_vsyscall.  Built -m32,
 * -O2 -fomit-frame-pointer.  The clock is read once per 256 calls.
 *
 * usage: rp_sys SECONDS [VDSO_COPY]
 * Prints (realprog.h) the executable mapping of [vdso]; with VDSO_COPY,
 * writes the vDSO image there first (its symbols, for the test).
 */
#include "realprog.h"

static volatile unsigned long sink;

__attribute__((noinline)) unsigned long sys_caller(double end)
{
	unsigned long n = 0;

	do {
		int i;

		for (i = 0; i < 256; i++)
			n += getppid();
	} while (rp_now() < end);
	return n + sink;
}

int main(int argc, char **argv)
{
	double secs = rp_seconds(argc, argv, 2, "SECONDS [VDSO_COPY]");
	long long t0;

	if (!rp_print_maps("vdso", "[vdso]")) {
		fprintf(stderr, "rp_sys: no [vdso] mapping\n");
		return 1;
	}
	t0 = rp_now_ns();
	sink = sys_caller(rp_now() + secs) & 1;
	rp_phase("sys_caller", t0, rp_now_ns());
	return 0;
}
