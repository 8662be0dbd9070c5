// SPDX-License-Identifier: GPL-2.0
/*
 * mixed: a 64-bit process spinning in 32-bit (compatibility mode) code.
 *
 * Built as a 64-bit static non-PIE binary (gcc -m64 -O1 -static -no-pie),
 * so its code sits below 4 GiB.  It far-jumps into the 32-bit user code
 * segment (__USER32_CS, 0x23), spins there with the 32-bit magic values
 * of magic.h in ebx, esi, edi and ebp, and far-jumps back to the 64-bit
 * segment (__USER_CS, 0x33).  A sampler sees a 64-bit task with cs 0x23.
 *
 *   usage: mixed SECONDS
 *
 * Prints one line, flushed before the loop starts:
 *
 *   magic abi=mixed pid=<pid> loop=0x<start>-0x<end> avx=<0|1>
 *     ds=0x.. es=0x.. fs=0x.. gs=0x.. fs_base=0x.. gs_base=0x..
 *
 * where [start, end) is the exact range of the 32-bit inner loop (global
 * labels mixed_loop_start and mixed_loop_end); whenever the pc is inside
 * it, cs is 0x23 and ebx, esi, edi, ebp hold MAGIC32_EBX, _ESI, _EDI, _EBP,
 * xmm0-7 MAGIC_XMM_LO/HI(n), and with avx=1 the upper halves of ymm0-7
 * MAGIC_YMM_LO/HI(n) (loaded in 64-bit mode, kept across the far jump);
 * the selectors and bases are the 64-bit process's own, as printed.
 * Then it keeps going in and out of 32-bit mode, a few million iterations
 * each time, until SECONDS seconds of wall time have passed.  Exit status
 * 0, 1 if it cannot set up, 2 on bad arguments.
 *
 * What 32-bit mode needs here:
 *  - a stack below 4 GiB: esp is only the low half of rsp, so rsp is
 *    switched to a MAP_32BIT mapping for the excursion (the 32-bit code
 *    does not use the stack, but esp then is a valid stack pointer, the
 *    one a sampler reports, and the kernel finds a sane rsp whatever
 *    happens in 32-bit mode);
 *  - no data access through DS/ES: in 64-bit mode Linux leaves them null,
 *    and a null segment faults in 32-bit mode.  The 32-bit code only uses
 *    immediates and registers;
 *  - nothing of the 64-bit context to survive in the legacy registers: the
 *    upper halves of rax..rdi, rsp and rbp are undefined after a 32-bit
 *    excursion, so rsp and rbp are kept in memory and every other GPR is
 *    declared clobbered.
 *
 * Far jumps (ljmp) rather than a far call and far return: QEMU's TCG
 * (Debian 12's 7.2 at least) pops the lret/lretq frame with a supervisor
 * access, which under SMAP faults in the guest kernel and brings it down
 * ("#PF: supervisor read access in user mode" at the lretq).  ljmp through
 * a far pointer in memory, or with an immediate one, touches no stack.
 */
#include <cpuid.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "magic.h"

#if !defined(__x86_64__) || defined(__ILP32__)
#error "mixed.c must be built for x86_64 (-m64)"
#endif

/* Linux x86-64 user code segments: 32-bit (compat) and 64-bit. */
#define USER32_CS "0x23"
#define USER64_CS "0x33"

/* Iterations per excursion: a few ms natively, well under a second under TCG. */
#define CHUNK 10000000U

#define STACK32_SIZE 65536

/* Defined by the asm in mixed_spin(). */
extern const char mixed_code32[], mixed_loop_start[], mixed_loop_end[];

static uint64_t stack32_top;		/* below 4 GiB, 16-byte aligned */
static uint64_t saved_rsp, saved_rbp;
/* ymm0-7 whole (their low halves the xmm values) */
static uint64_t ytab[8][4] __attribute__((aligned(32)));
static int avx;

/*
 * Run iters (> 0) iterations of the 32-bit loop.  noinline/noclone: the
 * asm defines global labels, so it must be emitted exactly once.
 *
 * 64-bit side: save rsp and rbp, switch to the low stack and ljmp through
 * the m16:32 far pointer .Lmixed_far32 to mixed_code32 with cs 0x23.
 * 32-bit side (its own section, its own function symbol): load the
 * magics, spin, ljmp 0x33:1f.  Back in 64-bit mode at 1:, restore rsp and
 * rbp.  Nothing is pushed, so the caller's red zone is left alone.
 */
static void __attribute__((noinline, noclone)) mixed_spin(unsigned int iters)
{
	asm volatile(
		"movdqu	0(%[y]), %%xmm0\n\t"
		"movdqu	32(%[y]), %%xmm1\n\t"
		"movdqu	64(%[y]), %%xmm2\n\t"
		"movdqu	96(%[y]), %%xmm3\n\t"
		"movdqu	128(%[y]), %%xmm4\n\t"
		"movdqu	160(%[y]), %%xmm5\n\t"
		"movdqu	192(%[y]), %%xmm6\n\t"
		"movdqu	224(%[y]), %%xmm7\n\t"
		"cmpl	$0, %[avx]\n\t"
		"je	2f\n\t"
		"vmovdqu	0(%[y]), %%ymm0\n\t"
		"vmovdqu	32(%[y]), %%ymm1\n\t"
		"vmovdqu	64(%[y]), %%ymm2\n\t"
		"vmovdqu	96(%[y]), %%ymm3\n\t"
		"vmovdqu	128(%[y]), %%ymm4\n\t"
		"vmovdqu	160(%[y]), %%ymm5\n\t"
		"vmovdqu	192(%[y]), %%ymm6\n\t"
		"vmovdqu	224(%[y]), %%ymm7\n"
		"2:\n\t"
		"movq	%%rbp, %[save_rbp]\n\t"
		"movq	%%rsp, %[save_rsp]\n\t"
		"movq	%[stack], %%rsp\n\t"
		"ljmpl	*.Lmixed_far32(%%rip)\n"

		".pushsection .rodata\n"
		".p2align 3\n"
		".Lmixed_far32:\n\t"
		".long	mixed_code32\n\t"
		".word	" USER32_CS "\n"
		".popsection\n"

		".pushsection .text.mixed32, \"ax\", @progbits\n"
		".code32\n"
		".globl	mixed_code32\n"
		".type	mixed_code32, @function\n"
		"mixed_code32:\n\t"
		"movl	%[ebx], %%ebx\n\t"
		"movl	%[esi], %%esi\n\t"
		"movl	%[edi], %%edi\n\t"
		"movl	%[ebp], %%ebp\n"
		".globl	mixed_loop_start\n"
		"mixed_loop_start:\n\t"
		"decl	%%ecx\n\t"
		"jnz	mixed_loop_start\n"
		".globl	mixed_loop_end\n"
		"mixed_loop_end:\n\t"
		"ljmpl	$" USER64_CS ", $1f\n"
		".size	mixed_code32, . - mixed_code32\n"
		".code64\n"
		".popsection\n"

		"1:\n\t"
		"movq	%[save_rsp], %%rsp\n\t"
		"movq	%[save_rbp], %%rbp"
		: [n] "+c" (iters),
		  [save_rsp] "=m" (saved_rsp), [save_rbp] "=m" (saved_rbp)
		: [stack] "m" (stack32_top), [y] "r" (ytab), [avx] "m" (avx),
		  [ebx] "n" (MAGIC32_EBX), [esi] "n" (MAGIC32_ESI),
		  [edi] "n" (MAGIC32_EDI), [ebp] "n" (MAGIC32_EBP)
		: "rax", "rbx", "rdx", "rsi", "rdi", "r8", "r9", "r10", "r11",
		  "r12", "r13", "r14", "r15", "xmm0", "xmm1", "xmm2", "xmm3",
		  "xmm4", "xmm5", "xmm6", "xmm7", "cc", "memory");
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int have_avx(void)
{
	unsigned int a, b, c, d, lo, hi;

	if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_AVX) || !(c & bit_OSXSAVE))
		return 0;
	asm volatile("xgetbv" : "=a" (lo), "=d" (hi) : "c" (0));
	return (lo & 6) == 6;	/* the OS saves xmm and ymm */
}

static void usage(const char *argv0)
{
	fprintf(stderr, "usage: %s SECONDS\n"
		"Spin SECONDS seconds (inf: until killed) in 32-bit code with magic values in registers.\n",
		argv0);
	exit(2);
}

int main(int argc, char **argv)
{
	unsigned int sel[4];
	uint64_t fs_base;
	double secs, start;
	void *stack;
	char *end;
	int n;

	if (argc != 2)
		usage(argv[0]);
	errno = 0;
	secs = strtod(argv[1], &end);
	if (errno || end == argv[1] || *end || isnan(secs) || secs < 0)
		usage(argv[0]);
	/* slow kernels (make check-debug) stretch every workload */
	if (getenv("PERFREGS_WORK_SCALE") && atof(getenv("PERFREGS_WORK_SCALE")) > 0)
		secs *= atof(getenv("PERFREGS_WORK_SCALE"));

	/* The far pointers hold 32-bit offsets: code must be below 4 GiB. */
	if ((uintptr_t)mixed_spin >> 32 || (uintptr_t)mixed_code32 >> 32) {
		fprintf(stderr, "mixed: code above 4 GiB: build with -static -no-pie\n");
		return 1;
	}
	stack = mmap(NULL, STACK32_SIZE, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
	if (stack == MAP_FAILED) {
		perror("mixed: mmap(MAP_32BIT)");
		return 1;
	}
	stack32_top = (uintptr_t)stack + STACK32_SIZE;
	if (stack32_top > 1ULL << 32) {
		fprintf(stderr, "mixed: MAP_32BIT stack above 4 GiB\n");
		return 1;
	}

	for (n = 0; n < 8; n++) {
		ytab[n][0] = MAGIC_XMM_LO(n);
		ytab[n][1] = MAGIC_XMM_HI(n);
		ytab[n][2] = MAGIC_YMM_LO(n);
		ytab[n][3] = MAGIC_YMM_HI(n);
	}
	avx = have_avx();
	asm volatile("movl %%ds, %0; movl %%es, %1; movl %%fs, %2; movl %%gs, %3"
		     : "=r" (sel[0]), "=r" (sel[1]), "=r" (sel[2]), "=r" (sel[3]));
	/* glibc's TLS: its first word is its own address, the FS base */
	asm volatile("movq %%fs:0, %0" : "=r" (fs_base));
	printf("magic abi=mixed pid=%d loop=0x%lx-0x%lx avx=%d ds=0x%x es=0x%x fs=0x%x gs=0x%x fs_base=0x%llx gs_base=0x0\n",
	       (int)getpid(), (unsigned long)(uintptr_t)mixed_loop_start,
	       (unsigned long)(uintptr_t)mixed_loop_end, avx, sel[0], sel[1],
	       sel[2], sel[3], (unsigned long long)fs_base);
	if (fflush(stdout) == EOF) {
		perror("mixed: stdout");
		return 1;
	}

	start = now();
	do
		mixed_spin(CHUNK);
	while (now() - start < secs);
	return 0;
}
