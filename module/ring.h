/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ring's hot path, inline in the sample handler: a call and its
 * prologue per step cost more than the steps.  The protocol and the
 * barriers A to G are described at the top of ring.c.
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

#include <linux/irq_work.h>
#include <asm/local.h>
#include "perfregs.h"
#include "inject.h"

void prf_ring_make_room(struct prf_ring *rb, unsigned long head);
void prf_ring_emit_lost(struct prf_ring *rb, u32 extra, bool nested);
void prf_ring_publish_more(struct prf_ring *rb);

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

/* Publish head and the counters if we are the outermost writer; leave. */
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
	if (prf_injecting())
		prf_inject_leave(rb);	/* a test: a writer nests right here */

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

/*
 * Reserve space for one record of @size bytes (a multiple of 8), with
 * @extra bytes still free after it.  A sample that finds no room is
 * counted lost; a LOST record (@count false) that finds none is simply
 * written later.
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

/*
 * The next @len bytes of the reservation, to be written in place, if
 * they do not wrap around the end of the ring; NULL otherwise (the
 * caller then uses prf_ring_write()).  Saves a copy and a call per field.
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

/*
 * Reserve a record inside the writer's bracket.  On success the caller
 * writes exactly @size bytes, or trims the reservation to what it wrote
 * (prf_ring_write_stack()); on failure the record is counted as lost.
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
