// SPDX-License-Identifier: GPL-2.0
/*
 * A decoding session (struct session): a recording delivered to a tool,
 * the reader's items in the recording's order, what each says done to
 * the machine, the samples checked and counted, and with --threads the
 * worker pool that prints them, with the ordering that keeps the output
 * what one thread prints (pool.c says why each item waits or not); what
 * was learnt live handed on; the session's end.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "diag.h"
#include "images.h"
#include "vdso.h"
#include "maps.h"
#include "ksyms.h"
#include "aspace.h"
#include "output.h"
#include "pool.h"
#include "rec-format.h"
#include "rec-read.h"
#include "rec-scan.h"
#include "learnt.h"
#include "machine.h"
#include "unwind.h"
#include "folded.h"
#include "filter.h"
#include "jitmap.h"
#include "session.h"

/* A checked record to the tool: sample() or lost(). */
static void deliver_record(struct session *d, struct tool *t, int cpu,
			   const struct perfregs_rec_header *rec, size_t size)
{
	struct perfregs_rec_lost l;
	struct sample_stack st;

	if (!record_check(d, rec, size, &st, &l))
		return;
	if (rec->type == PERFREGS_REC_SAMPLE) {
		if (!filter_keep(d, &d->self, d->o.filter, (const void *)rec, &st))
			d->filtered++;
		else if (t->sample)
			t->sample(t, cpu, (const void *)rec, &st);
	} else if (t->lost) {
		t->lost(t, cpu, &l);
	}
}

/* The kernel records of an item, as session_read() walks them. */
struct krec_walk {
	struct session *d;
	struct tool *t;
	struct rec_chunk *chunk;	/* the window the item lies in, or NULL */
	uint64_t base;		/* the file offset of the item's records */
	uint64_t at;		/* where the record starts among them */
	bool malformed;		/* it was: the walk stops */
	bool stopped;		/* the command was told to stop: so does the walk */
};

static int krec_record(void *arg, int cpu, const struct perfregs_rec_header *rec,
		       size_t size)
{
	struct krec_walk *kw = arg;
	uint64_t before = kw->d->bad_records;

	if (kw->d->stop && *kw->d->stop) {
		kw->stopped = true;
		return 1;
	}
	if (!kw->d->pool) {
		deliver_record(kw->d, kw->t, cpu, rec, size);
		if (kw->d->pool_later && !(++kw->d->pool_tick & 255))
			pool_maybe_start(kw->d, kw->base + kw->at);
	} else if (rec->type == PERFREGS_REC_SAMPLE || rec->type == PERFREGS_REC_LOST) {
		/*
		 * Checked, counted and printed by a worker, in turn, where it
		 * lies (record_print()): once.  The reading thread checked
		 * each sample and copied it, and was the limit of --threads
		 * (bench/results/DECODE_THREADS.md).  (No --summary and no
		 * tool but the printer with the pool: nothing else looks at
		 * them.)  Other types, of a newer module, are skipped.
		 */
		pool_record(kw->d, cpu, rec, size, kw->chunk, kw->base + kw->at);
	}
	if (kw->d->bad_records != before) {
		kw->malformed = true;
		return 1;
	}
	kw->at += size;
	return 0;
}

static int deliver_krec(struct session *d, struct tool *t, const struct rec_item *it,
			char *err, size_t errlen)
{
	struct krec_walk kw = { .d = d, .t = t, .chunk = it->krec.chunk,
				.base = it->krec.recs_off };
	size_t used = 0;

	if (prf_walk(it->krec.recs, it->krec.len, NULL, 0, NULL, 0, krec_record, &kw,
		     (int)it->krec.cpu, &used) < 0)
		return rec_bad(err, errlen, it->krec.recs_off + used,
			       "kernel record size disagrees with its item");
	if (kw.malformed)
		return rec_bad(err, errlen, it->krec.recs_off + kw.at,
			       "malformed kernel record");
	if (kw.stopped) {
		snprintf(err, errlen, "interrupted");
		return -EINTR;
	}
	return 0;
}

/*
 * --threads: the samples before an item that changes what samples
 * decode to are printed before it changes it.  But for a kernel symbol:
 * each record sees those added before it (pool.c), and the workers do
 * not read the new one; they wait only if the array has to move for
 * it.  (A hostile recording of symbols and samples in turn made a wait
 * of each of them.)  And for a side-band event, which waits only when
 * it is not later than every sample handed out, or is a loss, which
 * counts.  True when a worker found a malformed record: nothing after
 * it counts.
 */
static bool drain_before(struct session *d, const struct rec_item *it)
{
	bool wait;

	if (!d->pool)
		return false;
	switch (it->type) {
	case ITEM_KREC:
		wait = false;
		break;
	case ITEM_KSYM:
		wait = ksyms_full(&d->m);
		break;
	case ITEM_SB:
		wait = it->sb.kind == SB_LOST || !space_event_later(&d->m, &it->sb, pool_upto(d));
		break;
	default:
		wait = true;
	}
	if (wait)
		pool_drain(d);
	return wait && pool_malformed(d, NULL);
}

/* What an item says, done to d and handed to the tool. */
static int deliver(struct session *d, struct tool *t, const struct rec_item *it,
		   char *err, size_t errlen)
{
	const struct image *im;
	struct task_maps *tm;
	const struct blob *b;

	switch (it->type) {
	case ITEM_INFO:
		rec_info_parse(&d->info, d->event_name, sizeof(d->event_name), it->info.p,
			       it->info.end);
		d->o.event_name = d->event_name;
		break;
	case ITEM_IMAGE:
		if (!image_find(&d->m, it->image.dev, it->image.ino)) {
			im = image_add(&d->m, it->image.dev, it->image.ino, &it->image.facts,
				       it->image.path);
			if (im && t->image)
				t->image(t, im);
		}
		break;
	case ITEM_MAPS:
		if (maps_find(&d->m, it->maps.pid, it->maps.ino)) {
			mappings_free(it->maps.m, it->maps.n);
			break;
		}
		tm = maps_add(&d->m, it->maps.pid, it->maps.ino, it->maps.m, it->maps.n);
		/* replayed for convert, which turns them into MMAPs */
		if (tm && t->maps)
			t->maps(t, tm);
		break;
	case ITEM_KSYM:
		ksym_add(&d->m, it->ksym.start, it->ksym.end, it->ksym.name);
		break;
	case ITEM_KREC:
		return deliver_krec(d, t, it, err, errlen);
	case ITEM_SB:
		if (space_event(&d->m, &it->sb) && t->sb)
			t->sb(t, &it->sb);
		break;
	case ITEM_JITMAP:
		/* read before the samples already (scan_jitmap()), unless from a pipe */
		if (!jitmap_scanned(&d->m))
			jitmap_load(&d->m, it->jitmap.pid, it->jitmap.nspid, it->jitmap.text,
				    it->jitmap.len);
		if (t->jitmap)
			t->jitmap(t, it->jitmap.pid, it->jitmap.nspid, it->jitmap.text,
				  it->jitmap.len);
		break;
	case ITEM_BLOB:
		/* an image it cannot use (another kind): decode without */
		if (it->blob.kind == 1) {
			b = blob_add(&d->m, it->blob.data, it->blob.size);
			if (b && t->blob)
				t->blob(t, b, it->blob.data);
		}
		break;
	}
	return 0;
}

/*
 * A recording's JIT maps, written at its end with every line the map
 * had then, are read before its samples, as perf reads a map at report
 * time: a line written after a sample names it.  From a pipe they can
 * only be read in turn, after the samples: those are not named.
 */
static void scan_jitmap(void *arg, const struct rec_item *it)
{
	struct session *d = arg;

	jitmap_load(&d->m, it->jitmap.pid, it->jitmap.nspid, it->jitmap.text, it->jitmap.len);
}

int session_read(struct session *d, struct tool *t, struct rec_input *in,
		 uint64_t *produced, char *err, size_t errlen)
{
	const struct perfregs_config *cfg = rec_input_config(in);
	struct rec_item it = { 0 };
	uint64_t off = 0;
	int ret = 0;

	*produced = 0;
	d->pool_size = rec_input_size(in);	/* pool_maybe_start() */
	d->info.cfg = *cfg;
	d->info.cfg_known = true;
	d->info.abi_major = rec_input_abi_major(in);
	d->info.abi_minor = rec_input_abi_minor(in);
	if (d->o.symbols && (rec_input_flags(in) & REC_F_JITMAPS)) {
		if (rec_scan(in, ITEM_JITMAP, scan_jitmap, d))
			jitmap_set_scanned(&d->m);
		else	/* the maps load as they come: later samples are named */
			diag(&d->m, "the recording's JIT maps could not be read before its "
			     "samples (out of memory, a read error, or a damaged item): a "
			     "sample in JIT code before its process's map is not named by it");
	}
	for (;;) {
		if (pool_malformed(d, NULL))
			goto out;	/* a worker found one: nothing after it counts */
		if (d->stop && *d->stop) {
			snprintf(err, errlen, "interrupted");
			ret = -EINTR;
			goto out;
		}
		ret = rec_next_item(in, &it, err, errlen);
		off = it.off;
		if (d->progress)
			d->progress(d, off, d->pool_size);
		if (ret == 1) {
			ret = rec_bad(err, errlen, off, "no end item: the recording was cut short");
			goto out;
		}
		if (ret)
			goto out;
		if (drain_before(d, &it)) {
			if (it.type == ITEM_MAPS)
				mappings_free(it.maps.m, it.maps.n);
			goto out;	/* one thread stops before it */
		}
		if (it.type == ITEM_END) {
			*produced = it.end.produced;
			rec_item_done(in, &it);
			break;
		}
		ret = deliver(d, t, &it, err, errlen);
		if (ret)
			goto out;
		rec_item_done(in, &it);
	}
	err[0] = 0;
out:
	if (d->pool) {
		/*
		 * The records before an error too; and none is left holding
		 * a window of the reader's past here (rec_chunk_put()).
		 */
		pool_drain(d);
		/*
		 * Before anything the reading thread found after it.  (Not
		 * after the end item's count: it waits, as every item but
		 * records, side-band events and kernel symbols does.)
		 */
		if (pool_malformed(d, &off))
			ret = rec_bad(err, errlen, off, "malformed kernel record");
	}
	return ret;
}

int session_decode(const char *path, struct session *d, struct tool *t,
		   uint64_t *produced, char *err, size_t errlen)
{
	struct rec_input *in;
	int ret;

	*produced = 0;
	ret = rec_open(path, &in, NULL, err, errlen);
	if (ret)
		return ret;
	ret = session_read(d, t, in, produced, err, errlen);
	rec_input_free(in);
	return ret;
}

int session_decode_buf(const unsigned char *buf, size_t size, struct session *d,
		       struct tool *t, uint64_t *produced, char *err, size_t errlen)
{
	struct rec_input *in;
	int ret;

	*produced = 0;
	ret = rec_open_buf(buf, size, &in, err, errlen);
	if (ret)
		return ret;
	ret = session_read(d, t, in, produced, err, errlen);
	rec_input_free(in);
	return ret;
}

static void printer_sample(struct tool *t, int cpu, const struct perfregs_rec_sample *s,
			   const struct sample_stack *st)
{
	struct printer *p = container_of(t, struct printer, tool);

	record_out(p->d, cpu, &s->header, st, NULL);
}

static void printer_lost(struct tool *t, int cpu, const struct perfregs_rec_lost *l)
{
	struct printer *p = container_of(t, struct printer, tool);

	record_out(p->d, cpu, &l->header, NULL, l);
}

void printer_init(struct printer *p, struct session *d)
{
	memset(p, 0, sizeof(*p));
	p->tool.sample = printer_sample;
	p->tool.lost = printer_lost;
	p->tool.printed_by_threads = true;
	p->d = d;
}

int rec_decode(const char *path, struct session *d, uint64_t *produced,
	       char *err, size_t errlen)
{
	struct printer p;

	printer_init(&p, d);
	return session_decode(path, d, &p.tool, produced, err, errlen);
}

int rec_decode_buf(const unsigned char *buf, size_t size, struct session *d,
		   uint64_t *produced, char *err, size_t errlen)
{
	struct printer p;

	printer_init(&p, d);
	return session_decode_buf(buf, size, d, &p.tool, produced, err, errlen);
}

void session_forward_learnt(struct session *d, struct tool *t)
{
	struct learnt_item *items = learnt_take(&d->m), *it;

	for (it = items; it; it = it->next) {
		switch (it->kind) {
		case LEARNT_IMAGE:
			if (t->image)
				t->image(t, it->what);
			break;
		case LEARNT_MAPS:
			if (t->maps)
				t->maps(t, it->what);
			break;
		case LEARNT_KSYM:
			if (t->ksym)
				t->ksym(t, it->what);
			break;
		case LEARNT_SB:
			if (t->sb)
				t->sb(t, &it->ev);
			break;
		case LEARNT_BLOB:
			if (t->blob)
				t->blob(t, it->what, it->data);
			break;
		case LEARNT_JITMAP:
			if (t->jitmap)
				t->jitmap(t, it->pid, it->nspid, it->data, it->len);
			break;
		}
	}
	learnt_items_free(items);
}

/*
 * Everything the session made: its unwinders (their Dwfls first), its
 * stacks, the recording's facts, then the machine.
 */
void session_free(struct session *d)
{
	unwind_free(d);
	folded_free(d);
	rec_info_free(&d->info);
	machine_free(&d->m);
}
