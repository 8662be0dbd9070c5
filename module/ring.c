// SPDX-License-Identifier: GPL-2.0
/*
 * Per-CPU, lock-free ring buffer, safe against nesting on its CPU.
 *
 * Writers run in task, IRQ and NMI context and only ever on the ring of
 * the CPU they run on, with preemption off, so a writer can be
 * interrupted by another writer but never runs beside one: local_t
 * operations suffice.  A writer reserves its bytes by moving head with
 * local_cmpxchg() and copies its record; only the outermost writer
 * (nest == 1) publishes head to the control page, so the reader never
 * sees a head past a record an interrupted writer has not finished.
 *
 * Everything userspace can write, the whole control page, is hostile:
 * the kernel reads only data_tail (for the room, outside overwrite mode)
 * and new_tasks_seen (for a wake-up), once per use, and never reads back
 * what it wrote there; its own copies live in struct prf_ring.  The
 * data pages are mapped read-only, so the records the kernel reads
 * (overwrite mode) are its own.
 *
 * The reader protocol and its barriers:
 *
 *   kernel (writer)                     user (reader)
 *   LOAD  ctl->data_tail                LOAD  ctl->data_head
 *   if room: (A)                        smp_rmb()              (C)
 *     STORE record                      LOAD  records
 *     smp_wmb()        (B)              smp_mb()               (D)
 *     STORE ctl->data_head              STORE ctl->data_tail
 *
 * A is a control dependency: the record stores depend on the tail load
 * that decided there was room, so they cannot be done before it; it
 * pairs with D, which keeps the reader's loads of old records before
 * its tail store.  B pairs with C: a reader that sees the new head sees
 * the records below it.  E, F, G and H are the new-task count's, see
 * prf_ring_publish_more(); J and K are the reader's own (libperfregs).
 *
 * The counters (produced, lost, new tasks) and head are published by
 * the outermost writer only, in prf_ring_leave(), from private local_t
 * copies: a writer that nests anywhere inside another is seen by it
 * before it leaves, so no published value ever goes backwards.  head
 * moves back only in prf_ring_write_stack(), by the writer that owns
 * the last reservation, to trim it, and before any leave publishes it.
 */
#include <linux/vmalloc.h>
#include <linux/module.h>
#include <linux/mm.h>
#include <linux/timekeeping.h>
#include <linux/sched.h>
#include <linux/uaccess.h>
#include <linux/kmsan-checks.h>
#include "internal.h"
#include "ring.h"

static void prf_ring_wake(struct irq_work *work)
{
	struct prf_ring *rb = container_of(work, struct prf_ring, work);

	wake_up_interruptible_poll(&rb->session->wq, EPOLLIN | EPOLLRDNORM);
}

static void prf_ring_wake_task(struct irq_work *work)
{
	struct prf_ring *rb = container_of(work, struct prf_ring, task_work);

	wake_up_interruptible_poll(&rb->session->wq, EPOLLPRI);
}

/*
 * For the tests: fill new data pages with a pattern instead of zeros, so
 * a byte of a record the writer forgot shows up as 0xa5.
 */
static bool poison_rings;
module_param(poison_rings, bool, 0644);
MODULE_PARM_DESC(poison_rings, "fill new rings with 0xa5 (for testing)");

/*
 * A ring's memory is the user's, for as long as it lives: charged to
 * the memory cgroup of the task that configures (__GFP_ACCOUNT), so a
 * container's memory.max holds it and the OOM killer sees it, and
 * failing with ENOMEM at the limit instead of calling the cgroup's OOM
 * killer on its tasks (__GFP_RETRY_MAYFAIL), with no warning for a
 * limit a user reached (__GFP_NOWARN).  Mapped page by page, with
 * vm_insert_page(), by prf_ring_map(): remap_vmalloc_range() wants
 * vmalloc_user()'s VM_USERMAP area, which is not accounted.
 */
#define PRF_RING_GFP	(GFP_KERNEL_ACCOUNT | __GFP_ZERO | \
			 __GFP_RETRY_MAYFAIL | __GFP_NOWARN)

/**
 * prf_ring_alloc() - a new, empty ring for one CPU of a session
 * @s: the session it belongs to
 * @cpu: the CPU it is for (its memory comes from the CPU's node)
 * @pages: data pages, a power of two
 * @overwrite: keep the newest records (PERFREGS_CF_OVERWRITE)
 * @watermark: wake readers every this many bytes (clamped to half)
 *
 * The memory is charged to the caller's memory cgroup, see PRF_RING_GFP.
 *
 * Context: process context, may sleep.
 * Return: the ring, or NULL without memory.
 */
struct prf_ring *prf_ring_alloc(struct prf_session *s, int cpu,
				unsigned int pages, bool overwrite,
				unsigned long watermark)
{
	struct prf_ring *rb;

	rb = kzalloc_node(sizeof(*rb), GFP_KERNEL_ACCOUNT, cpu_to_node(cpu));
	if (!rb)
		return NULL;
	rb->ctl = __vmalloc(PAGE_SIZE, PRF_RING_GFP);
	if (!rb->ctl)
		goto out_free_rb;
	rb->size = (unsigned long)pages << PAGE_SHIFT;
	rb->data = __vmalloc(rb->size, PRF_RING_GFP);
	if (!rb->data)
		goto out_free_ctl;
	if (READ_ONCE(poison_rings))
		memset(rb->data, 0xa5, rb->size);
	rb->mask = rb->size - 1;
	rb->overwrite = overwrite;
	rb->watermark = clamp_val(watermark, 1UL, rb->size / 2);
	rb->session = s;
	local_set(&rb->nest, 0);
	init_irq_work(&rb->work, prf_ring_wake);
	init_irq_work(&rb->task_work, prf_ring_wake_task);
	prf_ring_reset(rb);	/* the counters, head and tail */

	rb->ctl->version = PERFREGS_ABI_MAJOR;
	rb->ctl->cpu = cpu;
	rb->ctl->data_size = rb->size;
	return rb;

out_free_ctl:
	vfree(rb->ctl);
out_free_rb:
	kfree(rb);
	return NULL;
}

/**
 * prf_ring_map() - map a ring's pages into a user mapping
 * @vma: the mapping, whose flags the caller has set
 * @area: the ring's control page or its data pages
 * @len: bytes to map, the size of @area
 *
 * On an error the pages inserted so far are unmapped with the vma by
 * mmap's own unwinding.
 *
 * Context: mmap(), with mmap_lock and the session's map_lock held.
 * Return: 0, or the error of vm_insert_page().
 */
int prf_ring_map(struct vm_area_struct *vma, void *area, unsigned long len)
{
	unsigned long off;
	int ret;

	for (off = 0; off < len; off += PAGE_SIZE) {
		ret = vm_insert_page(vma, vma->vm_start + off,
				     vmalloc_to_page(area + off));
		if (ret)
			return ret;
	}
	return 0;
}

/**
 * prf_ring_free() - free a ring
 * @rb: the ring, or NULL
 *
 * Context: process context, no writer about: the session's sources are
 * stopped and no mapping is left.
 */
void prf_ring_free(struct prf_ring *rb)
{
	if (!rb)
		return;
	irq_work_sync(&rb->work);
	irq_work_sync(&rb->task_work);
	vfree(rb->data);
	vfree(rb->ctl);
	kfree(rb);
}

/**
 * prf_ring_publish_more() - publish the rest of what a writer leaves
 * @rb: the ring
 *
 * The rest of what the outermost writer publishes, when there is more
 * than head and produced: the overwrite tail, the lost counters, the
 * new-task count and its wake-up.
 *
 * The new-task count, and its EPOLLPRI wake-up if userspace had seen
 * every earlier one.  Otherwise either a wake-up for an earlier one is
 * on its way, or userspace has not stored new_tasks_seen yet; it polls
 * after storing it, and its poll then finds the counts differ::
 *
 *   kernel (writer)                     user (learner)
 *   STORE ctl->new_tasks                STORE ctl->new_tasks_seen
 *   smp_mb()           (E)              poll: smp_mb()          (F)
 *   LOAD  ctl->new_tasks_seen                 LOAD ctl->new_tasks
 *
 * E pairs with F in prf_session_poll(): at least one side sees the
 * other's store, so a learner never sleeps through a new task.  What
 * userspace stores in new_tasks_seen only decides whether it is woken.
 *
 * Context: prf_ring_leave() of the outermost writer (nest == 1), any
 * context (NMI too).
 */
void prf_ring_publish_more(struct prf_ring *rb)
{
	unsigned long n, old;
	int i;

	if (rb->overwrite)
		WRITE_ONCE(rb->ctl->data_tail, local_read(&rb->otail));

	n = local_read(&rb->lost_events);
	if (n != rb->pub_lost_events) {
		for (i = 0; i < PERFREGS_LOST_MAX; i++)
			WRITE_ONCE(rb->ctl->lost[i], local_read(&rb->lost[i]));
		/* after the stores: a writer that nests before is seen by seq */
		rb->pub_lost_events = n;
	}

	n = local_read(&rb->new_tasks);
	if (n != rb->pub_new_tasks) {
		old = rb->pub_new_tasks;
		/*
		 * G: data_head before the count, so that the records below
		 * it include every task counted; pairs with H, the reader's
		 * acquire of new_tasks before it loads data_head.
		 */
		smp_wmb();
		WRITE_ONCE(rb->ctl->new_tasks, n);
		WRITE_ONCE(rb->pub_new_tasks, n);
		smp_mb(); /* E: see above, pairs with F in prf_session_poll() */
		if (READ_ONCE(rb->ctl->new_tasks_seen) == old)
			irq_work_queue(&rb->task_work);
	}
}

/**
 * prf_ring_lost() - count a record that will not be written
 * @rb: the ring
 * @cause: why
 *
 * Counted for the control page and, but for PERFREGS_LOST_ENTRY (whose
 * sample is still written, without user registers), for the next LOST
 * record.
 *
 * Context: a writer, inside its prf_ring_enter() bracket, any context.
 */
void prf_ring_lost(struct prf_ring *rb, enum perfregs_lost_cause cause)
{
	local_inc(&rb->lost[cause]);
	local_inc(&rb->lost_events);
	if (cause == PERFREGS_LOST_ENTRY)
		return;	/* the sample is still written, without user regs */
	local_inc(&rb->lost_pending[cause]);
	local_inc(&rb->lost_any);
}

/* A record's size at @off, if it is a sane one below @limit; else 0. */
static u32 prf_ring_rec_size(struct prf_ring *rb, unsigned long off,
			     unsigned long limit)
{
	u32 hsize;

	/* off is 8-aligned and the ring a multiple of 8: never wraps */
	hsize = ((struct perfregs_rec_header *)(rb->data + (off & rb->mask)))->size;
	if (hsize < sizeof(struct perfregs_rec_header) || hsize % 8 ||
	    hsize > limit - off)
		return 0;
	return hsize;
}

/**
 * prf_ring_make_room() - overwrite mode: move the tail past what a
 *	reservation overlays
 * @rb: the ring
 * @head: the end of the reservation just made
 *
 * Overwrite mode: the kernel owns the tail, rb->otail, the oldest whole
 * record; userspace cannot touch it.  Before a writer copies into its
 * reservation ending at @head, it moves otail past every record those
 * bytes overlay, reading their headers while they are still intact.
 * Every record below rb->busy is whole (its writer finished before the
 * outermost writer of the moment began) and the reservation check keeps
 * head within a ring of busy, so the walk reads only whole records, all
 * written by the kernel into pages userspace cannot write.  Nested
 * writers move otail only forward, with cmpxchg: one that loses a race
 * just looks again.
 *
 * Context: prf_ring_reserve(), any context (NMI too).
 */
void prf_ring_make_room(struct prf_ring *rb, unsigned long head)
{
	unsigned long tail, busy, next;
	u32 hsize;

	for (;;) {
		tail = local_read(&rb->otail);
		if (head - tail <= rb->size)
			return;
		busy = local_read(&rb->busy);
		/* the reservation check keeps head within a ring of busy */
		if (WARN_ON_ONCE(tail >= busy))
			return;
		hsize = prf_ring_rec_size(rb, tail, busy);
		next = hsize ? tail + hsize : busy;
		if (local_cmpxchg(&rb->otail, tail, next) == tail)
			/* a bad header we were not racing with: a bug */
			WARN_ON_ONCE(!hsize);
	}
}

/**
 * prf_ring_write() - copy bytes into a reservation
 * @h: the reservation, advanced by @len
 * @src: the bytes
 * @len: how many; never past the end of the reservation
 *
 * Wraps around the end of the ring as needed.
 *
 * Context: a writer, any context (NMI too).
 */
void prf_ring_write(struct prf_handle *h, const void *src, size_t len)
{
	struct prf_ring *rb = h->rb;
	unsigned long pos = h->offset & rb->mask;
	size_t first;

	if (WARN_ON_ONCE(h->offset + len > h->end))
		return;
	first = min_t(size_t, len, rb->size - pos);
	memcpy(rb->data + pos, src, first);
	if (len > first)
		memcpy(rb->data, src + first, len - first);
	h->offset += len;
}

/**
 * prf_ring_kmsan_check() - KMSAN: the record just written is initialized
 * @h: the reservation, written up to h->offset
 * @start: where the record began
 *
 * Every byte of the record just written, [@start, h->offset), must have
 * been written by us, from initialized values: userspace reads the ring
 * through its mapping, where KMSAN cannot see it, so this is where it
 * checks what goes out (the test suites' fill patterns check the same
 * from userspace).  Called through prf_ring_check_written(), only on a
 * KMSAN kernel.
 *
 * Context: a writer, any context (NMI too).
 */
void prf_ring_kmsan_check(const struct prf_handle *h, unsigned long start)
{
	struct prf_ring *rb = h->rb;
	unsigned long pos = start & rb->mask;
	size_t len = h->offset - start, first;

	first = min_t(size_t, len, rb->size - pos);
	kmsan_check_memory(rb->data + pos, first);
	if (len > first)
		kmsan_check_memory(rb->data, len - first);
}

/* Store a word at @off, 8-aligned: it never wraps (the ring is 8-aligned). */
static void prf_ring_store(struct prf_ring *rb, unsigned long off, u64 v)
{
	*(u64 *)(rb->data + (off & rb->mask)) = v;
}

/* Zero @len bytes at @off. */
static void prf_ring_zero(struct prf_ring *rb, unsigned long off, size_t len)
{
	unsigned long pos = off & rb->mask;
	size_t first = min_t(size_t, len, rb->size - pos);

	memset(rb->data + pos, 0, first);
	if (len > first)
		memset(rb->data, 0, len - first);
}

/*
 * Copy @len bytes of user memory to @off, from any context (NMI
 * included: no fault is taken, a missing page just ends the copy).
 * Returns how many bytes were copied, from the start.
 */
static size_t prf_ring_copy_user(struct prf_ring *rb, unsigned long off,
				 const void __user *src, size_t len)
{
	unsigned long pos = off & rb->mask;
	size_t first = min_t(size_t, len, rb->size - pos), left;

	left = copy_from_user_nmi(rb->data + pos, src, first);
	if (left || len == first)
		return first - left;
	left = copy_from_user_nmi(rb->data, src + first, len - first);
	return len - left;
}

/**
 * prf_ring_write_stack() - the user stack block of a sample record
 * @h: the reservation, with 16 + @len + @tail bytes left
 * @start: where the record began
 * @src: the user SP
 * @len: the bytes of stack asked for, a multiple of 8
 * @tail: the bytes of the sections after the block, a multiple of 8
 *
 * The block is { u64 size; char stack[size]; u64 copied }; @tail bytes
 * of the record follow it, written by the caller after this.
 *
 * The copy ends at the first page that cannot be read without a fault:
 * on a thread's stack, the top of its mapping (above glibc's thread
 * descriptor and TLS), a few KiB above the SP where 8 KiB were asked
 * for; a main thread's copy is bounded before (prf_stack_len()).  The
 * kernel offers no NMI-safe way to find the end of a thread's frames
 * (find_vma() needs the mmap lock), so that fault is the bound we use.
 * The reservation was made for the full length: in overwrite mode it
 * may have pushed out one more old record than the trimmed one needs,
 * and a record that does not fit untrimmed is lost.  When the copy
 * comes up short and no writer has reserved after us (one that nested
 * in us since our reservation has), the reservation shrinks to the
 * bytes copied, rounded up to 8, and the record's header and size
 * field say so: bytes nobody can use take no room in the ring, the
 * file or the reader's time.  Else the rest is zeroed: no stale byte of
 * the ring reaches the reader.  The reader only sees the record once
 * the outermost writer publishes head, after all of this.
 *
 * Context: a writer, any context (NMI too): no fault is taken.
 */
void prf_ring_write_stack(struct prf_handle *h, unsigned long start,
			  const void __user *src, u64 len, u32 tail)
{
	struct prf_ring *rb = h->rb;
	struct perfregs_rec_header *hdr;
	unsigned long at = h->offset;
	u64 copied, keep;

	if (WARN_ON_ONCE(at + 16 + len + tail != h->end || len % 8 || tail % 8)) {
		prf_ring_zero(rb, at, h->end - at);	/* no stale byte out */
		h->offset = h->end;
		return;
	}
	/* copy_from_user_nmi() copies nothing of a range past the top */
	if ((unsigned long)src >= TASK_SIZE_MAX)
		copied = 0;
	else
		copied = prf_ring_copy_user(rb, at + 8, src,
					    min_t(u64, len, TASK_SIZE_MAX -
						  (unsigned long)src));
	keep = round_up(copied, 8);
	if (keep < len &&
	    local_cmpxchg(&rb->head, h->end, h->end - (len - keep)) == h->end) {
		h->end -= len - keep;
		/* 8-aligned, so the header does not wrap either */
		hdr = rb->data + (start & rb->mask);
		hdr->size -= len - keep;
	} else {
		keep = len;
	}
	prf_ring_store(rb, at, keep);
	prf_ring_zero(rb, at + 8 + copied, keep - copied);
	prf_ring_store(rb, at + 8 + keep, copied);
	h->offset = at + 16 + keep;
}

/**
 * prf_ring_zero_rest() - zero what is left of a reservation
 * @h: the reservation, written up to h->offset
 *
 * For a writer that found its reservation not what it planned (a bug):
 * no stale byte of the ring reaches the reader.
 *
 * Context: a writer, any context (NMI too).
 */
void prf_ring_zero_rest(struct prf_handle *h)
{
	prf_ring_zero(h->rb, h->offset, h->end - h->offset);
	h->offset = h->end;
}

/**
 * prf_ring_emit_lost() - a LOST record for what was dropped since the last
 * @rb: the ring
 * @extra: bytes that must stay free after it
 * @nested: the writer interrupted another on this CPU
 *
 * Written only if there is room for it and @extra bytes after it; else
 * the counts wait for the next writer.
 *
 * Context: a writer, inside its bracket, any context (NMI too).
 */
void prf_ring_emit_lost(struct prf_ring *rb, u32 extra, bool nested)
{
	struct perfregs_rec_lost rec;
	struct prf_handle h;
	int i;

	if (prf_ring_reserve(rb, &h, sizeof(rec), extra, nested, false))
		return;
	rec.header.type = PERFREGS_REC_LOST;
	rec.header.size = sizeof(rec);
	rec.time = ktime_get_mono_fast_ns();
	local_set(&rb->lost_any, 0);
	for (i = 0; i < PERFREGS_LOST_MAX; i++)
		rec.lost[i] = local_xchg(&rb->lost_pending[i], 0);
	for (; i < PERFREGS_LOST_SLOTS; i++)
		rec.lost[i] = 0;
	prf_ring_write(&h, &rec, sizeof(rec));
	prf_ring_check_written(&h, h.offset - sizeof(rec));
}

/**
 * prf_ring_flush_lost() - report what is still pending in a LOST record
 * @rb: the ring
 *
 * In the room every reservation kept for it.
 *
 * Context: once the session's sources are stopped, so no writer can run
 * beside us; preemption off.
 */
void prf_ring_flush_lost(struct prf_ring *rb)
{
	if (!local_read(&rb->lost_any))
		return;
	prf_ring_enter(rb);
	prf_ring_emit_lost(rb, 0, false);	/* the room kept for it */
	prf_ring_leave(rb);
}

/**
 * prf_ring_stopped() - publish head again once the session stopped
 * @rb: the ring
 *
 * Store head (and in overwrite mode the tail) again, whatever userspace
 * wrote over them meanwhile, so that a reader that scribbled on its
 * control page can still read.
 *
 * Context: the session stopped, no writer about.
 */
void prf_ring_stopped(struct prf_ring *rb)
{
	WRITE_ONCE(rb->ctl->data_head, rb->pub_head);
	if (rb->overwrite)
		WRITE_ONCE(rb->ctl->data_tail, local_read(&rb->otail));
}

/**
 * prf_ring_reset() - empty the ring and zero its counters
 * @rb: the ring
 *
 * Context: process context, no writer about (CONFIG, RESET while
 * stopped).
 */
void prf_ring_reset(struct prf_ring *rb)
{
	int i;

	irq_work_sync(&rb->work);
	irq_work_sync(&rb->task_work);
	local_set(&rb->head, 0);
	local_set(&rb->seq, 0);
	local_set(&rb->busy, 0);
	local_set(&rb->otail, 0);
	local_set(&rb->new_tasks, 0);
	local_set(&rb->lost_events, 0);
	rb->pub_head = 0;
	rb->pub_lost_events = 0;
	rb->pub_new_tasks = 0;
	rb->last_tgid = 0;
	rb->last_mm = NULL;
	local_set(&rb->wakeup, 0);
	local_set(&rb->produced, 0);
	local_set(&rb->lost_any, 0);
	for (i = 0; i < PERFREGS_LOST_MAX; i++) {
		local_set(&rb->lost[i], 0);
		local_set(&rb->lost_pending[i], 0);
	}
	for (i = 0; i < PERFREGS_LOST_SLOTS; i++)
		WRITE_ONCE(rb->ctl->lost[i], 0);
	WRITE_ONCE(rb->ctl->produced, 0);
	WRITE_ONCE(rb->ctl->new_tasks, 0);
	WRITE_ONCE(rb->ctl->new_tasks_seen, 0);
	WRITE_ONCE(rb->ctl->data_tail, 0);
	WRITE_ONCE(rb->ctl->data_head, 0);
}

/**
 * prf_ring_resume() - overwrite mode: where START goes on from
 * @rb: the ring
 *
 * Go on from the data_tail the reader stored while the session was
 * stopped, if it is the start of a record at or after the oldest one
 * and no later than head (every record in there is whole: the session
 * is stopped); else from the oldest.  The walk looks only at the
 * kernel's own records.  Nothing to do outside overwrite mode.
 *
 * Context: START, with no writer about.
 */
void prf_ring_resume(struct prf_ring *rb)
{
	unsigned long head = local_read(&rb->head);
	unsigned long tail = local_read(&rb->otail);
	u64 want = READ_ONCE(rb->ctl->data_tail);
	u32 hsize;

	if (!rb->overwrite)
		return;
	if (want > tail && want <= head) {
		while (tail < want) {
			hsize = prf_ring_rec_size(rb, tail, head);
			if (!hsize)
				break;
			tail += hsize;
		}
		if (tail == want)
			local_set(&rb->otail, tail);
	}
	WRITE_ONCE(rb->ctl->data_tail, local_read(&rb->otail));
}

/**
 * prf_ring_readable() - is there a watermark's worth of records to read?
 * @rb: the ring
 *
 * From the kernel's own copies, but for the reader's tail outside
 * overwrite mode; in overwrite mode only once the session stopped (see
 * prf_ring_make_room()).  Below the watermark, yes once stopped.
 *
 * Context: poll(), any CPU.
 * Return: true if poll() should report EPOLLIN.
 */
bool prf_ring_readable(struct prf_ring *rb)
{
	unsigned long head = READ_ONCE(rb->pub_head);
	unsigned long tail;

	if (rb->overwrite)	/* read once stopped: see prf_ring_make_room() */
		return head != local_read(&rb->otail) &&
		       !READ_ONCE(rb->session->running);
	tail = READ_ONCE(rb->ctl->data_tail);
	return head != tail && (head - tail >= rb->watermark ||
				!READ_ONCE(rb->session->running));
}

/**
 * prf_ring_new_tasks_unseen() - has userspace not seen every new task?
 * @rb: the ring
 *
 * Context: poll(), any CPU, after its barrier F.
 * Return: true if the published new-task count differs from the one
 * userspace stored in new_tasks_seen.
 */
bool prf_ring_new_tasks_unseen(struct prf_ring *rb)
{
	return READ_ONCE(rb->pub_new_tasks) != READ_ONCE(rb->ctl->new_tasks_seen);
}
