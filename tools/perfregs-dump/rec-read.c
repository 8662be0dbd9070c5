// SPDX-License-Identifier: GPL-2.0
/*
 * The reader of recordings (-i FILE): the file read once into memory of
 * its own, its header and items parsed and checked one by one, each
 * byte read once.  It decodes nothing: session.c does what the items
 * say.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "intern.h"
#include "rec-format.h"
#include "rec-read.h"

/* A NUL-terminated string inside [p, end), or NULL. */
static const char *str_in(const char *p, const char *end)
{
	return p < end && memchr(p, 0, end - p) ? p : NULL;
}

int rec_bad(char *err, size_t len, uint64_t off, const char *what)
{
	snprintf(err, len, "malformed recording at offset %" PRIu64 ": %s", off, what);
	return -EBADMSG;
}

/*
 * A recording is read into memory of our own, never mapped: whoever can
 * write the file could change a mapping's bytes between our check of a
 * size and its use (MAP_PRIVATE copies a page only when we write to it;
 * the others show the file as it is now), or truncate it under us, and
 * the next access to a page past its new end would be a SIGBUS.  read()
 * copies each byte once: what was checked is what is used, and a file
 * that shrinks is only an end that comes early.
 *
 * The file comes in chunks of REC_CHUNK into a window that each item is
 * decoded from, whole (it grows for an item longer than that).  Decoding
 * mkrec 250000 (1000001 samples, 168 MB, in the page cache), -q, best
 * of 20 on 2 cores, mapped with MAP_POPULATE / read in 256 KiB chunks:
 * --summary 30 / 39 ms, -f json 327 / 342 ms, text 305 / 299 ms; the
 * copy costs some 9 ms per 168 MB, a few percent of a decode that
 * prints, and the chunk size does not matter from 64 KiB to 4 MiB.
 * The largest RSS went from 166 MB to 2.4 MB.
 */
#define REC_CHUNK	(256 * 1024)
#define REC_WINDOW_MAX	(16 * 1024 * 1024)
struct rec_src {
	int fd;			/* -1: all the bytes are in mem already */
	const unsigned char *mem;	/* buf, or the caller's memory */
	unsigned char *buf;	/* ours, cap bytes: chunk->data */
	size_t cap;
	/*
	 * The window: the source's, and once left behind, the batches' that
	 * hold records in it (pool.c), until the last one puts it back.
	 * Nothing writes the bytes of a window that anyone but the source
	 * holds: the source moves on to another (src_window()).
	 */
	struct rec_chunk *chunk;	/* NULL with the caller's memory */
	struct chunk_spares spares;	/* outlive every hold (src_items()) */
	size_t pos, len;	/* mem[pos, len) is read and not yet consumed */
	uint64_t off;		/* the file offset of mem[pos] */
	uint64_t size;		/* the file's size when opened: no more is read */
	bool seekable;		/* a regular file: lseek() goes past bytes unread */
	bool shrunk;		/* it ended before size: truncated meanwhile */
	int error;		/* errno of a failed read() */
};

#define CHUNK_SPARES	8	/* windows kept for reuse, not freed */

void rec_chunk_hold(struct rec_chunk *c)
{
	c->refs++;
}

void rec_chunk_put(struct rec_chunk *c)
{
	struct chunk_spares *h = c->home;

	if (--c->refs)
		return;
	if (h->n < CHUNK_SPARES && c->cap == h->cap) {
		c->next = h->list;
		h->list = c;
		h->n++;
		return;
	}
	free(c);
}

/* A window of cap bytes, held by s: a spare if one fits. */
static struct rec_chunk *chunk_new(struct rec_src *s, size_t cap)
{
	struct rec_chunk *c = NULL;

	if (cap == s->spares.cap && s->spares.list) {
		c = s->spares.list;
		s->spares.list = c->next;
		s->spares.n--;
	} else {
		c = malloc(sizeof(*c) + cap);
		if (!c)
			return NULL;
		c->cap = cap;
		c->home = &s->spares;
	}
	c->refs = 1;
	c->next = NULL;
	return c;
}

static void src_free(struct rec_src *s)
{
	struct rec_chunk *c;

	if (s->chunk)
		rec_chunk_put(s->chunk);
	s->chunk = NULL;
	while ((c = s->spares.list)) {
		s->spares.list = c->next;
		free(c);
	}
	s->spares.n = 0;
}

/*
 * The unread bytes of s to the front of a window of cap bytes (not
 * fewer than they are): the same window, unless a batch holds it, for
 * its bytes must stay as they are.  -ENOMEM leaves s as it was, but
 * that the unread bytes may have moved to the front.
 */
static int src_window(struct rec_src *s, size_t cap)
{
	size_t have = s->len - s->pos;
	struct rec_chunk *c = s->chunk;

	if (c->refs > 1) {
		c = chunk_new(s, cap);
		if (!c)
			return -ENOMEM;
		memcpy(c->data, s->buf + s->pos, have);
		rec_chunk_put(s->chunk);
	} else {
		if (s->pos)
			memmove(c->data, c->data + s->pos, have);
		s->pos = 0;
		s->len = have;
		if (cap != c->cap) {
			c = realloc(c, sizeof(*c) + cap);
			if (!c)
				return -ENOMEM;
			c->cap = cap;
		}
	}
	s->chunk = c;
	s->buf = c->data;
	s->mem = c->data;
	s->cap = cap;
	s->pos = 0;
	s->len = have;
	return 0;
}

/*
 * Make n bytes from the current offset lie whole in mem, reading as
 * needed; returns how many do, fewer than n only at the end (s->size,
 * or where the file ends now: s->shrunk) or on a read error (s->error).
 * A caller asks for no more than s->size - s->off.
 */
static size_t src_fill(struct rec_src *s, size_t n)
{
	size_t have = s->len - s->pos;

	while (have < n && s->fd >= 0 && !s->error && !s->shrunk) {
		uint64_t left = s->size - s->off - have;
		size_t want;
		ssize_t r;

		/*
		 * Room for four items this long: with a window about one
		 * item long, nearly every item was moved to its front once
		 * read, a second copy of the whole file (perfregs' xz
		 * recording: items of 270 KB, 108 MB moved of 279, 15% of
		 * the user time of -f folded).  Only for a size the file
		 * still holds, and up to REC_WINDOW_MAX.
		 */
		if (s->pos + n > s->cap && n > s->cap / 4 && n <= REC_WINDOW_MAX / 4 &&
		    n <= s->size - s->off)
			src_window(s, 4 * n);	/* or not: as below */
		/* the unread bytes to the front; more room when n needs it */
		if (s->pos + n > s->cap &&
		    /* doubled, not n at once: no more than what comes in */
		    src_window(s, have < s->cap ? s->cap : s->cap * 2 < n ? s->cap * 2 : n)) {
			s->error = ENOMEM;
			break;
		}
		want = s->cap - s->len;
		if (want > left)
			want = left;
		if (!want)
			break;		/* all of s->size is in */
		r = read(s->fd, s->buf + s->len, want);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			s->error = errno;
			break;
		}
		if (!r) {
			/* a file shorter now than when opened; a pipe's end is its own */
			s->shrunk = s->size != UINT64_MAX;
			if (!s->shrunk)
				s->size = s->off + have;
			break;
		}
		s->len += (size_t)r;
		have += (size_t)r;
	}
	return have < n ? have : n;
}

static void src_skip(struct rec_src *s, size_t n)
{
	s->pos += n;
	s->off += n;
}

/*
 * Go past n bytes from the current offset, keeping none: what lies in
 * mem, then the rest by lseek() on a regular file, or read a buffer
 * at a time from anything else.  Returns how many it went past, fewer
 * than n only where src_fill() would stop.
 */
static uint64_t src_pass(struct rec_src *s, uint64_t n)
{
	size_t have = s->len - s->pos, k;
	uint64_t done = have < n ? have : n;

	src_skip(s, (size_t)done);
	while (done < n && s->fd >= 0 && !s->error && !s->shrunk) {
		/*
		 * All consumed: read into the window from its start again,
		 * unless a batch holds it (src_window(): then another).
		 */
		if (src_window(s, s->cap)) {
			s->error = ENOMEM;
			break;
		}
		if (s->seekable) {
			if (lseek(s->fd, (off_t)(n - done), SEEK_CUR) < 0) {
				s->error = errno;
				break;
			}
			s->off += n - done;	/* the next read() finds a cut, if any */
			return n;
		}
		k = src_fill(s, n - done < s->cap ? (size_t)(n - done) : s->cap);
		if (!k)
			break;
		src_skip(s, k);
		done += k;
	}
	return done;
}

static int src_header(struct rec_src *s, const char *path, struct rec_file_header *h,
		      char *err, size_t errlen);

/* A recording being read, once, from its start: its header checked. */
struct rec_input {
	struct rec_src s;
	struct rec_file_header h;
	const char *path;	/* as messages name it */
	bool own_fd;		/* not standard input's */
	uint64_t at;		/* where the recording starts in the file */
};

int rec_open(const char *path, struct rec_input **inp, struct perfregs_config *cfg,
	     char *err, size_t errlen)
{
	struct rec_input *in = calloc(1, sizeof(*in));
	bool std_in = !strcmp(path, "-");
	struct stat st;
	off_t at = 0;
	int ret;

	*inp = NULL;
	if (!in) {
		snprintf(err, errlen, "cannot read %s: %s", path, strerror(ENOMEM));
		return -EIO;
	}
	in->path = std_in ? "the standard input" : path;
	in->s.cap = REC_CHUNK;
	in->s.spares.cap = REC_CHUNK;
	in->s.fd = std_in ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
	in->own_fd = !std_in;
	if (in->s.fd < 0 || fstat(in->s.fd, &st)) {
		snprintf(err, errlen, "cannot read %s: %s", in->path, strerror(errno));
		rec_input_free(in);
		return -EIO;
	}
	/*
	 * A regular file is read up to its size now (from where standard
	 * input stands in it); anything else, a pipe or a FIFO, to its end,
	 * each byte once.
	 */
	if (S_ISREG(st.st_mode) && std_in)
		at = lseek(in->s.fd, 0, SEEK_CUR);
	in->s.seekable = S_ISREG(st.st_mode) && at >= 0 && at <= st.st_size;
	in->at = in->s.seekable ? (uint64_t)at : 0;
	in->s.size = in->s.seekable ? (uint64_t)(st.st_size - at) : UINT64_MAX;
	in->s.chunk = chunk_new(&in->s, in->s.cap);
	if (!in->s.chunk) {
		snprintf(err, errlen, "cannot read %s: %s", in->path, strerror(ENOMEM));
		rec_input_free(in);
		return -EIO;
	}
	in->s.buf = in->s.chunk->data;
	in->s.mem = in->s.buf;
	if (in->s.seekable)
		posix_fadvise(in->s.fd, at, 0, POSIX_FADV_SEQUENTIAL);
	ret = src_header(&in->s, in->path, &in->h, err, errlen);
	if (ret) {
		rec_input_free(in);
		return ret;
	}
	if (cfg)
		*cfg = in->h.cfg;
	*inp = in;
	return 0;
}

uint64_t rec_input_size(const struct rec_input *in)
{
	return in->s.seekable ? in->s.size : 0;
}

bool rec_input_where(const struct rec_input *in, struct rec_where *w)
{
	if (in->s.fd >= 0 && !in->s.seekable)
		return false;
	w->fd = in->s.fd;
	w->mem = in->s.fd < 0 ? in->s.mem : NULL;
	w->at = in->at;
	w->first = in->h.header_size;
	w->size = in->s.size;
	return true;
}

uint32_t rec_input_version(const struct rec_input *in)
{
	return in->h.version;
}

uint32_t rec_input_abi_minor(const struct rec_input *in)
{
	return in->h.abi_minor;
}

uint32_t rec_input_flags(const struct rec_input *in)
{
	return in->h.flags;
}

void rec_input_free(struct rec_input *in)
{
	if (!in)
		return;
	if (in->own_fd && in->s.fd >= 0)
		close(in->s.fd);
	src_free(&in->s);
	free(in);
}

/*
 * Fewer bytes than an item needs at offset off: a read error, the file
 * shrinking while we read it, or the end of the recording.
 */
static int src_short(const struct rec_src *s, const char *path, uint64_t off,
		     const char *what, char *err, size_t errlen)
{
	if (s->error) {
		snprintf(err, errlen, "cannot read %s at offset %" PRIu64 ": %s", path,
			 s->off + (s->len - s->pos), strerror(s->error));
		return -EIO;
	}
	if (s->shrunk) {
		snprintf(err, errlen, "%s shrank while it was read: it ends at offset %" PRIu64
			 ", it had %" PRIu64 " bytes (truncated by another process?)",
			 path, s->off + (s->len - s->pos), s->size);
		return -EBADMSG;
	}
	return rec_bad(err, errlen, off, what);
}

/*
 * The file header of s into *h, checked, and gone past.  Formats 1 and
 * 2 have a shorter one (REC_HEADER_VER0), format 3 too (VER1): the
 * simd_mask and kchain_max they lack are 0.
 */
static int src_header(struct rec_src *s, const char *path, struct rec_file_header *h,
		      char *err, size_t errlen)
{
	size_t size = REC_HEADER_VER0, have;

	memset(h, 0, sizeof(*h));
	have = src_fill(s, size);
	if (have < size && (s->error || s->shrunk))
		return src_short(s, path, s->off + (s->len - s->pos),
				 "file shorter than its header", err, errlen);
	if (have < size) {	/* nothing of a recording: no records, no summary */
		if (have >= 8 && !memcmp(s->mem + s->pos, REC_MAGIC, 8))
			snprintf(err, errlen, "%s ends within a recording's header (%zu of "
				 "%zu bytes): it holds no record", path, have, size);
		else if (!have)
			snprintf(err, errlen, "%s is empty: not a perfregs recording", path);
		else
			snprintf(err, errlen, "%s is not a perfregs recording: %zu bytes, "
				 "less than a recording's header (%zu)", path, have, size);
		return -EPROTO;
	}
	memcpy(h, s->mem + s->pos, size);
	if (!memcmp(h->magic, "PERFILE2", 8)) {
		snprintf(err, errlen, "%s is perf's perf.data, not a perfregs recording: "
			 "read it with perf report -i or perf script -i", path);
		return -EPROTO;
	}
	if (memcmp(h->magic, REC_MAGIC, 8)) {
		snprintf(err, errlen, "%s is not a perfregs recording (it does not begin "
			 "with a recording's magic)", path);
		return -EPROTO;
	}
	if (h->version < REC_VERSION_MIN || h->version > REC_VERSION ||
	    (h->header_size != REC_HEADER_VER0 && h->header_size != REC_HEADER_VER1 &&
	     h->header_size != REC_HEADER_VER2)) {
		snprintf(err, errlen, "recording format %u, this tool reads %u to %u",
			 h->version, REC_VERSION_MIN, REC_VERSION);
		return -EBADMSG;
	}
	size = h->header_size;
	if (src_fill(s, size) < size)
		return src_short(s, path, s->off + (s->len - s->pos),
				 "file shorter than its header", err, errlen);
	memcpy(h, s->mem + s->pos, size);
	src_skip(s, size);
	return 0;
}


int rec_open_buf(const unsigned char *buf, size_t size, struct rec_input **inp,
		 char *err, size_t errlen)
{
	struct rec_input *in = calloc(1, sizeof(*in));
	int ret;

	*inp = NULL;
	if (!in) {
		snprintf(err, errlen, "cannot read the recording: %s", strerror(ENOMEM));
		return -EIO;
	}
	in->path = "the recording";
	in->s.fd = -1;
	in->s.mem = buf;
	in->s.len = size;
	in->s.size = size;
	ret = src_header(&in->s, in->path, &in->h, err, errlen);
	if (ret) {
		rec_input_free(in);
		return ret;
	}
	*inp = in;
	return 0;
}

const char *rec_input_path(const struct rec_input *in)
{
	return in->path;
}

const struct perfregs_config *rec_input_config(const struct rec_input *in)
{
	return &in->h.cfg;
}

uint32_t rec_input_abi_major(const struct rec_input *in)
{
	return in->h.abi_major;
}

int rec_input_short(const struct rec_input *in, uint64_t off, const char *what,
		    char *err, size_t errlen)
{
	return src_short(&in->s, in->path, off, what, err, errlen);
}

void mappings_free(struct mapping *m, unsigned int n)
{
	while (m && n--)
		str_put(m[n].path);
	free(m);
}

/* ITEM_IMAGE: (dev, ino), ELF facts, path */
static int item_image(struct rec_item *it, const unsigned char *body, uint64_t blen,
		      char *err, size_t errlen)
{
	const char *end = (const char *)body + blen, *p;
	struct item_image ii;

	if (blen < sizeof(ii) || !(p = str_in((const char *)body + sizeof(ii), end)))
		return rec_bad(err, errlen, it->off, "bad image item");
	memcpy(&ii, body, sizeof(ii));
	memset(&it->image, 0, sizeof(it->image));
	it->image.dev = ii.dev;
	it->image.ino = ii.ino;
	it->image.facts.known = ii.known;
	it->image.facts.elfclass = ii.elfclass;
	it->image.facts.machine = ii.machine;
	it->image.path = *p ? p : NULL;
	return 0;
}

/* ITEM_MAPS: a task image's mappings, copied into an array of the caller's */
static int item_maps(struct rec_item *it, const unsigned char *body, uint64_t blen,
		     char *err, size_t errlen)
{
	const char *end = (const char *)body + blen;
	const unsigned char *q = body + sizeof(struct item_maps);
	struct item_maps im;
	struct mapping *m;
	unsigned int i;

	if (blen < sizeof(im))
		return rec_bad(err, errlen, it->off, "bad maps item");
	memcpy(&im, body, sizeof(im));
	if (im.n > blen / 56)
		return rec_bad(err, errlen, it->off, "maps item claims too many mappings");
	m = calloc(im.n ? im.n : 1, sizeof(*m));	/* zeroed */
	for (i = 0; m && i < im.n; i++) {
		uint64_t v[3];
		uint32_t l[2];

		if ((const char *)q + 56 > end)
			break;
		memcpy(v, q, sizeof(v));
		memcpy(l, q + 24, sizeof(l));
		if (l[1] > 20)
			break;
		m[i].build_id_len = (uint8_t)l[1];
		memcpy(m[i].build_id, q + 32, m[i].build_id_len);
		q += 56;
		if (!l[0] || l[0] > (uint64_t)(end - (const char *)q) ||
		    q[l[0] - 1] != 0 || v[0] > v[1])
			break;
		m[i].start = v[0];
		m[i].end = v[1];
		m[i].pgoff = v[2];
		m[i].path = str_intern((const char *)q, NULL);
		q += (l[0] + 7) & ~7U;
	}
	if (!m || i < im.n) {
		mappings_free(m, i);
		return rec_bad(err, errlen, it->off, "bad mapping in maps item");
	}
	it->maps.pid = im.pid;
	it->maps.ino = im.ino;
	it->maps.m = m;
	it->maps.n = im.n;
	return 0;
}

static int item_ksym(struct rec_item *it, const unsigned char *body, uint64_t blen,
		     char *err, size_t errlen)
{
	const char *end = (const char *)body + blen, *p;
	struct item_ksym ik;

	if (blen < sizeof(ik) || !(p = str_in((const char *)body + sizeof(ik), end)))
		return rec_bad(err, errlen, it->off, "bad kernel symbol item");
	memcpy(&ik, body, sizeof(ik));
	if (ik.start >= ik.end)
		return rec_bad(err, errlen, it->off, "empty kernel symbol");
	it->ksym.start = ik.start;
	it->ksym.end = ik.end;
	it->ksym.name = p;
	return 0;
}

/* ITEM_KREC: a CPU's records, walked by the session (prf_walk()) */
static int item_krec(const struct rec_input *in, struct rec_item *it,
		     const unsigned char *body, uint64_t blen, char *err, size_t errlen)
{
	const struct perfregs_rec_header *kh;

	if (blen < 8 + sizeof(*kh))
		return rec_bad(err, errlen, it->off, "short kernel record item");
	memcpy(&it->krec.cpu, body, sizeof(it->krec.cpu));
	kh = (const void *)(body + 8);
	/* format 1: exactly one record; 2: one or more */
	if (in->h.version < 2 && kh->size != blen - 8)
		return rec_bad(err, errlen, it->off + sizeof(struct item) + 8,
			       "kernel record size disagrees with its item");
	it->krec.recs = body + 8;
	it->krec.len = blen - 8;
	it->krec.recs_off = it->off + sizeof(struct item) + 8;
	it->krec.chunk = in->s.chunk;
	return 0;
}

/* ITEM_SB; 1 for a kind of a newer tool, to skip */
static int item_sb(struct rec_item *it, const unsigned char *body, uint64_t blen,
		   char *err, size_t errlen)
{
	const char *end = (const char *)body + blen, *p;
	struct sb_event *ev = &it->sb;
	struct item_sb sbi;

	if (blen < sizeof(sbi) || !(p = str_in((const char *)body + sizeof(sbi), end)))
		return rec_bad(err, errlen, it->off, "bad side-band item");
	memcpy(&sbi, body, sizeof(sbi));
	if (sbi.kind < SB_MMAP || sbi.kind > SB_BEGIN)
		return 1;	/* a kind of a newer tool: skip it */
	if (sbi.build_id_len > sizeof(sbi.build_id) ||
	    (sbi.kind == SB_MMAP && sbi.start >= sbi.end))
		return rec_bad(err, errlen, it->off, "bad side-band event");
	memset(ev, 0, sizeof(*ev));
	ev->kind = sbi.kind;
	ev->pid = sbi.pid;
	ev->ppid = sbi.ppid;
	ev->prot = sbi.prot;
	ev->time = sbi.time;
	ev->start = sbi.start;
	ev->end = sbi.end;
	ev->pgoff = sbi.pgoff;
	ev->build_id_len = (uint8_t)sbi.build_id_len;
	memcpy(ev->build_id, sbi.build_id, sbi.build_id_len);
	ev->name = p;
	return 0;
}

static int item_blob(struct rec_item *it, const unsigned char *body, uint64_t blen,
		     char *err, size_t errlen)
{
	struct item_blob ib;

	if (blen < sizeof(ib))
		return rec_bad(err, errlen, it->off, "short image item");
	memcpy(&ib, body, sizeof(ib));
	if (ib.size > blen - sizeof(ib) || ib.size > BLOB_MAX)
		return rec_bad(err, errlen, it->off, "image item claims more than it holds");
	it->blob.kind = ib.kind;
	it->blob.data = body + sizeof(ib);
	it->blob.size = ib.size;
	return 0;
}

static int item_end(struct rec_item *it, const unsigned char *body, uint64_t blen,
		    char *err, size_t errlen)
{
	struct item_end e;

	if (blen < sizeof(e))
		return rec_bad(err, errlen, it->off, "short end item");
	memcpy(&e, body, sizeof(e));
	it->end.produced = e.produced;
	memcpy(it->end.lost, e.lost, sizeof(it->end.lost));
	return 0;
}

/* ITEM_JITMAP: a process's perf map, its lines (jitmap.c); rec-scan.c's too */
int rec_item_jitmap(struct rec_item *it, const unsigned char *body, uint64_t blen,
		    char *err, size_t errlen)
{
	struct item_jitmap ij;

	if (blen < sizeof(ij))
		return rec_bad(err, errlen, it->off, "short JIT map item");
	memcpy(&ij, body, sizeof(ij));
	if (ij.len > blen - sizeof(ij) || ij.len > JITMAP_FILE_MAX)
		return rec_bad(err, errlen, it->off, "JIT map item claims more than it holds");
	it->jitmap.pid = ij.pid;
	it->jitmap.nspid = ij.nspid;
	it->jitmap.text = (const char *)body + sizeof(ij);
	it->jitmap.len = ij.len;
	return 0;
}

/* The item at hand, whole in the window: parsed by its type. */
static int item_parse(struct rec_input *in, struct rec_item *it, char *err, size_t errlen)
{
	const unsigned char *body = in->s.mem + in->s.pos + sizeof(struct item);
	uint64_t blen = it->size - sizeof(struct item);

	switch (it->type) {
	case ITEM_INFO:
		it->info.p = (const char *)body;
		it->info.end = (const char *)body + blen;
		return 0;
	case ITEM_IMAGE:
		return item_image(it, body, blen, err, errlen);
	case ITEM_MAPS:
		return item_maps(it, body, blen, err, errlen);
	case ITEM_KSYM:
		return item_ksym(it, body, blen, err, errlen);
	case ITEM_KREC:
		return item_krec(in, it, body, blen, err, errlen);
	case ITEM_SB:
		return item_sb(it, body, blen, err, errlen);
	case ITEM_BLOB:
		return item_blob(it, body, blen, err, errlen);
	case ITEM_JITMAP:
		return rec_item_jitmap(it, body, blen, err, errlen);
	case ITEM_END:
		return item_end(it, body, blen, err, errlen);
	}
	return 1;
}

int rec_next_item(struct rec_input *in, struct rec_item *it, char *err, size_t errlen)
{
	struct rec_src *s = &in->s;
	int ret;

	for (;;) {
		struct item h;
		uint64_t off = s->off;
		size_t have = src_fill(s, sizeof(h));

		it->off = off;
		it->type = 0;
		if (!have && !s->error && !s->shrunk)
			return 1;	/* the end: no end item */
		if (have < sizeof(h))
			return src_short(s, in->path, off, "truncated item header", err, errlen);
		memcpy(&h, s->mem + s->pos, sizeof(h));
		if (h.size < sizeof(h) || h.size % 8 || h.size > s->size - off)
			return rec_bad(err, errlen, off, h.size > s->size - off ?
				       "item runs past the end of the file (truncated?)" :
				       "impossible item size");
		if (!item_max(h.type)) {
			/* an item of a newer tool: gone past, not kept */
			if (src_pass(s, h.size) < h.size)
				return src_short(s, in->path, off,
						 "item runs past the end of the file (truncated?)",
						 err, errlen);
			continue;
		}
		if (h.size > item_max(h.type)) {
			char what[128];

			snprintf(what, sizeof(what), "an item of type %u claims %u bytes, "
				 "more than any writer makes of it (%" PRIu64 ")", h.type,
				 h.size, item_max(h.type));
			return rec_bad(err, errlen, off, what);
		}
		if (src_fill(s, h.size) < h.size)
			return src_short(s, in->path, off,
					 "item runs past the end of the file (truncated?)",
					 err, errlen);
		it->type = h.type;
		it->size = h.size;
		ret = item_parse(in, it, err, errlen);
		if (ret <= 0)
			return ret;
		src_skip(s, h.size);	/* a kind of a newer tool */
	}
}

void rec_item_done(struct rec_input *in, const struct rec_item *it)
{
	src_skip(&in->s, it->size);
}
