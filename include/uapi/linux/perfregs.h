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
 *  - a size field first, so that the structure can grow at the end;
 *    the kernel accepts every PERFREGS_*_SIZE_VER* it knows and rejects
 *    any other size with -EINVAL;
 *  - reserved fields and unknown flag bits must be zero (-EINVAL).
 */
#ifndef _UAPI_LINUX_PERFREGS_H
#define _UAPI_LINUX_PERFREGS_H

#include <linux/types.h>
#include <linux/ioctl.h>

#define PERFREGS_ABI_MAJOR	1	/* incompatible changes */
#define PERFREGS_ABI_MINOR	1	/* compatible additions */

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
	PERFREGS_REG_MAX,
};

/* Every register an i386 user frame has (no r8-r15). */
#define PERFREGS_MASK_32	((1ULL << PERFREGS_REG_R8) - 1)
/* Every register an x86-64 (or x32) frame has. */
#define PERFREGS_MASK_64	((1ULL << PERFREGS_REG_MAX) - 1)

/* --- ioctls ------------------------------------------------------------ */

/*
 * PERFREGS_IOC_VERSION: the ABI version the module speaks.
 * In: size (PERFREGS_VERSION_SIZE_VER0 or larger).  Out: the rest.
 */
struct perfregs_version {
	__u32 size;
	__u32 major;		/* PERFREGS_ABI_MAJOR */
	__u32 minor;		/* PERFREGS_ABI_MINOR */
	__u32 page_size;	/* the mmap granule */
	__u32 nr_cpu_ids;	/* CPU numbers are below this */
	__u32 reserved;		/* out: zero */
};
#define PERFREGS_VERSION_SIZE_VER0	24

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
#define PERFREGS_CF_ALL			((1U << 5) - 1)

/* perfregs_config.bp_type: what a hardware breakpoint fires on. */
#define PERFREGS_BP_R			1U	/* data read */
#define PERFREGS_BP_W			2U	/* data write */
#define PERFREGS_BP_X			4U	/* instruction fetch */

#define PERFREGS_MAX_DATA_PAGES		4096U	/* per CPU */
#define PERFREGS_MAX_STACK_BYTES	65528U	/* per sample */
#define PERFREGS_MAX_CPU_BYTES		1024U	/* CPU bitmap: 8192 CPUs */

/*
 * PERFREGS_IOC_CONFIG: configure the session (only while stopped and
 * unmapped).  Every field is checked; nonzero reserved fields, unknown
 * flags and values out of range give -EINVAL.
 *
 * Target: pid == -1 samples every task, on every online CPU or on the
 * CPUs of the bitmap at cpus_ptr (cpus_bytes bytes, a multiple of 8;
 * bit n of 64-bit word n / 64 is CPU n).  pid >= 0 samples that process
 * and every thread it has or creates, on any CPU (cpus_ptr must be 0).
 *
 * Registers outside PERFREGS_MASK_64 (iregs, uregs_64) or
 * PERFREGS_MASK_32 (uregs_32) are rejected.  The kernel picks
 * uregs_mask_32 or uregs_mask_64 per sample, from the ABI of the user
 * frame, so one session sampling 32- and 64-bit tasks needs no help.
 *
 * stack_bytes > 0 (a multiple of 8) copies that much user stack from the
 * user SP into every sample that has user registers.
 *
 * Privilege: a caller without CAP_PERFMON or CAP_SYS_ADMIN may only
 * target a process it may ptrace, with EXCLUDE_KERNEL set, and only if
 * kernel.perf_event_paranoid is 2 or less; otherwise -EACCES.
 */
struct perfregs_config {
	__u32 size;		/* PERFREGS_CONFIG_SIZE_VER0 */
	__u32 flags;		/* PERFREGS_CF_* */
	__u32 event;		/* enum perfregs_event */
	__u32 data_pages;	/* per CPU, a power of two */
	__u64 period;		/* events per sample, or Hz with CF_FREQ */
	__u64 iregs_mask;	/* interrupt registers to record */
	__u64 uregs_mask_32;	/* user registers of 32-bit frames */
	__u64 uregs_mask_64;	/* user registers of 64-bit frames */
	__s32 pid;		/* -1: every task; else this process */
	__u32 wakeup_bytes;	/* poll wakes when this much is ready; 0: 1/4 */
	__u64 cpus_ptr;		/* pid == -1: CPU bitmap, 0 for all online */
	__u32 cpus_bytes;	/* size of that bitmap */
	__u32 stack_bytes;	/* user stack bytes per sample, 0 for none */
	__u64 bp_addr;		/* EV_BREAKPOINT: the address */
	__u32 bp_type;		/* EV_BREAKPOINT: PERFREGS_BP_* */
	__u32 bp_len;		/* EV_BREAKPOINT: 1, 2, 4 or 8 (X: 8) */
	__u64 reserved[4];	/* must be zero */
};
#define PERFREGS_CONFIG_SIZE_VER0	120

#define PERFREGS_IOC_MAGIC	0xb8
#define PERFREGS_IOC_VERSION	_IOWR(PERFREGS_IOC_MAGIC, 0, struct perfregs_version)
#define PERFREGS_IOC_CONFIG	_IOW(PERFREGS_IOC_MAGIC, 1, struct perfregs_config)
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
 * protocol (see docs/record-format.md):
 *
 *   head = READ_ONCE(ctl->data_head);
 *   smp_rmb();              pairs with the kernel's smp_wmb() before
 *                           it stores data_head
 *   ... read records in [tail, head) ...
 *   smp_mb();               orders the reads before the tail store;
 *                           pairs with the kernel's smp_mb() after it
 *                           loads data_tail
 *   WRITE_ONCE(ctl->data_tail, head);
 */
#define PERFREGS_MMAP_CTL(cpu, pages)	((__u64)(cpu) * ((pages) + 1))
#define PERFREGS_MMAP_DATA(cpu, pages)	((__u64)(cpu) * ((pages) + 1) + 1)

/* Lost-record causes: indices of perfregs_ctl.lost[]. */
enum perfregs_lost_cause {
	PERFREGS_LOST_FULL,	/* the buffer had no room */
	PERFREGS_LOST_NESTED,	/* a nested writer found no room */
	PERFREGS_LOST_THROTTLED,/* times the kernel throttled the event */
	PERFREGS_LOST_ENTRY,	/* NMI in entry code: user regs unknown */
	PERFREGS_LOST_MAX,
};

struct perfregs_ctl {
	__u32 version;		/* PERFREGS_ABI_MAJOR */
	__u32 cpu;
	__u64 data_size;	/* bytes, data_pages * page size */
	__u64 data_head;	/* written by the kernel */
	__u64 data_tail;	/* written by userspace */
	__u64 produced;		/* samples the module took on this CPU */
	__u64 lost[8];		/* by enum perfregs_lost_cause, running */
	/*
	 * Since minor 1.  new_tasks counts the samples, published to
	 * data_head, whose process or image differs from the previous user
	 * sample's on this CPU.  Userspace stores in new_tasks_seen the
	 * count it has looked at; poll() reports EPOLLPRI while the two
	 * differ on any ring, so a reader that learns about new tasks
	 * (their /proc/PID/maps, before they exit) sleeps until one comes.
	 *
	 *   seen = READ_ONCE(ctl->new_tasks);   smp_rmb();
	 *   ... look at the records in [tail, data_head) ...
	 *   WRITE_ONCE(ctl->new_tasks_seen, seen);
	 *   poll(fd, POLLPRI);
	 */
	__u64 new_tasks;	/* written by the kernel */
	__u64 new_tasks_seen;	/* written by userspace */
	__u64 reserved[64 - 15];
};

/* --- records ----------------------------------------------------------- */

/*
 * Every record starts with this header; size counts the header too and
 * is a multiple of 8.
 */
struct perfregs_rec_header {
	__u32 type;		/* PERFREGS_REC_* */
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
#define PERFREGS_SF_ENTRY_RACE		0x10U	/* an NMI hit entry code */
#define PERFREGS_SF_KERNEL		0x20U	/* the interrupt hit kernel mode */
#define PERFREGS_SF_STACK		0x40U	/* a user stack snapshot follows */

/* perfregs_rec_sample.abi: the ABI of the user frame, from its CS. */
enum perfregs_abi {
	PERFREGS_ABI_NONE = 0,
	PERFREGS_ABI_32 = 1,
	PERFREGS_ABI_64 = 2,
};

/*
 * PERFREGS_REC_SAMPLE:
 *
 * struct {
 *	struct perfregs_rec_header header;
 *	__u64 time;		CLOCK_MONOTONIC ns (NMI-safe fast clock)
 *	__u32 cpu;
 *	__u32 pid;		tgid, 0 for the idle task
 *	__u32 tid;
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
 *	{ __u64 stack_size;			if PERFREGS_SF_STACK
 *	  char  stack[stack_size];		from the user SP up
 *	  __u64 stack_copied; }			bytes really copied; the rest
 *						of stack[] is zero
 * };
 *
 * The image fields name the file the task runs (mm->exe_file), so that
 * a reader can find its ELF header (x32 or x86-64? 32- or 64-bit?)
 * even after an exec, and tell images apart after the task is gone.
 *
 * A register is present when it was asked for and its value is known:
 * ds/es/fs/gs are never in an x86-64 pt_regs, r8-r15 do not exist in a
 * 32-bit frame, and no user register is present when uregs are NONE.
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
 * PERFREGS_REC_LOST: records that were dropped since the last LOST
 * record of this CPU, written as soon as there is room again.
 *
 * struct {
 *	struct perfregs_rec_header header;
 *	__u64 time;
 *	__u64 lost[PERFREGS_LOST_MAX];	by cause
 * };
 */
struct perfregs_rec_lost {
	struct perfregs_rec_header header;
	__u64 time;
	__u64 lost[PERFREGS_LOST_MAX];
};

#endif /* _UAPI_LINUX_PERFREGS_H */
