// SPDX-License-Identifier: GPL-2.0
/*
 * A live run's records: decoded as they come, or recorded whole runs at
 * a time (and read back once the run is over).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "../ksyms.h"
#include "../output.h"
#include "../rec-write.h"
#include "../sections.h"
#include "../session.h"
#include "live.h"

/* A kernel-mode sample's interrupt ip, if it has one within @size bytes. */
static bool kernel_ip(const struct perfregs_rec_sample *s, size_t size, uint64_t *ip)
{
	int idx;

	if (!(s->flags & PERFREGS_SF_KERNEL) ||
	    (idx = prf_reg_index(s->iregs_mask, PERFREGS_REG_IP)) < 0 ||
	    sizeof(*s) + 8 * ((size_t)idx + 1) > size)
		return false;
	*ip = s->regs[idx];
	return true;
}

/*
 * The kernel symbols a kernel-mode sample of size bytes (or its first
 * size bytes) names, for the recording: its interrupt IP's, and those of
 * its kernel call chain's entries, each return address's by the byte
 * before it, as the decoder names it (resolve_kchain()).
 */
static void learn_ksyms(struct machine *m, const struct perfregs_rec_sample *s, size_t size)
{
	struct sample_kchain kc;
	uint64_t ip;
	uint32_t i;

	if (kernel_ip(s, size, &ip))
		ksym_learn(m, ip);
	if (!(s->flags & PERFREGS_SF_KERNEL) || !sample_kchain_of(s, size, &kc))
		return;
	for (i = 0; i < kc.nr; i++) {
		memcpy(&ip, &kc.ips[i], sizeof(ip));
		ksym_learn(m, i && ip ? ip - 1 : ip);
	}
}

/*
 * Only recording, a sample of a task not learnt yet or taken in kernel
 * mode: learn its task, if the learner thread has not, and pick out its
 * kernel symbols for the recording.
 */
static void learn_sample(struct live *lv, int cpu,
			 const struct perfregs_rec_sample *s, size_t size)
{
	learn_task(&lv->d, lv->memo, cpu, s);
	if (lv->d.o.symbols)
		learn_ksyms(&lv->d.m, s, size);
}

static int on_record(void *arg, int cpu, const struct perfregs_rec_header *ring_rec,
		     size_t size)
{
	struct live *lv = arg;
	struct session *d = &lv->d;
	struct perfregs_rec_header *rec;

	/*
	 * The record is decoded from a copy, made once with the length the
	 * walk checked, which its header then says: the kernel rewrites
	 * the ring's bytes under us when another holder of the session
	 * moves data_tail, and the decoder reads the type, the register
	 * masks and the sections' sizes more than once.  One memcpy of
	 * the record; decoding it costs far more.
	 */
	if (size > lv->copy_cap) {
		size_t cap = size > 2 * lv->copy_cap ? size : 2 * lv->copy_cap;
		uint8_t *p = realloc(lv->copy, cap);

		if (!p) {
			perror("perfregs-dump: a record's copy");
			return 1;
		}
		lv->copy = p;
		lv->copy_cap = cap;
	}
	memcpy(lv->copy, ring_rec, size);
	rec = (struct perfregs_rec_header *)lv->copy;
	rec->size = size;

	if (rec->type == PERFREGS_REC_SAMPLE && size >= sizeof(struct perfregs_rec_sample)) {
		const struct perfregs_rec_sample *s = (const void *)rec;

		if (lv->filter_tid > 0 && s->tid != (uint32_t)lv->filter_tid)
			return 0;
		learn_task(d, lv->memo, cpu, s);
		if (d->o.symbols && lv->rec)
			learn_ksyms(&d->m, s, size);
	}
	if (lv->rec) {
		bool summary = d->o.summary;

		/*
		 * The record goes to the file and is decoded under learn_lock,
		 * which the learner thread holds to hand what it learns to the
		 * file and publish it: that comes before both or after both,
		 * so a later decode of the file knows what this one knew.
		 */
		pthread_mutex_lock(&d->m.learn_lock);
		session_forward_learnt(d, lv->rec_tool);
		if (rec_records(lv->rec, cpu, rec, size, NULL, 0))
			lv->rec_error = 1;
		if (!lv->tee)
			d->o.summary = true;	/* count and check, print nothing */
		decode_record(d, cpu, rec, size);
		d->o.summary = summary;
		/* what decoding it learnt, in its place: after it, as it was learnt */
		session_forward_learnt(d, lv->rec_tool);
		pthread_mutex_unlock(&d->m.learn_lock);
	} else {
		decode_record(d, cpu, rec, size);
	}
	return 0;
}

/*
 * What raw_record() needs of a sample: its fixed part and registers, and
 * for a kernel call chain the sections up to its end: a SIMD section
 * (2136 bytes with every component this tool knows; a newer module's
 * may be longer, and its chain then out of reach) and the chain itself.
 */
#define REC_LEARN_MAX	(sizeof(struct perfregs_rec_sample) + 16 * PERFREGS_REG_EXT_MAX + \
			 4096 + sizeof(struct perfregs_rec_kchain) + 8 * PERFREGS_MAX_KCHAIN)
union rec_fixed {
	struct perfregs_rec_sample s;
	struct perfregs_rec_lost l;
	uint8_t b[REC_LEARN_MAX];
};

/*
 * Only recording, one record of a raw span (on_raw_span()): count it,
 * and learn about a sample whose task is not learnt yet, or that hit the
 * kernel.  Only the fixed part of a sample is needed (and lies in rec).
 */
static int raw_record(void *arg, int cpu, const struct perfregs_rec_header *rec,
		      size_t size)
{
	struct live *lv = arg;
	const struct perfregs_rec_sample *s = (const void *)rec;
	uint32_t type = __atomic_load_n(&rec->type, __ATOMIC_RELAXED);
	struct perfregs_rec_lost l;
	union rec_fixed c;
	size_t n;
	int i;

	if (type == PERFREGS_REC_SAMPLE && size >= sizeof(*s)) {
		lv->raw_samples++;
		if (!learnt_already(lv->memo, cpu, s) || (s->flags & PERFREGS_SF_KERNEL)) {
			/*
			 * learnt from a copy: the ring's bytes may change
			 * (on_record()); the fixed part, or what a chain needs
			 */
			n = sizeof(c.s) + 8 * PERFREGS_REG_MAX;
			if (s->flags & PERFREGS_SF_KCHAIN)
				n = sizeof(c);
			n = size < n ? size : n;
			memcpy(&c, rec, n);
			c.s.header.size = n;
			learn_sample(lv, cpu, &c.s, n);
		}
	} else if (type == PERFREGS_REC_LOST && prf_lost_copy(rec, size, &l)) {
		for (i = 0; i < PERFREGS_LOST_MAX; i++)
			lv->raw_lost[i] += prf_lost_of(&l, i);
	}
	return 0;
}

/*
 * Only recording: a ring's unread bytes, as they lie (prf_drain_raw()),
 * go to the file in one go, and are checked when the run is over
 * (verify_recording()), as perf record processes its build-ids after
 * the run.  Before, one pass over their headers counts them and finds
 * the samples whose task is not learnt yet, or that hit the kernel: one
 * compare for the others.  Every instruction here is taken from the
 * sampled tasks: of a record that wraps the ring's end, only the fixed
 * part is copied.  What learning adds to the file goes before the bytes.
 * A header that makes no sense ends the pass: the bytes still go to the
 * file, where verify_recording() reports them.
 */
static int on_raw_span(void *arg, int cpu, const void *a, size_t alen,
		       const void *b, size_t blen)
{
	struct live *lv = arg;
	union rec_fixed copy;

	prf_walk(a, alen, b, blen, &copy, sizeof(copy), raw_record, lv, cpu, NULL);
	session_forward_learnt(&lv->d, lv->rec_tool);
	if (rec_records(lv->rec, cpu, a, alen, b, blen))
		lv->rec_error = 1;
	return 0;
}

/*
 * After an only-recording run: read the recording back, as a later
 * decode will, to check its records and count them for the summary.
 * Nothing of it runs while the sampled tasks do.  Returns the exit code.
 * A FILE that cannot be read back (a pipe, a device, the standard
 * output of -o -) is not checked; the summary then counts what the rings
 * handed over.
 */
int live_verify(const char *path, struct session *live, const struct live *lv,
		uint64_t produced)
{
	struct session *d;
	uint64_t in_file;
	struct stat st;
	char err[512];
	int ret, exit_code = EXIT_OK, i;

	if (lv->file.is_stdout || stat(path, &st) || !S_ISREG(st.st_mode)) {
		live->samples = lv->raw_samples;
		for (i = 0; i < PERFREGS_LOST_MAX; i++)
			live->lost[i] = lv->raw_lost[i];
		if (!live->o.quiet)
			out_summary(live, stderr, FMT_TEXT, produced);
		return EXIT_OK;
	}
	d = calloc(1, sizeof(*d));
	if (!d) {
		fprintf(stderr, "perfregs-dump: checking %s: out of memory\n", path);
		return EXIT_IO;
	}
	d->o = live->o;
	d->o.summary = true;	/* count and check, print nothing */
	d->o.symbols = false;
	d->out = stdout;
	ret = rec_decode(path, d, &in_file, err, sizeof(err));
	if (ret == -EIO) {
		fprintf(stderr, "perfregs-dump: reading %s back: %s\n", path, err);
		exit_code = EXIT_IO;
	} else if (ret || d->bad_records) {
		fprintf(stderr, "perfregs-dump: %s: %s\n", path,
			ret ? err : "malformed records");
		exit_code = EXIT_DATA;
	}
	if (!live->o.quiet)
		out_summary(d, stderr, FMT_TEXT, produced);
	session_free(d);
	free(d);
	return exit_code;
}

/* What the rings hold: raw when only recording, else record by record. */
long live_drain(struct prf_reader *r, struct live *lv)
{
	if (lv->spans)
		return prf_drain_raw(r, on_raw_span, lv);
	return prf_drain(r, on_record, lv);
}

