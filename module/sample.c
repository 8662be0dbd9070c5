// SPDX-License-Identifier: GPL-2.0
/*
 * One sample: the interrupt registers the hook was handed, the user
 * registers of the interrupted task resolved once and cached, the ABI of
 * the user frame, and the record that carries them to the ring.
 */
#include <linux/sched.h>
#include <linux/sched/task_stack.h>
#include <linux/auxvec.h>
#include <linux/hardirq.h>
#include <linux/timekeeping.h>
#include <linux/bitops.h>
#include <linux/string.h>
#include <asm/word-at-a-time.h>
#include <linux/fs.h>
#include <linux/kdev_t.h>
#include <linux/rcupdate.h>
#include <linux/pid_namespace.h>
#include <linux/preempt.h>
#include <asm/ptrace.h>
#include "internal.h"
#include "ring.h"
#include "compat.h"
#include "inject.h"
#include "simd.h"
#include "chain.h"
#include <asm/fsgsbase.h>
#include <asm/msr.h>
#include <asm/segment.h>

/* Flag bits of prf_sample_ctx.have: what has been resolved. */
#define PRF_HAVE_UREGS	0x1U

/*
 * Where each register comes from: an index of unsigned longs in struct
 * pt_regs, or PRF_SRC_EXTRA + n for the n-th value prf_read_extras()
 * reads from the CPU (the selectors and bases pt_regs has no room for).
 */
#define PRF_SRC_EXTRA	32
#define PRF_PT(field)	(offsetof(struct pt_regs, field) / sizeof(unsigned long))
static const u8 prf_reg_src[PERFREGS_REG_EXT_MAX] = {
	[PERFREGS_REG_AX] = PRF_PT(ax),
	[PERFREGS_REG_BX] = PRF_PT(bx),
	[PERFREGS_REG_CX] = PRF_PT(cx),
	[PERFREGS_REG_DX] = PRF_PT(dx),
	[PERFREGS_REG_SI] = PRF_PT(si),
	[PERFREGS_REG_DI] = PRF_PT(di),
	[PERFREGS_REG_BP] = PRF_PT(bp),
	[PERFREGS_REG_SP] = PRF_PT(sp),
	[PERFREGS_REG_IP] = PRF_PT(ip),
	[PERFREGS_REG_FLAGS] = PRF_PT(flags),
	[PERFREGS_REG_CS] = PRF_PT(cs),
	[PERFREGS_REG_SS] = PRF_PT(ss),
	[PERFREGS_REG_DS] = PRF_SRC_EXTRA + 0,
	[PERFREGS_REG_ES] = PRF_SRC_EXTRA + 1,
	[PERFREGS_REG_FS] = PRF_SRC_EXTRA + 2,
	[PERFREGS_REG_GS] = PRF_SRC_EXTRA + 3,
	[PERFREGS_REG_R8] = PRF_PT(r8),
	[PERFREGS_REG_R9] = PRF_PT(r9),
	[PERFREGS_REG_R10] = PRF_PT(r10),
	[PERFREGS_REG_R11] = PRF_PT(r11),
	[PERFREGS_REG_R12] = PRF_PT(r12),
	[PERFREGS_REG_R13] = PRF_PT(r13),
	[PERFREGS_REG_R14] = PRF_PT(r14),
	[PERFREGS_REG_R15] = PRF_PT(r15),
	[PERFREGS_REG_FS_BASE] = PRF_SRC_EXTRA + 4,
	[PERFREGS_REG_GS_BASE] = PRF_SRC_EXTRA + 5,
};
#define PRF_NR_EXTRA	6

/* What the record says of the sample: prf_fill_rec() reads it. */
struct prf_sample_ctx {
	struct pt_regs *iregs;	/* the interrupt registers recorded */
	struct pt_regs *uregs;	/* valid once PRF_HAVE_UREGS is set */
	u32 have;
	u32 flags;		/* PERFREGS_SF_* */
	u32 abi;		/* enum perfregs_abi */
};

/*
 * How prf_sample() records it, worked out step by step: classified
 * (prf_sample_classify()), sized (prf_sample_size()), then written
 * (prf_sample_write()).  Only those inline steps see it, never a call
 * out of line, so that it lives in registers: a stack object would cost
 * the handler its stores and, with CONFIG_INIT_STACK_ALL_ZERO, its
 * zeroing at every sample.
 */
struct prf_sample_plan {
	struct pt_regs *interrupted;	/* what the interrupt hit */
	int class;			/* enum prf_uregs_class */
	const struct prf_regsel *isel;
	const struct prf_regsel *usel;	/* NULL: no user register */
	u64 stack_size;
	u32 fixed;		/* the fixed part and the registers */
	u32 simd_size;
	u32 kchain_size;
	u32 uchain_size;
	u32 size;		/* the whole record */
};

#define PRF_SEGS_MASK	((1ULL << PERFREGS_REG_DS) | (1ULL << PERFREGS_REG_ES) | \
			 (1ULL << PERFREGS_REG_FS) | (1ULL << PERFREGS_REG_GS))
/* Registers an x86-64 pt_regs really holds for a 64-bit frame ... */
#define PRF_VALID_64	(PERFREGS_MASK_64 & ~PRF_SEGS_MASK)
/* ... and for a 32-bit frame. */
#define PRF_VALID_32	(PERFREGS_MASK_32 & ~PRF_SEGS_MASK)
/*
 * What the CPU holds of the user frame besides pt_regs, and when it is
 * the user's (see the uapi header, PERFREGS_REC_SAMPLE): everything
 * when the interrupt hit user mode; the selectors and the FS base when
 * it hit the task in the kernel with interrupts on; nothing else.
 */
#define PRF_EXTRA_ALL	(PRF_SEGS_MASK | PERFREGS_MASK_BASES)
#define PRF_EXTRA_KERNEL (PRF_SEGS_MASK | (1ULL << PERFREGS_REG_FS_BASE))
/*
 * ... and in the frame perf_fetch_caller_regs() makes for a context
 * switch: ip, sp (the caller's frame address) and cs.  flags is set to
 * 0, not read, and bp and the rest are whatever the per-CPU frame held
 * from its last use (on 6.1 and 6.12 alike).
 */
#define PRF_VALID_CALLER ((1ULL << PERFREGS_REG_IP) | \
			  (1ULL << PERFREGS_REG_SP) | \
			  (1ULL << PERFREGS_REG_CS))

/*
 * Was the code we interrupted an interrupt or softirq handler?  Our own
 * context's levels are taken off: an NMI (and an NMI-like #DB) adds
 * NMI_OFFSET + HARDIRQ_OFFSET, an IRQ handler HARDIRQ_OFFSET.  (On
 * PREEMPT_RT softirqs are not counted in preempt_count(): we then say
 * no, which is the safe answer below.)
 */
static __always_inline bool prf_interrupted_handler(void)
{
	unsigned long pc = preempt_count();
	unsigned long own = in_nmi() ? (pc & NMI_MASK) >> NMI_SHIFT :
				       !!(pc & HARDIRQ_MASK);

	return ((pc & HARDIRQ_MASK) >> HARDIRQ_SHIFT) > own ||
	       (pc & SOFTIRQ_MASK);
}

/*
 * Is task_pt_regs(current) the user frame of the task, whole, given
 * the kernel context @regs we interrupted?  An entry from user mode
 * (SYSCALL, SYSENTER, int $0x80, an IRQ or exception) runs on the user
 * stack, the entry (trampoline) stack or an IST stack, or pushes into
 * the frame itself, until the frame is complete; only then does the
 * kernel run below the frame on the task stack.  IRQs are off all that
 * time, so only an NMI (or an NMI-like #DB, #MC) can land there, but we
 * check every sample: the frame is trusted when the interrupted stack
 * pointer lies on the task stack below the frame, or when the
 * interrupted code was an interrupt or softirq handler (those run on the
 * IRQ stack, and only after any entry from user mode built its frame,
 * with the preempt count a user task has: no handler bits).  Anything
 * else (entry or IST stacks, user addresses, inside the frame) is
 * counted as an entry race and the sample has no user registers.  The
 * rule is conservative: the few instructions on the IRQ stack before
 * irq_enter() or after irq_exit(), and the exit path after the frame is
 * popped, are refused although the frame is still good there.
 */
static __always_inline bool prf_frame_trusted(struct pt_regs *regs,
					      struct pt_regs *frame)
{
	unsigned long sp = regs->sp;
	unsigned long base = (unsigned long)task_stack_page(current);

	if (sp >= base && sp < (unsigned long)frame)
		return true;
	return prf_interrupted_handler();
}

/* Resolve the user registers of this sample, once. */
static struct pt_regs *prf_sample_uregs(struct prf_sample_ctx *ctx)
{
	struct pt_regs *regs = ctx->iregs;
	struct pt_regs *frame;

	if (ctx->have & PRF_HAVE_UREGS)
		return ctx->uregs;
	ctx->have |= PRF_HAVE_UREGS;
	ctx->uregs = NULL;
	ctx->abi = PERFREGS_ABI_NONE;

	if (user_mode(regs)) {
		ctx->uregs = regs;
		ctx->flags |= PERFREGS_SF_UREGS_DIRECT;
	} else if (!(current->flags & PRF_PF_NO_USER) && current->mm) {
		frame = task_pt_regs(current);
		if (prf_frame_trusted(regs, frame)) {
			ctx->uregs = frame;
			ctx->flags |= PERFREGS_SF_UREGS_ENTRY;
		} else {
			ctx->flags |= PERFREGS_SF_ENTRY_RACE;
		}
	}
	if (ctx->uregs)
		ctx->abi = user_64bit_mode(ctx->uregs) ? PERFREGS_ABI_64 :
							 PERFREGS_ABI_32;
	return ctx->uregs;
}

static u32 prf_sample_context(void)
{
	if (in_nmi())
		return PERFREGS_SF_CTX_NMI;
	if (in_hardirq())
		return PERFREGS_SF_CTX_IRQ;
	return PERFREGS_SF_CTX_EXCEPTION;
}

static void prf_regsel_init(struct prf_regsel *sel, u64 mask)
{
	int bit;

	sel->mask = mask;
	sel->n = 0;
	sel->extra = false;
	while (mask) {
		bit = __ffs64(mask);
		mask &= mask - 1;
		sel->idx[sel->n] = prf_reg_src[bit];
		sel->extra |= sel->idx[sel->n++] >= PRF_SRC_EXTRA;
	}
}

/**
 * prf_sample_setup() - work out what samples of a configuration record
 * @s: the session, with its new configuration in s->cfg
 *
 * The register selections of struct prf_session, per user ABI and
 * class, so that the handler copies registers without walking a mask.
 *
 * Context: CONFIG, with the session's locks held, before any sample.
 */
void prf_sample_setup(struct prf_session *s)
{
	static const u64 extra[PRF_UREGS_CLASSES] = {
		[PRF_UREGS_PLAIN] = 0,
		[PRF_UREGS_KERNEL] = PRF_EXTRA_KERNEL,
		[PRF_UREGS_USER] = PRF_EXTRA_ALL,
	};
	u64 ivalid = PRF_VALID_64;
	int c;

	if (s->cfg.event == PERFREGS_EV_CONTEXT_SWITCHES)
		ivalid &= PRF_VALID_CALLER;
	prf_regsel_init(&s->isel, s->cfg.iregs_mask & ivalid);
	prf_regsel_init(&s->isel_frame, s->cfg.iregs_mask & PRF_VALID_64);
	for (c = 0; c < PRF_UREGS_CLASSES; c++) {
		prf_regsel_init(&s->usel64[c], s->cfg.uregs_mask_64 &
				(PRF_VALID_64 | extra[c]));
		prf_regsel_init(&s->usel32[c], s->cfg.uregs_mask_32 &
				(PRF_VALID_32 | extra[c]));
	}
}

/*
 * Values are copied as the CPU left them, all 64 bits; a 32-bit frame's
 * upper halves are whatever the hardware held (zero for a compat task).
 * Returns the slot after the last one written.
 */
static __always_inline u64 *prf_put_regs(u64 *dst, struct pt_regs *regs,
					  const struct prf_regsel *sel)
{
	const unsigned long *r = (const unsigned long *)regs;
	const u8 *idx = sel->idx;
	unsigned int i, n = sel->n;

	/*
	 * n in a register: each store to dst may alias sel's bytes.  Four
	 * at a time: three instructions a register instead of six.
	 */
	for (i = 0; i + 4 <= n; i += 4) {
		dst[i] = r[idx[i]];
		dst[i + 1] = r[idx[i + 1]];
		dst[i + 2] = r[idx[i + 2]];
		dst[i + 3] = r[idx[i + 3]];
	}
	for (; i < n; i++)
		dst[i] = r[idx[i]];
	return dst + n;
}

/*
 * The selectors and bases of the user frame, from the CPU: the kernel
 * reloads none of them on entry, and the entry's swapgs left the user's
 * GS base in MSR_KERNEL_GS_BASE (read only when @user: the interrupt
 * hit user mode).  All NMI-safe: no lock, no fault.
 */
static noinline void prf_read_extras(u64 *x, bool user)
{
	unsigned int sel;

	savesegment(ds, sel);
	x[0] = sel;
	savesegment(es, sel);
	x[1] = sel;
	savesegment(fs, sel);
	x[2] = sel;
	savesegment(gs, sel);
	x[3] = sel;
	x[4] = x86_fsbase_read_cpu();
	x[5] = 0;
	if (user)
		rdmsrl(MSR_KERNEL_GS_BASE, x[5]);
}

/* The user's GS base when the interrupt hit user mode, as above. */
static __always_inline unsigned long prf_user_gsbase(const struct prf_regsel *usel,
						     const u64 *extra)
{
	u64 base;

	if (usel && usel->extra)
		return extra[5];
	rdmsrl(MSR_KERNEL_GS_BASE, base);
	return base;
}

/*
 * Whether current has a KVM vCPU loaded: vcpu_load() registers a preempt
 * notifier and vcpu_put() removes it after kvm_arch_vcpu_put(), which on
 * Intel gives the user's selectors back (kvm_main.c, 6.1 and 6.12).  KVM
 * is the only user of preempt notifiers in the tree; another (an
 * out-of-tree hypervisor) only makes us drop selectors we could have
 * shown, never show the host's.  Only current changes its list, and the
 * head's first pointer is one WRITE_ONCE() (hlist_add_head(),
 * __hlist_del()): an interrupt of current sees either value whole, and
 * the pointer is never followed.  Without CONFIG_PREEMPT_NOTIFIERS there
 * is no KVM (it selects them).
 */
static __always_inline bool prf_vcpu_loaded(void)
{
#ifdef CONFIG_PREEMPT_NOTIFIERS
	return !hlist_empty(&current->preempt_notifiers);
#else
	return false;
#endif
}

/* prf_put_regs() for a selection with values from prf_read_extras(). */
static noinline u64 *prf_put_regs_extra(u64 *dst, struct pt_regs *regs,
					const u64 *extra,
					const struct prf_regsel *sel)
{
	const unsigned long *r = (const unsigned long *)regs;
	unsigned int i;
	u8 k;

	for (i = 0; i < sel->n; i++) {
		k = sel->idx[i];
		dst[i] = k >= PRF_SRC_EXTRA ? extra[k - PRF_SRC_EXTRA] : r[k];
	}
	return dst + sel->n;
}

static __always_inline u64 *prf_put_uregs(u64 *dst, struct pt_regs *regs,
					  const u64 *extra,
					  const struct prf_regsel *sel)
{
	if (unlikely(sel->extra))
		return prf_put_regs_extra(dst, regs, extra, sel);
	return prf_put_regs(dst, regs, sel);
}

/*
 * The task's name, NUL-padded, in two word loads: no lock in NMI, so a
 * rename may race with us; we then get either name, or a mix of both,
 * always terminated since the last byte is forced to NUL.
 */
static __always_inline void prf_put_comm(char *dst, const char *comm)
{
	const struct word_at_a_time zero = WORD_AT_A_TIME_CONSTANTS;
	unsigned long w[2], data;
	int i;

	BUILD_BUG_ON(TASK_COMM_LEN != 16 || sizeof(unsigned long) != 8);
	memcpy(w, comm, sizeof(w));
	w[1] &= ~(0xffUL << 56);
	for (i = 0; i < 2; i++) {
		if (has_zero(w[i], &data, &zero)) {
			data = prep_zero_mask(w[i], data, &zero);
			w[i] &= zero_bytemask(create_zero_mask(data));
			if (i == 0)
				w[1] = 0;
			break;
		}
	}
	memcpy(dst, w, sizeof(w));
}

/*
 * The executable of the task.  mm->exe_file is RCU protected.  Every
 * caller of the handler runs with preemption off (hardirq, NMI, #DB,
 * or the perf core's software events), which is an RCU read-side
 * critical section since RCU's flavours were merged (4.20): no
 * rcu_read_lock() calls needed on this path.  But since 6.7 struct
 * file is SLAB_TYPESAFE_BY_RCU: a file replaced in exe_file (exec,
 * PR_SET_MM_EXE_FILE) can be freed and handed out again within our
 * read-side section, zeroed (f_inode NULL) until it is opened.  So
 * f_inode is read once and checked, and exe_file again afterwards: if
 * it moved, the image is reported unknown (0), never a wrong one.  An
 * inode and its super block are freed only after a grace period.
 */
static __always_inline void prf_sample_image(struct perfregs_rec_sample *rec)
{
	struct mm_struct *mm = current->mm;
	struct file *exe, *blank;
	struct inode *inode;

	rec->image_ino = 0;
	rec->image_dev = 0;
	if (!mm || (current->flags & PF_KTHREAD))
		return;
	exe = rcu_dereference_sched(mm->exe_file);
	if (prf_injecting()) {
		blank = prf_inject_blank_file();
		if (blank)
			exe = blank;
	}
	if (!exe)
		return;
	inode = READ_ONCE(exe->f_inode);
	if (!inode)
		return;
	rec->image_ino = inode->i_ino;
	rec->image_dev = new_encode_dev(inode->i_sb->s_dev);
	/*
	 * L: the inode loads before the second look at exe_file; pairs
	 * with the full barrier of atomic_long_dec_and_test() in fput(),
	 * by whoever replaced exe_file: it orders the store of the new
	 * exe_file before the old file can be freed and handed out again,
	 * so an unchanged exe_file means the inode we read was its own.
	 */
	smp_rmb();
	if (unlikely(exe != rcu_dereference_sched(mm->exe_file)) &&
	    !prf_injecting()) {
		rec->image_ino = 0;
		rec->image_dev = 0;
	}
}

/* The task's ids as the session's pid namespace sees them. */
static __always_inline void prf_sample_ids(const struct prf_session *s,
					   struct perfregs_rec_sample *rec)
{
	struct pid_namespace *ns = s->pid_ns;

	if (likely(!ns)) {	/* the initial namespace: the global ids */
		rec->pid = task_tgid_nr(current);
		rec->tid = task_pid_nr(current);
	} else {
		rec->pid = task_tgid_nr_ns(current, ns);
		rec->tid = task_pid_nr_ns(current, ns);
	}
}

/* The fixed part of a sample record, written in place or into a copy. */
static void prf_fill_rec(const struct prf_session *s,
			 struct perfregs_rec_sample *rec, u32 size,
			 const struct prf_sample_ctx *ctx, u64 imask, u64 umask)
{
	rec->header.type = PERFREGS_REC_SAMPLE;
	rec->header.size = size;
	rec->time = ktime_get_mono_fast_ns();
	rec->cpu = smp_processor_id();
	prf_sample_ids(s, rec);
	rec->flags = ctx->flags;
	rec->abi = ctx->abi;
	rec->reserved = 0;
	rec->iregs_mask = imask;
	rec->uregs_mask = umask;
	prf_put_comm(rec->comm, current->comm);
	prf_sample_image(rec);
	rec->reserved2 = 0;
}

/*
 * The record's fixed part and registers wrap around the end of the ring:
 * copies, written piecewise.  Out of line, so that the common path does
 * not carry these buffers on the (NMI) stack.
 */
static noinline void prf_write_wrapped(const struct prf_session *s,
				       struct prf_handle *h, u32 size,
				       const struct prf_sample_ctx *ctx,
				       struct pt_regs *regs,
				       const struct prf_regsel *isel,
				       const struct prf_regsel *usel,
				       const u64 *extra)
{
	struct perfregs_rec_sample rec;
	u64 vals[PERFREGS_REG_EXT_MAX];
	u64 *end;

	prf_fill_rec(s, &rec, size, ctx, isel->mask, usel ? usel->mask : 0);
	prf_ring_write(h, &rec, sizeof(rec));
	end = prf_put_regs(vals, regs, isel);
	prf_ring_write(h, vals, (end - vals) * sizeof(*vals));
	if (usel) {
		end = prf_put_uregs(vals, ctx->uregs, extra, usel);
		prf_ring_write(h, vals, (end - vals) * sizeof(*vals));
	}
}

/*
 * Where the main thread's stack holds no more frames: exec laid out,
 * from mm->start_stack (the first SP) up, argc, the argv and envp
 * pointers and the auxiliary vector, then the 16 random bytes that
 * AT_RANDOM points to and the platform string, then a random gap of up
 * to 8 KiB (arch_align_stack()), then the argument and environment
 * strings from mm->arg_start.  The pointer tables are kept, as a loader
 * run as a command (ld.so PROG) may move the program's first SP up into
 * them; from AT_RANDOM up no frame can lie.  mm->saved_auxv is the
 * kernel's copy of the vector, in the ELF class of the image (32-bit
 * words for i386 and x32 tasks, TIF_ADDR32).  arg_start when AT_RANDOM
 * is missing or not between the two.
 */
static unsigned long prf_stack_end(struct mm_struct *mm)
{
	unsigned long start = READ_ONCE(mm->start_stack);
	unsigned long top = READ_ONCE(mm->arg_start);
	unsigned long type, val = 0;
	const u32 *a32 = (const u32 *)mm->saved_auxv;
	bool is32 = test_thread_flag(TIF_ADDR32);
	int i, n = is32 ? 2 * AT_VECTOR_SIZE : AT_VECTOR_SIZE;

	for (i = 0; i + 1 < n; i += 2) {
		type = is32 ? READ_ONCE(a32[i]) : READ_ONCE(mm->saved_auxv[i]);
		if (type == AT_NULL)
			break;
		if (type == AT_RANDOM) {
			val = is32 ? READ_ONCE(a32[i + 1]) :
				     READ_ONCE(mm->saved_auxv[i + 1]);
			break;
		}
	}
	return val > start && val < top ? val : top;
}

/*
 * How much of the asked @len bytes of user stack from @sp to copy.
 *
 * Not from the thread pointer @tp up, when it lies above @sp within the
 * copy: glibc and musl put a thread's descriptor at the top of its stack
 * mapping, the thread pointer (the FS base of a 64-bit or x32 task, the
 * GS base of an i386 one) at the descriptor and the static TLS right
 * below it, so the thread's frames all lie below the thread pointer (its
 * first SP is below the TLS); above are kilobytes of descriptor that no
 * frame uses.  The main thread's descriptor is in memory of its own
 * (ld.so's or the heap), never among its frames.  A program that points
 * its thread pointer into its own live frames (a TLS block in a local
 * variable) loses the frames above it from the copy; no runtime we know
 * of does (Go's FS base is in an M, on the heap).  @tp is 0 when the
 * CPU's value may not be the task's (prf_sample()).
 *
 * On the main thread's stack no more than up to prf_stack_end(), rounded
 * down to whole 8-byte words so that none of the random bytes is
 * copied (AT_RANDOM is 1 mod 8 below "x86_64", 3 below "i686"), but
 * one word at least, as the record says it has a stack.  A shell
 * passes kilobytes of environment (8448 bytes from magic_64's loop to
 * the top of its stack in the test guest) and the random gap adds up
 * to 8 KiB, so this is most of an 8 KiB copy.  A copy that ends below
 * mm->start_stack, as every copy on a thread's stack does (they lie
 * below the main one), is not cut there and costs no look at the
 * auxiliary vector; its copy ends at the first page that cannot be read
 * otherwise (prf_ring_write_stack()).  current->mm is the sampled task's
 * own and stays while it runs here.  Every task sharing the mm can
 * change what is read (prctl(PR_SET_MM_MAP) needs no privilege), and
 * the task sets its own thread pointer, but a bound from either only ever
 * shortens the copy of the task's own stack: never more than @len,
 * never from another address than @sp.
 */
static u64 prf_stack_len(unsigned long sp, u64 len, unsigned long tp)
{
	struct mm_struct *mm = READ_ONCE(current->mm);
	unsigned long top;

	if (tp > sp && tp - sp < len)
		len = max_t(u64, round_down(tp - sp, 8), 8);
	if (!mm || sp + len <= READ_ONCE(mm->start_stack))
		return len;
	top = prf_stack_end(mm);
	if (sp < top && top - sp < len)
		return max_t(u64, round_down(top - sp, 8), 8);
	return len;
}

/*
 * Classify: where the sample was taken, whose user registers it has,
 * which interrupt and user registers the record carries.  Reads the
 * interrupted registers and current only.  False for a sample the
 * session may not see: the counter skidded into the kernel of a session
 * that excludes it, and no user frame we trust is there.
 */
static __always_inline bool prf_sample_classify(const struct prf_session *s,
						struct pt_regs *regs,
						struct prf_sample_ctx *ctx,
						struct prf_sample_plan *plan)
{
	struct pt_regs *uregs;

	plan->interrupted = regs;
	plan->isel = &s->isel;
	ctx->flags = prf_sample_context();
	uregs = prf_sample_uregs(ctx);
	if (!user_mode(regs)) {
		if (unlikely(s->cfg.flags & PERFREGS_CF_EXCLUDE_KERNEL)) {
			/*
			 * Skid: the counter counted user events, its interrupt
			 * came in the kernel.  Not one kernel register may
			 * reach this session: report the sample at the user
			 * frame, or not at all when there is none we trust
			 * (as perf excludes a kernel-mode event).
			 */
			if (!uregs)
				return false;
			ctx->iregs = uregs;
			ctx->flags |= PERFREGS_SF_SKID;
			plan->isel = &s->isel_frame;
		} else {
			ctx->flags |= PERFREGS_SF_KERNEL;
		}
	}

	/*
	 * Which of the selectors and bases are the user's (prf_sample_setup()).
	 * In the kernel, not while the task has a KVM vCPU loaded: each VM
	 * exit on Intel loads the VMCS's host selectors, and the user's come
	 * back only when the vCPU is put (vmx_prepare_switch_to_host()).
	 */
	if (user_mode(regs))
		plan->class = PRF_UREGS_USER;
	else if ((regs->flags & X86_EFLAGS_IF) && !prf_vcpu_loaded())
		plan->class = PRF_UREGS_KERNEL;
	else
		plan->class = PRF_UREGS_PLAIN;
	plan->usel = NULL;
	if (ctx->abi == PERFREGS_ABI_64)
		plan->usel = &s->usel64[plan->class];
	else if (ctx->abi == PERFREGS_ABI_32)
		plan->usel = &s->usel32[plan->class];
	if (plan->usel && !plan->usel->n)
		plan->usel = NULL;
	return true;
}

/*
 * Size: what the record's size depends on, read from the CPU and the
 * task now: the selectors and bases (into @extra), the length of the
 * user stack to copy, the SIMD state (@simd, which holds a slot until
 * prf_simd_put()), the kernel call chain of a kernel-mode sample and
 * the user call chain of a sample with user registers (@ch, walked into
 * a slot held until prf_chain_put()).
 */
static __always_inline void prf_sample_size(const struct prf_session *s,
					    struct prf_sample_ctx *ctx,
					    struct prf_sample_plan *plan,
					    u64 *extra, struct prf_simd *simd,
					    struct prf_chain *ch)
{
	const struct prf_regsel *usel = plan->usel;
	struct pt_regs *uregs = ctx->uregs;

	if (usel && usel->extra)
		prf_read_extras(extra, plan->class == PRF_UREGS_USER);

	plan->stack_size = 0;
	if (s->cfg.stack_bytes && uregs) {
		unsigned long tp = 0;

		/*
		 * The thread pointer, where prf_read_extras() trusts it
		 * (the same classes): the FS base of a 64-bit or x32 frame;
		 * an i386 frame's GS base, known only when the interrupt hit
		 * user mode (the entry's swapgs put it in KERNEL_GS_BASE).
		 */
		if (ctx->abi == PERFREGS_ABI_64 && plan->class != PRF_UREGS_PLAIN)
			tp = usel && usel->extra ? extra[4] :
						   x86_fsbase_read_cpu();
		else if (ctx->abi == PERFREGS_ABI_32 &&
			 plan->class == PRF_UREGS_USER)
			tp = prf_user_gsbase(usel, extra);
		ctx->flags |= PERFREGS_SF_STACK;
		plan->stack_size = prf_stack_len(uregs->sp, s->cfg.stack_bytes,
						 tp);
	}
	simd->slot_held = false;
	plan->simd_size = 0;
	if (s->cfg.simd_mask && uregs) {
		ctx->flags |= PERFREGS_SF_SIMD;
		prf_simd_take(simd, s->cfg.simd_mask,
			      ctx->abi == PERFREGS_ABI_64, plan->interrupted);
		plan->simd_size = prf_simd_size(simd->components, simd->is64);
	}
	ch->slot_held = false;
	plan->kchain_size = 0;
	plan->uchain_size = 0;
	if ((s->cfg.kchain_max && (ctx->flags & PERFREGS_SF_KERNEL)) ||
	    (s->cfg.uchain_max && uregs))
		prf_chain_take(ch);
	if (s->cfg.kchain_max && (ctx->flags & PERFREGS_SF_KERNEL)) {
		ctx->flags |= PERFREGS_SF_KCHAIN;
		prf_kchain_walk(ch, plan->interrupted, s->cfg.kchain_max);
		plan->kchain_size = prf_chain_size(ch->knr);
	}
	if (s->cfg.uchain_max && uregs) {
		ctx->flags |= PERFREGS_SF_UCHAIN;
		prf_uchain_walk(ch, uregs, ctx->abi == PERFREGS_ABI_32,
				s->cfg.uchain_max);
		plan->uchain_size = prf_chain_size(ch->unr);
	}

	plan->fixed = sizeof(struct perfregs_rec_sample) +
		      8 * (plan->isel->n + (usel ? usel->n : 0));
	plan->size = plan->fixed + plan->simd_size + plan->kchain_size +
		     plan->uchain_size;
	if (plan->stack_size)
		plan->size += 16 + plan->stack_size;
}

/*
 * Write: the record into the reservation @h, from its start on, and the
 * new task it may tell a learner of.
 */
static __always_inline void prf_sample_write(const struct prf_session *s,
					     struct prf_ring *rb,
					     struct prf_handle *h,
					     const struct prf_sample_ctx *ctx,
					     const struct prf_sample_plan *plan,
					     const u64 *extra,
					     const struct prf_simd *simd,
					     const struct prf_chain *ch)
{
	const struct prf_regsel *usel = plan->usel;
	unsigned long start = h->offset;
	struct perfregs_rec_sample *rec;
	u64 *v;

	rec = prf_ring_direct(h, plan->fixed);
	if (likely(rec)) {
		/* the common case: no wrap, every field stored in place */
		prf_fill_rec(s, rec, plan->size, ctx, plan->isel->mask,
			     usel ? usel->mask : 0);
		v = prf_put_regs(rec->regs, ctx->iregs, plan->isel);
		if (usel)
			prf_put_uregs(v, ctx->uregs, extra, usel);
	} else {
		prf_write_wrapped(s, h, plan->size, ctx, ctx->iregs, plan->isel,
				  usel, extra);
	}
	if (plan->simd_size)
		prf_simd_write(h, simd);
	if (plan->kchain_size)
		prf_kchain_write(h, ch);
	if (plan->stack_size)
		prf_ring_write_stack(h, start,
				     (const void __user *)ctx->uregs->sp,
				     plan->stack_size, plan->uchain_size);
	if (plan->uchain_size) {
		/* the rest is the section, unless the reservation went wrong */
		if (!WARN_ON_ONCE(h->end - h->offset != plan->uchain_size))
			prf_uchain_write(h, ch);
		else if (h->end > h->offset)	/* no stale byte out */
			prf_ring_zero_rest(h);
	}
	prf_ring_check_written(h, start);

	/*
	 * A learner in userspace wants to hear of a new process or image;
	 * the outermost writer publishes the count with our record.  A
	 * nested writer samples the same task as the one it interrupted,
	 * so a race on last_* can only count that task twice.
	 */
	if (ctx->uregs && (rb->last_tgid != current->tgid ||
			   rb->last_mm != current->mm)) {
		rb->last_tgid = current->tgid;
		rb->last_mm = current->mm;
		local_inc(&rb->new_tasks);
	}
}

/**
 * prf_sample() - take one sample
 * @s: the session
 * @regs: the registers the interrupt (or the perf core) handed over
 * @throttled: perf throttled the event with this sample
 *
 * Classifies the sample, counts it, sizes its record, reserves it in
 * the ring of this CPU and writes it; a sample that finds no room is
 * counted lost.  The test hooks (inject.h) nest another writer at the
 * points where an NMI can land.
 *
 * Context: every source calls it with preemption off, NMI included
 * (see prf_sample_image()); teardown relies on that, see
 * prf_perf_stop().  Takes no lock, allocates nothing, never sleeps.
 */
void prf_sample(struct prf_session *s, struct pt_regs *regs, bool throttled)
{
	struct prf_ring *rb = s->rings[smp_processor_id()];
	struct prf_sample_ctx ctx = { .iregs = regs };
	struct prf_sample_plan plan __uninitialized;
	u64 extra[PRF_NR_EXTRA];
	struct prf_simd simd;
	struct prf_chain ch;
	struct prf_handle h;

	if (unlikely(!rb))
		return;
	if (!prf_sample_classify(s, regs, &ctx, &plan)) {
		/* not taken, but a throttle it carried is still counted */
		if (throttled) {
			prf_ring_enter(rb);
			prf_ring_lost(rb, PERFREGS_LOST_THROTTLED);
			prf_ring_leave(rb);
		}
		return;
	}

	prf_ring_enter(rb);
	local_inc(&rb->produced);
	prf_inject_hook(PRF_INJECT_COUNTED, s, ctx.iregs, &rb->nest);
	if (throttled)
		prf_ring_lost(rb, PERFREGS_LOST_THROTTLED);
	if (ctx.flags & PERFREGS_SF_ENTRY_RACE)
		prf_ring_lost(rb, PERFREGS_LOST_ENTRY);

	prf_sample_size(s, &ctx, &plan, extra, &simd, &ch);
	if (!prf_ring_begin(rb, &h, plan.size)) {
		prf_inject_hook(PRF_INJECT_RESERVED, s, ctx.iregs, &rb->nest);
		prf_sample_write(s, rb, &h, &ctx, &plan, extra, &simd, &ch);
	}
	prf_chain_put(&ch);
	prf_simd_put(&simd);
	prf_ring_leave(rb);
	prf_inject_done();
}
