/* SPDX-License-Identifier: GPL-2.0 */
/* pool.c: the worker threads that print the samples of -i (--threads). */
#ifndef PERFREGS_DUMP_POOL_H
#define PERFREGS_DUMP_POOL_H

#include "types.h"

#define POOL_THREADS_MAX	256	/* --threads N: at most */

struct pool *pool_start(struct decoder *d, unsigned int threads);
/*
 * A window of a recording's bytes, as recording.c reads it (struct
 * rec_src), that --threads' batches point into: one with records handed
 * out stays as it is until each batch that holds it puts it back.  The
 * reading thread's only (pool_record(), batch_write()): the holds are a
 * plain count.  Put back by everyone, it goes to its home's spares if
 * it is of their size and they are not full, or is freed.
 */
struct chunk_spares {
	struct rec_chunk *list;
	unsigned int n;
	size_t cap;		/* the size of a spare */
};

struct rec_chunk {
	unsigned int refs;
	size_t cap;
	struct chunk_spares *home;
	struct rec_chunk *next;	/* on home's list */
	unsigned char data[];
};

void rec_chunk_hold(struct rec_chunk *c);
void rec_chunk_put(struct rec_chunk *c);
void pool_record(struct decoder *d, int cpu, const struct perfregs_rec_header *rec,
		 size_t size, struct rec_chunk *c, uint64_t off);
bool pool_malformed(const struct decoder *d, uint64_t *off);
void pool_drain(struct decoder *d);
uint64_t pool_upto(const struct decoder *d);
int pool_end(struct decoder *d);
void pool_later(struct decoder *d, unsigned int threads);
void pool_maybe_start(struct decoder *d, uint64_t off);

#endif
