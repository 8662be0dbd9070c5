// SPDX-License-Identifier: GPL-2.0
/*
 * fpchain: a known frame-pointer call path for --call-graph fp
 * (test_fpchain.py): main > fp_a > fp_b > fp_c, built -O1 -g
 * -fno-omit-frame-pointer -static, -m64, -mx32 and -m32.  Every function
 * of the path keeps a frame ({saved bp, return address} at bp; x32's in
 * 8-byte slots of 32-bit values), none is inlined, cloned or tail-called
 * (each uses its callee's result).
 *
 *   usage: fpchain spin|read|hostile SECONDS
 *
 *   spin     fp_c loops in user mode, no calls: nearly every sample lands
 *            in fp_c itself, in user mode.
 *   read     fp_c loops read() of /dev/zero, 64 KiB at a time: nearly every
 *            sample lands in the kernel's read path, the user registers
 *            those of the syscall entry, the user leaf libc's frameless
 *            read() wrapper (and for i386 the vDSO's __kernel_vsyscall
 *            it calls), below fp_c.
 *   hostile  fp_c spins with a corrupt frame pointer, the kind cycling
 *            every 100 ms: self (bp points at a stack slot holding its own
 *            address: a frame loop), kernel (0xffffffff81000000; for
 *            i386, which cannot point there, 0xfffffffc, the last slot of
 *            the 32-bit space, whose frame runs past 4 GiB), unmapped (in
 *            a page mapped and unmapped again), misaligned (bp 3 bytes
 *            into a stack buffer, whose unaligned word there holds that
 *            same address: a misaligned loop).  Samples with the pc in
 *            the printed loop range have bp one of these.
 *
 * fp_b calls fp_c in chunks and reads the clock between them; it sizes
 * the chunks so that each takes about 2 ms (spin: iterations; read:
 * reads), so that the clock is a small share of the samples.
 *
 * Prints one line, flushed before the work starts:
 *
 *   fpchain abi=<64|32> mode=<mode> pid=<pid> main=0x.. fp_a=0x..
 *     fp_b=0x.. fp_c=0x.. loop=0x<start>-0x<end>
 *     self=0x.. kernel=0x.. unmapped=0x.. misaligned=0x..
 *
 * (loop: the hostile spin; self..misaligned: the bp values of hostile),
 * then at the end "fpchain done sum=0x..".  Exit status 0, 1 if it cannot
 * set up or a read fails, 2 on bad arguments.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#if defined(__x86_64__) && !defined(__ILP32__)
#define ABI "64"
#define BP "%%rbp"
#define KERNEL_BP 0xffffffff81000000UL
#elif defined(__x86_64__)	/* x32: 64-bit frames of 32-bit pointers */
#define ABI "x32"
#define BP "%%ebp"		/* a write of ebp zero-extends into rbp */
#define KERNEL_BP 0xfffffffcUL	/* no kernel address fits: past 4 GiB */
#elif defined(__i386__)
#define ABI "32"
#define BP "%%ebp"
#define KERNEL_BP 0xfffffffcUL
#else
#error "fpchain.c is built -m64, -mx32 or -m32"
#endif

#define NOIPA __attribute__((noinline, noclone, used))

enum { SPIN, READ, HOSTILE };
enum { SELF, KERNEL, UNMAPPED, MISALIGNED, NKINDS };

/* the hostile spin's first and end address, from the asm in fp_c() */
extern const uintptr_t fp_hostile_range[2];

static int mode, fd = -1;
static double start, end;
static char buf[1 << 16];
static uintptr_t bad[NKINDS];	/* the corrupt bp values of hostile */

unsigned long fp_a(void);
unsigned long fp_b(void);
unsigned long fp_c(unsigned long n, int kind);

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * n units of work: spin iterations, reads, or iterations with bp set to
 * bad[kind].  The hostile asm saves bp in a register of its own (not in
 * memory: a bp-relative operand would be read through the corrupt bp)
 * and calls nothing while bp is corrupt.  Its loop's range goes to a
 * data symbol, fp_hostile_range (labels in the text would be symbols
 * that split fp_c's name).  noclone: the asm defines that symbol, so it
 * must be emitted exactly once.
 */
NOIPA unsigned long fp_c(unsigned long n, int kind)
{
	unsigned long acc = n, i, save;

	switch (mode) {
	case SPIN:
		for (i = 0; i < n; i++) {
			acc = acc * 2862933555777941757UL + i;
			asm volatile("" : "+r" (acc));
		}
		return acc;
	case READ:
		for (i = 0; i < n; i++)
			if (read(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf)) {
				perror("fpchain: read /dev/zero");
				exit(1);
			}
		return n;
	default:
		asm volatile(
			"mov	" BP ", %[save]\n\t"
			"mov	%[bp], " BP "\n"
			".Lfp_hostile_loop:\n\t"
			"dec	%[n]\n\t"
			"jnz	.Lfp_hostile_loop\n"
			".Lfp_hostile_end:\n\t"
			"mov	%[save], " BP "\n"
			".pushsection .data\n"
			".p2align 3\n"
			".globl	fp_hostile_range\n"
			"fp_hostile_range:\n\t"
			".dc.a	.Lfp_hostile_loop, .Lfp_hostile_end\n"
			".popsection"
			: [n] "+r" (acc), [save] "=&r" (save)
			: [bp] "r" (bad[kind])
			: "cc", "memory");
		return n + acc;
	}
}

/* fp_c in chunks of about 2 ms until the end; the sum of its results */
NOIPA unsigned long fp_b(void)
{
	unsigned long n = mode == READ ? 1 : 1000, sum = 0, calls = 0;
	double t = now(), t1;
	int kind = 0;

	do {
		if (mode == HOSTILE)
			kind = (int)((t - start) * 10) % NKINDS;
		sum += fp_c(n, kind);
		calls++;
		t1 = now();
		if (t1 - t < 0.002 && n < (1UL << 28))
			n *= 2;
		t = t1;
	} while (t < end);
	return sum + calls;
}

NOIPA unsigned long fp_a(void)
{
	return fp_b() + 1;
}

static void usage(const char *argv0)
{
	fprintf(stderr, "usage: %s spin|read|hostile SECONDS\n"
		"main > fp_a > fp_b > fp_c, fp_c spinning, reading /dev/zero, or spinning\n"
		"with a corrupt frame pointer, for SECONDS seconds.\n", argv0);
	exit(2);
}

int main(int argc, char **argv)
{
	/* hostile frames, on the stack: a frame loop, a misaligned one */
	uintptr_t self[2], mis[8];
	unsigned long r;
	double secs;
	/* stdout's buffer static: no allocation may map the unmapped page again */
	static char obuf[4096];
	char *e;
	void *p;

	setvbuf(stdout, obuf, _IOFBF, sizeof(obuf));
	if (argc != 3)
		usage(argv[0]);
	if (!strcmp(argv[1], "spin"))
		mode = SPIN;
	else if (!strcmp(argv[1], "read"))
		mode = READ;
	else if (!strcmp(argv[1], "hostile"))
		mode = HOSTILE;
	else
		usage(argv[0]);
	errno = 0;
	secs = strtod(argv[2], &e);
	if (errno || e == argv[2] || *e || isnan(secs) || secs < 0)
		usage(argv[0]);
	if (getenv("PERFREGS_WORK_SCALE") && atof(getenv("PERFREGS_WORK_SCALE")) > 0)
		secs *= atof(getenv("PERFREGS_WORK_SCALE"));	/* slow kernels */

	if (mode == READ) {
		fd = open("/dev/zero", O_RDONLY);
		if (fd < 0) {
			perror("fpchain: /dev/zero");
			return 1;
		}
		memset(buf, 1, sizeof(buf));	/* faulted in before the loop */
	}
	self[0] = (uintptr_t)&self[0];
	self[1] = (uintptr_t)fp_c + 1;	/* a return address, as it were */
	memset(mis, 0, sizeof(mis));
	bad[MISALIGNED] = (uintptr_t)mis + 3;
	memcpy((char *)mis + 3, &bad[MISALIGNED], sizeof(uintptr_t));
	bad[SELF] = self[0];
	bad[KERNEL] = KERNEL_BP;
	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED || munmap(p, 4096)) {
		perror("fpchain: mmap");
		return 1;
	}
	bad[UNMAPPED] = (uintptr_t)p + 0x100;

	printf("fpchain abi=" ABI " mode=%s pid=%d main=%#lx fp_a=%#lx fp_b=%#lx fp_c=%#lx "
	       "loop=%#lx-%#lx self=%#lx kernel=%#lx unmapped=%#lx misaligned=%#lx\n",
	       argv[1], (int)getpid(), (unsigned long)(uintptr_t)main,
	       (unsigned long)(uintptr_t)fp_a, (unsigned long)(uintptr_t)fp_b,
	       (unsigned long)(uintptr_t)fp_c, (unsigned long)fp_hostile_range[0],
	       (unsigned long)fp_hostile_range[1], (unsigned long)bad[SELF],
	       (unsigned long)bad[KERNEL], (unsigned long)bad[UNMAPPED],
	       (unsigned long)bad[MISALIGNED]);
	if (fflush(stdout) == EOF) {
		perror("fpchain: stdout");
		return 1;
	}
	start = now();
	end = start + secs;
	r = fp_a();
	/* keeps self[] and mis[] live to here, and uses fp_a's result */
	asm volatile("" : : "r" (self), "r" (mis) : "memory");
	printf("fpchain done sum=%#lx\n", r);
	return 0;
}
