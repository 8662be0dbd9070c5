// SPDX-License-Identifier: GPL-2.0
/*
 * The record walker of tools/lib (prf_walk()) and the drains built on it,
 * without a kernel: runs of records of known bytes, split into two pieces
 * at every byte offset (so that every record wraps at every 8-byte offset
 * of it, and headers straddle the split too), with a malformed size in
 * the middle, a tail shorter than a header, an empty second piece, a
 * record that exactly fills the first; then the same through prf_drain()
 * and prf_peek() on a ring of our own, at every tail position.  Each
 * record handed over must be byte-identical to what was written, and the
 * counts, the return values and data_tail what the header promises.
 *
 * usage: walk     (prints "# ..." lines; exit 0 when all is well)
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../tools/lib/libperfregs.h"

static int failures;
static unsigned long checks;

#define CHECK(cond, ...) do {						\
	checks++;							\
	if (!(cond)) {							\
		if (failures++ < 20) {					\
			printf("# %s:%d: ", __FILE__, __LINE__);	\
			printf(__VA_ARGS__);				\
			printf("\n");					\
		}							\
	}								\
} while (0)

/* A run of records as a writer lays them out, and where each starts. */
struct run {
	uint8_t *buf;		/* 8-aligned */
	size_t len;
	size_t off[64];
	unsigned int n;		/* well-formed records */
	uint64_t samples, lost[PERFREGS_LOST_MAX];
};

/* A record of type and size; every byte after its header says who it is. */
static void add(struct run *w, uint32_t type, uint32_t size)
{
	struct perfregs_rec_header h = { .type = type, .size = size };
	uint8_t *p = w->buf + w->len;
	size_t i;

	memcpy(p, &h, sizeof(h));
	for (i = sizeof(h); i < size; i++)
		p[i] = (uint8_t)(w->n * 37 + i * 11 + 1);
	if (type == PERFREGS_REC_LOST) {
		struct perfregs_rec_lost *l = (void *)p;
		unsigned int c;

		for (c = 0; c < PERFREGS_LOST_MAX; c++)
			w->lost[c] += prf_lost_of(l, c);
	}
	if (type == PERFREGS_REC_SAMPLE)
		w->samples++;
	w->off[w->n++] = w->len;
	w->len += size;
}

/* The run the tests split: samples of several sizes, LOST of ABI 1 and 2. */
static void standard_run(struct run *w, uint8_t *buf)
{
	memset(w, 0, sizeof(*w));
	w->buf = buf;
	add(w, PERFREGS_REC_SAMPLE, 24);
	add(w, PERFREGS_REC_SAMPLE, 200);
	add(w, 77, 8);					/* a type of a newer module */
	add(w, PERFREGS_REC_LOST, 48);			/* ABI 1: 4 slots */
	add(w, PERFREGS_REC_SAMPLE, sizeof(struct perfregs_rec_sample) + 16);
	add(w, PERFREGS_REC_LOST, sizeof(struct perfregs_rec_lost));
	add(w, PERFREGS_REC_SAMPLE, 16);
}

/* What a callback checks each record against. */
struct seen {
	const struct run *w;
	const uint8_t *a, *b, *scratch;
	size_t alen, blen, scratch_size;
	unsigned int n;		/* records seen */
	size_t at;		/* where the next one starts in the run */
	unsigned int stop_at;	/* stop after this many (0: never) */
	int cpu;
	int bad;
};

static bool within(const void *p, const uint8_t *base, size_t len)
{
	return base && (const uint8_t *)p >= base && (const uint8_t *)p < base + len;
}

static int check_record(void *arg, int cpu, const struct perfregs_rec_header *rec,
			size_t size)
{
	struct seen *s = arg;
	const struct run *w = s->w;
	size_t rsize, in_a, want_len;
	bool wraps;

	if (s->n >= w->n || w->off[s->n] != s->at) {
		s->bad++;
		return 1;
	}
	rsize = ((const struct perfregs_rec_header *)(w->buf + s->at))->size;
	in_a = s->at < s->alen ? s->alen - s->at : 0;
	wraps = in_a && in_a < rsize;
	want_len = wraps && rsize > s->scratch_size ? s->scratch_size : rsize;
	CHECK(cpu == s->cpu, "cpu %d, not %d", cpu, s->cpu);
	CHECK(rec->size == rsize, "record %u: size %u, not %zu", s->n, rec->size, rsize);
	/* the length fn may use: the record's, or what scratch holds of it */
	CHECK(size == want_len, "record %u: fn told %zu bytes, not %zu", s->n, size,
	      want_len);
	CHECK(!memcmp(rec, w->buf + s->at, want_len),
	      "record %u at %zu (split at %zu): bytes differ", s->n, s->at, s->alen);
	/* contiguous: in a, in b, or (only when it wraps) copied to scratch */
	if (wraps)
		CHECK((const void *)rec == s->scratch, "record %u wraps, not in scratch", s->n);
	else if (in_a)
		CHECK((const uint8_t *)rec == s->a + s->at, "record %u not in a", s->n);
	else
		CHECK((const uint8_t *)rec == s->b + (s->at - s->alen), "record %u not in b",
		      s->n);
	CHECK(within(rec, s->a, s->alen) || within(rec, s->b, s->blen) ||
	      within(rec, s->scratch, s->scratch_size), "record %u points elsewhere", s->n);
	s->n++;
	s->at += rsize;
	return s->stop_at && s->n == s->stop_at;
}

/*
 * The run split at split: a copy of its first part in a buffer of its
 * own and of the rest in another, so that a pointer says where it is.
 */
static long walk_split(const struct run *w, size_t len, size_t split, struct seen *s,
		       uint8_t *scratch, size_t scratch_size, size_t *used)
{
	static uint64_t abuf[1024], bbuf[1024];
	uint8_t *a, *b;

	/*
	 * a's piece ends near the end of its buffer, as a ring's first piece
	 * at the end of its data; the records keep their 8-byte alignment in
	 * both pieces, also when the split is not a multiple of 8 (then a
	 * header straddles it).
	 */
	a = (uint8_t *)abuf + sizeof(abuf) - ((split + 7) & ~(size_t)7);
	b = (uint8_t *)bbuf + split % 8;
	memcpy(a, w->buf, split);
	memcpy(b, w->buf + split, len - split);
	memset(s, 0, sizeof(*s));
	s->w = w;
	s->a = a;
	s->alen = split;
	s->b = len > split ? b : NULL;
	s->blen = len - split;
	s->scratch = scratch;
	s->scratch_size = scratch_size;
	s->cpu = 3;
	return prf_walk(a, split, s->b, s->blen, scratch, scratch_size, check_record, s,
			s->cpu, used);
}

static void test_splits(void)
{
	static uint64_t buf[1024], scratch[1024];
	struct run w;
	struct seen s;
	size_t split, used;
	long n;

	/* every split: each record wraps at each of its offsets, or not at all */
	standard_run(&w, (uint8_t *)buf);
	for (split = 0; split <= w.len; split++) {
		used = 12345;
		n = walk_split(&w, w.len, split, &s, (uint8_t *)scratch, sizeof(scratch), &used);
		CHECK(n == (long)w.n && s.n == w.n && !s.bad && used == w.len,
		      "split at %zu: returned %ld, saw %u of %u, consumed %zu of %zu",
		      split, n, s.n, w.n, used, w.len);
	}

	/* a scratch shorter than the record: its first bytes, size unchanged */
	for (split = 8; split < 200; split += 8) {
		memset(scratch, 0xa5, sizeof(scratch));
		n = walk_split(&w, w.len, w.off[1] + split, &s, (uint8_t *)scratch, 40, &used);
		CHECK(n == (long)w.n && !s.bad, "short scratch, split %zu: %ld", split, n);
		CHECK(((uint8_t *)scratch)[40] == 0xa5, "short scratch: written past its size");
	}
	/* a scratch that cannot hold a header: refused, not overrun */
	n = walk_split(&w, w.len, w.off[1] + 8, &s, (uint8_t *)scratch, 4, &used);
	CHECK(n == -ENOBUFS && used == w.off[1] && s.n == 1,
	      "scratch of 4 bytes: returned %ld, consumed %zu", n, used);

	/* zero-length b, NULL: no scratch needed */
	n = walk_split(&w, w.len, w.len, &s, NULL, 0, &used);
	CHECK(n == (long)w.n && used == w.len && s.b == NULL, "no b: %ld", n);
	/* nothing at all */
	n = prf_walk(NULL, 0, NULL, 0, NULL, 0, check_record, &s, 0, &used);
	CHECK(n == 0 && used == 0, "empty span: %ld, consumed %zu", n, used);

	/* a record that exactly fills a: handed in a, the next one in b */
	n = walk_split(&w, w.len, w.off[2], &s, (uint8_t *)scratch, sizeof(scratch), &used);
	CHECK(n == (long)w.n && !s.bad, "a filled by two records: %ld", n);

	/* fn stops the walk: the record that stopped it is consumed */
	for (split = 0; split <= w.len; split += 8) {
		n = walk_split(&w, w.len, split, &s, (uint8_t *)scratch, sizeof(scratch), &used);
		CHECK(n == (long)w.n, "split at %zu: %ld", split, n);
		s.stop_at = 2;
		s.n = 0;
		s.at = 0;
		n = prf_walk(s.a, s.alen, s.b, s.blen, scratch, sizeof(scratch), check_record,
			     &s, s.cpu, &used);
		CHECK(n == 2 && used == w.off[2] && s.n == 2,
		      "stop after 2, split at %zu: returned %ld, consumed %zu", split, n, used);
	}

	/* no fn: the records are checked and counted */
	n = prf_walk(w.buf, w.len, NULL, 0, NULL, 0, NULL, NULL, 0, &used);
	CHECK(n == (long)w.n && used == w.len, "no fn: %ld", n);
}

static void test_malformed(void)
{
	static const uint32_t bad_sizes[] = { 0, 4, 7, 12, 20, 1u << 20, 0xfffffff8u };
	static uint64_t buf[1024], scratch[1024];
	struct perfregs_rec_header *h;
	struct run w;
	struct seen s;
	size_t split, used, i, len;
	long n;

	for (i = 0; i < sizeof(bad_sizes) / sizeof(bad_sizes[0]); i++) {
		standard_run(&w, (uint8_t *)buf);
		/* the third record's size goes bad: two are handed over, then stop */
		h = (void *)(w.buf + w.off[2]);
		h->size = bad_sizes[i];
		w.n = 2;
		for (split = 0; split <= w.len; split++) {
			n = walk_split(&w, w.len, split, &s, (uint8_t *)scratch, sizeof(scratch),
				       &used);
			CHECK(n == -EBADMSG && s.n == 2 && !s.bad && used == w.off[2],
			      "size %u, split %zu: returned %ld, saw %u, consumed %zu",
			      bad_sizes[i], split, n, s.n, used);
		}
	}

	/* a size one past the end, and exactly to the end */
	standard_run(&w, (uint8_t *)buf);
	h = (void *)(w.buf + w.off[w.n - 1]);
	len = w.len - 8;	/* the last record loses 8 bytes */
	w.n--;
	n = walk_split(&w, len, w.off[w.n] - 4, &s, (uint8_t *)scratch, sizeof(scratch), &used);
	CHECK(n == -EBADMSG && used == w.off[w.n], "past the end: %ld, consumed %zu", n, used);
	h->size = 8;
	w.n++;
	n = walk_split(&w, len, len, &s, NULL, 0, &used);
	CHECK(n == (long)w.n && used == len, "to the end: %ld, consumed %zu", n, used);

	/* a tail shorter than a header, in a and across the split */
	standard_run(&w, (uint8_t *)buf);
	for (split = w.len; split <= w.len + 4; split++) {
		n = walk_split(&w, w.len + 4, split, &s, (uint8_t *)scratch, sizeof(scratch),
			       &used);
		CHECK(n == -EBADMSG && s.n == w.n && used == w.len,
		      "short tail, split %zu: returned %ld, consumed %zu", split, n, used);
	}
}

/* --- the drains, on a ring of our own ----------------------------------- */

#define RING	512	/* bytes, a power of two */

struct ring_fixture {
	struct prf_reader r;
	struct prf_cpu_ring ring;
	struct perfregs_ctl ctl;
	uint64_t data[RING / 8];
	uint64_t scratch[RING / 8];
};

/* The run's first len bytes into the ring from tail on; head past them. */
static void ring_fill(struct ring_fixture *f, const struct run *w, size_t len, uint64_t tail)
{
	size_t i;

	memset(&f->r, 0, sizeof(f->r));
	memset(f->data, 0x5a, sizeof(f->data));
	for (i = 0; i < len; i++)
		((uint8_t *)f->data)[(tail + i) % RING] = w->buf[i];
	f->r.fd = -1;
	f->r.version.major = PERFREGS_ABI_MAJOR;
	f->r.nr_rings = 1;
	f->r.rings = &f->ring;
	f->ring.cpu = 1;
	f->ring.ctl = &f->ctl;
	f->ring.data = (const uint8_t *)f->data;
	f->ring.size = RING;
	f->ring.scratch = (uint8_t *)f->scratch;
	f->ring.peeked = 0;
	f->ctl.data_tail = tail;
	f->ctl.data_head = tail + len;
}

/* A drain's callback: records as the run has them, in order. */
struct drained {
	const struct run *w;
	unsigned int n, stop_at;
	size_t at;
	int bad;
};

static int drained_record(void *arg, int cpu, const struct perfregs_rec_header *rec,
			  size_t size)
{
	struct drained *d = arg;
	const struct run *w = d->w;

	if (cpu != 1 || d->n >= w->n || w->off[d->n] != d->at ||
	    size != ((const struct perfregs_rec_header *)(w->buf + d->at))->size ||
	    memcmp(rec, w->buf + d->at, size))
		d->bad++;
	d->at += rec->size;
	d->n++;
	return d->stop_at && d->n == d->stop_at;
}

/* prf_peek()'s: the first bytes of each record, the size unchanged */
static int peeked_record(void *arg, int cpu, const struct perfregs_rec_header *rec,
			 size_t size)
{
	struct drained *d = arg;
	const struct run *w = d->w;
	const struct perfregs_rec_header *want = (const void *)(w->buf + d->at);
	size_t len = want->size < sizeof(struct perfregs_rec_sample) ?
		     want->size : sizeof(struct perfregs_rec_sample);

	if (cpu != 1 || d->n >= w->n || rec->size != want->size || size != len ||
	    memcmp(rec, want, len))
		d->bad++;
	d->at += want->size;
	d->n++;
	return 0;
}

static void test_drains(void)
{
	static struct ring_fixture f;
	static uint64_t buf[1024];
	struct drained d;
	struct run w;
	uint64_t t, tail;
	unsigned int c;
	long n;

	standard_run(&w, (uint8_t *)buf);
	for (t = 0; t < 2 * RING; t += 8) {
		/* a tail some rings on: positions are taken modulo the size */
		tail = t + (t >= RING ? 5 * RING : 0);

		ring_fill(&f, &w, w.len, tail);
		memset(&d, 0, sizeof(d));
		d.w = &w;
		n = prf_peek(&f.r, peeked_record, &d);
		CHECK(n == (long)w.n && d.n == w.n && !d.bad && f.ring.peeked == tail + w.len,
		      "peek at tail %llu: %ld, saw %u, %d bad", (unsigned long long)tail, n,
		      d.n, d.bad);
		CHECK(f.ctl.data_tail == tail, "peek consumed");

		memset(&d, 0, sizeof(d));
		d.w = &w;
		n = prf_drain(&f.r, drained_record, &d);
		CHECK(n == (long)w.n && d.n == w.n && !d.bad, "drain at tail %llu: %ld, saw %u, "
		      "%d bad", (unsigned long long)tail, n, d.n, d.bad);
		CHECK(f.ctl.data_tail == tail + w.len, "drain at tail %llu: data_tail %llu",
		      (unsigned long long)tail, (unsigned long long)f.ctl.data_tail);
		CHECK(f.r.records == w.n && f.r.samples == w.samples,
		      "drain counted %llu records, %llu samples",
		      (unsigned long long)f.r.records, (unsigned long long)f.r.samples);
		for (c = 0; c < PERFREGS_LOST_MAX; c++)
			CHECK(f.r.lost[c] == w.lost[c], "lost[%u] %llu, not %llu", c,
			      (unsigned long long)f.r.lost[c], (unsigned long long)w.lost[c]);

		/* fn stops after the second: data_tail just past it */
		ring_fill(&f, &w, w.len, tail);
		memset(&d, 0, sizeof(d));
		d.w = &w;
		d.stop_at = 2;
		n = prf_drain(&f.r, drained_record, &d);
		CHECK(n == 2 && f.ctl.data_tail == tail + w.off[2] && f.r.records == 2,
		      "stopped drain: %ld, data_tail %llu", n,
		      (unsigned long long)(f.ctl.data_tail - tail));
		/* the rest comes with the next drain */
		n = prf_drain(&f.r, NULL, NULL);
		CHECK(n == (long)w.n - 2 && f.ctl.data_tail == tail + w.len,
		      "drain after the stop: %ld", n);

		/* a tail shorter than a header stays */
		ring_fill(&f, &w, w.len, tail);
		f.ctl.data_head += 4;
		errno = 0;
		n = prf_drain(&f.r, NULL, NULL);
		CHECK(n == -EBADMSG && errno == EBADMSG && f.ctl.data_tail == tail + w.len &&
		      f.r.records == w.n, "short tail: %ld, data_tail %llu", n,
		      (unsigned long long)(f.ctl.data_tail - tail));
	}

	/*
	 * A data_tail the kernel never left (anyone holding the session can
	 * write it): a ring past the head, or more than a ring behind it,
	 * at the records' own offset.  prf_peek() looks at nothing then.
	 */
	for (t = 0; t < 2; t++) {
		tail = 3 * RING + 8;
		ring_fill(&f, &w, w.len, tail);
		f.ctl.data_tail = t ? tail + RING : tail - 2 * RING;
		memset(&d, 0, sizeof(d));
		d.w = &w;
		n = prf_peek(&f.r, peeked_record, &d);
		CHECK(n == 0 && d.n == 0, "peek with a tail %s the head: %ld records",
		      t ? "a ring past" : "two rings behind", n);
	}

	/* a malformed size in the middle: what came before, then skip it all */
	for (t = 0; t < RING; t += 8) {
		struct run m = w;
		static uint64_t mbuf[1024];

		memcpy(mbuf, w.buf, w.len);
		m.buf = (uint8_t *)mbuf;
		((struct perfregs_rec_header *)(m.buf + m.off[3]))->size = 12;
		m.n = 3;
		ring_fill(&f, &m, m.len, t);
		memset(&d, 0, sizeof(d));
		d.w = &m;
		errno = 0;
		n = prf_drain(&f.r, drained_record, &d);
		CHECK(n == -EBADMSG && errno == EBADMSG && d.n == 3 && !d.bad &&
		      f.r.records == 3 && f.ctl.data_tail == t + m.len,
		      "malformed at tail %llu: %ld, saw %u, data_tail %llu",
		      (unsigned long long)t, n, d.n, (unsigned long long)f.ctl.data_tail);
	}

	/* more than a ring between tail and head: nothing handed, all skipped */
	ring_fill(&f, &w, w.len, 64);
	f.ctl.data_head = 64 + RING + 8;
	memset(&d, 0, sizeof(d));
	d.w = &w;
	n = prf_drain(&f.r, drained_record, &d);
	CHECK(n == -EBADMSG && d.n == 0 && f.ctl.data_tail == 64 + RING + 8,
	      "a ring and more: %ld, saw %u", n, d.n);
}

int main(void)
{
	test_splits();
	test_malformed();
	test_drains();
	printf("# %lu checks, %d failed\n", checks, failures);
	return failures ? 1 : 0;
}
