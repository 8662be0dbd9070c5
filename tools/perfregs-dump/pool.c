// SPDX-License-Identifier: GPL-2.0
/*
 * --threads N: the samples of a recording printed by N worker threads,
 * the output in the recording's order, byte for byte what one thread
 * writes.
 *
 * The reading thread (rec_decode()'s) stays alone with the recording:
 * it reads the items in order, checks and counts each kernel record
 * (record_count(): the summary, the malformed ones) and copies those to
 * print into a batch.  A full batch goes to the workers: the first one
 * free takes it and prints its records (record_print(): the unwinding,
 * the symbols, the text, nearly all of the time) into the batch's own
 * buffer, with unwinders of its own.  The reading thread writes the
 * batches out strictly in the order it filled them (-f folded: counts
 * their stacks in that order), so whichever worker is done first, the
 * output is the same.
 *
 * Every other item of a recording (an image, maps, a side-band event, a
 * vDSO, the info) changes what the samples around it decode to: the
 * reading thread applies it alone, after pool_drain() has waited for
 * every batch before it to be printed and written.  So each sample is
 * printed against the state one thread would have had for it, and the
 * workers only read that state, but for what mappings learn lazily of
 * their files (symbols.c, resolve_lock).  But for a side-band event
 * after every sample handed out (pool_upto()), which only adds versions
 * of a space from its time on (space_event_later()): the workers look
 * them up lock-free by the sample's time and find the ones they would
 * have found before it.  A drain at each of them left the workers idle:
 * 4 runs of xz under sh are 69 drains in 22402 samples, and --threads 2
 * was slower than one thread (bench/results/RESULTS.md).  A kernel symbol is appended
 * without the wait: each record in a batch carries how many there were
 * before it (struct batch_rec), and its worker looks at no more; the
 * array moves, and the symbols are merged, only after a pool_drain().
 *
 * Memory: SLOTS(N) batches of at most BATCH_RECORDS records or about
 * BATCH_BYTES of them, each with what its records print; the buffers
 * are kept for the next batch, so it does not grow with the samples.
 */
#define _GNU_SOURCE	/* fopencookie */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "types.h"
#include "unwind.h"
#include "symbols.h"
#include "folded.h"
#include "output.h"
#include "pool.h"

#define BATCH_RECORDS	256
#define BATCH_BYTES	(64 * 1024)
/* the workers' batches, one being filled, and room for some done early */
#define SLOTS(n)	(2 * (n) + 1)
#define OUT_BUF		(64 * 1024)	/* a worker's stdio buffer */

enum slot_state { SLOT_FREE, SLOT_QUEUED, SLOT_BUSY, SLOT_DONE };

/*
 * One record in a batch: where it was taken, the kernel symbols it sees
 * (those added before it), then its bytes, 8-aligned.
 */
struct batch_rec {
	uint32_t cpu;
	uint32_t size;
	uint64_t nksyms;
};

struct batch {
	unsigned char *recs;	/* struct batch_rec + record, ... */
	size_t len, cap;
	unsigned int n;
	char *out;		/* what its records print */
	size_t outlen, outcap;
	int error;		/* errno: out could not take it all */
	enum slot_state state;	/* under the pool's lock */
};

struct worker {
	struct pool *p;
	struct dthread t;	/* t.out writes to b->out (out_write()) */
	struct batch *b;	/* the batch it prints */
	pthread_t tid;
};

struct pool {
	struct decoder *d;
	pthread_mutex_t lock;
	pthread_cond_t queued;	/* a batch for the workers, or stop */
	pthread_cond_t done;	/* a batch printed, for the reading thread */
	struct batch *slots;	/* batch k is slots[k % nslots] */
	unsigned int nslots, nworkers;
	uint64_t filled;	/* batches handed to the workers */
	uint64_t taken;		/* of them, taken by a worker */
	uint64_t written;	/* of them, written out */
	uint64_t upto;		/* the latest sample handed out since all were written */
	bool stop;
	int error;		/* the first batch's error */
	struct worker *w;
};

/* fopencookie's write: the worker's output into its batch. */
static ssize_t out_write(void *cookie, const char *buf, size_t n)
{
	struct worker *w = cookie;
	struct batch *b = w->b;

	if (b->outlen + n > b->outcap) {
		size_t cap = b->outcap ? b->outcap * 2 : 2 * OUT_BUF;
		char *p;

		while (cap < b->outlen + n)
			cap *= 2;
		p = realloc(b->out, cap);
		if (!p) {
			b->error = ENOMEM;
			return -1;
		}
		b->out = p;
		b->outcap = cap;
	}
	memcpy(b->out + b->outlen, buf, n);
	b->outlen += n;
	return (ssize_t)n;
}

/* A worker prints the records of b into b->out. */
static void batch_print(struct worker *w, struct batch *b)
{
	const unsigned char *p = b->recs, *end = b->recs + b->len;

	w->b = b;
	b->outlen = 0;
	b->error = 0;
	clearerr(w->t.out);
	while (p < end) {
		struct batch_rec br;

		memcpy(&br, p, sizeof(br));
		p += sizeof(br);
		w->t.nksyms = br.nksyms;
		record_print(w->p->d, &w->t, (int)br.cpu, (const void *)p, br.size);
		p += (br.size + 7) & ~7U;
	}
	if (fflush(w->t.out)) {
		if (!b->error)
			b->error = EIO;
		__fpurge(w->t.out);	/* what it could not take is lost, not the next batch's */
	}
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct pool *p = w->p;
	struct batch *b;

	pthread_mutex_lock(&p->lock);
	for (;;) {
		while (!p->stop && p->taken == p->filled)
			pthread_cond_wait(&p->queued, &p->lock);
		if (p->taken == p->filled)
			break;		/* stopped, and nothing is left */
		b = &p->slots[p->taken++ % p->nslots];
		b->state = SLOT_BUSY;
		pthread_mutex_unlock(&p->lock);
		batch_print(w, b);
		pthread_mutex_lock(&p->lock);
		b->state = SLOT_DONE;
		pthread_cond_signal(&p->done);	/* only the reading thread waits */
	}
	pthread_mutex_unlock(&p->lock);
	symbols_thread_free();	/* this thread's, keyed by the decoder's entries */
	return NULL;
}

/* The reading thread writes a printed batch out, and empties it. */
static void batch_write(struct pool *p, struct batch *b)
{
	struct decoder *d = p->d;
	const char *s, *end, *nul;

	if (b->error && !p->error)
		p->error = b->error;
	if (d->o.format == FMT_FOLDED || d->o.flamegraph) {
		/*
		 * Its stacks' lines, each with its NUL (out_folded()), in
		 * order.  Not one of a batch whose output was cut (out_write()
		 * without memory, p->error says so): its last line has no NUL,
		 * strlen() ran past the output, and the lines before it are
		 * not all of the batch's either.
		 */
		for (s = b->out, end = b->out + b->outlen; !b->error && s < end; s = nul + 1) {
			nul = memchr(s, 0, end - s);
			if (!nul)
				break;
			if (folded_count(d, s))
				d->folded_dropped++;
		}
	} else {
		fwrite_unlocked(b->out, 1, b->outlen, d->out);
	}
	b->len = 0;
	b->n = 0;
	b->outlen = 0;
}

/*
 * Write out the batches printed, in order: until upto of them are
 * written, waiting for them, and then those done already.
 */
static void write_batches(struct pool *p, uint64_t upto)
{
	struct batch *b;

	pthread_mutex_lock(&p->lock);
	while (p->written < p->filled) {
		b = &p->slots[p->written % p->nslots];
		if (b->state != SLOT_DONE) {
			if (p->written >= upto)
				break;
			pthread_cond_wait(&p->done, &p->lock);
			continue;
		}
		pthread_mutex_unlock(&p->lock);
		batch_write(p, b);
		pthread_mutex_lock(&p->lock);
		b->state = SLOT_FREE;
		p->written++;
	}
	pthread_mutex_unlock(&p->lock);
}

/* The batch being filled to the workers; the next one free to fill. */
static void submit(struct pool *p)
{
	struct batch *b = &p->slots[p->filled % p->nslots];

	if (!b->n)
		return;
	pthread_mutex_lock(&p->lock);
	b->state = SLOT_QUEUED;
	p->filled++;
	pthread_cond_signal(&p->queued);
	pthread_mutex_unlock(&p->lock);
	/* batch filled is free once filled - written < nslots */
	write_batches(p, p->filled >= p->nslots ? p->filled - p->nslots + 1 : 0);
}

/*
 * A record that record_count() passed, to be printed in its turn.
 * Without memory for it in the batch, everything before it is written
 * out and it is printed here.
 */
void pool_record(struct decoder *d, int cpu, const struct perfregs_rec_header *rec,
		 size_t size)
{
	struct pool *p = d->pool;
	size_t need = sizeof(struct batch_rec) + ((size + 7) & ~7UL);
	struct batch_rec br = { (uint32_t)cpu, (uint32_t)size, 0 };
	struct batch *b;

	/*
	 * The kernel symbols added since the last merge, merged when one
	 * thread's ksym_find() would merge them (the same rule, so the same
	 * cost): here, once the workers have printed the records before,
	 * for they read them.  This record sees all the symbols added
	 * before it, which the reading thread does not move until the
	 * workers wait again.
	 */
	if (ksyms_due(d)) {
		pool_drain(d);
		ksyms_settle(d);
	}
	br.nksyms = d->nksyms;
	if (rec->type == PERFREGS_REC_SAMPLE &&
	    size >= offsetof(struct perfregs_rec_sample, time) + sizeof(uint64_t)) {
		uint64_t t;

		memcpy(&t, (const char *)rec + offsetof(struct perfregs_rec_sample, time),
		       sizeof(t));
		if (t > p->upto)
			p->upto = t;
	}
	b = &p->slots[p->filled % p->nslots];
	if (b->len + need > b->cap) {
		size_t cap = b->len + need > BATCH_BYTES ? b->len + need : BATCH_BYTES;
		unsigned char *q = realloc(b->recs, cap);

		if (!q) {
			pool_drain(d);
			d->self.out = d->out;
			record_print(d, &d->self, cpu, rec, size);
			return;
		}
		b->recs = q;
		b->cap = cap;
	}
	memcpy(b->recs + b->len, &br, sizeof(br));
	memcpy(b->recs + b->len + sizeof(br), rec, size);
	memset(b->recs + b->len + sizeof(br) + size, 0, need - sizeof(br) - size);
	b->len += need;
	if (++b->n >= BATCH_RECORDS || b->len >= BATCH_BYTES)
		submit(p);
}

/*
 * Every record handed to pool_record() so far printed and written out:
 * before the reading thread changes what they are printed against.
 */
void pool_drain(struct decoder *d)
{
	struct pool *p = d->pool;

	submit(p);
	if (p->written < p->filled)
		d->pool_waits++;
	write_batches(p, p->filled);
	p->upto = 0;
}

/*
 * The time of the latest sample the workers may still be printing: a
 * side-band event after it may be applied without pool_drain()
 * (space_event_later()).
 */
uint64_t pool_upto(const struct decoder *d)
{
	return d->pool->upto;
}

static void pool_free(struct pool *p)
{
	unsigned int i;

	for (i = 0; i < p->nworkers; i++) {
		unwind_thread_free(&p->w[i].t);
		if (p->w[i].t.out)
			fclose(p->w[i].t.out);
	}
	for (i = 0; i < p->nslots; i++) {
		free(p->slots[i].recs);
		free(p->slots[i].out);
	}
	pthread_cond_destroy(&p->done);
	pthread_cond_destroy(&p->queued);
	pthread_mutex_destroy(&p->lock);
	free(p->slots);
	free(p->w);
	free(p);
}

/*
 * threads workers for d's samples (fewer if no more can start), each
 * with a share of the unwinders' files (d->threads).  NULL if none started:
 * the reading thread prints them, as with --threads 1.
 */
struct pool *pool_start(struct decoder *d, unsigned int threads)
{
	cookie_io_functions_t io = { .write = out_write };
	struct pool *p = calloc(1, sizeof(*p));
	sigset_t all, old;
	unsigned int i;

	if (!p)
		return NULL;
	/*
	 * Each thread's unwinders may keep UNWIND_FILES_MIN files open at
	 * least, and so may the shared unwinders of the tasks with more
	 * modules than that (unwind.c): no more threads than the files
	 * allowed have room for with them (ulimit -n 1024 has room for 31).
	 * Past that, samples would lose frames that one thread finds.
	 */
	if (threads + 1 > unwind_files_max() / UNWIND_FILES_MIN)
		threads = unwind_files_max() / UNWIND_FILES_MIN - 1;
	if (threads < 2) {
		free(p);
		return NULL;
	}
	p->d = d;
	p->slots = calloc(SLOTS(threads), sizeof(*p->slots));
	if (p->slots)	/* pool_free() frees as many as there are */
		p->nslots = SLOTS(threads);
	p->w = calloc(threads, sizeof(*p->w));
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->queued, NULL);
	pthread_cond_init(&p->done, NULL);
	if (!p->slots || !p->w) {
		pool_free(p);
		return NULL;
	}
	for (i = 0; i < threads; i++) {
		struct worker *w = &p->w[i];

		w->p = p;
		w->t.stack_lines = d->o.format == FMT_FOLDED || d->o.flamegraph;
		w->t.worker = true;
		w->t.out = fopencookie(w, "w", io);
		if (!w->t.out)
			break;
		setvbuf(w->t.out, NULL, _IOFBF, OUT_BUF);
		p->nworkers++;
	}
	d->threads = p->nworkers;	/* unwind.c: each its share of the files */
	/* signals stay with the reading thread */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	for (i = 0; i < p->nworkers; i++)
		if (pthread_create(&p->w[i].tid, NULL, worker_main, &p->w[i]))
			break;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	/*
	 * Those that did not start leave the work to the others; d->threads
	 * stays (the others read it): their shares of the files only shrink.
	 */
	while (p->nworkers > i) {
		p->nworkers--;
		fclose(p->w[p->nworkers].t.out);
		p->w[p->nworkers].t.out = NULL;
	}
	if (!p->nworkers) {
		d->threads = 1;
		pool_free(p);
		return NULL;
	}
	return p;
}

/*
 * --threads' default: this thread decodes alone until it has spent
 * POOL_LATER_NS of CPU time on it, then the workers take over.  Each
 * worker warms unwinders and symbol caches of its own, so on a small
 * recording more threads are slower than one: 21489 samples of xz with
 * 8 KiB stacks (bench/run, 2026-12-02) took 0.076 s with one thread and
 * 0.105 s with two.  A recording that takes longer than this alone gets
 * the workers for the rest, where they pay (1.36 to 1.67x with two on
 * 4e5 samples, bench/results/DECODE_THREADS.md).  PERFREGS_THREADS_AFTER_MS
 * changes the time (a test hook: 0 starts them after 256 records).
 */
#define POOL_LATER_NS	(100 * 1000000ULL)

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts))
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

void pool_later(struct decoder *d, unsigned int threads)
{
	const char *e = getenv("PERFREGS_THREADS_AFTER_MS");

	d->pool_after = POOL_LATER_NS;
	if (e && *e)
		d->pool_after = strtoull(e, NULL, 10) * 1000000ULL;
	d->pool_later = threads > 1 ? threads : 0;
	d->pool_t0 = thread_cpu_ns();
}

/*
 * Called every 256 records decoded alone.  The reading thread's own
 * unwinders are closed first: from now on it only reads, and their
 * files would count against the workers' share (unwind.c).
 */
void pool_maybe_start(struct decoder *d)
{
	if (thread_cpu_ns() - d->pool_t0 < d->pool_after)
		return;
	d->pool_alone = d->samples;
	unwind_thread_free(&d->self);
	d->pool = pool_start(d, d->pool_later);
	d->pool_later = 0;
}

/*
 * The workers stopped, once all is written out (pool_drain()), and
 * freed.  Returns 0, or the errno of output lost (-ENOMEM).
 */
int pool_end(struct decoder *d)
{
	struct pool *p = d->pool;
	unsigned int i;
	int err;

	if (!p)
		return 0;
	pool_drain(d);
	pthread_mutex_lock(&p->lock);
	p->stop = true;
	pthread_cond_broadcast(&p->queued);
	pthread_mutex_unlock(&p->lock);
	for (i = 0; i < p->nworkers; i++)
		pthread_join(p->w[i].tid, NULL);
	unwind_shared_free(d);	/* the workers': d->threads is 1 again */
	err = p->error;
	pool_free(p);
	d->pool = NULL;
	d->threads = 1;
	return err ? -err : 0;
}
