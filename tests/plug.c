// SPDX-License-Identifier: GPL-2.0
/* A plugin for tests/dl_target.c, built as plug_a and plug_b (-DNAME=). */
#define CAT(a, b) a##b
#define XCAT(a, b) CAT(a, b)

int XCAT(NAME, _hot)(int n)
{
	volatile int s = 0;

	while (n--)
		s += n;
	return s;
}
