/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rec-read.c: the reader of recordings (-i FILE): the file read once,
 * into memory of its own, its items parsed and checked one by one.  It
 * decodes nothing: the session (session.c) does what each item says.
 */
#ifndef PERFREGS_DUMP_REC_READ_H
#define PERFREGS_DUMP_REC_READ_H

#include "types.h"

/*
 * A window of a recording's bytes, as the reader reads it (struct
 * rec_src), that --threads' batches point into: one with records handed
 * out stays as it is until each batch that holds it puts it back.  The
 * reading thread's only (pool_record(), batch_write()): the holds are a
 * plain count.  Put back by everyone, it goes to its home's spares if
 * it is of their size and they are not full, or is freed.
 */
struct chunk_spares {
	struct rec_chunk *list;
	unsigned int n;
	size_t cap;		/* the size of a spare */
};

struct rec_chunk {
	unsigned int refs;
	size_t cap;
	struct chunk_spares *home;
	struct rec_chunk *next;	/* on home's list */
	unsigned char data[];
};

void rec_chunk_hold(struct rec_chunk *c);
void rec_chunk_put(struct rec_chunk *c);

/* An item of a recording, parsed and checked: what rec_next_item() gives. */
struct rec_item {
	uint32_t type;		/* ITEM_* of rec-format.h */
	uint32_t size;		/* on disk, its header included */
	uint64_t off;		/* where it starts in the file */
	union {
		struct {
			const char *p, *end;	/* key=value\0 strings */
		} info;
		struct {
			uint32_t dev;
			uint64_t ino;
			struct elf_facts facts;	/* known, class and machine only */
			const char *path;	/* NULL: none */
		} image;
		struct {
			uint32_t pid;
			uint64_t ino;
			struct mapping *m;	/* the caller's: maps_add(), or mappings_free() */
			unsigned int n;
		} maps;
		struct {
			uint64_t start, end;
			const char *name;
		} ksym;
		struct {
			uint32_t cpu;
			const unsigned char *recs;	/* records, back to back */
			size_t len;
			uint64_t recs_off;		/* their offset in the file */
			struct rec_chunk *chunk;	/* the window they lie in, or NULL */
		} krec;
		struct sb_event sb;			/* its name in the item */
		struct {
			uint32_t kind;			/* 1: a vDSO; else: skip it */
			const void *data;
			uint32_t size;
		} blob;
		struct {
			uint32_t pid, nspid;
			const char *text;		/* lines, len bytes */
			uint32_t len;
		} jitmap;
		struct {
			uint64_t produced;
			uint64_t lost[PERFREGS_LOST_MAX];
		} end;
	};
};

/*
 * rec_open() reads and checks the header (PATH "-" is the standard
 * input) and gives its session configuration in *cfg (if not NULL);
 * rec_next_item() gives the items one by one, each byte read once, so
 * that a pipe or a FIFO can be the recording: 0 and an item (valid until
 * rec_item_done()), 1 at the end of the file (no end item: cut short),
 * or -EBADMSG / -EIO with err saying what and where; rec_open() -EPROTO
 * for a file that is no recording at all (empty, shorter than a
 * recording's header, or another magic: perf.data's is named).  rec_input_free()
 * closes what rec_open() opened.
 */
struct rec_input;
int rec_open(const char *path, struct rec_input **in, struct perfregs_config *cfg,
	     char *err, size_t errlen);
/* The same from buf, which nobody else may write while it is read. */
int rec_open_buf(const unsigned char *buf, size_t size, struct rec_input **in,
		 char *err, size_t errlen);
int rec_next_item(struct rec_input *in, struct rec_item *it, char *err, size_t errlen);
void rec_item_done(struct rec_input *in, const struct rec_item *it);
void rec_input_free(struct rec_input *in);
const char *rec_input_path(const struct rec_input *in);
const struct perfregs_config *rec_input_config(const struct rec_input *in);
/* The ABI of the module its records came from, as its header says. */
uint32_t rec_input_abi_major(const struct rec_input *in);
uint32_t rec_input_abi_minor(const struct rec_input *in);
/* Its header's REC_F_* flags (rec-format.h). */
uint32_t rec_input_flags(const struct rec_input *in);
/* The recording's format version (REC_VERSION when this tool wrote it). */
uint32_t rec_input_version(const struct rec_input *in);
/*
 * Where its items lie, for a second reader (rec-scan.c) that leaves the
 * first where it is: the file (fd, read with pread() at at + offset) or
 * the memory (mem), the first item's offset and the recording's size.
 * False for a pipe: its bytes are read once.
 */
struct rec_where {
	int fd;
	const unsigned char *mem;
	uint64_t at, first, size;
};
bool rec_input_where(const struct rec_input *in, struct rec_where *w);
/* Its bytes, when a regular file says so; 0 for a pipe. */
uint64_t rec_input_size(const struct rec_input *in);
/*
 * A read error, or the file shrinking while it was read, at off: the
 * message and -EIO or -EBADMSG, as the items' own errors say it.
 */
int rec_input_short(const struct rec_input *in, uint64_t off, const char *what,
		    char *err, size_t errlen);
/* "malformed recording at offset OFF: WHAT", -EBADMSG */
int rec_bad(char *err, size_t len, uint64_t off, const char *what);

/* rec-info.c: an ITEM_INFO's strings into *in, and the samples' event name. */
void rec_info_parse(struct rec_info *in, char *event_name, size_t event_len,
		    const char *p, const char *end);
void rec_info_free(struct rec_info *in);
void mappings_free(struct mapping *m, unsigned int n);

/* An ITEM_JITMAP's body (after its header) parsed into it. */
int rec_item_jitmap(struct rec_item *it, const unsigned char *body, uint64_t blen,
		    char *err, size_t errlen);

#endif
