// SPDX-License-Identifier: GPL-2.0
/*
 * A workload whose debug information only a debuginfod server has (the
 * host test strips it and serves its debug file): static functions,
 * named in no .dynsym, and with no .eh_frame of their own (built with
 * -fno-asynchronous-unwind-tables), so that their names, their lines
 * and the CFI that unwinds through them all come from the debug file.
 * It prints wait_line's address, then waits in read() for a line.
 */
#include <stdio.h>
#include <unistd.h>

static __attribute__((noinline)) int wait_line(void)
{
	char c;

	if (read(0, &c, 1) < 0)
		return 1;
	return c;
}

static __attribute__((noinline)) int middle_layer(int x)
{
	return wait_line() * 3 + x;	/* no tail call: a frame of its own */
}

int main(int argc, char **argv)
{
	(void)argv;
	printf("%p\n", (void *)wait_line);
	fflush(stdout);
	return middle_layer(argc) == 42;
}
