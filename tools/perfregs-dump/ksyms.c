// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel symbols: /proc/kallsyms when readable, or the symbols a
 * recording kept; found by address, and the ones samples hit handed on
 * to the recording once each.
 */
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <limits.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <pthread.h>
#include <sys/stat.h>
#include "types.h"
#include "util.h"
#include "intern.h"
#include "learnt.h"
#include "ksyms.h"

/*
 * The order of the kernel symbols: by start, then by end, then the one
 * added first last.  ksym_find() names an address by the last symbol of
 * this order that starts at or below it, if it ends above it: for the
 * symbols of a kernel, which do not overlap, the one that holds it (and
 * of kallsyms' aliases, which start together, the one not empty).  Of
 * a hostile recording's, overlapping or of equal starts, one and the
 * same whichever have been merged (ksyms_merge()) when it is asked:
 * with --threads N they are merged at other samples than with one.
 */
static int ksym_cmp(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->end != y->end)
		return x->end < y->end ? -1 : 1;
	return x->seq > y->seq ? -1 : x->seq < y->seq;
}

/*
 * A recording's kernel symbols come in any order (as samples first hit
 * them, or as a hostile file likes): ksym_add() appends them after the
 * sorted part, and they are merged into it (ksyms_due(), ksyms_merge())
 * once they are more than KSYM_TAIL_MIN and than the square root of the
 * sorted part, and else looked through one by one.  Inserting each in
 * place moved all the symbols above it: 400000 in descending order took
 * 47 s, now 0.08 s; all that come before the samples are sorted once,
 * and at worst (adds and finds in turn) it is n^1.5.  With --threads,
 * the same rule, applied by the reading thread (pool_record()).
 */
#define KSYM_TAIL_MIN	64

/*
 * Is the array full: would the next ksym_add() move it?  (--threads:
 * the workers read it, it moves only while they wait.)
 */
bool ksyms_full(const struct machine *mach)
{
	return mach->nksyms == mach->ksyms_cap;
}

void ksym_add(struct machine *mach, uint64_t start, uint64_t end, const char *name)
{
	struct ksym *k;
	char *copy;

	if (mach->nksyms == mach->ksyms_cap) {
		size_t cap = mach->ksyms_cap ? mach->ksyms_cap * 2 : 1024;
		void *p = cap <= UINT32_MAX ? realloc(mach->ksyms, cap * sizeof(*mach->ksyms)) : NULL;

		if (!p)
			return;
		mach->ksyms = p;
		mach->ksyms_cap = cap;
	}
	copy = strdup(name);
	if (!copy)
		return;		/* without a name, none: sym_offset() reads it */
	k = &mach->ksyms[mach->nksyms];
	k->start = start;
	k->end = end;
	k->name = copy;
	k->owned = true;
	k->recorded = true;
	k->seq = (uint32_t)mach->nksyms;	/* the order of the adds: ksym_cmp() */
	mach->nksyms++;
}

/* Are the symbols added since the last merge due to be merged? */
bool ksyms_due(const struct machine *mach)
{
	size_t tail = mach->nksyms - mach->ksyms_sorted;

	return tail > KSYM_TAIL_MIN && tail * tail > mach->ksyms_sorted;
}

/* The symbols added since the last merge, into the sorted part. */
static void ksyms_merge(struct machine *mach)
{
	size_t s = mach->ksyms_sorted, n = mach->nksyms, k = n - s, i = s, j = k, o = n;
	struct ksym *tail;

	qsort(mach->ksyms + s, k, sizeof(*mach->ksyms), ksym_cmp);
	tail = malloc(k * sizeof(*tail));
	if (!tail) {
		qsort(mach->ksyms, n, sizeof(*mach->ksyms), ksym_cmp);
		mach->ksyms_sorted = n;
		return;
	}
	memcpy(tail, mach->ksyms + s, k * sizeof(*tail));
	/* from the top: in ksym_cmp()'s order, no two of which are equal */
	while (j) {
		if (i && ksym_cmp(&mach->ksyms[i - 1], &tail[j - 1]) > 0)
			mach->ksyms[--o] = mach->ksyms[--i];
		else
			mach->ksyms[--o] = tail[--j];
	}
	free(tail);
	mach->ksyms_sorted = n;
}

/*
 * Text symbols of /proc/kallsyms; each ends where the next begins.  The
 * file has >100k lines: read it whole, name symbols in place, and sort
 * only if the kernel did not list them in order already.
 */
void ksyms_load(struct machine *mach)
{
	size_t len = 0, cap = 1 << 22, i;
	char *buf, *line, *next;
	bool sorted = true;
	FILE *fp;

	if (mach->ksyms_loaded || !mach->live)
		return;
	mach->ksyms_loaded = true;
	fp = fopen("/proc/kallsyms", "r");
	buf = malloc(cap);
	while (fp && buf) {
		size_t n = fread(buf + len, 1, cap - len - 1, fp);

		len += n;
		if (!n)
			break;
		if (len + 1 == cap) {
			char *p = realloc(buf, cap *= 2);

			if (!p)
				break;
			buf = p;
		}
	}
	if (fp)
		fclose(fp);
	if (!buf)
		return;
	buf[len] = 0;
	mach->ksyms_blob = buf;
	for (line = buf; line < buf + len; line = next) {
		char *end, *name, type;
		uint64_t addr;

		next = strchr(line, '\n');
		next = next ? next + 1 : buf + len;
		addr = strtoull(line, &end, 16);
		if (end[0] != ' ' || !end[1] || end[2] != ' ')
			continue;
		type = end[1];
		if (!addr || (type != 't' && type != 'T'))
			continue;
		name = end + 3;
		name[strcspn(name, " \t\n")] = 0;
		if (mach->nksyms == mach->ksyms_cap) {
			size_t c = mach->ksyms_cap ? mach->ksyms_cap * 2 : 65536;
			void *p = realloc(mach->ksyms, c * sizeof(*mach->ksyms));

			if (!p)
				break;
			mach->ksyms = p;
			mach->ksyms_cap = c;
		}
		if (mach->nksyms && addr < mach->ksyms[mach->nksyms - 1].start)
			sorted = false;
		mach->ksyms[mach->nksyms].start = addr;
		mach->ksyms[mach->nksyms].end = 0;
		mach->ksyms[mach->nksyms].recorded = false;
		mach->ksyms[mach->nksyms].name = name;
		mach->ksyms[mach->nksyms].owned = false;
		mach->ksyms[mach->nksyms].seq = (uint32_t)mach->nksyms;
		mach->nksyms++;
	}
	if (!sorted)
		qsort(mach->ksyms, mach->nksyms, sizeof(*mach->ksyms), ksym_cmp);
	for (i = 0; i + 1 < mach->nksyms; i++)
		mach->ksyms[i].end = mach->ksyms[i + 1].start;
	if (mach->nksyms)
		mach->ksyms[mach->nksyms - 1].end = mach->ksyms[mach->nksyms - 1].start + 4096;
	mach->ksyms_sorted = mach->nksyms;
}

/*
 * The symbols added since the last merge into the sorted part, if they
 * are due (ksyms_due()): with --threads, by the reading thread, while
 * no worker reads them (pool_record()).
 */
void ksyms_settle(struct machine *mach)
{
	if (ksyms_due(mach))
		ksyms_merge(mach);
}

/*
 * The symbol of ip among the first upto (ksym_cmp()), those a record
 * sees: all of them for the reading thread, for a worker those added
 * before its record.  It reads the sorted part and the symbols after it
 * up to upto, which nobody changes while it runs: the reading thread
 * appends past them, and moves or merges them only while the workers
 * wait (session.c, pool_record()).
 */
static const struct ksym *ksym_find_upto(struct machine *mach, uint64_t ip, size_t upto)
{
	size_t lo = 0, hi = mach->ksyms_sorted, i;
	const struct ksym *best = NULL;

	while (lo < hi) {	/* the first that starts above ip */
		size_t mid = (lo + hi) / 2;

		if (ip < mach->ksyms[mid].start)
			hi = mid;
		else
			lo = mid + 1;
	}
	if (lo)
		best = &mach->ksyms[lo - 1];
	for (i = mach->ksyms_sorted; i < upto; i++)
		if (mach->ksyms[i].start <= ip && (!best || ksym_cmp(&mach->ksyms[i], best) > 0))
			best = &mach->ksyms[i];
	return best && ip < best->end ? best : NULL;
}

const struct ksym *ksym_find(struct machine *mach, uint64_t ip)
{
	if (!mach->threaded)
		ksyms_settle(mach);
	return ksym_find_upto(mach, ip, mach->nksyms);
}

/*
 * Hand the symbol of a kernel IP to the recording, once.  A small cache
 * of symbols already handed on spares the binary search over ~100k
 * symbols (~200 instructions) for the functions samples keep hitting.
 */
void ksym_learn(struct machine *mach, uint64_t ip)
{
	unsigned int slot = (ip >> 4) % 64;
	struct ksym *k;

	if (ip >= mach->ksym_seen[slot].start && ip < mach->ksym_seen[slot].end)
		return;
	ksyms_load(mach);
	k = (struct ksym *)ksym_find(mach, ip);
	if (k && !k->recorded && learnt_on(mach)) {
		k->recorded = true;
		learnt_ksym(mach, k);
	}
	if (k && k->recorded) {
		mach->ksym_seen[slot].start = k->start;
		mach->ksym_seen[slot].end = k->end;
	}
}

/*
 * The name of the kernel symbol that holds lookup, with the offset of
 * show in it ("name+0xoff"): a return address of a call chain is named
 * by the byte before it (lookup = show - 1, the call's), as perf does,
 * and shown as it is.  -1: none.
 */
int kernel_symbol_at(struct machine *mach, const struct dthread *t, uint64_t lookup,
		     uint64_t show, char *buf, size_t len)
{
	const struct ksym *k;

	ksyms_load(mach);
	/* a worker: of the symbols, those of its record (pool.c) */
	k = t->worker ? ksym_find_upto(mach, lookup, t->nksyms) : ksym_find(mach, lookup);
	if (!k)
		return -1;
	sym_offset(buf, len, k->name, show - k->start);
	return 0;
}

int kernel_symbol(struct machine *mach, const struct dthread *t, uint64_t ip, char *buf,
		  size_t len)
{
	return kernel_symbol_at(mach, t, ip, ip, buf, len);
}


void ksyms_free(struct machine *mach)
{
	size_t k;

	for (k = 0; k < mach->nksyms; k++)
		if (mach->ksyms[k].owned)
			free(mach->ksyms[k].name);
	free(mach->ksyms);
	free(mach->ksyms_blob);
	mach->ksyms = NULL;
	mach->ksyms_blob = NULL;
	mach->nksyms = mach->ksyms_cap = mach->ksyms_sorted = 0;
}
