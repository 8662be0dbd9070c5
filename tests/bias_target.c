// SPDX-License-Identifier: GPL-2.0
/*
 * A program whose function addresses the host tests know: it prints
 * the address of target_function, then waits for a line on stdin.
 * Built as a PIE by GNU ld and by lld, whose layouts differ: lld puts
 * the code segment at a virtual address a page past its file offset.
 */
#include <stdio.h>
#include <unistd.h>

__attribute__((noinline)) int innocent_bystander(int x)
{
	return x * 3 + 1;
}

__attribute__((noinline)) int target_function(int x)
{
	int i;

	for (i = 0; i < 1000; i++)
		x = innocent_bystander(x) ^ i;
	return x;
}

int main(void)
{
	char c;

	printf("%p\n", (void *)target_function);
	fflush(stdout);
	if (read(0, &c, 1) < 0)
		return 1;
	return target_function(c) == 42;
}
