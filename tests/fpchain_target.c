// SPDX-License-Identifier: GPL-2.0
/*
 * A known frame-pointer chain for the host tests of --call-graph fp
 * (tests/uchain_check.py): built -O1 -fno-omit-frame-pointer, main ->
 * fp_a -> fp_b -> fp_c, none a tail call (each uses its callee's
 * result); fp_c says "ready" and blocks in read() of its stdin, in
 * libc's wrapper, which keeps no frame pointer: a walk from the frame
 * pointer alone goes from read to fp_b.
 */
#include <stdio.h>
#include <unistd.h>

static volatile int sink;

__attribute__((noinline)) int fp_c(void)
{
	char buf[16];
	ssize_t n;

	printf("ready\n");
	fflush(stdout);
	n = read(0, buf, sizeof(buf));
	return (int)n + sink;
}

__attribute__((noinline)) int fp_b(void)
{
	return fp_c() * 3 + sink;
}

__attribute__((noinline)) int fp_a(void)
{
	return fp_b() * 5 + sink;
}

int main(void)
{
	return fp_a() == 12345;
}
