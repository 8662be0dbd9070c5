/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * perfregs: sample interrupt and user registers on x86-64.
 *
 * The whole user ABI of /dev/perfregs lives in this file: ioctls, the
 * session configuration, the per-CPU control page and the records that
 * appear in the per-CPU data pages.
 *
 * Rules every structure here follows:
 *  - fixed-size __u32/__u64 fields only, naturally aligned, no implicit
 *    padding (every structure size is a multiple of 8);
 *  - a size field first, so that the structure can grow at the end, as
 *    perf_event_attr does: the ioctl number does not carry the size, the
 *    kernel reads it from the structure.  An input structure smaller
 *    than SIZE_VER0 gives -EINVAL; a larger one than the kernel knows is
 *    accepted when its extra bytes are zero, else -E2BIG (and the kernel
 *    stores the size it knows in the caller's size field), the
 *    convention of copy_struct_from_user();
 *  - reserved fields and unknown flag bits must be zero (-EINVAL).
 *
 * Who may sample what is decided in one place, docs/security.md: in
 * short, a session may sample exactly what perf_event_open(2) lets its
 * caller sample, and CONFIG takes the perf event that proves it.
 */
#ifndef _UAPI_LINUX_PERFREGS_H
#define _UAPI_LINUX_PERFREGS_H

#include <linux/types.h>
#include <linux/ioctl.h>

#define PERFREGS_ABI_MAJOR	2	/* incompatible changes */
#define PERFREGS_ABI_MINOR	3	/* compatible additions */
/*
 * Minor 1: the user frame's segment selectors where they are known,
 * its FS and GS base (PERFREGS_REG_FS_BASE, _GS_BASE), and SIMD state
 * (perfregs_config.simd_mask, PERFREGS_SF_SIMD); the version reports
 * the SIMD components this CPU offers.
 * Minor 2: kernel call chains (perfregs_config.kchain_max,
 * PERFREGS_SF_KCHAIN); and a rule for readers: a sample whose flags
 * hold a bit the reader does not know may be longer than the sections
 * it knows, and what follows them is to be skipped (later sections are
 * added after the stack).
 * Minor 3: user call chains walked through frame pointers
 * (perfregs_config.uchain_max, PERFREGS_SF_UCHAIN), the first section
 * after the stack.
 */

#define PERFREGS_DEVICE		"/dev/perfregs"

/*
 * Register identifiers.  The numbering is the one of perf's
 * PERF_REG_X86_* (arch/x86/include/uapi/asm/perf_regs.h), so that masks
 * can be handed to and from perf unchanged.  A mask bit n selects
 * register n.  For a 32-bit (i386 or mixed-mode) user frame the low
 * halves of AX..IP are eax..eip and R8..R15 do not exist.
 */
enum perfregs_reg {
	PERFREGS_REG_AX,
	PERFREGS_REG_BX,
	PERFREGS_REG_CX,
	PERFREGS_REG_DX,
	PERFREGS_REG_SI,
	PERFREGS_REG_DI,
	PERFREGS_REG_BP,
	PERFREGS_REG_SP,
	PERFREGS_REG_IP,
	PERFREGS_REG_FLAGS,
	PERFREGS_REG_CS,
	PERFREGS_REG_SS,
	PERFREGS_REG_DS,
	PERFREGS_REG_ES,
	PERFREGS_REG_FS,
	PERFREGS_REG_GS,
	PERFREGS_REG_R8,
	PERFREGS_REG_R9,
	PERFREGS_REG_R10,
	PERFREGS_REG_R11,
	PERFREGS_REG_R12,
	PERFREGS_REG_R13,
	PERFREGS_REG_R14,
	PERFREGS_REG_R15,
	PERFREGS_REG_MAX,		/* perf's registers end here */
	/*
	 * perfregs' own, past perf's numbering (minor 1), user frames
	 * only: the task's FS and GS base (its TLS pointers).
	 */
	PERFREGS_REG_FS_BASE = PERFREGS_REG_MAX,
	PERFREGS_REG_GS_BASE,
	PERFREGS_REG_EXT_MAX,
};

/* Every register of perf's numbering an i386 user frame has (no r8-r15). */
#define PERFREGS_MASK_32	((1ULL << PERFREGS_REG_R8) - 1)
/* Every register of perf's numbering an x86-64 (or x32) frame has. */
#define PERFREGS_MASK_64	((1ULL << PERFREGS_REG_MAX) - 1)
/* The FS and GS base, which uregs_mask_32 and uregs_mask_64 may add. */
#define PERFREGS_MASK_BASES	((1ULL << PERFREGS_REG_FS_BASE) | \
				 (1ULL << PERFREGS_REG_GS_BASE))

/* --- ioctls ------------------------------------------------------------ */

/**
 * struct perfregs_version - PERFREGS_IOC_VERSION: the ABI the module speaks
 * @size: in, the bytes the caller has room for (at least
 *	PERFREGS_VERSION_SIZE_VER0, at most a page); out, the module's size
 * @major: PERFREGS_ABI_MAJOR
 * @minor: PERFREGS_ABI_MINOR
 * @page_size: the mmap granule
 * @nr_cpu_ids: CPU numbers are below this
 * @reserved: out: zero
 * @simd_offered: (minor 1) the PERFREGS_SIMD_* this CPU and kernel offer
 *
 * Out: the module's structure, cut to the caller's size; size becomes
 * the module's own size, and bytes the caller has beyond it are zeroed.
 */
struct perfregs_version {
	__u32 size;
	__u32 major;
	__u32 minor;
	__u32 page_size;
	__u32 nr_cpu_ids;
	__u32 reserved;
	/* minor 1 */
	__u64 simd_offered;
};
#define PERFREGS_VERSION_SIZE_VER0	24
#define PERFREGS_VERSION_SIZE_VER1	32

/* Events (perfregs_config.event). */
enum perfregs_event {
	PERFREGS_EV_CPU_CLOCK,		/* software, hrtimer, hardirq */
	PERFREGS_EV_TASK_CLOCK,
	PERFREGS_EV_PAGE_FAULTS,
	PERFREGS_EV_CONTEXT_SWITCHES,
	PERFREGS_EV_CYCLES,		/* hardware PMU, NMI */
	PERFREGS_EV_INSTRUCTIONS,
	PERFREGS_EV_BREAKPOINT,		/* hw breakpoint on bp_addr */
	PERFREGS_EV_NMI,		/* the raw NMI hook */
	PERFREGS_EV_MAX,
};

/* perfregs_config.flags */
#define PERFREGS_CF_FREQ		(1U << 0) /* period is a frequency in Hz */
#define PERFREGS_CF_EXCLUDE_USER	(1U << 1) /* no samples in user mode */
#define PERFREGS_CF_EXCLUDE_KERNEL	(1U << 2) /* no samples in kernel mode */
#define PERFREGS_CF_OVERWRITE		(1U << 3) /* keep the newest records */
#define PERFREGS_CF_NMI_UNKNOWN		(1U << 4) /* EV_NMI: claim unknown NMIs */
#define PERFREGS_CF_INHERIT		(1U << 5) /* pid >= 0: and what it forks */
#define PERFREGS_CF_ALL			((1U << 6) - 1)

/* perfregs_config.bp_type: what a hardware breakpoint fires on. */
#define PERFREGS_BP_R			1U	/* data read */
#define PERFREGS_BP_W			2U	/* data write */
#define PERFREGS_BP_X			4U	/* instruction fetch */

#define PERFREGS_MAX_DATA_PAGES		4096U	/* per CPU */
#define PERFREGS_MAX_STACK_BYTES	65528U	/* per sample */
#define PERFREGS_MAX_CPU_BYTES		1024U	/* CPU bitmap: 8192 CPUs */

/**
 * struct perfregs_config - PERFREGS_IOC_CONFIG: the session's configuration
 * @size: PERFREGS_CONFIG_SIZE_VER0 or more, see the top of this file
 * @flags: PERFREGS_CF_*
 * @event: enum perfregs_event
 * @data_pages: data pages per CPU, a power of two
 * @period: events per sample, or Hz with PERFREGS_CF_FREQ
 * @iregs_mask: interrupt registers to record
 * @uregs_mask_32: user registers of 32-bit frames
 * @uregs_mask_64: user registers of 64-bit frames
 * @pid: -1: every task; else this process
 * @wakeup_bytes: poll wakes when this much is ready; 0: a quarter
 * @cpus_ptr: pid == -1: CPU bitmap, 0 for all online
 * @cpus_bytes: size of that bitmap
 * @stack_bytes: user stack bytes per sample, 0 for none
 * @bp_addr: PERFREGS_EV_BREAKPOINT: the address
 * @bp_type: PERFREGS_EV_BREAKPOINT: PERFREGS_BP_*
 * @bp_len: PERFREGS_EV_BREAKPOINT: 1, 2, 4 or 8 (X: 8)
 * @perf_fd: the perf event that proves the caller may
 * @reserved0: must be zero
 * @reserved: must be zero
 * @simd_mask: (minor 1) PERFREGS_SIMD_* of the user frame to record
 * @kchain_max: (minor 2) kernel call chain entries, 0: none
 * @uchain_max: (minor 3; reserved1 before, zero) user call chain
 *	entries, 0: none
 *
 * PERFREGS_IOC_CONFIG configures the session (only while stopped and
 * unmapped).  Every field is checked; nonzero reserved fields, unknown
 * flags and values out of range give -EINVAL.
 *
 * Target: pid == -1 samples every task, on every online CPU or on the
 * CPUs of the bitmap at cpus_ptr (cpus_bytes bytes, a multiple of 8;
 * bit n of 64-bit word n / 64 is CPU n).  pid >= 0 (in the caller's pid
 * namespace) samples that process: every thread it has when sampling
 * starts and every thread it creates after, on any CPU (cpus_ptr must
 * be 0).  (A thread whose creation is under way at the very moment its
 * creator gets its counter, and that joins the process only after
 * START looked for the last time, is missed: perf record -p has that
 * window for every thread created until its last open.)  With
 * PERFREGS_CF_INHERIT, also every process it (or one of those) forks
 * after START, as perf's inherit; the raw NMI source
 * cannot follow forks and refuses the flag.
 *
 * Registers outside PERFREGS_MASK_64 (iregs, uregs_64) or
 * PERFREGS_MASK_32 (uregs_32) are rejected.  The kernel picks
 * uregs_mask_32 or uregs_mask_64 per sample, from the ABI of the user
 * frame, so one session sampling 32- and 64-bit tasks needs no help.
 *
 * stack_bytes > 0 (a multiple of 8) copies up to that much user stack
 * from the user SP into every sample that has user registers: less when
 * the main thread's stack ends sooner (below the 16 random bytes that
 * AT_RANDOM points to, in whole 8-byte words: above them are only the
 * platform string, a random gap and the argument and environment
 * strings, no frame; argc, the argv and envp pointers and the auxiliary
 * vector below are kept), below the thread pointer when it lies above
 * the user SP within the copy (the FS base of a 64-bit or x32 frame,
 * known when the interrupt hit user mode or the task in the kernel with
 * interrupts on; an i386 frame's GS base, known in user mode: glibc and
 * musl keep a thread's descriptor and TLS there, at the top of its
 * stack mapping, above every frame), or when the copy meets a page it
 * cannot read (the top of a stack mapping).  The record then carries only the bytes
 * copied, rounded up to 8, unless another record was written after it
 * meanwhile (an NMI nesting in the sample): then stack_size keeps the
 * length reserved and the rest is zero.  The largest sample must fit in
 * half the data pages, else CONFIG is EINVAL: sizeof(struct
 * perfregs_rec_sample) + 16 * PERFREGS_REG_MAX + 16 bytes (16 more if
 * a user mask has PERFREGS_MASK_BASES), the SIMD section if simd_mask
 * is set (see struct perfregs_rec_simd, for a 64-bit frame) and
 * stack_bytes.
 *
 * uregs_mask_32 and uregs_mask_64 may add PERFREGS_MASK_BASES (minor 1).
 * A register of a user frame is recorded only where its value is known
 * to be the user's at the interrupt (the sample's uregs_mask says which
 * are; see PERFREGS_REC_SAMPLE): ds, es, fs and gs are never in the
 * x86-64 pt_regs, but the kernel does not reload them on entry, so
 * they are read from the CPU; the bases from their MSRs.
 *
 * simd_mask (minor 1, a PERFREGS_SIMD_* mask) records the SIMD state of
 * the user frame in every sample that has user registers, where that
 * state is known (see PERFREGS_SF_SIMD).
 *
 * perf_fd: a perf event the caller opened with perf_event_open(2)
 * for the same event (type, config, period or frequency, exclude_user,
 * exclude_kernel; for EV_NMI a cpu-clock event) on the same target (a
 * task of process pid, or any CPU for pid == -1), sampling
 * PERF_SAMPLE_REGS_USER, PERF_SAMPLE_STACK_USER of at least stack_bytes
 * if stack_bytes is set, and PERF_SAMPLE_REGS_INTR unless the session
 * excludes the kernel.  It is the proof that
 * perf's rules (kernel.perf_event_paranoid, CAP_PERFMON, the LSM hooks,
 * the ptrace check, perf_event_max_sample_rate) let this caller sample
 * this: -EBADF when perf_fd is no perf event, -EACCES when it does not
 * cover the session.  The module looks at it during CONFIG only.  The rest of the rules (NMI
 * source, lockdown, memory) are in docs/security.md.
 */
struct perfregs_config {
	__u32 size;
	__u32 flags;
	__u32 event;
	__u32 data_pages;
	__u64 period;
	__u64 iregs_mask;
	__u64 uregs_mask_32;
	__u64 uregs_mask_64;
	__s32 pid;
	__u32 wakeup_bytes;
	__u64 cpus_ptr;
	__u32 cpus_bytes;
	__u32 stack_bytes;
	__u64 bp_addr;
	__u32 bp_type;
	__u32 bp_len;
	__s32 perf_fd;
	__u32 reserved0;
	__u64 reserved[3];
	/* minor 1 */
	__u64 simd_mask;
	/* minor 2 */
	__u32 kchain_max;
	__u32 uchain_max;	/* minor 3 */
};
#define PERFREGS_CONFIG_SIZE_VER0	120
#define PERFREGS_CONFIG_SIZE_VER1	128
#define PERFREGS_CONFIG_SIZE_VER2	136

/*
 * perfregs_config.kchain_max: the kernel call chain of every sample
 * whose interrupt hit the kernel (PERFREGS_SF_KERNEL), walked at sample
 * time with the kernel's own unwinder, at most this many entries (the
 * interrupted IP included; perf's PERF_MAX_STACK_DEPTH); 0: none.  Not
 * with PERFREGS_CF_EXCLUDE_KERNEL (-EINVAL).
 */
#define PERFREGS_MAX_KCHAIN	127U

/*
 * perfregs_config.uchain_max (minor 3; a module of minor 2 calls the
 * field reserved1 and gives -EINVAL when it is not 0): the user call
 * chain of every sample with user registers, at most this many entries
 * (the user IP included), walked at sample time through the frame
 * pointers of the user stack by the ABI of the sample's user frame:
 * { next frame pointer, return address } in 8-byte slots for a 64-bit
 * code segment (x32 included), in 4-byte slots for a 32-bit one (an
 * i386 task, or a 64-bit task's 32-bit code), as perf's
 * perf_callchain_user() and perf_callchain_user32() walk it.  0: none.
 * The witness (perf_fd) must sample PERF_SAMPLE_CALLCHAIN, not exclude
 * the user part, with sample_max_stack at least uchain_max.  With
 * stack_bytes, a reader can unwind the leaf's frame from the copied
 * stack (its CFI) before it follows the chain: a function that keeps no
 * frame pointer, or a sample in a prologue, then keeps its caller.
 */
#define PERFREGS_MAX_UCHAIN	127U

/*
 * perfregs_config.simd_mask and perfregs_version.simd_offered: SIMD
 * state of the user frame, per sample (PERFREGS_SF_SIMD).  Asking for a
 * component the CPU or kernel does not offer gives -EOPNOTSUPP; XSAVE
 * (and so every component) needs CPUID's XSAVE and the kernel's XCR0.
 */
#define PERFREGS_SIMD_XMM	(1ULL << 0) /* xmm0-15 (0-7 of a 32-bit frame), mxcsr */
#define PERFREGS_SIMD_YMM	(1ULL << 1) /* the upper 128 bits of ymm0-15 (AVX) */
/* the upper 256 bits of zmm0-15 and zmm16-31 whole (AVX-512, 64-bit) */
#define PERFREGS_SIMD_ZMM	(1ULL << 2)
#define PERFREGS_SIMD_OPMASK	(1ULL << 3) /* k0-k7 (AVX-512) */
#define PERFREGS_SIMD_ALL	((1ULL << 4) - 1)

/*
 * The numbers of the two ioctls that take a structure carry only the
 * size of its leading size field: the structures grow without new
 * numbers.  The module matches type, number and direction and ignores
 * the size bits, so numbers built with a structure's whole size (ABI 1)
 * reach the same ioctl.
 */
#define PERFREGS_IOC_MAGIC	0xb8
#define PERFREGS_IOC_VERSION	_IOWR(PERFREGS_IOC_MAGIC, 0, __u32)
#define PERFREGS_IOC_CONFIG	_IOW(PERFREGS_IOC_MAGIC, 1, __u32)
#define PERFREGS_IOC_START	_IO(PERFREGS_IOC_MAGIC, 2)
#define PERFREGS_IOC_STOP	_IO(PERFREGS_IOC_MAGIC, 3)
/* Empty every ring and zero its counters; only while stopped. */
#define PERFREGS_IOC_RESET	_IO(PERFREGS_IOC_MAGIC, 4)

/* --- mmap -------------------------------------------------------------- */

/*
 * After PERFREGS_IOC_CONFIG, each CPU c the session samples (each
 * possible CPU, or those of the CPU list) has a ring with two mappings,
 * each at its own offset (in pages); mapping another CPU's gives -EINVAL:
 *
 *   control page:  PERFREGS_MMAP_CTL(c, data_pages),  1 page, read-write
 *   data pages:    PERFREGS_MMAP_DATA(c, data_pages), data_pages pages,
 *                  read-only (PROT_WRITE is refused)
 *
 * Records are appended at data_head and consumed at data_tail; both
 * count bytes from the start and are taken modulo data_size.  The
 * protocol (see docs/record-format.md; the letters are the barriers of
 * module/ring.c):
 *
 *   head = READ_ONCE(ctl->data_head);
 *   smp_rmb();              C: pairs with the kernel's smp_wmb() (B)
 *                           before it stores data_head
 *   ... read records in [tail, head) ...
 *   smp_mb();               D: orders the reads before the tail store;
 *                           pairs with the kernel's control dependency
 *                           (A): it writes a record only after it loaded
 *                           a data_tail that leaves room for it
 *   WRITE_ONCE(ctl->data_tail, head);
 *
 * The control page is writable, and the kernel treats everything in it
 * as hostile: it reads only data_tail (to know the room, outside
 * overwrite mode) and new_tasks_seen (to decide on EPOLLPRI), each once
 * per use, and keeps its own copy of everything else it writes there.
 * In overwrite mode the kernel owns the tail: it stores the oldest whole
 * record in data_tail and ignores what userspace stores there while the
 * session runs; at START it resumes from a data_tail userspace stored
 * while stopped if that is a record boundary between the oldest record
 * and data_head, else from the oldest record.  STOP stores the kernel's
 * data_head (and, in overwrite mode, data_tail) again.
 */
#define PERFREGS_MMAP_CTL(cpu, pages)	((__u64)(cpu) * ((pages) + 1))
#define PERFREGS_MMAP_DATA(cpu, pages)	((__u64)(cpu) * ((pages) + 1) + 1)

/*
 * Lost-record causes: indices of perfregs_ctl.lost[] and of
 * perfregs_rec_lost.lost[], both PERFREGS_LOST_SLOTS long whatever
 * PERFREGS_LOST_MAX is, so that a new cause changes no size.
 */
enum perfregs_lost_cause {
	PERFREGS_LOST_FULL,	/* the buffer had no room */
	PERFREGS_LOST_NESTED,	/* a nested writer found no room */
	PERFREGS_LOST_THROTTLED,/* times the kernel throttled the event */
	PERFREGS_LOST_ENTRY,	/* the task's entry frame was not trustworthy */
	PERFREGS_LOST_MAX,
};
#define PERFREGS_LOST_SLOTS	8

/**
 * struct perfregs_ctl - a ring's control page (PERFREGS_MMAP_CTL())
 * @version: PERFREGS_ABI_MAJOR
 * @cpu: the CPU whose ring this is
 * @data_size: bytes, data_pages * page size
 * @data_head: written by the kernel
 * @data_tail: written by userspace (but see overwrite mode above)
 * @produced: samples the module took on this CPU
 * @lost: by enum perfregs_lost_cause, running totals
 * @new_tasks: written by the kernel, see below
 * @new_tasks_seen: written by userspace, see below
 * @reserved: zero
 *
 * The counters produced, lost[] and new_tasks are published together
 * with data_head, by the outermost writer of the CPU, so that they
 * never go backwards and, once the session is stopped, every sample
 * produced is either in the ring (or was read) or counted in
 * lost[FULL] or lost[NESTED] (THROTTLED and ENTRY count samples
 * that were written all the same).
 *
 * new_tasks counts the samples, published to
 * data_head, whose process or image differs from the previous user
 * sample's on this CPU.  Userspace stores in new_tasks_seen the
 * count it has looked at; poll() reports EPOLLPRI while the two
 * differ on any ring, so a reader that learns about new tasks
 * (their /proc/PID/maps, before they exit) sleeps until one comes.
 *
 *   seen = READ_ONCE(ctl->new_tasks);   smp_rmb();  H: pairs with
 *                                       the kernel's G (new_tasks
 *                                       is stored after data_head)
 *   ... look at the records in [tail, data_head) ...
 *   WRITE_ONCE(ctl->new_tasks_seen, seen);
 *   poll(fd, POLLPRI);
 */
struct perfregs_ctl {
	__u32 version;
	__u32 cpu;
	__u64 data_size;
	__u64 data_head;
	__u64 data_tail;
	__u64 produced;
	__u64 lost[PERFREGS_LOST_SLOTS];
	__u64 new_tasks;
	__u64 new_tasks_seen;
	__u64 reserved[64 - 15];
};

/* --- records ----------------------------------------------------------- */

/**
 * struct perfregs_rec_header - the header every record starts with
 * @type: enum perfregs_rec_type
 * @size: the record's bytes, the header's included; a multiple of 8
 */
struct perfregs_rec_header {
	__u32 type;
	__u32 size;
};

enum perfregs_rec_type {
	PERFREGS_REC_SAMPLE = 1,
	PERFREGS_REC_LOST = 2,
};

/* perfregs_rec_sample.flags: where the sample was taken ... */
#define PERFREGS_SF_CTX_MASK		0x3U
#define PERFREGS_SF_CTX_NMI		0x1U
#define PERFREGS_SF_CTX_IRQ		0x2U
#define PERFREGS_SF_CTX_EXCEPTION	0x3U	/* task context: a fault, a switch */
/* ... and where the user registers came from */
#define PERFREGS_SF_UREGS_MASK		0xcU
#define PERFREGS_SF_UREGS_NONE		0x0U	/* kernel thread, entry race */
#define PERFREGS_SF_UREGS_DIRECT	0x4U	/* the interrupt hit user mode */
#define PERFREGS_SF_UREGS_ENTRY		0x8U	/* task_pt_regs(current) */
#define PERFREGS_SF_ENTRY_RACE		0x10U	/* entry frame not trusted */
#define PERFREGS_SF_KERNEL		0x20U	/* the interrupt hit kernel mode */
#define PERFREGS_SF_STACK		0x40U	/* a user stack snapshot follows */
/*
 * The session excludes the kernel, yet the interrupt came after the
 * task had entered it (skid: a counter that counts user events only
 * overflows, and its interrupt lands in the kernel).  The sample is
 * reported at the user frame: the interrupt registers are the entry
 * frame's, and SF_KERNEL is clear.  No kernel register ever reaches a
 * session that excluded the kernel.
 */
#define PERFREGS_SF_SKID		0x80U
/* A SIMD section follows the registers: struct perfregs_rec_simd. */
#define PERFREGS_SF_SIMD		0x100U
/* A kernel call chain follows the SIMD section: perfregs_rec_kchain. */
#define PERFREGS_SF_KCHAIN		0x200U
/* A user call chain follows the stack: struct perfregs_rec_uchain. */
#define PERFREGS_SF_UCHAIN		0x400U

/* perfregs_rec_sample.abi: the ABI of the user frame, from its CS. */
enum perfregs_abi {
	PERFREGS_ABI_NONE = 0,
	PERFREGS_ABI_32 = 1,
	PERFREGS_ABI_64 = 2,
};

/**
 * struct perfregs_rec_sample - PERFREGS_REC_SAMPLE: one sample
 * @header: type PERFREGS_REC_SAMPLE
 * @time: CLOCK_MONOTONIC ns (NMI-safe fast clock)
 * @cpu: the CPU it was taken on
 * @pid: the tgid, 0 for the idle task, in the pid namespace of CONFIG's
 *	caller; 0 if not seen there
 * @tid: the thread's id, as @pid
 * @flags: PERFREGS_SF_*
 * @abi: enum perfregs_abi of the user frame
 * @reserved: zero
 * @iregs_mask: the interrupt registers present below
 * @uregs_mask: the user registers present below
 * @comm: the task's name, NUL-padded
 * @image_ino: the task's executable: inode number ...
 * @image_dev: ... and device (st_dev encoding), 0 if none
 * @reserved2: zero
 * @regs: the interrupt registers, then the user registers, each in
 *	ascending register number; then the SIMD section and the stack
 *
 * The whole record::
 *
 * struct {
 *	struct perfregs_rec_header header;
 *	__u64 time;		CLOCK_MONOTONIC ns (NMI-safe fast clock)
 *	__u32 cpu;
 *	__u32 pid;		tgid, 0 for the idle task  } in the pid namespace
 *	__u32 tid;		  } of CONFIG's caller; 0 if not seen there
 *	__u32 flags;		PERFREGS_SF_*
 *	__u32 abi;		enum perfregs_abi
 *	__u32 reserved;		zero
 *	__u64 iregs_mask;	interrupt registers present below
 *	__u64 uregs_mask;	user registers present below
 *	char  comm[16];
 *	__u64 image_ino;	the task's executable: inode number ...
 *	__u32 image_dev;	... and device (st_dev encoding), 0 if none
 *	__u32 reserved2;	zero
 *	__u64 iregs[hweight64(iregs_mask)];	ascending register number
 *	__u64 uregs[hweight64(uregs_mask)];
 *	struct perfregs_rec_simd simd;		if PERFREGS_SF_SIMD
 *	struct perfregs_rec_kchain kchain;	if PERFREGS_SF_KCHAIN
 *	{ __u64 stack_size;			if PERFREGS_SF_STACK; at
 *						most stack_bytes, see there
 *	  char  stack[stack_size];		from the user SP up
 *	  __u64 stack_copied; }			bytes really copied; the rest
 *						of stack[] is zero
 *	struct perfregs_rec_uchain uchain;	if PERFREGS_SF_UCHAIN
 * };
 *
 * The image fields name the file the task runs (mm->exe_file), so that
 * a reader can find its ELF header (x32 or x86-64? 32- or 64-bit?)
 * even after an exec, and tell images apart after the task is gone.
 *
 * A register is present when it was asked for and its value is known:
 * r8-r15 do not exist in a 32-bit frame, no user register is present
 * when uregs are NONE, and a context-switch sample's interrupt
 * registers are only ip, sp and cs (the rest of the frame perf hands
 * over is not filled in; its flags are a constant 0).  The segment
 * selectors ds, es, fs, gs (never in an x86-64 pt_regs) and the FS and
 * GS base are user registers only (minor 1):
 *  - when the interrupt hit user mode, all six are present: nothing
 *    between the user's instruction and the sample reloads a selector
 *    or writes the FS base, and the entry's swapgs left the user's GS
 *    base in MSR_KERNEL_GS_BASE;
 *  - when it hit the task in the kernel (uregs from the entry frame),
 *    the selectors and the FS base are present only if the interrupted
 *    code ran with interrupts enabled and the task had no KVM vCPU
 *    loaded (in a vCPU ioctl): the kernel loads another task's
 *    selectors and bases only in a context switch, with interrupts off
 *    (only an NMI can land there), and KVM on Intel loads the host
 *    selectors at each VM exit (ds and es 0; fs and gs the user's
 *    when their RPL and TI bits are 0, else 0, as a user selector's
 *    RPL is 3), giving the user's back only when the vCPU is put.
 *    They are the values the task will return to user mode with, as
 *    of the sample (as for the frame: a sigreturn or exec in progress
 *    may still change them).  The GS base is not present: the kernel's
 *    entry code and KVM both swap other values through
 *    MSR_KERNEL_GS_BASE while a task is in the kernel;
 *  - never in a sample without user registers.
 *
 * image_ino and image_dev are 0 when the image is unknown, also when
 * the task's exe_file is being replaced at the moment of the sample.
 */
struct perfregs_rec_sample {
	struct perfregs_rec_header header;
	__u64 time;
	__u32 cpu;
	__u32 pid;
	__u32 tid;
	__u32 flags;
	__u32 abi;
	__u32 reserved;
	__u64 iregs_mask;
	__u64 uregs_mask;
	char comm[16];
	__u64 image_ino;
	__u32 image_dev;
	__u32 reserved2;
	__u64 regs[];
};

/*
 * PERFREGS_SF_SIMD (struct perfregs_rec_simd): the SIMD state of the
 * user frame, for a session
 * with a simd_mask, in every sample with user registers.  data[] holds
 * the components of "components" (a PERFREGS_SIMD_* mask: those asked
 * for, or none where the state is not known), each vector register
 * little-endian, in this order:
 *
 *	XMM     nr_vec * 16 bytes	xmm0.. (16 for a 64-bit frame, 8 for
 *					a 32-bit one)
 *	YMM     nr_vec * 16 bytes	the upper halves of ymm0..
 *	ZMM     nr_vec * 32 bytes	the upper halves of zmm0.., then for
 *	        + 16 * 64 bytes		a 64-bit frame zmm16-31 whole
 *	OPMASK  8 * 8 bytes		k0-k7
 *
 * The state is the user's, and present, when the interrupt hit user
 * mode, or hit the task in the kernel with interrupts enabled before
 * the kernel saved the user's registers to use them itself or to
 * switch tasks (TIF_NEED_FPU_LOAD clear), not while KVM has a guest's
 * state loaded, and not inside a section with bottom halves off
 * (preemption off on PREEMPT_RT), where the kernel swaps FPU states:
 * the registers then still hold the user's state, and the module
 * copies them with XSAVE (as for the frame: a sigreturn or exec in
 * progress may be changing it).  Otherwise components is 0 and
 * unknown says why (PERFREGS_SIMD_UNKNOWN_*): the kernel never hands
 * out a register value of its own.  A component in its initial state is
 * all zeros.
 */
enum perfregs_simd_unknown {
	PERFREGS_SIMD_KNOWN = 0,
	PERFREGS_SIMD_UNKNOWN_SAVED,	/* the kernel saved it to use the FPU */
	PERFREGS_SIMD_UNKNOWN_IRQS_OFF,	/* maybe inside a context switch */
	PERFREGS_SIMD_UNKNOWN_GUEST,	/* a KVM guest's state is loaded */
	PERFREGS_SIMD_UNKNOWN_NESTED,	/* samples nested too deep on the CPU */
	/* bottom halves (on RT, preemption) off: it may be being changed */
	PERFREGS_SIMD_UNKNOWN_FPREGS_LOCKED,
};

/**
 * struct perfregs_rec_simd - the SIMD section of a sample
 * @size: bytes, this header included; a multiple of 8
 * @components: the PERFREGS_SIMD_* in @data
 * @nr_vec: vector registers of the frame, 16 or 8
 * @mxcsr: with PERFREGS_SIMD_XMM, else 0
 * @unknown: enum perfregs_simd_unknown
 * @reserved: zero
 * @data: the components, in the order above
 */
struct perfregs_rec_simd {
	__u32 size;
	__u32 components;
	__u32 nr_vec;
	__u32 mxcsr;
	__u32 unknown;
	__u32 reserved;
	__u8 data[];
};

/**
 * struct perfregs_rec_kchain - the kernel call chain of a sample
 * @nr: entries in @ips, 0 to perfregs_config.kchain_max
 * @status: PERFREGS_KCHAIN_*
 * @ips: the interrupted IP (for a context switch, the return address
 *	into the scheduler the perf core's registers name), then the
 *	return address of each kernel frame, innermost first, as perf's
 *	PERF_CONTEXT_KERNEL part
 *
 * In every sample with PERFREGS_SF_KERNEL of a session with a
 * kchain_max.  The walk starts from the interrupt registers of a
 * hardware interrupt, or, for a source that hands over registers of its
 * own making (a context switch), from the caller of the perf core.  It
 * ends at the user frame, at the end of the kernel's stack, after
 * kchain_max entries (TRUNCATED), or where the unwinder cannot go on
 * (UNRELIABLE: the entries before are right, the chain is short).
 */
struct perfregs_rec_kchain {
	__u32 nr;
	__u32 status;
	__u64 ips[];
};
#define PERFREGS_KCHAIN_TRUNCATED	0x1U	/* kchain_max reached */
#define PERFREGS_KCHAIN_UNRELIABLE	0x2U	/* the unwinder stopped early */
#define PERFREGS_KCHAIN_NESTED		0x4U	/* samples nested too deep: none */

/**
 * struct perfregs_rec_uchain - the user call chain of a sample
 * @nr: entries in @ips, 0 to perfregs_config.uchain_max
 * @status: PERFREGS_UCHAIN_*: how the walk ended, if not at a zero
 *	frame pointer or return address
 * @ips: the user IP, then the return address of each frame the frame
 *	pointers lead to, innermost first, as perf's PERF_CONTEXT_USER
 *	part; zero-extended from 32 bits for a 32-bit frame
 *
 * In every sample with user registers of a session with a uchain_max
 * (for a kernel-mode sample, those of the entry frame).  The walk reads
 * the user stack with copy_from_user_nmi(), which never faults, and
 * ends after uchain_max entries (TRUNCATED), at a frame it cannot read
 * (FAULT: unmapped, or not in memory), or at a frame pointer that is
 * not a user address, not aligned to its slots, or not above the one
 * before (BAD_FRAME: the walk never loops).  The entries before are what
 * the stack held: as for perf, a function that keeps no frame pointer
 * leaves its caller's chain, or garbage, in the frame pointer.
 */
struct perfregs_rec_uchain {
	__u32 nr;
	__u32 status;
	__u64 ips[];
};
#define PERFREGS_UCHAIN_TRUNCATED	0x1U	/* uchain_max reached */
#define PERFREGS_UCHAIN_FAULT		0x2U	/* a frame could not be read */
#define PERFREGS_UCHAIN_BAD_FRAME	0x4U	/* a frame pointer out of order */
#define PERFREGS_UCHAIN_NESTED		0x8U	/* samples nested too deep: none */

/**
 * struct perfregs_rec_lost - PERFREGS_REC_LOST: what was dropped
 * @header: type PERFREGS_REC_LOST
 * @time: CLOCK_MONOTONIC ns
 * @lost: by enum perfregs_lost_cause, unused slots zero
 *
 * The records that were dropped since the last LOST record of this CPU,
 * written as soon as there is room again::
 *
 * struct {
 *	struct perfregs_rec_header header;
 *	__u64 time;
 *	__u64 lost[PERFREGS_LOST_SLOTS];	by cause, unused slots zero
 * };
 *
 * Readers take the number of slots from header.size ((size - 16) / 8):
 * recordings of ABI 1 carry four.
 */
struct perfregs_rec_lost {
	struct perfregs_rec_header header;
	__u64 time;
	__u64 lost[PERFREGS_LOST_SLOTS];
};

#endif /* _UAPI_LINUX_PERFREGS_H */
