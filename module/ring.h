/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The per-CPU ring: its types, the functions of ring.c, and its hot
 * path, inline in the sample handler: a call and its prologue per step
 * cost more than the steps.  The protocol and the barriers A to H are
 * described at the top of ring.c.
 *
 * A writer brackets everything it does to a ring, counting included:
 *
 *	prf_ring_enter(rb);
 *	... prf_ring_lost(), local_inc(&rb->produced) ...
 *	if (!prf_ring_begin(rb, &h, size))
 *		... prf_ring_write*(&h, ...) ...
 *	prf_ring_leave(rb);
 *
 * and only the outermost writer publishes, in prf_ring_leave().
 */
#ifndef PERFREGS_RING_H
#define PERFREGS_RING_H

#include <linux/types.h>
#include <linux/bug.h>
#include <linux/compiler.h>
#include <linux/irq_work.h>
#include <asm/local.h>
#include <linux/perfregs.h>
#include "inject.h"

struct prf_session;
struct vm_area_struct;

/* One CPU's ring buffer: a control page and data pages, both mmapped. */
struct prf_ring {
	struct perfregs_ctl *ctl;	/* a vmalloc'ed page, hostile */
	void *data;			/* vmalloc'ed, read-only to users */
	unsigned long size;		/* bytes, a power of two */
	unsigned long mask;		/* size - 1 */
	bool overwrite;
	unsigned long watermark;	/* wake readers every this many bytes */

	local_t head;			/* bytes reserved so far */
	local_t nest;			/* writers active on this CPU */
	local_t seq;			/* bumped by every writer: see publish */
	local_t busy;			/* head when the outermost writer began */
	local_t otail;			/* overwrite: the oldest whole record */
	local_t wakeup;			/* head at the last wake-up */
	local_t produced;		/* samples taken */
	local_t lost[PERFREGS_LOST_MAX];	/* running totals */
	local_t lost_events;		/* sum of lost[], to publish them */
	local_t lost_pending[PERFREGS_LOST_MAX]; /* not yet reported */
	local_t lost_any;		/* nonzero when lost_pending is */
	local_t new_tasks;		/* see prf_ring_publish_more() */

	/*
	 * What the outermost writer last published to the control page,
	 * kept here because the control page is the user's to scribble on:
	 * the kernel never reads back what it wrote there.
	 */
	unsigned long pub_head;		/* also read by poll() on other CPUs */
	unsigned long pub_lost_events;
	unsigned long pub_new_tasks;

	struct irq_work work;		/* wake-up, never from NMI directly */
	struct prf_session *session;

	/* the last user task sampled here, to count new ones */
	pid_t last_tgid;
	const struct mm_struct *last_mm;	/* compared, never dereferenced */
	struct irq_work task_work;	/* EPOLLPRI wake-up */
};

/* A reservation in a ring: where the writer copies its record. */
struct prf_handle {
	struct prf_ring *rb;
	unsigned long offset;		/* next byte to write */
	unsigned long end;		/* end of the reservation */
};

/* ring.c: the ring's life, in process context with no writer about */
struct prf_ring *prf_ring_alloc(struct prf_session *s, int cpu,
				unsigned int pages, bool overwrite,
				unsigned long watermark);
int prf_ring_map(struct vm_area_struct *vma, void *area, unsigned long len);
void prf_ring_free(struct prf_ring *rb);
void prf_ring_reset(struct prf_ring *rb);
void prf_ring_resume(struct prf_ring *rb);
void prf_ring_flush_lost(struct prf_ring *rb);
void prf_ring_stopped(struct prf_ring *rb);

/* ring.c: what poll() asks, from any CPU */
bool prf_ring_readable(struct prf_ring *rb);
bool prf_ring_new_tasks_unseen(struct prf_ring *rb);

/* ring.c: the writer's, on the ring of its CPU (any context, NMI too) */
void prf_ring_lost(struct prf_ring *rb, enum perfregs_lost_cause cause);
void prf_ring_write(struct prf_handle *h, const void *src, size_t len);
void prf_ring_write_stack(struct prf_handle *h, unsigned long start,
			  const void __user *src, u64 len, u32 tail);
void prf_ring_zero_rest(struct prf_handle *h);
void prf_ring_kmsan_check(const struct prf_handle *h, unsigned long start);
void prf_ring_make_room(struct prf_ring *rb, unsigned long head);
void prf_ring_emit_lost(struct prf_ring *rb, u32 extra, bool nested);
void prf_ring_publish_more(struct prf_ring *rb);

/**
 * prf_ring_check_written() - KMSAN: the record at @start was initialized
 * @h: the reservation, written up to h->offset
 * @start: where the record began
 *
 * prf_ring_kmsan_check() on a KMSAN kernel, nothing elsewhere.
 *
 * Context: a writer, any context (NMI too).
 */
static inline void prf_ring_check_written(const struct prf_handle *h,
					  unsigned long start)
{
	if (IS_ENABLED(CONFIG_KMSAN))
		prf_ring_kmsan_check(h, start);
}

/**
 * prf_ring_enter() - a writer begins on the ring of its CPU
 * @rb: the ring
 *
 * Opens the writer's bracket, closed by prf_ring_leave(): everything a
 * writer does to a ring, counting included, happens in between.
 *
 * Context: any context (NMI too), preemption off, on @rb's CPU.
 */
static __always_inline void prf_ring_enter(struct prf_ring *rb)
{
	/*
	 * The outermost writer notes where the bytes in flight begin: no
	 * nested writer may reserve so far ahead of it (overwrite mode)
	 * that it would overwrite them.  A writer that nests before the
	 * store sees an older, smaller busy, which only leaves it less
	 * room.
	 */
	if (local_inc_return(&rb->nest) == 1)
		local_set(&rb->busy, local_read(&rb->head));
	local_inc(&rb->seq);
	barrier(); /* nest and seq are up before we touch anything else */
}

/**
 * prf_ring_leave() - a writer is done with the ring
 * @rb: the ring
 *
 * The outermost writer publishes head and the counters (and wakes the
 * readers at the watermark) before it leaves; a nested one only leaves,
 * and the writer it interrupted publishes for it.
 *
 * Context: the end of a prf_ring_enter() bracket, on the same CPU.
 */
static __always_inline void prf_ring_leave(struct prf_ring *rb)
{
	unsigned long head, seq;

again:
	if (local_read(&rb->nest) > 1) {
		/* We interrupted a writer: it publishes for us on its way out. */
		local_dec(&rb->nest);
		return;
	}
	seq = local_read(&rb->seq);
	barrier(); /* seq before what it guards */
	head = local_read(&rb->head);
	smp_wmb(); /* B: records before data_head, pairs with reader's C */
	WRITE_ONCE(rb->ctl->data_head, head);
	WRITE_ONCE(rb->pub_head, head);
	WRITE_ONCE(rb->ctl->produced, local_read(&rb->produced));
	if (unlikely(rb->overwrite ||
		     local_read(&rb->lost_events) != rb->pub_lost_events ||
		     local_read(&rb->new_tasks) != rb->pub_new_tasks))
		prf_ring_publish_more(rb);

	if (head - local_read(&rb->wakeup) >= rb->watermark) {
		local_set(&rb->wakeup, head);
		irq_work_queue(&rb->work);
	}
	/* a test: a writer nests right here */
	prf_inject_hook(PRF_INJECT_LEAVE, rb->session, NULL, &rb->nest);

	/*
	 * A writer that interrupts us from here on sees nest == 0 and
	 * publishes itself.  One that came before was seen by our loads,
	 * unless it came after our load of seq: then seq moved (every
	 * writer bumps it when it enters), and we publish again.
	 */
	barrier();
	local_dec(&rb->nest);
	barrier();
	if (unlikely(seq != local_read(&rb->seq))) {
		local_inc(&rb->nest);
		goto again;
	}
}

/*
 * Room a LOST record needs.  Every reservation but the final flush
 * leaves at least this much free, so that the LOST record written when
 * the session stops always fits: the reader then sees every loss
 * in-band, even when it stalled until the very end.
 */
#define PRF_LOST_ROOM	sizeof(struct perfregs_rec_lost)

/**
 * prf_ring_reserve() - reserve room for one record
 * @rb: the ring
 * @h: the reservation, filled in on success
 * @size: the record's bytes, a multiple of 8
 * @extra: bytes that must still be free after it
 * @nested: the writer interrupted another on this CPU (which cause a
 *	loss is counted under)
 * @count: count a sample lost when there is no room (a LOST record
 *	that finds none is simply written later)
 *
 * Context: a writer, inside its bracket, any context (NMI too).
 * Return: 0, -E2BIG for a record larger than half the ring, -ENOSPC
 * when there is no room.
 */
static __always_inline int prf_ring_reserve(struct prf_ring *rb,
					    struct prf_handle *h, u32 size,
					    u32 extra, bool nested, bool count)
{
	unsigned long tail, offset, head;

	if (unlikely(size > rb->size / 2)) {
		if (count)
			prf_ring_lost(rb, PERFREGS_LOST_FULL);
		return -E2BIG;
	}
	do {
		offset = local_read(&rb->head);
		if (rb->overwrite) {
			/*
			 * Never onto bytes a writer we interrupted has
			 * reserved but not written yet.
			 */
			if (unlikely(offset + size - local_read(&rb->busy) >
				     rb->size)) {
				if (count)
					prf_ring_lost(rb, nested ?
						      PERFREGS_LOST_NESTED :
						      PERFREGS_LOST_FULL);
				return -ENOSPC;
			}
		} else {
			/*
			 * A: the record stores below depend on this check of
			 * the user's tail, see the top of ring.c.  Whatever
			 * userspace stored there, the worst is that we find
			 * no room, or overwrite what it has not read.
			 */
			tail = READ_ONCE(rb->ctl->data_tail);
			if (unlikely(offset - tail + size + extra > rb->size)) {
				if (count)
					prf_ring_lost(rb, nested ?
						      PERFREGS_LOST_NESTED :
						      PERFREGS_LOST_FULL);
				return -ENOSPC;
			}
		}
		head = offset + size;
	} while (local_cmpxchg(&rb->head, offset, head) != offset);

	if (rb->overwrite)
		prf_ring_make_room(rb, head);
	h->rb = rb;
	h->offset = offset;
	h->end = head;
	return 0;
}

/**
 * prf_ring_direct() - the next bytes of a reservation, in place
 * @h: the reservation, advanced by @len on success
 * @len: how many bytes
 *
 * Saves a copy and a call per field: the caller writes the bytes in
 * place.
 *
 * Context: a writer, any context (NMI too).
 * Return: where to write the next @len bytes, or NULL if they wrap
 * around the end of the ring (the caller then uses prf_ring_write()).
 */
static __always_inline void *prf_ring_direct(struct prf_handle *h, size_t len)
{
	struct prf_ring *rb = h->rb;
	unsigned long pos = h->offset & rb->mask;

	if (WARN_ON_ONCE(h->offset + len > h->end) || len > rb->size - pos)
		return NULL;
	h->offset += len;
	return rb->data + pos;
}

/**
 * prf_ring_begin() - reserve a sample record inside the writer's bracket
 * @rb: the ring
 * @h: the reservation, filled in on success
 * @size: the record's bytes, a multiple of 8
 *
 * Writes the LOST record that is due first, if there is room for it and
 * for the sample after it.  On success the caller writes exactly @size
 * bytes, or trims the reservation to what it wrote
 * (prf_ring_write_stack()); on failure the record is counted as lost.
 *
 * Context: a writer, inside its bracket, any context (NMI too).
 * Return: 0, or the error of prf_ring_reserve().
 */
static __always_inline int prf_ring_begin(struct prf_ring *rb,
					  struct prf_handle *h, u32 size)
{
	bool nested = local_read(&rb->nest) > 1;

	/* only with room for the sample after it, and the final LOST room */
	if (unlikely(local_read(&rb->lost_any)))
		prf_ring_emit_lost(rb, size + PRF_LOST_ROOM, nested);

	return prf_ring_reserve(rb, h, size, PRF_LOST_ROOM, nested, true);
}

#endif /* PERFREGS_RING_H */
