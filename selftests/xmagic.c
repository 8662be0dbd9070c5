// SPDX-License-Identifier: GPL-2.0
/*
 * xmagic: spin with known values in the vector registers, the segment
 * selectors and the FS and GS base, for perfregs' tests of the SIMD
 * state and of the user frame's selectors and bases.
 *
 * One source, built static -m64 (abi x86_64) and -m32 (abi i386).
 *
 *   usage: xmagic spin|syscall|yield|udp|kvm SECONDS
 *
 * Prints one line, flushed before the loop starts:
 *
 *   magic abi=<x86_64|i386> pid=<pid> loop=0x<start>-0x<end>
 *     mode=<spin|syscall> avx=<0|1> ds=0x.. es=0x.. fs=0x.. gs=0x..
 *     fs_base=0x.. gs_base=0x..
 *
 * (the first fields as magic.c prints them, so its readers read this)
 *
 * then loops for SECONDS seconds of wall time, or with SECONDS "inf"
 * until SIGTERM (a test that samples until it has what it needs: the
 * loop then ends at the end of its chunk, kvm checks its vCPU, and the
 * status is as for a timed run).  Whenever the pc is in
 * [start, end), or the task is in a system call made from there:
 *   xmm0-15 (0-7 for i386) hold MAGIC_XMM_LO/HI(n) of magic.h, and with
 *   avx=1 the upper halves of ymm0-15 (0-7) MAGIC_YMM_LO/HI(n);
 *   ds, es, fs, gs, the FS base and the GS base are the values printed:
 *   x86_64: ds and es LDT data segments, the bases set with arch_prctl()
 *   (fs and gs are then 0); i386: ds, es and fs LDT data segments, fs's
 *   base MAGIC32_FS_BASE, gs glibc's TLS segment with its base.
 * mode spin: the loop only decrements a counter (user-mode samples).
 * mode syscall: the loop calls getppid() (kernel-mode samples, their
 * user frame at the instruction after the system call).
 * mode yield: the loop calls sched_yield(), pinned to one CPU with a
 * child yielding there too: every call switches tasks, and the kernel
 * saves the SIMD state (kernel-mode samples after the switch back find
 * it saved, TIF_NEED_FPU_LOAD).
 * mode udp (x86_64 only): the loop write()s to a UDP socket on loopback,
 * a send path with bottom halves off much of the time (kernel-mode
 * samples there report the SIMD state unknown, fpregs_locked).
 * mode kvm (x86_64 only): the loop runs a KVM vCPU (ioctl KVM_RUN) whose
 * guest holds all ones in xmm0-7 and exits to user mode at each OUT;
 * exit status 3, before the line, without /dev/kvm or where it makes no
 * VM, and 1 when the vCPU does not stop at its OUT (first or last run).
 * Every chunk of iterations it leaves the asm, which gives everything
 * back (glibc's TLS needs its FS base on x86_64), and C code checks the
 * clock.  Exit status 0, 1 if the LDT cannot be set up, 2 on bad usage.
 */
#define _GNU_SOURCE
#include <cpuid.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <asm/ldt.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#ifdef __x86_64__
#include <linux/kvm.h>
#endif

#include "magic.h"

#ifdef __x86_64__
#define UDP_MODE "|udp|kvm"
#else
#define UDP_MODE ""
#endif

#if defined(__x86_64__) && !defined(__ILP32__)
#define ABI_NAME "x86_64"
#define NVEC 16
#elif defined(__i386__)
#define ABI_NAME "i386"
#define NVEC 8
#else
#error "xmagic.c is for x86_64 and i386"
#endif

#define CHUNK_SPIN	10000000U
#define CHUNK_SYSCALL	2000U

extern const char xmagic_loop_start[], xmagic_loop_end[];
extern const char xmagic_sys_start[], xmagic_sys_end[];

/* xmm n, then ymm n whole (its low half the same xmm value) */
static uint64_t xtab[NVEC][2] __attribute__((aligned(16)));
static uint64_t ytab[NVEC][4] __attribute__((aligned(32)));

static int have_avx(void)
{
	unsigned int a, b, c, d, lo, hi;

	if (!__get_cpuid(1, &a, &b, &c, &d))
		return 0;
	if (!(c & bit_AVX) || !(c & bit_OSXSAVE))
		return 0;
	asm volatile("xgetbv" : "=a" (lo), "=d" (hi) : "c" (0));
	return (lo & 6) == 6;	/* the OS saves xmm and ymm */
}

static int set_ldt(int entry, uint32_t base)
{
	struct user_desc d;

	memset(&d, 0, sizeof(d));
	d.entry_number = entry;
	d.base_addr = base;
	d.limit = 0xfffff;
	d.seg_32bit = 1;
	d.limit_in_pages = 1;
	d.useable = 1;
	return syscall(SYS_modify_ldt, 1, &d, sizeof(d));
}

#ifdef __x86_64__
/* FS base: glibc's TLS, to be given back after each chunk */
static uint64_t tls_base;

#define LOAD_VECTORS							\
	"movdqu	0(%[x]), %%xmm0\n\t"   "movdqu	16(%[x]), %%xmm1\n\t"	\
	"movdqu	32(%[x]), %%xmm2\n\t"  "movdqu	48(%[x]), %%xmm3\n\t"	\
	"movdqu	64(%[x]), %%xmm4\n\t"  "movdqu	80(%[x]), %%xmm5\n\t"	\
	"movdqu	96(%[x]), %%xmm6\n\t"  "movdqu	112(%[x]), %%xmm7\n\t"	\
	"movdqu	128(%[x]), %%xmm8\n\t" "movdqu	144(%[x]), %%xmm9\n\t"	\
	"movdqu	160(%[x]), %%xmm10\n\t" "movdqu	176(%[x]), %%xmm11\n\t"	\
	"movdqu	192(%[x]), %%xmm12\n\t" "movdqu	208(%[x]), %%xmm13\n\t"	\
	"movdqu	224(%[x]), %%xmm14\n\t" "movdqu	240(%[x]), %%xmm15\n\t"	\
	"testl	%[avx], %[avx]\n\t"					\
	"jz	1f\n\t"							\
	"vmovdqu	0(%[y]), %%ymm0\n\t"   "vmovdqu	32(%[y]), %%ymm1\n\t" \
	"vmovdqu	64(%[y]), %%ymm2\n\t"  "vmovdqu	96(%[y]), %%ymm3\n\t" \
	"vmovdqu	128(%[y]), %%ymm4\n\t" "vmovdqu	160(%[y]), %%ymm5\n\t" \
	"vmovdqu	192(%[y]), %%ymm6\n\t" "vmovdqu	224(%[y]), %%ymm7\n\t" \
	"vmovdqu	256(%[y]), %%ymm8\n\t" "vmovdqu	288(%[y]), %%ymm9\n\t" \
	"vmovdqu	320(%[y]), %%ymm10\n\t" "vmovdqu	352(%[y]), %%ymm11\n\t" \
	"vmovdqu	384(%[y]), %%ymm12\n\t" "vmovdqu	416(%[y]), %%ymm13\n\t" \
	"vmovdqu	448(%[y]), %%ymm14\n\t" "vmovdqu	480(%[y]), %%ymm15\n" \
	"1:\n\t"

/*
 * arch_prctl(ARCH_SET_GS, MAGIC64_GS_BASE) and (ARCH_SET_FS, ...), the
 * LDT selectors into ds and es, the vectors; the loop; then ds, es and
 * both bases back.  Inside, nothing touches memory through FS.
 */
#define X64_ENTER							\
	"movl	$158, %%eax\n\t"					\
	"movl	$0x1001, %%edi\n\t"					\
	"movabsq	%[gsb], %%rsi\n\t"				\
	"syscall\n\t"							\
	"movl	$158, %%eax\n\t"					\
	"movl	$0x1002, %%edi\n\t"					\
	"movabsq	%[fsb], %%rsi\n\t"				\
	"syscall\n\t"							\
	"movl	%%ds, %%r8d\n\t"					\
	"movl	%%es, %%r9d\n\t"					\
	"movl	%[dsel], %%eax\n\t"					\
	"movl	%%eax, %%ds\n\t"					\
	"movl	%[esel], %%eax\n\t"					\
	"movl	%%eax, %%es\n\t"					\
	LOAD_VECTORS

#define X64_LEAVE							\
	"movl	%%r8d, %%ds\n\t"					\
	"movl	%%r9d, %%es\n\t"					\
	"movl	$158, %%eax\n\t"					\
	"movl	$0x1001, %%edi\n\t"					\
	"xorl	%%esi, %%esi\n\t"					\
	"syscall\n\t"							\
	"movl	$158, %%eax\n\t"					\
	"movl	$0x1002, %%edi\n\t"					\
	"movq	%[tls], %%rsi\n\t"					\
	"syscall\n\t"

#define X64_IN								\
	[x] "r" (xtab), [y] "r" (ytab), [avx] "r" (avx),		\
	[tls] "m" (tls_base), [gsb] "n" (MAGIC64_GS_BASE),		\
	[fsb] "n" (MAGIC64_FS_BASE), [dsel] "n" (MAGIC_LDT_SEL(MAGIC_LDT_DS)), \
	[esel] "n" (MAGIC_LDT_SEL(MAGIC_LDT_ES))
#define X64_CLOBBER							\
	"rax", "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r11", "r12",	\
	"xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7",	\
	"xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14",	\
	"xmm15", "cc", "memory"

static void __attribute__((noinline, noclone)) spin(unsigned int n, int avx)
{
	asm volatile(
		X64_ENTER
		"movl	%[n], %%ecx\n"
		".globl	xmagic_loop_start\n"
		"xmagic_loop_start:\n\t"
		"decl	%%ecx\n\t"
		"jnz	xmagic_loop_start\n"
		".globl	xmagic_loop_end\n"
		"xmagic_loop_end:\n\t"
		X64_LEAVE
		: : [n] "r" (n), X64_IN : X64_CLOBBER);
}

/* @nr with the arguments in sysargs (the kernel keeps them across syscall) */
static long sysargs[3];

static void __attribute__((noinline, noclone)) sys(unsigned int n, int avx, int nr)
{
	asm volatile(
		X64_ENTER
		"movq	%[a0], %%rdi\n\t"
		"movq	%[a1], %%rsi\n\t"
		"movq	%[a2], %%rdx\n\t"
		"movl	%[n], %%r12d\n"
		".globl	xmagic_sys_start\n"
		"xmagic_sys_start:\n\t"
		"movl	%[nr], %%eax\n\t"
		"syscall\n\t"
		"decl	%%r12d\n\t"
		"jnz	xmagic_sys_start\n"
		".globl	xmagic_sys_end\n"
		"xmagic_sys_end:\n\t"
		X64_LEAVE
		: : [n] "r" (n), [nr] "r" (nr), [a0] "m" (sysargs[0]),
		  [a1] "m" (sysargs[1]), [a2] "m" (sysargs[2]), X64_IN : X64_CLOBBER);
}
#define NR_GETPPID	110
#define NR_SCHED_YIELD	24
#define NR_WRITE	1
#define NR_IOCTL	16

static void expected(char *buf, size_t len)
{
	snprintf(buf, len, "ds=0x%x es=0x%x fs=0x0 gs=0x0 fs_base=0x%llx gs_base=0x%llx",
		 MAGIC_LDT_SEL(MAGIC_LDT_DS), MAGIC_LDT_SEL(MAGIC_LDT_ES),
		 (unsigned long long)MAGIC64_FS_BASE,
		 (unsigned long long)MAGIC64_GS_BASE);
}

static int setup(void)
{
	/* glibc's TLS lives at the FS base: its first word points at itself */
	asm volatile("movq %%fs:0, %0" : "=r" (tls_base));
	return 0;
}

#else /* i386 */

#define LOAD_VECTORS							\
	"movdqu	0(%[x]), %%xmm0\n\t"  "movdqu	16(%[x]), %%xmm1\n\t"	\
	"movdqu	32(%[x]), %%xmm2\n\t" "movdqu	48(%[x]), %%xmm3\n\t"	\
	"movdqu	64(%[x]), %%xmm4\n\t" "movdqu	80(%[x]), %%xmm5\n\t"	\
	"movdqu	96(%[x]), %%xmm6\n\t" "movdqu	112(%[x]), %%xmm7\n\t"	\
	"cmpl	$0, %[avx]\n\t"						\
	"je	1f\n\t"							\
	"vmovdqu	0(%[y]), %%ymm0\n\t"   "vmovdqu	32(%[y]), %%ymm1\n\t" \
	"vmovdqu	64(%[y]), %%ymm2\n\t"  "vmovdqu	96(%[y]), %%ymm3\n\t" \
	"vmovdqu	128(%[y]), %%ymm4\n\t" "vmovdqu	160(%[y]), %%ymm5\n\t" \
	"vmovdqu	192(%[y]), %%ymm6\n\t" "vmovdqu	224(%[y]), %%ymm7\n" \
	"1:\n\t"

/*
 * The vectors, what the loop needs from memory (@pre), then ds, es and
 * fs: after the pushes nothing reads memory (an operand may be
 * addressed from esp).
 */
#define I386_ENTER(pre)							\
	LOAD_VECTORS							\
	pre								\
	"pushl	%%ds\n\t"						\
	"pushl	%%es\n\t"						\
	"pushl	%%fs\n\t"						\
	"movl	%[dsel], %%eax\n\t"					\
	"movl	%%eax, %%ds\n\t"					\
	"movl	%[esel], %%eax\n\t"					\
	"movl	%%eax, %%es\n\t"					\
	"movl	%[fsel], %%eax\n\t"					\
	"movl	%%eax, %%fs\n\t"

#define I386_LEAVE							\
	"popl	%%fs\n\t"						\
	"popl	%%es\n\t"						\
	"popl	%%ds\n\t"

#define I386_IN								\
	[x] "S" (xtab), [y] "D" (ytab), [avx] "m" (avx),		\
	[dsel] "n" (MAGIC_LDT_SEL(MAGIC_LDT_DS)),			\
	[esel] "n" (MAGIC_LDT_SEL(MAGIC_LDT_ES)),			\
	[fsel] "n" (MAGIC_LDT_SEL(MAGIC_LDT_FS))
#define I386_CLOBBER							\
	"eax", "ecx", "edx", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4",	\
	"xmm5", "xmm6", "xmm7", "cc", "memory"

static void __attribute__((noinline, noclone)) spin(unsigned int n, int avx)
{
	asm volatile(
		I386_ENTER("movl	%[n], %%ecx\n\t")
		".globl	xmagic_loop_start\n"
		"xmagic_loop_start:\n\t"
		"decl	%%ecx\n\t"
		"jnz	xmagic_loop_start\n"
		".globl	xmagic_loop_end\n"
		"xmagic_loop_end:\n\t"
		I386_LEAVE
		: : [n] "m" (n), I386_IN : I386_CLOBBER);
}

static void __attribute__((noinline, noclone)) sys(unsigned int n, int avx, int nr)
{
	asm volatile(
		I386_ENTER("movl	%[n], %%ecx\n\t"
			   "movl	%[nr], %%edx\n\t")
		".globl	xmagic_sys_start\n"
		"xmagic_sys_start:\n\t"
		"movl	%%edx, %%eax\n\t"
		"int	$0x80\n\t"
		"decl	%%ecx\n\t"
		"jnz	xmagic_sys_start\n"
		".globl	xmagic_sys_end\n"
		"xmagic_sys_end:\n\t"
		I386_LEAVE
		: : [n] "m" (n), [nr] "m" (nr), I386_IN : I386_CLOBBER);
}
#define NR_GETPPID	64
#define NR_SCHED_YIELD	158

static unsigned int gs_sel, gs_base;

static void expected(char *buf, size_t len)
{
	snprintf(buf, len, "ds=0x%x es=0x%x fs=0x%x gs=0x%x fs_base=0x%x gs_base=0x%x",
		 MAGIC_LDT_SEL(MAGIC_LDT_DS), MAGIC_LDT_SEL(MAGIC_LDT_ES),
		 MAGIC_LDT_SEL(MAGIC_LDT_FS), gs_sel, MAGIC32_FS_BASE, gs_base);
}

static int setup(void)
{
	/* glibc's TLS segment: its first word is its own base */
	asm volatile("movl %%gs, %0" : "=r" (gs_sel));
	asm volatile("movl %%gs:0, %0" : "=r" (gs_base));
	return set_ldt(MAGIC_LDT_FS, MAGIC32_FS_BASE);
}
#endif

/*
 * mode yield: a child on our CPU that yields too, so that every
 * sched_yield() switches to it and back (the kernel then saves our FPU
 * state and restores it on the way out).  It dies with us.
 *
 * A child that only spun starved us on 6.12 (EEVDF: each sched_yield()
 * pushes the yielder's deadline a slice further, and the spinner's
 * stays the earlier one): 38..74 samples in our loop in 3 s where 6.1
 * had 900..1100.  Both yielding, they alternate (2026-12-06, 64/i386
 * in 3 s: 6.1 428..508/569..687, 6.12 545..582/802..876, 6.1-rt
 * 394..499/622..688, 6.12-rt 459..709/758..813).
 */
static int yield_to_partner(double secs)
{
	pid_t parent = getpid(), pid;
	cpu_set_t one;

	CPU_ZERO(&one);
	CPU_SET(sched_getcpu(), &one);
	if (sched_setaffinity(0, sizeof(one), &one))
		return -1;
	pid = fork();
	if (pid == 0) {
		/*
		 * We may have been killed before the prctl() (the test
		 * reads our line first and may kill us at once): then the
		 * child is someone else's already and goes.  A backstop
		 * past our own run, in case the signal never comes.
		 */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
			_exit(0);
		if (isfinite(secs))
			alarm((unsigned int)secs + 10);
		while (1)
			sched_yield();
	}
	return pid < 0 ? -1 : 0;
}

#ifdef __x86_64__
/*
 * mode udp: write() 64 bytes at a time to a UDP socket connected to one
 * on loopback that nobody reads (full, it drops them).  The send path
 * runs with bottom halves off for much of its time (rcu_read_lock_bh()
 * in the IP output and dev_queue_xmit()).
 */
static int udp_setup(void)
{
	static char payload[64];
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t len = sizeof(a);
	int rx, tx, small = 4096;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	rx = socket(AF_INET, SOCK_DGRAM, 0);
	tx = socket(AF_INET, SOCK_DGRAM, 0);
	if (rx < 0 || tx < 0 ||
	    setsockopt(rx, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small)) ||
	    bind(rx, (struct sockaddr *)&a, sizeof(a)) ||
	    getsockname(rx, (struct sockaddr *)&a, &len) ||
	    connect(tx, (struct sockaddr *)&a, sizeof(a)))
		return -1;
	sysargs[0] = tx;
	sysargs[1] = (long)payload;
	sysargs[2] = sizeof(payload);
	return 0;
}

/*
 * mode kvm: a KVM vCPU whose guest (real mode) sets xmm0-7 to all ones,
 * then loops on an OUT; the loop calls ioctl(KVM_RUN), which comes back
 * to user mode at each OUT.  Samples in the kernel then land in KVM_RUN
 * (the task's FPU state the guest's, with its own values in the
 * registers) and in the FPU swaps at its start and end.  Returns 3
 * where there is no /dev/kvm or it makes no VM, 1 (said why) when the
 * vCPU cannot run to its OUT, 0 when it did.
 */
static struct kvm_run *kvm_run;

/* Did the vCPU's last KVM_RUN end at the guest's OUT to port 0x10? */
static int kvm_at_out(const char *when)
{
	if (kvm_run->exit_reason == KVM_EXIT_IO && kvm_run->io.port == 0x10 &&
	    kvm_run->io.direction == KVM_EXIT_IO_OUT)
		return 0;
	fprintf(stderr, "xmagic: kvm: %s, the vCPU exited with reason %u, not at its OUT\n",
		when, kvm_run->exit_reason);
	return 1;
}

static int kvm_setup(void)
{
	static const unsigned char code[] = {
		0x66, 0x0f, 0x76, 0xc0, 0x66, 0x0f, 0x76, 0xc9,	/* pcmpeqd xmmN, xmmN */
		0x66, 0x0f, 0x76, 0xd2, 0x66, 0x0f, 0x76, 0xdb,
		0x66, 0x0f, 0x76, 0xe4, 0x66, 0x0f, 0x76, 0xed,
		0x66, 0x0f, 0x76, 0xf6, 0x66, 0x0f, 0x76, 0xff,
		0xe6, 0x10,					/* out %al, $0x10 */
		0xeb, 0xfc,					/* jmp to the out */
	};
	struct kvm_userspace_memory_region mr = { .memory_size = 0x10000 };
	struct kvm_regs regs = { .rip = 0x1000, .rflags = 2 };
	struct kvm_sregs sregs;
	int kvm, vm, vcpu, run_size;
	void *mem;

	kvm = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	if (kvm < 0) {
		perror("xmagic: kvm: /dev/kvm");
		return 3;
	}
	vm = ioctl(kvm, KVM_CREATE_VM, 0);
	if (vm < 0) {
		perror("xmagic: kvm: KVM_CREATE_VM");
		return 3;
	}
	mem = mmap(NULL, mr.memory_size, PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		goto fail;
	memcpy((char *)mem + 0x1000, code, sizeof(code));
	mr.userspace_addr = (uintptr_t)mem;
	if (ioctl(vm, KVM_SET_USER_MEMORY_REGION, &mr))
		goto fail;
	vcpu = ioctl(vm, KVM_CREATE_VCPU, 0);
	run_size = ioctl(kvm, KVM_GET_VCPU_MMAP_SIZE, 0);
	if (vcpu < 0 || run_size < (int)sizeof(*kvm_run) ||
	    ioctl(vcpu, KVM_GET_SREGS, &sregs))
		goto fail;
	kvm_run = mmap(NULL, run_size, PROT_READ | PROT_WRITE, MAP_SHARED, vcpu, 0);
	if (kvm_run == MAP_FAILED)
		goto fail;
	sregs.cs.base = 0;
	sregs.cs.selector = 0;
	sregs.cr0 = (sregs.cr0 & ~(1ULL << 2)) | (1ULL << 1);	/* no EM, MP */
	sregs.cr4 |= 1ULL << 9;					/* OSFXSR */
	if (ioctl(vcpu, KVM_SET_SREGS, &sregs) || ioctl(vcpu, KVM_SET_REGS, &regs) ||
	    ioctl(vcpu, KVM_RUN, 0))	/* the vCPU runs, to its first OUT */
		goto fail;
	if (kvm_at_out("at the first KVM_RUN"))
		return 1;
	sysargs[0] = vcpu;
	sysargs[1] = KVM_RUN;
	sysargs[2] = 0;
	return 0;

fail:
	perror("xmagic: kvm: setting up the vCPU");
	return 1;
}
#endif

/* SIGTERM: the loop ends after its chunk (SECONDS inf) */
static volatile sig_atomic_t stop;

/*
 * It runs with our magic FS base and LDT selectors loaded: it touches
 * nothing but stop (no TLS, no stack protector).
 */
static void __attribute__((no_stack_protector))
on_term(int sig)
{
	stop = 1;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void usage(const char *argv0)
{
	fprintf(stderr, "usage: %s spin|syscall|yield%s SECONDS\n"
		"Loop SECONDS seconds with magic values in the vector registers,\n"
		"selectors and bases (abi %s).\n", argv0, UDP_MODE, ABI_NAME);
	exit(2);
}

int main(int argc, char **argv)
{
	int avx = have_avx(), sysmode, n, nr = 0;
	double secs, start;
	char *end, regs[256];

	if (argc != 3)
		usage(argv[0]);
	if (!strcmp(argv[1], "syscall"))
		nr = NR_GETPPID;
	else if (!strcmp(argv[1], "yield"))
		nr = NR_SCHED_YIELD;
#ifdef __x86_64__
	else if (!strcmp(argv[1], "udp"))
		nr = NR_WRITE;
	else if (!strcmp(argv[1], "kvm"))
		nr = NR_IOCTL;
#endif
	else if (strcmp(argv[1], "spin"))
		usage(argv[0]);
	sysmode = strcmp(argv[1], "spin") != 0;
	errno = 0;
	secs = strtod(argv[2], &end);
	if (errno || end == argv[2] || *end || isnan(secs) || secs < 0)
		usage(argv[0]);
	if (getenv("PERFREGS_WORK_SCALE") && atof(getenv("PERFREGS_WORK_SCALE")) > 0)
		secs *= atof(getenv("PERFREGS_WORK_SCALE"));
	for (n = 0; n < NVEC; n++) {
		xtab[n][0] = ytab[n][0] = MAGIC_XMM_LO(n);
		xtab[n][1] = ytab[n][1] = MAGIC_XMM_HI(n);
		ytab[n][2] = MAGIC_YMM_LO(n);
		ytab[n][3] = MAGIC_YMM_HI(n);
	}
	if (set_ldt(MAGIC_LDT_ES, 0) || set_ldt(MAGIC_LDT_DS, 0) || setup()) {
		perror("xmagic: modify_ldt");
		return 1;
	}
#ifdef __x86_64__
	/* before the line: a reader who gets it knows the loop will run */
	if (nr == NR_WRITE && udp_setup()) {
		perror("xmagic: udp socket");
		return 1;
	}
	if (nr == NR_IOCTL) {
		int ret = kvm_setup();

		if (ret)
			return ret;
	}
#endif
	expected(regs, sizeof(regs));
	printf("magic abi=" ABI_NAME " pid=%d loop=0x%lx-0x%lx mode=%s avx=%d %s\n",
	       (int)getpid(),
	       (unsigned long)(uintptr_t)(sysmode ? xmagic_sys_start : xmagic_loop_start),
	       (unsigned long)(uintptr_t)(sysmode ? xmagic_sys_end : xmagic_loop_end),
	       argv[1], avx, regs);
	if (fflush(stdout) == EOF) {
		perror("xmagic: stdout");
		return 1;
	}
	if (sysmode && nr == NR_SCHED_YIELD && yield_to_partner(secs))
		return 1;
	if (isinf(secs)) {
		struct sigaction sa = { .sa_handler = on_term };

		if (sigaction(SIGTERM, &sa, NULL))
			return 1;
	}

	start = now();
	do {
		if (sysmode)
			sys(CHUNK_SYSCALL, avx, nr);
		else
			spin(CHUNK_SPIN, avx);
	} while (!stop && now() - start < secs);
#ifdef __x86_64__
	/*
	 * and the guest still ran its loop at the end (after a SIGTERM the
	 * KVM_RUN it interrupted ended KVM_EXIT_INTR: one more run)
	 */
	if (nr == NR_IOCTL && stop && ioctl((int)sysargs[0], KVM_RUN, 0)) {
		perror("xmagic: kvm: KVM_RUN after the loop");
		return 1;
	}
	if (nr == NR_IOCTL && kvm_at_out("after the loop"))
		return 1;
#endif
	return 0;
}
