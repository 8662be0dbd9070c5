// SPDX-License-Identifier: GPL-2.0
/*
 * magic: spin with known values in registers, for perfregs tests and demo.
 *
 * One source, built three ways (static, -O1): -m64 (abi=x86_64), -mx32
 * (abi=x32: 64-bit mode, full 64-bit registers) and -m32 (abi=i386).
 *
 *   usage: magic SECONDS
 *
 * Prints one line, flushed before the loop starts:
 *
 *   magic abi=<x86_64|i386|x32> pid=<pid> loop=0x<start>-0x<end>
 *
 * then spins for SECONDS seconds of wall time (SECONDS inf: until
 * killed).  [start, end) is the exact address range of the inner loop
 * (global labels magic_loop_start and magic_loop_end); whenever the pc
 * is inside it, these registers hold the magic values of magic.h:
 *
 *   x86_64, x32: rbx rbp r12 r13 r14 r15 = MAGIC64_*
 *   i386:        ebx esi edi ebp         = MAGIC32_*
 *
 * The loop only decrements ecx; every few million iterations it leaves
 * the asm block, which gives back the callee-saved registers, and C code
 * checks the clock.  Exit status 0, or 2 on bad arguments.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "magic.h"

#if defined(__x86_64__) && defined(__ILP32__)
#define ABI_NAME "x32"
#elif defined(__x86_64__)
#define ABI_NAME "x86_64"
#elif defined(__i386__)
#define ABI_NAME "i386"
#else
#error "magic.c is for x86 (x86_64, x32 or i386) only"
#endif

/* Iterations per pass: a few ms natively, well under a second under TCG. */
#define CHUNK 10000000U

/* Defined by the asm in magic_spin(). */
extern const char magic_loop_start[], magic_loop_end[];

/*
 * Spin iters (> 0) times with the magic values live.  noinline/noclone:
 * the asm defines global labels, so it must be emitted exactly once.
 *
 * rbx and r12-r15 (ebx, esi, edi) are clobbers, so the compiler saves
 * and restores them for the caller.  rbp (ebp) cannot be a clobber when
 * it is the frame pointer, so the asm parks it in rax (eax) itself; no
 * operand is in memory, so nothing is addressed through it meanwhile.
 * The stack is not touched (no red zone issue).
 */
static void __attribute__((noinline, noclone)) magic_spin(unsigned int iters)
{
#ifdef __x86_64__
	asm volatile(
		"movq	%%rbp, %%rax\n\t"
		"movabsq	%[rbx], %%rbx\n\t"
		"movabsq	%[rbp], %%rbp\n\t"
		"movabsq	%[r12], %%r12\n\t"
		"movabsq	%[r13], %%r13\n\t"
		"movabsq	%[r14], %%r14\n\t"
		"movabsq	%[r15], %%r15\n\t"
		".globl	magic_loop_start\n"
		"magic_loop_start:\n\t"
		"decl	%[n]\n\t"
		"jnz	magic_loop_start\n"
		".globl	magic_loop_end\n"
		"magic_loop_end:\n\t"
		"movq	%%rax, %%rbp"
		: [n] "+c" (iters)
		: [rbx] "n" (MAGIC64_RBX), [rbp] "n" (MAGIC64_RBP),
		  [r12] "n" (MAGIC64_R12), [r13] "n" (MAGIC64_R13),
		  [r14] "n" (MAGIC64_R14), [r15] "n" (MAGIC64_R15)
		: "rax", "rbx", "r12", "r13", "r14", "r15", "cc");
#else
	asm volatile(
		"movl	%%ebp, %%eax\n\t"
		"movl	%[ebx], %%ebx\n\t"
		"movl	%[esi], %%esi\n\t"
		"movl	%[edi], %%edi\n\t"
		"movl	%[ebp], %%ebp\n\t"
		".globl	magic_loop_start\n"
		"magic_loop_start:\n\t"
		"decl	%[n]\n\t"
		"jnz	magic_loop_start\n"
		".globl	magic_loop_end\n"
		"magic_loop_end:\n\t"
		"movl	%%eax, %%ebp"
		: [n] "+c" (iters)
		: [ebx] "n" (MAGIC32_EBX), [esi] "n" (MAGIC32_ESI),
		  [edi] "n" (MAGIC32_EDI), [ebp] "n" (MAGIC32_EBP)
		: "eax", "ebx", "esi", "edi", "cc");
#endif
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void usage(const char *argv0)
{
	fprintf(stderr, "usage: %s SECONDS\n"
		"Spin SECONDS seconds (inf: until killed) with magic values in registers (abi %s).\n",
		argv0, ABI_NAME);
	exit(2);
}

int main(int argc, char **argv)
{
	double secs, start;
	char *end;

	if (argc != 2)
		usage(argv[0]);
	errno = 0;
	secs = strtod(argv[1], &end);
	if (errno || end == argv[1] || *end || isnan(secs) || secs < 0)
		usage(argv[0]);
	/* slow kernels (make check-debug) stretch every workload */
	if (getenv("PERFREGS_WORK_SCALE") && atof(getenv("PERFREGS_WORK_SCALE")) > 0)
		secs *= atof(getenv("PERFREGS_WORK_SCALE"));

	printf("magic abi=" ABI_NAME " pid=%d loop=0x%lx-0x%lx\n", (int)getpid(),
	       (unsigned long)(uintptr_t)magic_loop_start,
	       (unsigned long)(uintptr_t)magic_loop_end);
	if (fflush(stdout) == EOF) {
		perror("magic: stdout");
		return 1;
	}

	start = now();
	do
		magic_spin(CHUNK);
	while (now() - start < secs);
	return 0;
}
