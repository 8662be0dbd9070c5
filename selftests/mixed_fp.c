// SPDX-License-Identifier: GPL-2.0
/*
 * mixed_fp: a 64-bit process spinning in 32-bit code under a 32-bit
 * frame-pointer chain, for --call-graph fp on a mixed-mode task
 * (test_fpchain.py).
 *
 * Built as mixed.c is (gcc -m64 -O1 -static -no-pie: code below 4 GiB).
 * It switches rsp to a MAP_32BIT stack and far-jumps into the 32-bit
 * user code segment (__USER32_CS, 0x23), to mfp_code32, which clears
 * ebp and calls m32_a, which calls m32_b, which calls m32_c, with near
 * 32-bit calls (4-byte return addresses), each opening its frame with
 * push %ebp; mov %esp, %ebp (4-byte slots).  m32_c spins; then each
 * returns, and mfp_code32 far-jumps back to the 64-bit segment
 * (__USER_CS, 0x33).  While the pc is in m32_c's loop, the chain a
 * frame-pointer walk with 4-byte slots finds from ebp is exactly
 *
 *   m32_c's loop, ret_b (into m32_b), ret_a (into m32_a), ret_0 (into
 *   mfp_code32)
 *
 * and there it ends: m32_a's saved ebp is 0.  The 32-bit code uses the
 * stack (through SS, the flat __USER_DS in both modes), registers and
 * immediates only: DS is null in 64-bit mode, so no other data access
 * (see mixed.c).  Far jumps only, no far call or return (QEMU's TCG pops
 * an lret frame with a supervisor access: mixed.c).  The 32-bit code has
 * no CFI (a 64-bit object's .eh_frame cannot describe it).
 *
 *   usage: mixed_fp SECONDS
 *
 * Prints one line, flushed before the loop starts:
 *
 *   mixed_fp abi=mixed pid=<pid> m32_a=0x..-0x.. m32_b=0x..-0x..
 *     m32_c=0x..-0x.. loop=0x..-0x.. ret_b=0x.. ret_a=0x.. ret_0=0x..
 *
 * (ranges [start, end); the addresses come from a data table,
 * mfp_addrs, so that no label in the text splits a function's symbol).
 * Then it keeps going in and out of 32-bit mode, a few million
 * iterations each time, until SECONDS seconds of wall time have passed.
 * Exit status 0, 1 if it cannot set up, 2 on bad arguments.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#if !defined(__x86_64__) || defined(__ILP32__)
#error "mixed_fp.c must be built for x86_64 (-m64)"
#endif

#define USER32_CS "0x23"
#define USER64_CS "0x33"

/* Iterations per excursion: a few ms natively, well under a second under TCG. */
#define CHUNK 10000000U

#define STACK32_SIZE 65536

/*
 * Defined by the asm in mfp_spin(): the addresses printed, in this order
 * (A_* indices).  .long each: the code is below 4 GiB.
 */
enum { A_A, A_A_END, A_B, A_B_END, A_C, A_C_END, A_LOOP, A_LOOP_END,
       A_RET_B, A_RET_A, A_RET_0, A_CODE32, A_N };
extern const uint32_t mfp_addrs[A_N];

static uint64_t stack32_top;		/* below 4 GiB, 16-byte aligned */
static uint64_t saved_rsp, saved_rbp;

/*
 * Run iters (> 0) iterations of m32_c's loop under m32_a > m32_b > m32_c.
 * noinline/noclone: the asm defines global symbols, so it must be
 * emitted exactly once.  As mixed_spin() in mixed.c: rsp and rbp kept
 * in memory, every other GPR clobbered, nothing pushed on the 64-bit
 * stack (its red zone is left alone); the 32-bit calls push on the
 * MAP_32BIT stack.
 */
static void __attribute__((noinline, noclone)) mfp_spin(unsigned int iters)
{
	asm volatile(
		"movq	%%rbp, %[save_rbp]\n\t"
		"movq	%%rsp, %[save_rsp]\n\t"
		"movq	%[stack], %%rsp\n\t"
		"ljmpl	*.Lmfp_far32(%%rip)\n"

		".pushsection .rodata\n"
		".p2align 3\n"
		".Lmfp_far32:\n\t"
		".long	mfp_code32\n\t"
		".word	" USER32_CS "\n"
		".p2align 2\n"
		".globl	mfp_addrs\n"
		".type	mfp_addrs, @object\n"
		"mfp_addrs:\n\t"
		".long	m32_a, .Lm32_a_end, m32_b, .Lm32_b_end, m32_c, .Lm32_c_end\n\t"
		".long	.Lm32_loop, .Lm32_loop_end, .Lm32_ret_b, .Lm32_ret_a, .Lm32_ret_0\n\t"
		".long	mfp_code32\n"
		".size	mfp_addrs, . - mfp_addrs\n"
		".popsection\n"

		".pushsection .text.mixed_fp32, \"ax\", @progbits\n"
		".code32\n"
		".globl	mfp_code32\n"
		".type	mfp_code32, @function\n"
		"mfp_code32:\n\t"
		"xorl	%%ebp, %%ebp\n\t"	/* the end of the chain */
		"call	m32_a\n"
		".Lm32_ret_0:\n\t"
		"ljmpl	$" USER64_CS ", $1f\n"
		".size	mfp_code32, . - mfp_code32\n"

		".globl	m32_a\n"
		".type	m32_a, @function\n"
		"m32_a:\n\t"
		"pushl	%%ebp\n\t"
		"movl	%%esp, %%ebp\n\t"
		"call	m32_b\n"
		".Lm32_ret_a:\n\t"
		"popl	%%ebp\n\t"
		"ret\n"
		".Lm32_a_end:\n"
		".size	m32_a, . - m32_a\n"

		".globl	m32_b\n"
		".type	m32_b, @function\n"
		"m32_b:\n\t"
		"pushl	%%ebp\n\t"
		"movl	%%esp, %%ebp\n\t"
		"call	m32_c\n"
		".Lm32_ret_b:\n\t"
		"popl	%%ebp\n\t"
		"ret\n"
		".Lm32_b_end:\n"
		".size	m32_b, . - m32_b\n"

		".globl	m32_c\n"
		".type	m32_c, @function\n"
		"m32_c:\n\t"
		"pushl	%%ebp\n\t"
		"movl	%%esp, %%ebp\n"
		".Lm32_loop:\n\t"
		"decl	%%ecx\n\t"
		"jnz	.Lm32_loop\n"
		".Lm32_loop_end:\n\t"
		"popl	%%ebp\n\t"
		"ret\n"
		".Lm32_c_end:\n"
		".size	m32_c, . - m32_c\n"
		".code64\n"
		".popsection\n"

		"1:\n\t"
		"movq	%[save_rsp], %%rsp\n\t"
		"movq	%[save_rbp], %%rbp"
		: [n] "+c" (iters),
		  [save_rsp] "=m" (saved_rsp), [save_rbp] "=m" (saved_rbp)
		: [stack] "m" (stack32_top)
		: "rax", "rbx", "rdx", "rsi", "rdi", "r8", "r9", "r10", "r11",
		  "r12", "r13", "r14", "r15", "cc", "memory");
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
		"Spin SECONDS seconds in 32-bit code under a 32-bit frame-pointer chain.\n",
		argv0);
	exit(2);
}

int main(int argc, char **argv)
{
	double secs, start;
	void *stack;
	char *end;

	if (argc != 2)
		usage(argv[0]);
	errno = 0;
	secs = strtod(argv[1], &end);
	if (errno || end == argv[1] || *end || isnan(secs) || secs < 0)
		usage(argv[0]);
	if (getenv("PERFREGS_WORK_SCALE") && atof(getenv("PERFREGS_WORK_SCALE")) > 0)
		secs *= atof(getenv("PERFREGS_WORK_SCALE"));	/* slow kernels */

	/* The far pointers hold 32-bit offsets: code must be below 4 GiB. */
	if ((uintptr_t)mfp_spin >> 32 || (uintptr_t)mfp_addrs >> 32) {
		fprintf(stderr, "mixed_fp: code above 4 GiB: build with -static -no-pie\n");
		return 1;
	}
	stack = mmap(NULL, STACK32_SIZE, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
	if (stack == MAP_FAILED) {
		perror("mixed_fp: mmap(MAP_32BIT)");
		return 1;
	}
	stack32_top = (uintptr_t)stack + STACK32_SIZE;
	if (stack32_top > 1ULL << 32) {
		fprintf(stderr, "mixed_fp: MAP_32BIT stack above 4 GiB\n");
		return 1;
	}

	printf("mixed_fp abi=mixed pid=%d m32_a=%#x-%#x m32_b=%#x-%#x m32_c=%#x-%#x "
	       "loop=%#x-%#x ret_b=%#x ret_a=%#x ret_0=%#x code32=%#x\n", (int)getpid(),
	       mfp_addrs[A_A], mfp_addrs[A_A_END], mfp_addrs[A_B], mfp_addrs[A_B_END],
	       mfp_addrs[A_C], mfp_addrs[A_C_END], mfp_addrs[A_LOOP], mfp_addrs[A_LOOP_END],
	       mfp_addrs[A_RET_B], mfp_addrs[A_RET_A], mfp_addrs[A_RET_0], mfp_addrs[A_CODE32]);
	if (fflush(stdout) == EOF) {
		perror("mixed_fp: stdout");
		return 1;
	}

	start = now();
	do
		mfp_spin(CHUNK);
	while (now() - start < secs);
	return 0;
}
