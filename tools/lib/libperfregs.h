/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libperfregs: the userspace side of /dev/perfregs, shared by
 * perfregs-dump and the selftests: open, configure, mmap every CPU's
 * ring, start, stop, and drain records in order per CPU.
 */
#ifndef LIBPERFREGS_H
#define LIBPERFREGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <linux/perfregs.h>

struct prf_cpu_ring {
	int cpu;
	struct perfregs_ctl *ctl;	/* read-write control page */
	const uint8_t *data;		/* read-only data pages */
	uint64_t size;
	uint8_t *scratch;		/* a record that wraps is copied here */
	uint64_t peeked;		/* prf_peek() has seen up to here */
};

struct prf_reader {
	int fd;
	struct perfregs_version version;
	struct perfregs_config cfg;
	unsigned int nr_rings;
	struct prf_cpu_ring *rings;
	uint64_t records;		/* records handed out */
	uint64_t samples;		/* of which samples */
	uint64_t lost[PERFREGS_LOST_MAX]; /* from LOST records */
	int witness_errno;		/* prf_config(): perf_event_open() said */
	/*
	 * If set, called by the drains once they have read a ring's head
	 * and before they hand over what lies below it: a reader that
	 * learns address spaces from perf's side-band applies the events
	 * every record up to that head may depend on.
	 */
	void (*before_records)(void *arg);
	void *before_arg;
};

/*
 * Called for every record; a nonzero return stops the drain with it.
 * size is the record's length as the walk checked it, read once: the
 * bytes at rec to use, none past them.  In a ring the header's own size
 * field may have changed since (the kernel writes wherever data_tail,
 * which any holder of the session may move, says is free), so fn reads
 * no length from there again.  A record that wrapped and was cut to
 * the scratch area has size scratch_size (see prf_walk()).
 */
typedef int (*prf_record_fn)(void *arg, int cpu,
			     const struct perfregs_rec_header *rec, size_t size);

/*
 * Copy len bytes from offset off of a span in two pieces, a (alen bytes)
 * then b, into dst; off + len must not pass the span's end.  A ring's
 * bytes from offset off on, around its end, are the span a = b = data,
 * alen = the ring's size.
 */
void prf_span_copy(void *dst, const void *a, size_t alen, const void *b,
		   size_t off, size_t len);

/*
 * Walk the records of a span in two pieces, a (alen bytes) then b (blen
 * bytes; b may be NULL when blen is 0), as the rings and the recordings
 * hold them: each starts with a struct perfregs_rec_header whose size
 * counts the header and is a multiple of 8.  Every record is checked
 * before fn sees it: a size below the header's, not a multiple of 8 or
 * past the span's end is malformed, and so is a tail of fewer bytes
 * than a header.
 *
 * fn gets each record contiguous: a pointer into a or b where it lies
 * wholly in one of them, else into scratch, where the record that wraps
 * from a into b is copied.  The pointer is good until fn returns (until
 * the next record, for scratch, and for a and b as long as their bytes
 * are).  A wrapping record longer than scratch_size is copied up to
 * scratch_size bytes only, its header's size unchanged: a caller that
 * reads only the fixed part of a record needs no more; one that reads
 * whole records passes a scratch as long as the longest (alen + blen
 * will do).  scratch may be NULL only when no record can wrap (blen 0);
 * else scratch_size must hold a header at least.  fn may be NULL: the
 * records are then only checked and counted.
 *
 * A nonzero return of fn stops the walk after that record.  Returns the
 * records handed to fn (the one that stopped it included), or -EBADMSG
 * at the first malformed header or short tail: the records before it
 * were handed over.  -ENOBUFS when a record wraps and scratch cannot
 * hold its header.  *consumed (if not NULL) is set to the bytes of the
 * records handed over: where the walk stopped, the malformed header
 * when there is one.  errno is not set.
 */
long prf_walk(const void *a, size_t alen, const void *b, size_t blen,
	      void *scratch, size_t scratch_size, prf_record_fn fn, void *arg,
	      int cpu, size_t *consumed);

/* All return 0 or a negative errno; errno is set too. */
int prf_open(struct prf_reader *r, const char *path);
/*
 * Configure.  With cfg->perf_fd < 0 (prf_config_default()'s), first
 * open the perf event that proves to the module that perf_event_open()
 * lets this caller sample what cfg asks for (prf_witness_open()), and
 * close it after; r->witness_errno then says whether perf refused.
 * cfg->size goes to the module as PERFREGS_CONFIG_SIZE_VER2 with
 * kchain_max set (minor 2), else as cfg's own, at most VER1: a module
 * before kernel call chains takes every configuration without them.
 */
int prf_config(struct prf_reader *r, const struct perfregs_config *cfg);

/*
 * The witness for cfg: a disabled perf event for the same event, period
 * and target (see perf_fd in the uapi header), sampling kernel call
 * chains of kchain_max entries when cfg->size has that field.  Returns
 * its fd, or a negative errno from perf_event_open().
 */
int prf_witness_open(const struct perfregs_config *cfg);
int prf_start(struct prf_reader *r);
int prf_stop(struct prf_reader *r);
void prf_close(struct prf_reader *r);

/*
 * Hand every record published so far to fn, CPU by CPU, and release the
 * space.  Returns the number of records, or a negative errno: -EBADMSG
 * when a ring holds a malformed record header (the ring is skipped).
 */
long prf_drain(struct prf_reader *r, prf_record_fn fn, void *arg);

/*
 * A run of whole, consecutive records of one CPU as they lie in its
 * ring: in two pieces when the run wraps around the ring's end (b, blen;
 * blen is 0 otherwise).  A nonzero return stops the drain.
 */
typedef int (*prf_span_fn)(void *arg, int cpu, const void *a, size_t alen,
			   const void *b, size_t blen);

/*
 * Show fn the records published since the last peek, without consuming
 * them: a reader whose decoding lags can learn about new tasks (their
 * images and maps) while they still exist.  fn sees a copy of at most
 * the first sizeof(struct perfregs_rec_sample) bytes of each record,
 * with the header's size unchanged; its return value is ignored.
 * Safe to call from a prf_drain() callback, or from one other thread
 * while a prf_drain() runs (records it consumes meanwhile are skipped).
 * Returns the records seen.
 */
long prf_peek(struct prf_reader *r, prf_record_fn fn, void *arg);

/*
 * Hand each ring's unread bytes to span as they lie, without parsing
 * them, and release them: for a recorder that checks the records later
 * (records, samples and lost are not counted).  The kernel publishes
 * whole records, so each span starts and ends on a record boundary.
 * Returns the bytes handed over, or -EBADMSG when a ring's head and
 * tail make no sense (the ring is skipped).
 */
long prf_drain_raw(struct prf_reader *r, prf_span_fn span, void *arg);

/*
 * Wait until a ring reaches its watermark or the session ends.  Returns
 * the poll events, 0 on timeout, or a negative errno.
 */
int prf_wait(struct prf_reader *r, int timeout_ms);

/* Set in what the waits return when the other fd became readable. */
#define PRF_WAIT_WOKEN	0x10000

/* prf_wait(), also returning when fd (if >= 0) becomes readable. */
int prf_wait_also(struct prf_reader *r, int fd, int timeout_ms);

/* Does the module count new tasks for prf_wait_new_task()?  (1.1 on) */
static inline int prf_has_new_tasks(const struct prf_reader *r)
{
	return r->version.major > 1 || r->version.minor >= 1;
}

/*
 * Wait until a ring holds a sample of a task (process or image) that
 * the previous user sample on its CPU was not of, published after what
 * prf_peek() last looked at; or until wake_fd (if >= 0) is readable
 * (PRF_WAIT_WOKEN).  Returns the poll events (POLLPRI; POLLHUP once the
 * session is stopped or its target gone), 0 on timeout, a negative
 * errno, -EOPNOTSUPP when the module is too old to tell.
 */
int prf_wait_new_task(struct prf_reader *r, int wake_fd, int timeout_ms);

/* Sum of the per-CPU control page counters. */
uint64_t prf_produced(const struct prf_reader *r);
uint64_t prf_lost_total(const struct prf_reader *r, int cause);

/*
 * Default config: cpu-clock, all CPUs, every register, 64 pages; size
 * PERFREGS_CONFIG_SIZE_VER1 (no kernel call chains: see prf_config()).
 */
void prf_config_default(struct perfregs_config *cfg);

/*
 * Bits set in a register mask.  Baseline x86-64 has no POPCNT, so the
 * builtin becomes a call into libgcc's table loop; this takes a dozen
 * instructions, and it runs a few times for every sample decoded.
 */
static inline unsigned int prf_popcount(uint64_t m)
{
	m -= (m >> 1) & 0x5555555555555555ULL;
	m = (m & 0x3333333333333333ULL) + ((m >> 2) & 0x3333333333333333ULL);
	m = (m + (m >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
	return (unsigned int)((m * 0x0101010101010101ULL) >> 56);
}

/*
 * The cause slots a LOST record carries, from its size: recordings of
 * ABI 1 have 4, ABI 2 writes PERFREGS_LOST_SLOTS; 0 when malformed.
 */
static inline unsigned int prf_lost_nr(const struct perfregs_rec_header *h)
{
	if (h->size < sizeof(struct perfregs_rec_lost) - 8 * PERFREGS_LOST_SLOTS + 8 ||
	    h->size % 8)
		return 0;
	return (h->size - (sizeof(struct perfregs_rec_lost) -
			   8 * PERFREGS_LOST_SLOTS)) / 8;
}

/* The losses of one cause in a LOST record; 0 for a slot it lacks. */
static inline uint64_t prf_lost_of(const struct perfregs_rec_lost *l,
				   unsigned int cause)
{
	return cause < PERFREGS_LOST_SLOTS && cause < prf_lost_nr(&l->header) ?
	       l->lost[cause] : 0;
}

/*
 * A LOST record of size bytes (the length a walk checked) copied into l
 * with that size in its header, and no more slots than this library
 * knows: what prf_lost_of() then reads is private, and within the
 * record even where the ring's bytes change meanwhile.  False if the
 * record is malformed.
 */
static inline bool prf_lost_copy(const struct perfregs_rec_header *rec, size_t size,
				 struct perfregs_rec_lost *l)
{
	memset(l, 0, sizeof(*l));
	l->header.size = size;
	if (!prf_lost_nr(&l->header))
		return false;
	if (size > sizeof(*l))
		size = sizeof(*l);
	memcpy(l, rec, size);
	l->header.size = size;
	return true;
}

/* Index of register reg inside a record's value array, or -1. */
static inline int prf_reg_index(uint64_t mask, int reg)
{
	if (!(mask & (1ULL << reg)))
		return -1;
	return prf_popcount(mask & ((1ULL << reg) - 1));
}

#endif
