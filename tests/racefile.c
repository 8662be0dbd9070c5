// SPDX-License-Identifier: GPL-2.0
/*
 * racefile: a recording written by someone else while it is decoded.
 *
 * It writes a recording of N samples with a user stack each, and
 * decodes it with a record hook that runs where decode_record() puts
 * it: after the sample was checked, before anything else reads it (the
 * convert hooks, then the output).  At sample VICTIM the hook plays the
 * other process, deterministically:
 *
 *   change    pwrite()s that sample in the file: its size, user register
 *             mask and stack size made what no check would let through.
 *             The bytes the decoder checked must not change (it reads its
 *             own copy, not the file's pages), and the decode must give
 *             what a decode of the file as it was gives, byte for byte.
 *   truncate  cuts the file to half its size, at a page boundary (a
 *             mapping reads zeros up to the end of the page the file now
 *             ends in, and a SIGBUS after that).  The decode must end with
 *             the file's "shrank while it was read" (or, had it read it
 *             all already, give the whole output); not die of SIGBUS.
 *
 * Each runs twice: with -f json's output (--call-graph dwarf, so the
 * stack reaches out_sample()), and with convert --to pprof's hook, which
 * unwinds every stack.  Exit 0 when all hold, 1 with a line on stderr
 * when one does not; a decoder that reads the file's pages dies of
 * SIGSEGV or SIGBUS instead, or ASan reports it.
 *
 * usage: racefile FILE change|truncate
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "../tools/perfregs-dump/types.h"
#include "../tools/perfregs-dump/rec-write.h"
#include "../tools/perfregs-dump/session.h"
#include "../tools/perfregs-dump/pprof.h"

#define NSAMPLES	16000	/* 10 MB: far more than the reader holds at once */
#define VICTIM		64
#define STACK		512
#define TIME0		0x7ace000000000000ULL
#define R(x)		(1ULL << PERFREGS_REG_##x)
/* the fixed part, 3 registers, the stack with its size and copied words */
#define REC_SIZE	(sizeof(struct perfregs_rec_sample) + 3 * 8 + 8 + STACK + 8)

struct race {
	int fd;			/* the file, for writing, as the other process */
	uint64_t offs[NSAMPLES];	/* where each sample lies in it */
	off_t size;
	bool truncate;
	bool done;
	bool changed;		/* the bytes the decoder checked changed */
	struct tool tool;	/* between the session's checks and inner's */
	struct tool *inner;	/* the printer, or pprof's */
};

static struct race race;

static void make_sample(uint64_t *buf, unsigned int i)
{
	struct perfregs_rec_sample *s = (void *)buf;
	uint64_t *v = (uint64_t *)s->regs;
	unsigned int k;

	memset(buf, 0, REC_SIZE);
	s->header.type = PERFREGS_REC_SAMPLE;
	s->header.size = REC_SIZE;
	s->time = TIME0 + i;
	s->pid = s->tid = 42;
	s->flags = PERFREGS_SF_CTX_IRQ | PERFREGS_SF_UREGS_DIRECT | PERFREGS_SF_STACK;
	s->abi = PERFREGS_ABI_64;
	snprintf(s->comm, sizeof(s->comm), "race");
	s->iregs_mask = R(IP);
	s->uregs_mask = R(IP) | R(SP);
	*v++ = 0x401000 + i;		/* iregs: ip */
	*v++ = 0x401000 + i;		/* uregs: ip, sp */
	*v++ = 0x7ffd0000;
	*v++ = STACK;			/* the stack's size, its bytes, copied */
	for (k = 0; k < STACK / 8; k++)
		*v++ = 0x401000 + k;
	*v++ = STACK;
}

static int make_recording(const char *path)
{
	uint64_t lost[PERFREGS_LOST_MAX] = { 0 }, buf[REC_SIZE / 8];
	struct perfregs_config cfg;
	struct recorder *r;
	unsigned int i;

	prf_config_default(&cfg);
	r = rec_create(path, &cfg, "cpu-clock");
	if (!r)
		return -1;
	for (i = 0; i < NSAMPLES; i++) {
		make_sample(buf, i);
		rec_sample(r, 0, (const struct perfregs_rec_header *)buf);
	}
	return rec_close(r, NSAMPLES, lost) ? -1 : 0;
}

/* The file's bytes, len of them; NULL if it cannot be read. */
static unsigned char *slurp(const char *path, size_t *len)
{
	unsigned char *p = NULL;
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	if (!fstat(fd, &st))
		p = malloc(st.st_size + 1);
	if (p && read(fd, p, st.st_size) != st.st_size) {
		free(p);
		p = NULL;
	}
	close(fd);
	if (p)
		*len = st.st_size;
	return p;
}

static int spill(const char *path, const unsigned char *p, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	int ret = fd >= 0 && write(fd, p, len) == (ssize_t)len ? 0 : -1;

	if (fd >= 0 && close(fd))
		ret = -1;
	return ret;
}

/* Where each sample lies: found by its time, which no other bytes hold. */
static int find_samples(const unsigned char *p, size_t len)
{
	size_t at = offsetof(struct perfregs_rec_sample, time), off;
	unsigned int n = 0;
	uint64_t t;

	for (off = 0; off + REC_SIZE <= len; off += 8) {
		memcpy(&t, p + off + at, sizeof(t));
		if (t == TIME0 + n)
			race.offs[n++] = off;
	}
	return n == NSAMPLES ? 0 : -1;
}

/* The other process, between the session's checks and the rest. */
static void on_sample(struct tool *t, int cpu, const struct perfregs_rec_sample *s,
		      const struct sample_stack *st)
{
	const struct perfregs_rec_header *rec = &s->header;
	unsigned char before[REC_SIZE];

	if (rec->type == PERFREGS_REC_SAMPLE && s->time == TIME0 + VICTIM && !race.done) {
		uint64_t off = race.offs[VICTIM], mask = PERFREGS_MASK_64;
		uint64_t huge = 0x7ffffff8;
		uint32_t size = 0xfff8;
		size_t stack = sizeof(*s) + 3 * 8;

		race.done = true;
		memcpy(before, rec, REC_SIZE);
		if (race.truncate) {
			/* at a page: the next read of a mapping is past its end */
			if (ftruncate(race.fd, race.size / 2 & ~(off_t)4095))
				perror("racefile: ftruncate");
		} else if (pwrite(race.fd, &size, 4, off + 4) != 4 ||
			   pwrite(race.fd, &mask, 8, off +
				  offsetof(struct perfregs_rec_sample, uregs_mask)) != 8 ||
			   pwrite(race.fd, &huge, 8, off + stack) != 8) {
			perror("racefile: pwrite");
		}
		if (memcmp(before, rec, REC_SIZE)) {
			race.changed = true;
			fprintf(stderr, "racefile: the sample decode_record() checked changed "
				"under it: it reads the file's pages, not a copy of its own\n");
		}
	}
	if (race.inner->sample)
		race.inner->sample(race.inner, cpu, s, st);
}

/* Decode path into out: -f json's lines, or convert --to pprof's profile. */
static int decode(const char *path, const char *out, bool pprof, bool raced,
		  char *err, size_t errlen)
{
	struct perfregs_config cfg;
	struct pprof *pp = NULL;
	struct printer printer;
	struct session d;
	uint64_t produced;
	FILE *fp;
	int ret;

	memset(&d, 0, sizeof(d));
	fp = fopen(pprof ? "/dev/null" : out, "w");
	if (!fp) {
		snprintf(err, errlen, "%s: %s", out, strerror(errno));
		return -EIO;
	}
	d.out = fp;
	d.o.format = FMT_JSON;
	d.o.event_name = "cpu-clock";
	if (pprof) {
		prf_config_default(&cfg);
		pp = pprof_begin(&d, &cfg, out, err, errlen);
		if (!pp) {
			fclose(fp);
			return -EIO;
		}
	}
	d.o.callgraph = true;	/* the stacks reach the output and the hooks */
	printer_init(&printer, &d);
	race.inner = pp ? pprof_tool(pp) : &printer.tool;
	race.done = false;
	race.changed = false;
	race.tool = *race.inner;
	race.tool.sample = on_sample;
	ret = session_decode(path, &d, raced ? &race.tool : race.inner, &produced, err, errlen);
	if (pp) {
		char werr[256];

		if (pprof_write(pp, werr, sizeof(werr)) && !ret) {
			snprintf(err, errlen, "%s", werr);
			ret = -EIO;
		}
		pprof_free(pp);
	}
	fclose(fp);
	session_free(&d);
	return ret;
}

static int check(const char *path, const unsigned char *orig, size_t len, bool pprof)
{
	const char *what = pprof ? "convert --to pprof" : "-f json";
	char err0[512], err1[512], o0[4096], o1[4096], raced[4096];
	unsigned char *a, *b;
	size_t alen = 0, blen = 0;
	int ret0, ret1, bad = 0;

	snprintf(raced, sizeof(raced), "%s.raced", path);
	snprintf(o0, sizeof(o0), "%s.out0", path);
	snprintf(o1, sizeof(o1), "%s.out1", path);
	if (spill(raced, orig, len)) {
		perror(raced);
		return 1;
	}
	race.fd = open(raced, O_RDWR | O_CLOEXEC);
	race.size = (off_t)len;
	if (race.fd < 0) {
		perror(raced);
		return 1;
	}
	ret0 = decode(path, o0, pprof, false, err0, sizeof(err0));
	ret1 = decode(raced, o1, pprof, true, err1, sizeof(err1));
	close(race.fd);
	a = slurp(o0, &alen);
	b = slurp(o1, &blen);
	if (ret0 || !a || !b) {
		fprintf(stderr, "racefile: %s of the file as written: %s\n", what,
			ret0 ? err0 : "no output");
		bad = 1;
	} else if (!race.done) {
		fprintf(stderr, "racefile: %s: the hook never saw sample %u\n", what, VICTIM);
		bad = 1;
	} else if (race.changed) {
		bad = 1;	/* said so */
	} else if (!race.truncate) {
		if (ret1 || alen != blen || memcmp(a, b, alen)) {
			fprintf(stderr, "racefile: %s: the decode of the file written meanwhile "
				"differs from the file's (%s; %zu bytes against %zu)\n", what,
				ret1 ? err1 : "no error", blen, alen);
			bad = 1;
		}
	} else if (!ret1) {
		/* it had all of the file already: then all of its output */
		if (alen != blen || memcmp(a, b, alen)) {
			fprintf(stderr, "racefile: %s: no error for the truncation, and not "
				"the whole output\n", what);
			bad = 1;
		}
	} else if (ret1 != -EBADMSG || !strstr(err1, "shrank while it was read") ||
		   (!pprof && (blen > alen || memcmp(a, b, blen) ||
			       blen < (size_t)VICTIM * 100))) {
		fprintf(stderr, "racefile: %s of a file cut while read: \"%s\" (%d), %zu bytes "
			"of output, not the first ones of %zu\n", what, err1, ret1, blen, alen);
		bad = 1;
	} else {
		printf("# %s: %s\n", what, err1);
	}
	free(a);
	free(b);
	unlink(raced);
	unlink(o0);
	unlink(o1);
	return bad;
}

int main(int argc, char **argv)
{
	unsigned char *orig;
	size_t len = 0;
	int bad;

	if (argc != 3 || (strcmp(argv[2], "change") && strcmp(argv[2], "truncate"))) {
		fprintf(stderr, "usage: racefile FILE change|truncate\n");
		return 2;
	}
	race.truncate = !strcmp(argv[2], "truncate");
	orig = make_recording(argv[1]) ? NULL : slurp(argv[1], &len);
	if (!orig) {
		perror(argv[1]);
		return 2;
	}
	if (find_samples(orig, len)) {
		fprintf(stderr, "racefile: %s: the samples are not where they should be\n",
			argv[1]);
		return 2;
	}
	bad = check(argv[1], orig, len, false);
	bad |= check(argv[1], orig, len, true);
	free(orig);
	return bad;
}
