/* SPDX-License-Identifier: GPL-2.0 */
/* pool.c: the worker threads that print the samples of -i (--threads). */
#ifndef PERFREGS_DUMP_POOL_H
#define PERFREGS_DUMP_POOL_H

#include "types.h"
#include "rec-read.h"

#define POOL_THREADS_MAX	256	/* --threads N: at most */

struct pool *pool_start(struct session *d, unsigned int threads);
void pool_record(struct session *d, int cpu, const struct perfregs_rec_header *rec,
		 size_t size, struct rec_chunk *c, uint64_t off);
bool pool_malformed(const struct session *d, uint64_t *off);
void pool_drain(struct session *d);
uint64_t pool_upto(const struct session *d);
int pool_end(struct session *d);
void pool_later(struct session *d, unsigned int threads);
void pool_maybe_start(struct session *d, uint64_t off);

#endif
