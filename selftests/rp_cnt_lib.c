// SPDX-License-Identifier: GPL-2.0
/*
 * A library built twice (selftests/test_container.py): the build a
 * container's mount namespace bind-mounts over the path of the other
 * one.  In both cnt_spin() spins; without CNT_V2 a function of 2 KiB
 * comes first, so that v2's cnt_spin() lies inside cnt_v1_only() of
 * this build: a sample named from the wrong build says cnt_v1_only.
 */
#ifndef CNT_V2
__attribute__((noinline)) long cnt_v1_only(long x)
{
	__asm__ volatile(".fill 2048, 1, 0x90");
	return x + 1;
}
#endif

__attribute__((noinline)) long cnt_spin(long n)
{
	long s = 0, i;

	for (i = 0; i < n; i++)
		s = (s + i * i) % 1000003;
	return s;
}

#ifdef CNT_V2
__attribute__((noinline)) long cnt_v2_tail(long x)
{
	__asm__ volatile(".fill 2048, 1, 0x90");
	return x + 2;
}
#endif
