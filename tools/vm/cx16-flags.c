// SPDX-License-Identifier: GPL-2.0
/*
 * Does CMPXCHG16B leave the other flags alone, as the SDM says?
 *
 * QEMU 7.2's TCG (Debian 12) does not: its helper computes the old flags
 * from env->cc_op before the translator has stored the lazy-flags state of
 * the instruction before, so after "add %rdi,%rax; cmpxchg16b" every flag
 * but ZF can be the low bits of %rdi. tools/vm/run hides CX16 from TCG
 * guests for that reason; this probe is the evidence, and tells whether a
 * given CPU (real or emulated) still needs it.
 *
 *   gcc -O2 -static -o cx16-flags tools/vm/cx16-flags.c
 *   tools/vm/run --kernel 6.12 -- ./cx16-flags
 *
 * Exit status: 0 flags as the hardware leaves them, 1 flags wrong,
 * 2 no CMPXCHG16B on this CPU (CPUID.1:ECX bit 13 clear).
 */
#include <cpuid.h>
#include <stdint.h>
#include <stdio.h>

static uint64_t mem[2] __attribute__((aligned(16)));

int main(void)
{
	/* OF and CF in its low bits: both clear after the add on hardware */
	const uint64_t junk = 0x801;
	uint64_t want, got, a, d;
	unsigned int eax, ebx, ecx, edx;

	if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx) || !(ecx & bit_CMPXCHG16B)) {
		printf("cx16-flags: no cmpxchg16b on this CPU\n");
		return 2;
	}

	/* The flags the add leaves; a successful cmpxchg16b then sets ZF. */
	a = 0;
	asm volatile("add %[j], %[a]\n\t"
		     "pushfq\n\t"
		     "popq %[f]"
		     : [a] "+r" (a), [f] "=r" (want)
		     : [j] "r" (junk)
		     : "cc");
	want |= 0x40;

	/*
	 * popfq ends QEMU's translation block with cc_op = EFLAGS stored; the
	 * add then leaves CC_SRC = %rdi-like junk with its own cc_op unstored.
	 */
	mem[0] = junk;
	mem[1] = 0;
	a = 0;
	d = 0;
	asm volatile("pushfq\n\t"
		     "popfq\n\t"
		     "add %[j], %%rax\n\t"
		     "cmpxchg16b (%[m])\n\t"
		     "pushfq\n\t"
		     "popq %[f]"
		     : "+a" (a), "+d" (d), [f] "=&r" (got)
		     : "b" (1UL), "c" (2UL), [j] "r" (junk), [m] "r" (mem)
		     : "cc", "memory");

	if (mem[0] != 1 || mem[1] != 2) {
		printf("cx16-flags: cmpxchg16b did not store (%#llx:%#llx)\n",
		       (unsigned long long)mem[1], (unsigned long long)mem[0]);
		return 1;
	}
	printf("cx16-flags: flags after cmpxchg16b %#llx, expected %#llx: %s\n",
	       (unsigned long long)got, (unsigned long long)want,
	       got == want ? "ok" : "WRONG");
	return got != want;
}
