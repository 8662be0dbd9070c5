// SPDX-License-Identifier: GPL-2.0
/*
 * A workload that enters the kernel from user mode every way it can, in
 * a loop whose registers tell a stale entry frame from a fresh one:
 * i386 (-m32): int $0x80, SYSENTER (through __kernel_vsyscall in the
 * vDSO), a page fault; x86-64: SYSCALL and a page fault (IRQs from user
 * mode come on their own).
 *
 * Before each entry, C (esi / r12) is incremented and stored at the
 * address in P (edi / r13), a slot in this program's stack frame, so at
 * every instruction boundary C == *P, except right after an increment
 * (at the store instruction), where C == *P + 1.  A sample's user
 * registers come from the task's entry frame; when that frame is stale
 * (left from the previous entry, because the interrupt came while the
 * kernel was still building the new one), C is older than *P, which the
 * stack snapshot shows as it is at the sample.
 *
 * The loop is [er_loop_start, er_loop_end); P holds the slot only there
 * (it is zeroed on the way out), and the i386 loop's SYSENTER returns
 * into it at er_vsys_ret: a frame elsewhere is no loop frame, whatever
 * its registers hold.
 *
 * usage: entry_race SECONDS (inf: until killed); prints
 *   entry abi=i386|x86_64 pid=N stores=0xA,0xB,0xC,0xD slot=0xS
 *     loop=0xL-0xE vsys_ret=0xR (0 on x86-64)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/auxv.h>
#include <sys/mman.h>

extern char er_store1[], er_store2[], er_store3[], er_store4[];
extern char er_loop_start[], er_loop_end[];
#ifdef __x86_64__
#define er_vsys_ret ((char *)0)
#else
extern char er_vsys_ret[];
#endif

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 5, end;	/* "inf": until killed */
	volatile unsigned long slot = 0;
	char *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	unsigned long c = 0;

	if (page == MAP_FAILED)
		return 1;
	printf("entry abi=%s pid=%d stores=%p,%p,%p,%p slot=%p loop=%p-%p vsys_ret=0x%lx\n",
#ifdef __x86_64__
	       "x86_64",
#else
	       "i386",
#endif
	       (int)getpid(), (void *)er_store1, (void *)er_store2,
	       (void *)er_store3, (void *)er_store4, (void *)&slot,
	       (void *)er_loop_start, (void *)er_loop_end, (unsigned long)(uintptr_t)er_vsys_ret);
	fflush(stdout);
	end = now() + secs;
	while (now() < end) {
#ifdef __x86_64__
		unsigned long n = 200;

		asm volatile(
		"	mov %[c], %%r12\n"
		"	mov %[slot], %%r13\n"
		"	mov %[page], %%r14\n"
		".globl er_loop_start\n"
		"er_loop_start:\n"
		"1:	inc %%r12\n"
		".globl er_store1\n"
		"er_store1:\n"
		"	mov %%r12, (%%r13)\n"
		"	mov $39, %%eax\n"		/* getpid */
		"	syscall\n"
		"	inc %%r12\n"
		".globl er_store2\n"
		"er_store2:\n"
		"	mov %%r12, (%%r13)\n"
		"	movb $1, (%%r14)\n"		/* a page fault */
		"	inc %%r12\n"
		".globl er_store3\n"
		"er_store3:\n"
		"	mov %%r12, (%%r13)\n"
		"	mov %%r14, %%rdi\n"
		"	mov $4096, %%esi\n"
		"	mov $4, %%edx\n"		/* MADV_DONTNEED */
		"	mov $28, %%eax\n"		/* madvise */
		"	syscall\n"
		"	inc %%r12\n"
		".globl er_store4\n"
		"er_store4:\n"
		"	mov %%r12, (%%r13)\n"
		"	decq %[n]\n"
		"	jnz 1b\n"
		".globl er_loop_end\n"
		"er_loop_end:\n"
		"	mov %%r12, %[c]\n"
		"	xor %%r13d, %%r13d\n"		/* P no longer the slot */
		: [c] "+m" (c), [n] "+m" (n)
		: [slot] "r" (&slot), [page] "r" (page)
		: "rax", "rcx", "rdx", "rsi", "rdi", "r11", "r12", "r13",
		  "r14", "memory", "cc");
#else
		unsigned long n = 200;
		unsigned long vsys = getauxval(AT_SYSINFO);

		asm volatile(
		"	mov %[c], %%esi\n"
		"	mov %[slot], %%edi\n"
		"	mov %[page], %%ebx\n"
		".globl er_loop_start\n"
		"er_loop_start:\n"
		"1:	inc %%esi\n"
		".globl er_store1\n"
		"er_store1:\n"
		"	mov %%esi, (%%edi)\n"
		"	mov $20, %%eax\n"		/* getpid */
		"	int $0x80\n"
		"	inc %%esi\n"
		".globl er_store2\n"
		"er_store2:\n"
		"	mov %%esi, (%%edi)\n"
		"	mov $20, %%eax\n"
		"	call *%[vsys]\n"		/* SYSENTER in the vDSO */
		".globl er_vsys_ret\n"
		"er_vsys_ret:\n"
		"	inc %%esi\n"
		".globl er_store3\n"
		"er_store3:\n"
		"	mov %%esi, (%%edi)\n"
		"	movb $1, (%%ebx)\n"		/* a page fault */
		"	inc %%esi\n"
		".globl er_store4\n"
		"er_store4:\n"
		"	mov %%esi, (%%edi)\n"
		"	mov $4096, %%ecx\n"
		"	mov $4, %%edx\n"		/* MADV_DONTNEED */
		"	mov $219, %%eax\n"		/* madvise */
		"	int $0x80\n"
		"	decl %[n]\n"
		"	jnz 1b\n"
		".globl er_loop_end\n"
		"er_loop_end:\n"
		"	mov %%esi, %[c]\n"
		"	xor %%edi, %%edi\n"		/* P no longer the slot */
		: [c] "+m" (c), [n] "+m" (n)
		: [slot] "m" (*(unsigned long [1]){ (unsigned long)&slot }),
		  [page] "m" (*(unsigned long [1]){ (unsigned long)page }),
		  [vsys] "m" (vsys)
		: "eax", "ebx", "ecx", "edx", "esi", "edi", "memory", "cc");
#endif
	}
	return 0;
}
