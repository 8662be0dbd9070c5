// SPDX-License-Identifier: GPL-2.0
/*
 * -f folded: what stackcollapse-perf.pl makes of perf script, made here
 * from the decoder's own frames, one line per distinct stack,
 *
 *	comm;outermost;...;leaf count
 *
 * for FlameGraph's flamegraph.pl, inferno, speedscope.  As
 * stackcollapse-perf.pl does: a frame is named by its function (the
 * offset cut off), a frame without a symbol by its file in brackets
 * ([libc.so.6]) or [unknown]; with its --all, kernel frames end in _[k].
 * Frames of code the CPU ran in 32-bit mode (kernel ABI 32: an i386
 * task, or the 32-bit code of a mixed-mode one) end in _[i386]; a
 * function inlined at an address (--inline, inline.c) is a frame of its
 * own, inside the one its symbol names, and ends in _[i] (flamegraph.pl
 * colours such frames as inlined).  A name
 * cannot hold what would break a line, nor a control for the terminal
 * that shows it: ';' and each control (safetext.c: C0, DEL, C1 as
 * UTF-8 or as a byte of no UTF-8) become '_'.  Lines are sorted by
 * stack, so a recording always gives the same output.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "types.h"
#include "safetext.h"
#include "util.h"
#include "folded.h"

struct folded_entry {
	char *stack;
	uint64_t count;
	uint64_t hash;		/* of the stack, hash() */
	size_t len;		/* its length */
};

struct folded {
	struct folded_entry *e;	/* open addressing, cap a power of two */
	size_t n, cap;
};


/*
 * Eight bytes a step: FNV-1a's multiply per byte, a chain of them along
 * the whole line, was 9% of -f folded of xz's 32326 samples (25 frames,
 * some 500 bytes a line).  The order of the table is no output's: they
 * sort.
 */
static uint64_t hash(const char *s, size_t n)
{
	return hash_bytes(0x9e3779b97f4a7c15ULL, s, n);
}

static bool grow(struct folded *f)
{
	size_t cap = f->cap ? f->cap * 2 : 1024, i, j;
	struct folded_entry *e = calloc(cap, sizeof(*e));

	if (!e)
		return false;
	for (i = 0; i < f->cap; i++) {
		if (!f->e[i].stack)
			continue;
		for (j = f->e[i].hash & (cap - 1); e[j].stack; j = (j + 1) & (cap - 1))
			;
		e[j] = f->e[i];
	}
	free(f->e);
	f->e = e;
	f->cap = cap;
	return true;
}

/* What a byte below 0x80 of a name becomes on the line: ';' and controls '_' */
static char safe_byte[256];

static void __attribute__((constructor)) safe_byte_init(void)
{
	int c;

	for (c = 0; c < 256; c++)
		safe_byte[c] = c == ';' || c < 0x20 || c == 0x7f ? '_' : (char)c;
}

/*
 * Has the word a byte below 0x20, ';', 0x7f or one from 0x80 up?  (May
 * say so wrongly.)
 */
static bool word_unsafe(uint64_t w)
{
	const uint64_t ones = 0x0101010101010101ULL, high = 0x8080808080808080ULL;
	uint64_t semi = w ^ (ones * ';'), del = w ^ (ones * 0x7f);

	return (((w - ones * 0x20) & ~w) | ((semi - ones) & ~semi) |
		((del - ones) & ~del) | w) & high;
}

/*
 * The rest of a name, from its first byte of 0x80 up at s (e its end),
 * onto the line at p: a character of UTF-8 goes whole, a control as one
 * '_'.
 */
static char *put_name_utf8(char *p, char *end, const unsigned char *s,
			   const unsigned char *e)
{
	bool control;
	uint32_t cp;
	size_t n;

	while (s < e && p < end) {
		if (*s < 0x80) {
			*p++ = safe_byte[*s++];
			continue;
		}
		n = text_char(s, e - s, &cp, &control);
		if (control) {
			*p++ = '_';
		} else {	/* whole, or what the line has room for */
			size_t k = n < (size_t)(end - p) ? n : (size_t)(end - p);

			memcpy(p, s, k);
			p += k;
		}
		s += n;
	}
	return p;
}

/*
 * name (at most len bytes of it) onto the line at *p, made safe: eight
 * bytes a step where none needs a look (a byte at a time was 10% of -f
 * folded of xz's samples), and the bytes of a name all ASCII in a loop
 * that calls nothing (one that could call the UTF-8 path cost -f folded
 * without -g 8% more instructions: callgrind, bench/ab_decode's
 * recording).
 */
static char *put_name(char *p, char *end, const char *name, size_t len)
{
	const unsigned char *s = (const unsigned char *)name, *e;
	uint64_t w;
	size_t n;

	e = s + strnlen(name, len);
	n = (size_t)(e - s) < (size_t)(end - p) ? (size_t)(e - s) : (size_t)(end - p);
	for (; n >= 8; s += 8, p += 8, n -= 8) {
		memcpy(&w, s, 8);
		if (word_unsafe(w))
			break;
		memcpy(p, &w, 8);
	}
	for (; n; n--) {
		if (*s >= 0x80)
			return put_name_utf8(p, end, s, e);
		*p++ = safe_byte[*s++];
	}
	return p;
}

/* How much of "name+0x1f" names the function: a name may hold '+' itself. */
size_t folded_func_len(const char *sym)
{
	const char *plus = strrchr(sym, '+');

	return plus && plus[1] == '0' && plus[2] == 'x' ? (size_t)(plus - sym) : strlen(sym);
}

static char *put_frame(char *p, char *end, const struct folded_frame *fr)
{
	const char *s = fr->sym;

	if (s && s[0]) {
		p = put_name(p, end, s, folded_func_len(s));
	} else if (fr->dso && fr->dso[0] && fr->dso[0] != '[') {
		s = strrchr(fr->dso, '/');
		s = s ? s + 1 : fr->dso;
		if (p < end)
			*p++ = '[';
		p = put_name(p, end, s, strlen(s));
		if (p < end)
			*p++ = ']';
	} else {
		p = put_name(p, end, "[unknown]", 9);
	}
	if (fr->kernel)
		p = put_name(p, end, "_[k]", 4);
	else if (fr->inlined)	/* flamegraph.pl's mark of it */
		p = put_name(p, end, "_[i]", 4);
	else if (fr->i386)
		p = put_name(p, end, "_[i386]", 7);
	return p;
}

/*
 * One sample's line into line (FOLDED_LINE_MAX bytes): comm, then its
 * frames outermost first.  Any decoding thread may make one.
 */
void folded_line(char *line, const char *comm, const struct folded_frame *f,
		 unsigned int n)
{
	char *p = line, *end = line + FOLDED_LINE_MAX - 1;

	p = put_name(p, end, comm[0] ? comm : "[unknown]", 16);
	while (n--) {
		if (p < end)
			*p++ = ';';
		p = put_frame(p, end, &f[n]);
	}
	*p = 0;
}

/* count samples of the stack line (len bytes, hash h) into d's table */
static int count_line(struct session *d, const char *line, size_t len, uint64_t h,
		      uint64_t count)
{
	struct folded *fo = d->folded;
	size_t i;

	if (!fo) {
		fo = d->folded = calloc(1, sizeof(*fo));
		if (!fo)
			return -ENOMEM;
	}
	if ((fo->n + 1) * 2 > fo->cap && !grow(fo))
		return -ENOMEM;
	for (i = h & (fo->cap - 1); fo->e[i].stack; i = (i + 1) & (fo->cap - 1)) {
		if (fo->e[i].hash == h && fo->e[i].len == len &&
		    !memcmp(fo->e[i].stack, line, len)) {
			fo->e[i].count += count;
			return 0;
		}
	}
	fo->e[i].stack = malloc(len + 1);
	if (!fo->e[i].stack)
		return -ENOMEM;
	memcpy(fo->e[i].stack, line, len);
	fo->e[i].stack[len] = 0;
	fo->e[i].hash = h;
	fo->e[i].len = len;
	fo->e[i].count = count;
	fo->n++;
	return 0;
}

/* A line of folded_line() into the table of stacks.  -ENOMEM if lost. */
int folded_count(struct session *d, const char *line)
{
	size_t len = strlen(line);

	return count_line(d, line, len, hash(line, len), 1);
}

/*
 * A stack of a --threads table.  The thread that printed it first (a
 * worker, or the reading thread printing a batch itself) makes it, count
 * 0, and reads hash, len and stack when it looks it up again; then only
 * the reading thread writes count (the batch's hand-over under the
 * pool's lock orders the two), until the merge.  count is on a cache
 * line of its own, so that the two threads do not take it from each
 * other for every sample.
 */
struct folded_cell {
	uint64_t count;
	char other_line[56];
	uint64_t hash;
	size_t len;
	char stack[];
};

static bool cells_grow(struct folded_cells *t)
{
	size_t cap = t->cap ? t->cap * 2 : 1024, i, j;
	struct folded_cell **e = calloc(cap, sizeof(*e));

	if (!e)
		return false;
	for (i = 0; i < t->cap; i++) {
		if (!t->e[i])
			continue;
		for (j = t->e[i]->hash & (cap - 1); e[j]; j = (j + 1) & (cap - 1))
			;
		e[j] = t->e[i];
	}
	free(t->e);
	t->e = e;
	t->cap = cap;
	return true;
}

/*
 * The cell of line in t, made if it has none; it stays where it is until
 * folded_cells_free().  NULL without memory.  Its thread's only.
 */
struct folded_cell *folded_cell(struct folded_cells *t, const char *line)
{
	size_t len = strlen(line), i;
	uint64_t h = hash(line, len);
	struct folded_cell *c;

	if ((t->n + 1) * 2 > t->cap && !cells_grow(t))
		return NULL;
	for (i = h & (t->cap - 1); (c = t->e[i]); i = (i + 1) & (t->cap - 1))
		if (c->hash == h && c->len == len && !memcmp(c->stack, line, len))
			return c;
	c = aligned_alloc(64, (sizeof(*c) + len + 1 + 63) & ~(size_t)63);
	if (!c)
		return NULL;
	c->count = 0;
	c->hash = h;
	c->len = len;
	memcpy(c->stack, line, len + 1);
	t->e[i] = c;
	t->n++;
	return c;
}

/* One more sample of c's stack: the reading thread's, in order. */
void folded_cell_count(struct folded_cell *c)
{
	c->count++;
}

/*
 * t's counts into d's table, once every thread that wrote t is done with
 * it; then t is empty.  What does not fit is missing, and said so.
 */
void folded_cells_merge(struct session *d, struct folded_cells *t)
{
	size_t i;

	for (i = 0; i < t->cap; i++) {
		struct folded_cell *c = t->e[i];

		if (c && c->count && count_line(d, c->stack, c->len, c->hash, c->count))
			d->folded_dropped += c->count;
	}
	folded_cells_free(t);
}

void folded_cells_free(struct folded_cells *t)
{
	size_t i;

	for (i = 0; i < t->cap; i++)
		free(t->e[i]);
	free(t->e);
	memset(t, 0, sizeof(*t));
}

/* One sample: comm, then its frames outermost first.  -ENOMEM if lost. */
int folded_add(struct session *d, const char *comm, const struct folded_frame *f,
	       unsigned int n)
{
	static char line[FOLDED_LINE_MAX];

	folded_line(line, comm, f, n);
	return folded_count(d, line);
}

static int by_stack(const void *a, const void *b)
{
	const struct folded_entry *x = a, *y = b;

	return strcmp(x->stack, y->stack);
}

/*
 * Frame by frame: ';' ends a frame and sorts before every byte a name
 * can hold (folded_add() leaves no control byte in a name), so a stack
 * comes right before the stacks that go on from it, and all the stacks
 * under one frame are one run.  strcmp() would put "a;b!" between "a;b"
 * and "a;b;c".
 */
static int by_frames(const void *a, const void *b)
{
	const unsigned char *x = (const void *)((const struct folded_stack *)a)->stack;
	const unsigned char *y = (const void *)((const struct folded_stack *)b)->stack;
	unsigned int cx, cy;

	for (; *x && *x == *y; x++, y++)
		;
	cx = *x == ';' ? 1 : *x;
	cy = *y == ';' ? 1 : *y;
	return (int)cx - (int)cy;
}

/*
 * The stacks so far, sorted frame by frame (see by_frames()), for a
 * writer that walks them as a tree: *st, an array of *n that the caller
 * frees (NULL if there are none).  The strings stay the table's, valid
 * until folded_print() or folded_free().  0, or -ENOMEM.
 */
int folded_sorted(struct session *d, struct folded_stack **st, size_t *n)
{
	struct folded *fo = d->folded;
	size_t i, k = 0;

	*st = NULL;
	*n = 0;
	if (!fo || !fo->n)
		return 0;
	*st = malloc(fo->n * sizeof(**st));
	if (!*st)
		return -ENOMEM;
	for (i = 0; i < fo->cap; i++)
		if (fo->e[i].stack)
			(*st)[k++] = (struct folded_stack){ fo->e[i].stack, fo->e[i].count };
	qsort(*st, k, sizeof(**st), by_frames);
	*n = k;
	return 0;
}

/* Every stack, sorted, with its count; then the table is empty again. */
int folded_print(struct session *d, FILE *fp)
{
	struct folded *fo = d->folded;
	size_t i, k = 0;

	if (!fo)
		return 0;
	for (i = 0; i < fo->cap; i++)
		if (fo->e[i].stack)
			fo->e[k++] = fo->e[i];
	qsort(fo->e, k, sizeof(*fo->e), by_stack);
	for (i = 0; i < k; i++) {
		fprintf(fp, "%s %" PRIu64 "\n", fo->e[i].stack, fo->e[i].count);
		free(fo->e[i].stack);
	}
	free(fo->e);
	memset(fo, 0, sizeof(*fo));
	return 0;
}

void folded_free(struct session *d)
{
	struct folded *fo = d->folded;
	size_t i;

	if (!fo)
		return;
	for (i = 0; i < fo->cap; i++)
		free(fo->e[i].stack);
	free(fo->e);
	free(fo);
	d->folded = NULL;
}
