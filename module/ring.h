/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ring's hot path, inline in the sample handler: a call and its
 * prologue per step cost more than the steps.  The protocol and the
 * barriers A to D are described at the top of ring.c.
 */
#ifndef PERFREGS_RING_H
#define PERFREGS_RING_H

#include <linux/irq_work.h>
#include <asm/local.h>
#include "perfregs.h"

void prf_ring_make_room(struct prf_ring *rb, unsigned long offset,
			unsigned long head);
void prf_ring_emit_lost(struct prf_ring *rb, u32 extra, bool nested);

static inline void prf_ring_produced(struct prf_ring *rb)
{
	local_inc(&rb->produced);
	WRITE_ONCE(rb->ctl->produced, local_read(&rb->produced));
}

/* Publish head if we are the outermost writer, then leave. */
static inline void prf_ring_publish(struct prf_ring *rb)
{
	unsigned long head;

again:
	if (local_read(&rb->nest) > 1) {
		/* We interrupted a writer: it publishes for us on its way out. */
		local_dec(&rb->nest);
		return;
	}
	head = local_read(&rb->head);
	smp_wmb(); /* B: records before data_head, pairs with reader's C */
	WRITE_ONCE(rb->ctl->data_head, head);

	if (head - local_read(&rb->wakeup) >= rb->watermark) {
		local_set(&rb->wakeup, head);
		irq_work_queue(&rb->work);
	}

	/*
	 * A writer that interrupts us from here on sees nest == 0 and
	 * publishes itself; one that came before the store above was seen
	 * by it, unless it reserved after our load of head: check again.
	 */
	barrier();
	local_dec(&rb->nest);
	barrier();
	if (unlikely(head != local_read(&rb->head))) {
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
static inline int prf_ring_reserve(struct prf_ring *rb,
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
		tail = READ_ONCE(rb->ctl->data_tail);
		offset = local_read(&rb->head);
		/* A: the record stores below depend on this check, see top. */
		if (!rb->overwrite &&
		    unlikely(offset - tail + size + extra > rb->size)) {
			if (count)
				prf_ring_lost(rb, nested ? PERFREGS_LOST_NESTED :
							   PERFREGS_LOST_FULL);
			return -ENOSPC;
		}
		head = offset + size;
	} while (local_cmpxchg(&rb->head, offset, head) != offset);

	if (rb->overwrite)
		prf_ring_make_room(rb, offset, head);
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
static inline void *prf_ring_direct(struct prf_handle *h, size_t len)
{
	struct prf_ring *rb = h->rb;
	unsigned long pos = h->offset & rb->mask;

	if (WARN_ON_ONCE(h->offset + len > h->end) || len > rb->size - pos)
		return NULL;
	h->offset += len;
	return rb->data + pos;
}

/*
 * Start a record.  On success the caller writes exactly @size bytes
 * with prf_ring_write() and calls prf_ring_end().  On failure the
 * record is counted as lost and nothing is to be done.
 */
static inline int prf_ring_begin(struct prf_ring *rb, struct prf_handle *h,
				 u32 size)
{
	bool nested;
	int ret;

	local_inc(&rb->nest);
	barrier(); /* the nest count is up before we touch head */
	nested = local_read(&rb->nest) > 1;

	/* only with room for the sample after it, and the final LOST room */
	if (unlikely(local_read(&rb->lost_any)))
		prf_ring_emit_lost(rb, size + PRF_LOST_ROOM, nested);

	ret = prf_ring_reserve(rb, h, size, PRF_LOST_ROOM, nested, true);
	if (ret)
		prf_ring_publish(rb);
	return ret;
}

static inline void prf_ring_end(struct prf_handle *h)
{
	prf_ring_publish(h->rb);
}

#endif /* PERFREGS_RING_H */
