// SPDX-License-Identifier: GPL-2.0
/*
 * One sample: the interrupt registers the hook was handed, the user
 * registers of the interrupted task resolved once and cached, the ABI of
 * the user frame, and the record that carries them to the ring.
 */
#include <linux/sched.h>
#include <linux/sched/task_stack.h>
#include <linux/hardirq.h>
#include <linux/timekeeping.h>
#include <linux/bitops.h>
#include <linux/string.h>
#include <asm/word-at-a-time.h>
#include <linux/fs.h>
#include <linux/kdev_t.h>
#include <linux/rcupdate.h>
#include <asm/ptrace.h>
#include "perfregs.h"
#include "ring.h"
#include "compat.h"

/* Flag bits of prf_sample_ctx.have: what has been resolved. */
#define PRF_HAVE_UREGS	0x1U

struct prf_sample_ctx {
	struct pt_regs *iregs;
	struct pt_regs *uregs;	/* valid once PRF_HAVE_UREGS is set */
	u32 have;
	u32 flags;		/* PERFREGS_SF_* */
	u32 abi;		/* enum perfregs_abi */
};

/* Where each register lives in struct pt_regs; -1: not saved there. */
static const short prf_reg_offset[PERFREGS_REG_MAX] = {
	[PERFREGS_REG_AX] = offsetof(struct pt_regs, ax),
	[PERFREGS_REG_BX] = offsetof(struct pt_regs, bx),
	[PERFREGS_REG_CX] = offsetof(struct pt_regs, cx),
	[PERFREGS_REG_DX] = offsetof(struct pt_regs, dx),
	[PERFREGS_REG_SI] = offsetof(struct pt_regs, si),
	[PERFREGS_REG_DI] = offsetof(struct pt_regs, di),
	[PERFREGS_REG_BP] = offsetof(struct pt_regs, bp),
	[PERFREGS_REG_SP] = offsetof(struct pt_regs, sp),
	[PERFREGS_REG_IP] = offsetof(struct pt_regs, ip),
	[PERFREGS_REG_FLAGS] = offsetof(struct pt_regs, flags),
	[PERFREGS_REG_CS] = offsetof(struct pt_regs, cs),
	[PERFREGS_REG_SS] = offsetof(struct pt_regs, ss),
	[PERFREGS_REG_DS] = -1,
	[PERFREGS_REG_ES] = -1,
	[PERFREGS_REG_FS] = -1,
	[PERFREGS_REG_GS] = -1,
	[PERFREGS_REG_R8] = offsetof(struct pt_regs, r8),
	[PERFREGS_REG_R9] = offsetof(struct pt_regs, r9),
	[PERFREGS_REG_R10] = offsetof(struct pt_regs, r10),
	[PERFREGS_REG_R11] = offsetof(struct pt_regs, r11),
	[PERFREGS_REG_R12] = offsetof(struct pt_regs, r12),
	[PERFREGS_REG_R13] = offsetof(struct pt_regs, r13),
	[PERFREGS_REG_R14] = offsetof(struct pt_regs, r14),
	[PERFREGS_REG_R15] = offsetof(struct pt_regs, r15),
};

#define PRF_SEGS_MASK	((1ULL << PERFREGS_REG_DS) | (1ULL << PERFREGS_REG_ES) | \
			 (1ULL << PERFREGS_REG_FS) | (1ULL << PERFREGS_REG_GS))
/* Registers an x86-64 pt_regs really holds for a 64-bit frame ... */
#define PRF_VALID_64	(PERFREGS_MASK_64 & ~PRF_SEGS_MASK)
/* ... and for a 32-bit frame. */
#define PRF_VALID_32	(PERFREGS_MASK_32 & ~PRF_SEGS_MASK)

/*
 * Did an NMI interrupt entry code before it finished building the user
 * frame at task_pt_regs(current)?  Only NMIs can: IRQs are off there.
 * The kernel stack pointer then lies inside that frame, or is still the
 * user one (after SYSCALL, before the switch to the task stack).
 */
static bool prf_entry_race(struct pt_regs *regs, struct pt_regs *frame)
{
	unsigned long sp = regs->sp;

	if (!in_nmi())
		return false;
	if (sp < TASK_SIZE_MAX)
		return true;
	return sp > (unsigned long)frame && sp <= (unsigned long)(frame + 1);
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
		if (prf_entry_race(regs, frame)) {
			ctx->flags |= PERFREGS_SF_ENTRY_RACE;
		} else {
			ctx->uregs = frame;
			ctx->flags |= PERFREGS_SF_UREGS_ENTRY;
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
	while (mask) {
		bit = __ffs64(mask);
		mask &= mask - 1;
		sel->idx[sel->n++] = prf_reg_offset[bit] / sizeof(unsigned long);
	}
}

/* Called with the new configuration in s->cfg, before any sample. */
void prf_sample_setup(struct prf_session *s)
{
	prf_regsel_init(&s->isel, s->cfg.iregs_mask & PRF_VALID_64);
	prf_regsel_init(&s->usel64, s->cfg.uregs_mask_64 & PRF_VALID_64);
	prf_regsel_init(&s->usel32, s->cfg.uregs_mask_32 & PRF_VALID_32);
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
 * The executable of the task: mm->exe_file is RCU protected, and a
 * struct file (with its inode) outlives an RCU grace period.  Every
 * caller of the handler runs with preemption off (hardirq, NMI, #DB,
 * or the perf core's software events), which is an RCU read-side
 * critical section since RCU's flavours were merged (4.20): no
 * rcu_read_lock() calls needed on this path.
 */
static __always_inline void prf_sample_image(struct perfregs_rec_sample *rec)
{
	struct mm_struct *mm = current->mm;
	struct file *exe;
	struct inode *inode;

	rec->image_ino = 0;
	rec->image_dev = 0;
	if (!mm || (current->flags & PF_KTHREAD))
		return;
	exe = rcu_dereference_sched(mm->exe_file);
	if (exe) {
		inode = file_inode(exe);
		rec->image_ino = inode->i_ino;
		rec->image_dev = new_encode_dev(inode->i_sb->s_dev);
	}
}

/* The fixed part of a sample record, written in place or into a copy. */
static void prf_fill_rec(struct perfregs_rec_sample *rec, u32 size,
			 const struct prf_sample_ctx *ctx, u64 imask, u64 umask)
{
	rec->header.type = PERFREGS_REC_SAMPLE;
	rec->header.size = size;
	rec->time = ktime_get_mono_fast_ns();
	rec->cpu = smp_processor_id();
	rec->pid = task_tgid_nr(current);
	rec->tid = task_pid_nr(current);
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
static noinline void prf_write_wrapped(struct prf_handle *h, u32 size,
				       const struct prf_sample_ctx *ctx,
				       struct pt_regs *regs,
				       const struct prf_regsel *isel,
				       const struct prf_regsel *usel)
{
	struct perfregs_rec_sample rec;
	u64 vals[PERFREGS_REG_MAX];
	u64 *end;

	prf_fill_rec(&rec, size, ctx, isel->mask, usel ? usel->mask : 0);
	prf_ring_write(h, &rec, sizeof(rec));
	end = prf_put_regs(vals, regs, isel);
	prf_ring_write(h, vals, (end - vals) * sizeof(*vals));
	if (usel) {
		end = prf_put_regs(vals, ctx->uregs, usel);
		prf_ring_write(h, vals, (end - vals) * sizeof(*vals));
	}
}

void prf_sample(struct prf_session *s, struct pt_regs *regs, bool throttled)
{
	struct prf_ring *rb = s->rings[smp_processor_id()];
	struct prf_sample_ctx ctx = { .iregs = regs };
	struct perfregs_rec_sample *rec;
	struct pt_regs *uregs;
	const struct prf_regsel *usel;
	struct prf_handle h;
	u64 stack_size = 0;
	u32 size, fixed;
	size_t copied;
	u64 *v;

	if (unlikely(!rb))
		return;
	prf_ring_produced(rb);
	if (throttled)
		prf_ring_lost(rb, PERFREGS_LOST_THROTTLED);

	ctx.flags = prf_sample_context();
	if (!user_mode(regs))
		ctx.flags |= PERFREGS_SF_KERNEL;
	uregs = prf_sample_uregs(&ctx);
	if (ctx.flags & PERFREGS_SF_ENTRY_RACE)
		prf_ring_lost(rb, PERFREGS_LOST_ENTRY);

	usel = NULL;
	if (ctx.abi == PERFREGS_ABI_64)
		usel = &s->usel64;
	else if (ctx.abi == PERFREGS_ABI_32)
		usel = &s->usel32;
	if (usel && !usel->n)
		usel = NULL;

	if (s->cfg.stack_bytes && uregs) {
		ctx.flags |= PERFREGS_SF_STACK;
		stack_size = s->cfg.stack_bytes;
	}

	fixed = sizeof(*rec) + 8 * (s->isel.n + (usel ? usel->n : 0));
	size = fixed;
	if (stack_size)
		size += 16 + stack_size;
	if (prf_ring_begin(rb, &h, size))
		return;

	rec = prf_ring_direct(&h, fixed);
	if (likely(rec)) {
		/* the common case: no wrap, every field stored in place */
		prf_fill_rec(rec, size, &ctx, s->isel.mask,
			     usel ? usel->mask : 0);
		v = prf_put_regs(rec->regs, regs, &s->isel);
		if (usel)
			prf_put_regs(v, uregs, usel);
	} else {
		prf_write_wrapped(&h, size, &ctx, regs, &s->isel, usel);
	}
	if (stack_size) {
		u64 n;

		prf_ring_write(&h, &stack_size, sizeof(stack_size));
		prf_ring_write_user(&h, (const void __user *)uregs->sp,
				    stack_size, &copied);
		n = copied;
		prf_ring_write(&h, &n, sizeof(n));
	}
	prf_ring_end(&h);

	/*
	 * A learner in userspace wants to hear of a new process or image.
	 * A nested writer samples the same task as the one it interrupted,
	 * so a race on last_* can only count that task twice.
	 */
	if (uregs && (rb->last_tgid != current->tgid ||
		      rb->last_mm != current->mm)) {
		rb->last_tgid = current->tgid;
		rb->last_mm = current->mm;
		prf_ring_new_task(rb);
	}
}
