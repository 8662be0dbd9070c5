// SPDX-License-Identifier: GPL-2.0
/*
 * --threads N: the samples of a recording printed by N threads, the
 * reading thread and N - 1 workers, the output in the recording's
 * order, byte for byte what one thread writes.
 *
 * The reading thread (rec_decode()'s) stays alone with the recording:
 * it reads the items in order and walks the kernel records of each,
 * putting those to print in a batch where they lie, in the window the
 * recording was read into (rec-read.c: the batch holds the window, so
 * nothing writes it until the batch is written out).  A full batch goes
 * to the workers, or, when one already waits for them, is printed by
 * the reading thread itself (submit()): whoever prints it checks and
 * counts its samples and prints its records (record_print(): the
 * unwinding, the symbols, the text, nearly all of the time) into the
 * batch's own buffer, with unwinders of its own.  The reading thread writes the
 * batches out strictly in the order it filled them (-f folded: counts
 * their stacks in that order) and adds up their counts, so whichever
 * worker is done first, the output and the summary are the same.  A
 * malformed sample stops its batch there (record_print()); what the
 * workers printed after it is not written, and the decode ends with the
 * error one thread gives (pool_malformed()).
 *
 * The reading thread only walks a sample's header: checking each in
 * turn and copying it into a batch, and leaving the printing to two
 * workers on two CPUs, made it the limit of --threads 2 (1.17x for
 * text, 0.79x for folded; now 1.58x and 0.98x, and what is left is in
 * bench/results/DECODE_THREADS.md).  It reads ahead of the workers, up
 * to SLOTS(N) batches: past a malformed record, it may still have
 * added kernel symbols (what -v counts of them) and side-band events
 * later than every sample, which nothing after it prints.
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
 * BATCH_BYTES of them, each with what its records print, and the
 * windows of the recording they hold (256 KiB each but for items
 * longer than that): at most held_max bytes of them, 768 KiB a slot
 * and no less than 8 MiB, or a single larger window (pool_record()).
 * The buffers are kept for the next batch, so it does not grow with
 * the samples.  -f folded: each thread that prints has a table of the
 * distinct stacks it printed (folded.c's cells), freed once merged at
 * the end: up to N + 1 copies of each distinct stack, where one thread
 * keeps one; what does not fit in memory is said missing, as with one
 * thread.
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
#include "ksyms.h"
#include "dso.h"
#include "inline.h"
#include "folded.h"
#include "output.h"
#include "pool.h"

/*
 * 256 KiB against 64 KiB, --threads 2, A/B interleaved (2026-12-05):
 * 1.5e5 samples, best of 11, -f text 0.171 s against 0.183, -f folded
 * 0.106 against 0.126; 4e5 samples, best of 9, text 0.324 against 0.327,
 * folded 0.173 against 0.218, JSON within the noise (0.485 against
 * 0.447, medians 0.517 against 0.533): fewer hand-overs.  1 MiB was
 * slower (the last batches keep one thread waiting longer).  A reader
 * that printed only once two batches waited for the worker, not one,
 * made no difference (0.187 against 0.183 s folded).
 */
#define BATCH_RECORDS	1024
#define BATCH_BYTES	(256 * 1024)
/* the workers' batches, one being filled, and room for some done early */
#define SLOTS(n)	(2 * (n) + 1)
#define OUT_BUF		(64 * 1024)	/* a worker's stdio buffer */
/*
 * The most the batches hold of the recording's windows (pool_record()):
 * a batch's BATCH_BYTES lie across at most three 256 KiB windows.
 */
#define HELD_PER_SLOT	(768 * 1024)
#define HELD_MIN	(8 * 1024 * 1024)

enum slot_state { SLOT_FREE, SLOT_QUEUED, SLOT_BUSY, SLOT_DONE };

/*
 * One record in a batch: where it was taken, the kernel symbols it sees
 * (those added before it), its offset in the recording, and its bytes,
 * in a window the batch holds.
 */
struct batch_rec {
	uint32_t cpu;
	uint32_t size;
	uint64_t nksyms;
	uint64_t off;
	const struct perfregs_rec_header *rec;
};

struct batch {
	struct batch_rec *recs;
	unsigned int n, cap;
	size_t bytes;		/* of the records */
	struct rec_chunk **held;	/* the windows they lie in */
	unsigned int nheld, capheld;
	/* by its worker */
	char *out;		/* what its records print */
	size_t outlen, outcap;
	int error;		/* errno: out could not take it all */
	struct rec_counts counts;	/* of the records checked */
	bool bad;		/* recs[printed] is malformed: none after it printed */
	unsigned int printed;
	enum slot_state state;	/* under the pool's lock */
};

struct worker {
	struct pool *p;
	struct dthread t;	/* t.out writes to b->out (out_write()) */
	struct batch *b;	/* the batch it prints */
	pthread_t tid;
};

struct pool {
	struct session *d;
	pthread_mutex_t lock;
	pthread_cond_t queued;	/* a batch for the workers, or stop */
	pthread_cond_t done;	/* a batch printed, for the reading thread */
	struct batch *slots;	/* batch k is slots[k % nslots] */
	unsigned int nslots, nworkers;
	uint64_t filled;	/* batches filled */
	uint64_t taken;		/* none before it left for a worker to take */
	unsigned int nqueued;	/* batches for the workers, not taken yet */
	uint64_t written;	/* of them, written out */
	uint64_t upto;		/* the latest sample handed out since all were written */
	bool stop;
	int error;		/* the first batch's error */
	bool bad;		/* a malformed record written out: nothing after it */
	uint64_t bad_off;	/* its offset in the recording */
	size_t held, held_max;	/* bytes of the windows the batches hold */
	struct worker *w;
	struct worker self;	/* the reading thread's, for the batches it prints */
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

/*
 * A worker checks and prints the records of b into b->out, up to the
 * first malformed one.
 */
static void batch_print(struct worker *w, struct batch *b)
{
	const struct batch_rec *br;

	w->b = b;
	b->outlen = 0;
	b->error = 0;
	memset(&b->counts, 0, sizeof(b->counts));
	b->bad = false;
	clearerr(w->t.out);
	for (b->printed = 0; b->printed < b->n; b->printed++) {
		br = &b->recs[b->printed];
		w->t.nksyms = br->nksyms;
		if (!record_print(w->p->d, &w->t, (int)br->cpu, br->rec, br->size,
				  &b->counts)) {
			b->bad = true;
			break;
		}
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
		while (!p->stop && !p->nqueued)
			pthread_cond_wait(&p->queued, &p->lock);
		if (!p->nqueued)
			break;		/* stopped, and nothing is left */
		/*
		 * The first batch queued: past those the reading thread
		 * printed itself, and those written out (their slots may hold
		 * later batches by now).  One is queued in [written, filled).
		 */
		if (p->taken < p->written)
			p->taken = p->written;
		while (p->slots[p->taken % p->nslots].state != SLOT_QUEUED)
			p->taken++;
		b = &p->slots[p->taken++ % p->nslots];
		p->nqueued--;
		b->state = SLOT_BUSY;
		pthread_mutex_unlock(&p->lock);
		batch_print(w, b);
		pthread_mutex_lock(&p->lock);
		b->state = SLOT_DONE;
		pthread_cond_signal(&p->done);	/* only the reading thread waits */
	}
	pthread_mutex_unlock(&p->lock);
	dso_thread_free();
	inline_thread_free();	/* this thread's, keyed by the decoder's entries */
	return NULL;
}

static void counts_add(struct session *d, const struct rec_counts *c)
{
	int i;

	d->samples += c->samples;
	d->filtered += c->filtered;
	for (i = 0; i < PERFREGS_LOST_MAX; i++)
		d->lost[i] += c->lost[i];
}

/*
 * The reading thread writes a printed batch out, adds up its counts,
 * and empties it: its windows put back.  Not after a malformed record
 * (p->bad): what one thread would not have printed.
 */
static void batch_write(struct pool *p, struct batch *b)
{
	struct session *d = p->d;
	struct folded_cell *c;
	unsigned int i;
	size_t k;

	if (p->bad)
		goto put;
	if (b->error && !p->error)
		p->error = b->error;
	counts_add(d, &b->counts);
	if (b->bad) {
		p->bad = true;
		p->bad_off = b->recs[b->printed].off;
		d->bad_records++;
	}
	if (d->o.format == FMT_FOLDED || d->o.flamegraph) {
		/*
		 * Its samples' stacks, a cell of the printing thread's table
		 * each (out_folded()), counted here in order: none of a batch
		 * after a malformed record, as with one thread.  Not one of a
		 * batch whose output was cut (out_write() without memory,
		 * p->error says so): its cells are not all of the batch's.
		 * (A batch's cells, 8 KiB at most, reach out_write() in one
		 * piece from its 64 KiB buffer, so that is all of them.)
		 * The stacks' lines came here before, to be counted in this
		 * thread's table: two more copies of each line, and the
		 * hashing, in the thread that reads the recording
		 * (bench/results/DECODE_THREADS.md).
		 */
		for (k = 0; !b->error && k + sizeof(c) <= b->outlen; k += sizeof(c)) {
			memcpy(&c, b->out + k, sizeof(c));
			if (c)
				folded_cell_count(c);
			else
				d->folded_dropped++;
		}
	} else if (b->out) {	/* none if it printed nothing */
		fwrite_unlocked(b->out, 1, b->outlen, d->out);
	}
put:
	for (i = 0; i < b->nheld; i++) {
		p->held -= b->held[i]->cap;
		rec_chunk_put(b->held[i]);
	}
	b->nheld = 0;
	b->bytes = 0;
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

/*
 * The batch being filled to the workers, or printed here if one already
 * waits for them: the reading thread is one of the threads that print
 * (--threads N: it and N - 1 workers).  So on 2 CPUs, 2 threads print
 * and read, not 3; and a worker that finds a batch queued when it is
 * done takes it without sleeping, not woken for each batch (on a VM,
 * an IPI and an exit each).  bench/decode_threads (4e5 samples, 2
 * vCPUs), --threads 2 against 1, text / json / folded: 1.17 / 1.29 /
 * 0.79x with two workers, 1.58 / 1.60 / 0.98x so (2026-12-04).
 * Then the next slot free to fill.
 */
static void submit(struct pool *p)
{
	struct batch *b = &p->slots[p->filled % p->nslots];
	bool self;

	if (!b->n)
		return;
	pthread_mutex_lock(&p->lock);
	self = p->nqueued > 0;
	b->state = self ? SLOT_BUSY : SLOT_QUEUED;
	p->filled++;
	if (!self) {
		p->nqueued++;
		pthread_cond_signal(&p->queued);
	}
	pthread_mutex_unlock(&p->lock);
	if (self) {
		batch_print(&p->self, b);
		pthread_mutex_lock(&p->lock);
		b->state = SLOT_DONE;
		pthread_mutex_unlock(&p->lock);
	}
	/* batch filled is free once filled - written < nslots */
	write_batches(p, p->filled >= p->nslots ? p->filled - p->nslots + 1 : 0);
}

/* Room for one more record in b, and for a hold of chunk c. */
static bool batch_room(struct batch *b, struct rec_chunk *c)
{
	if (b->n == b->cap) {
		unsigned int cap = b->cap ? 2 * b->cap : 64;
		struct batch_rec *r = realloc(b->recs, cap * sizeof(*r));

		if (!r)
			return false;
		b->recs = r;
		b->cap = cap;
	}
	if (c && (!b->nheld || b->held[b->nheld - 1] != c) && b->nheld == b->capheld) {
		unsigned int cap = b->capheld ? 2 * b->capheld : 4;
		struct rec_chunk **h = realloc(b->held, cap * sizeof(*h));

		if (!h)
			return false;
		b->held = h;
		b->capheld = cap;
	}
	return true;
}

/*
 * A sample or a loss to be printed in its turn, unchecked (record_print()
 * checks and counts it), at offset off of the recording: where it lies, in window
 * c, held until its batch is written out (c NULL: memory that outlives
 * the decode).  Without memory for it in the batch, everything before
 * it is written out and it is printed here.
 */
void pool_record(struct session *d, int cpu, const struct perfregs_rec_header *rec,
		 size_t size, struct rec_chunk *c, uint64_t off)
{
	struct pool *p = d->pool;
	struct batch_rec br = { (uint32_t)cpu, (uint32_t)size, 0, off, rec };
	struct batch *b;

	/*
	 * The kernel symbols added since the last merge, merged when one
	 * thread's ksym_find() would merge them (the same rule, so the same
	 * cost): here, once the workers have printed the records before,
	 * for they read them.  This record sees all the symbols added
	 * before it, which the reading thread does not move until the
	 * workers wait again.
	 */
	if (ksyms_due(&d->m)) {
		pool_drain(d);
		ksyms_settle(&d->m);
	}
	br.nksyms = d->m.nksyms;
	b = &p->slots[p->filled % p->nslots];
	/*
	 * The windows held stay bounded: a recording whose items make the
	 * source move on for every record (items of a newer tool longer
	 * than the window) would have each batch hold hundreds.  Past
	 * held_max, the batches before are printed and put them back.
	 */
	if (c && (!b->nheld || b->held[b->nheld - 1] != c) && p->held &&
	    p->held + c->cap > p->held_max) {
		pool_drain(d);
		if (p->bad)
			return;		/* nothing after it is printed */
		b = &p->slots[p->filled % p->nslots];
	}
	if (!batch_room(b, c)) {
		struct rec_counts counts = { 0 };

		pool_drain(d);
		if (p->bad)
			return;		/* nothing after it is printed */
		d->self.out = d->out;
		if (record_print(d, &d->self, cpu, rec, size, &counts)) {
			counts_add(d, &counts);
		} else {
			p->bad = true;
			p->bad_off = off;
			d->bad_records++;
		}
		return;
	}
	if (c && (!b->nheld || b->held[b->nheld - 1] != c)) {
		rec_chunk_hold(c);
		b->held[b->nheld++] = c;
		p->held += c->cap;
	}
	/*
	 * Handed out: a side-band event up to its time now waits for it
	 * (pool_upto()).  Only here, after the drains above: they set upto
	 * to 0, and a sample counted in it before one would be printed
	 * after an earlier event applied without waiting (a record in a
	 * window of its own at held_max, then a late mapping of its task:
	 * host test "a sample at the windows' limit").
	 */
	if (rec->type == PERFREGS_REC_SAMPLE &&
	    size >= offsetof(struct perfregs_rec_sample, time) + sizeof(uint64_t)) {
		uint64_t t;

		memcpy(&t, (const char *)rec + offsetof(struct perfregs_rec_sample, time),
		       sizeof(t));
		if (t > p->upto)
			p->upto = t;
	}
	b->recs[b->n++] = br;
	b->bytes += size;
	if (b->n >= BATCH_RECORDS || b->bytes >= BATCH_BYTES)
		submit(p);
}

/*
 * Did a worker find a malformed record, in a batch written out by now?
 * Its offset in the recording into *off.  Nothing after it is printed
 * or counted: the decode is to stop there, as with one thread.
 */
bool pool_malformed(const struct session *d, uint64_t *off)
{
	if (!d->pool || !d->pool->bad)
		return false;
	if (off)
		*off = d->pool->bad_off;
	return true;
}

/*
 * Every record handed to pool_record() so far printed and written out:
 * before the reading thread changes what they are printed against.
 */
void pool_drain(struct session *d)
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
uint64_t pool_upto(const struct session *d)
{
	return d->pool->upto;
}

static void cells_free(struct folded_cells *t)
{
	if (t)
		folded_cells_free(t);
	free(t);
}

static void pool_free(struct pool *p)
{
	unsigned int i;

	for (i = 0; i < p->nworkers; i++) {
		unwind_thread_free(&p->w[i].t);
		if (p->w[i].t.out)
			fclose(p->w[i].t.out);
		cells_free(p->w[i].t.cells);
	}
	unwind_thread_free(&p->self.t);
	if (p->self.t.out)
		fclose(p->self.t.out);
	cells_free(p->self.t.cells);
	for (i = 0; i < p->nslots; i++) {
		free(p->slots[i].recs);
		free(p->slots[i].held);	/* none held: written out by pool_drain() */
		free(p->slots[i].out);
	}
	pthread_cond_destroy(&p->done);
	pthread_cond_destroy(&p->queued);
	pthread_mutex_destroy(&p->lock);
	free(p->slots);
	free(p->w);
	free(p);
}

/* A worker's output into the batch it prints; false without memory. */
static bool worker_init(struct pool *p, struct worker *w)
{
	cookie_io_functions_t io = { .write = out_write };

	w->p = p;
	w->t.stack_lines = p->d->o.format == FMT_FOLDED || p->d->o.flamegraph;
	w->t.worker = true;
	if (w->t.stack_lines) {
		w->t.cells = calloc(1, sizeof(*w->t.cells));
		if (!w->t.cells)
			return false;
	}
	w->t.out = fopencookie(w, "w", io);
	if (!w->t.out) {
		free(w->t.cells);
		w->t.cells = NULL;
		return false;
	}
	setvbuf(w->t.out, NULL, _IOFBF, OUT_BUF);
	return true;
}

/*
 * threads threads for d's samples: this one, which reads the recording
 * and prints some of the batches (submit()), and threads - 1 workers
 * (fewer if no more can start), each with a share of the unwinders'
 * files (d->threads).  NULL if none started: the reading thread prints
 * them, as with --threads 1.
 */
struct pool *pool_start(struct session *d, unsigned int threads)
{
	struct pool *p = calloc(1, sizeof(*p));
	sigset_t all, old;
	unsigned int i;

	if (!p)
		return NULL;
	/*
	 * Each thread's unwinders may keep UNWIND_FILES_MIN files open at
	 * least, and so may the shared unwinders of the tasks with more
	 * modules than that (unwind.c): no more threads than the files
	 * allowed have room for with them (ulimit -n 1024 has room for 32).
	 * Past that, samples would lose frames that one thread finds.
	 */
	if (threads > unwind_files_max() / UNWIND_FILES_MIN)
		threads = unwind_files_max() / UNWIND_FILES_MIN;
	if (threads < 2) {
		free(p);
		return NULL;
	}
	p->d = d;
	p->slots = calloc(SLOTS(threads), sizeof(*p->slots));
	if (p->slots)	/* pool_free() frees as many as there are */
		p->nslots = SLOTS(threads);
	/* the batches' windows: 3 for each slot (a batch may straddle three) */
	p->held_max = (size_t)(p->nslots + 2) * HELD_PER_SLOT;
	if (p->held_max < HELD_MIN)
		p->held_max = HELD_MIN;
	p->w = calloc(threads - 1, sizeof(*p->w));
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->queued, NULL);
	pthread_cond_init(&p->done, NULL);
	if (!p->slots || !p->w || !worker_init(p, &p->self)) {
		pool_free(p);
		return NULL;
	}
	for (i = 0; i < threads - 1 && worker_init(p, &p->w[i]); i++)
		p->nworkers++;
	d->threads = p->nworkers + 1;	/* unwind.c: each its share of the files */
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
		cells_free(p->w[p->nworkers].t.cells);
		p->w[p->nworkers].t.cells = NULL;
	}
	if (!p->nworkers) {
		d->threads = 1;
		pool_free(p);
		return NULL;
	}
	d->m.threaded = true;	/* kernel symbols: as each record saw them */
	return p;
}

/*
 * --threads' default: this thread decodes alone until it has spent
 * POOL_LATER_NS of CPU time on it, then the workers take over.  Each
 * worker warms unwinders and symbol caches of its own, so on a small
 * recording more threads are slower than one: 21489 samples of xz with
 * 8 KiB stacks (bench/run, 2026-12-02) took 0.076 s with one thread and
 * 0.105 s with two.  A recording that takes longer than this alone gets
 * the workers for the rest, where they pay (1.58x in text, 0.98x
 * folded with two on 4e5 samples, bench/results/DECODE_THREADS.md).  PERFREGS_THREADS_AFTER_MS
 * changes the time (a test hook: 0 starts them after 256 records), and
 * PERFREGS_THREADS_CLOCK=records counts 1 ms a record decoded instead of
 * CPU time (a test hook too, for a decision that does not depend on the
 * machine's speed).
 *
 * But not for a file nearly read by then: at the rate so far, if what is
 * left of it would take this thread less than that time again, it ends
 * alone.  Starting them at 0.1 s of a 0.11 s decode cost more than they
 * gave: 21032 samples of xz with 8 KiB stacks (bench/run, 2026-12-05),
 * text with perf script's fields, 0.135 s by default against 0.109 s
 * with --threads 1.
 */
#define POOL_LATER_NS	(100 * 1000000ULL)

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts))
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

void pool_later(struct session *d, unsigned int threads)
{
	const char *e = getenv("PERFREGS_THREADS_AFTER_MS");

	d->pool_after = POOL_LATER_NS;
	if (e && *e)
		d->pool_after = strtoull(e, NULL, 10) * 1000000ULL;
	e = getenv("PERFREGS_THREADS_CLOCK");
	d->pool_clock_records = e && !strcmp(e, "records");
	d->pool_later = threads > 1 ? threads : 0;
	d->pool_t0 = d->pool_clock_records ? 0 : thread_cpu_ns();
}

/*
 * Called every 256 records decoded alone, @off bytes into the recording.
 * The reading thread's own unwinders are closed first: from now on it
 * only reads, and their files would count against the workers' share
 * (unwind.c).
 */
void pool_maybe_start(struct session *d, uint64_t off)
{
	uint64_t spent = (d->pool_clock_records ? d->pool_tick * 1000000ULL :
			  thread_cpu_ns()) - d->pool_t0;

	if (spent < d->pool_after)
		return;
	if (d->pool_size && off && off < d->pool_size &&
	    (double)spent * (d->pool_size - off) / off < (double)d->pool_after) {
		d->pool_later = 0;	/* nearly done: this thread ends alone */
		return;
	}
	d->pool_alone = d->samples;
	unwind_thread_free(&d->self);
	d->pool = pool_start(d, d->pool_later);
	d->pool_later = 0;
}

/*
 * The workers stopped, once all is written out (pool_drain()), and
 * freed.  Returns 0, or the errno of output lost (-ENOMEM).
 */
int pool_end(struct session *d)
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
	/* the counts of every sample written out, into the decoder's table */
	for (i = 0; i < p->nworkers; i++)
		if (p->w[i].t.cells)
			folded_cells_merge(d, p->w[i].t.cells);
	if (p->self.t.cells)
		folded_cells_merge(d, p->self.t.cells);
	unwind_shared_free(d);	/* the workers': d->threads is 1 again */
	err = p->error;
	pool_free(p);
	d->pool = NULL;
	d->m.threaded = false;
	d->threads = 1;
	return err ? -err : 0;
}
