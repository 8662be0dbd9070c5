// SPDX-License-Identifier: GPL-2.0
/*
 * perfregs-dump convert: a recording into a perf.data file that perf
 * script and perf report read.
 *
 * One attr: the session's event and period, sample_type IP | TID | TIME |
 * CPU | PERIOD | CALLCHAIN | REGS_USER | REGS_INTR.  perf's register
 * masks are one per attr, so the user mask is the session's 64-bit one;
 * a register a sample lacks (the upper registers of a 32-bit frame, a
 * selector the module could not know) is written as 0, as perf itself
 * does.  Registers are in perf's numbering: ds, es, fs and gs where the
 * module records them (ABI minor 1, user registers), never the FS and GS
 * base, which perf has no number for.  With the session's SIMD state,
 * xmm0-15 go where perf puts them, in the interrupt registers
 * (PERF_REG_X86_XMM0.., two u64 each, low first: the layout of
 * PERF_REG_EXTENDED_MASK, as a PEBS event records them): a sample whose
 * interrupt hit user mode has the user's interrupt registers, and its
 * xmm (xmm0-7 for a 32-bit frame); any other sample, or one whose state
 * is unknown, has 0 there.  COMM and MMAP records come from the
 * recording's samples and mappings, in front of the samples that need
&
 * recording knows where _text was; LOST records carry the losses.
 *
 * The call chain is this tool's own: the kernel's call chain (a
 * session's --kernel-callchain), or its IP, then the user frames unwound
 * with each sample's own ABI (--call-graph dwarf's), or the user IP
 * alone when the recording has no stacks.  The stacks are
 * not copied: given STACK_USER, perf unwinds them again and adds its
 * frames to these.  (Nor could perf unwind them from this file: its
 * unwinder reads .eh_frame_hdr through the task's mappings, and only
 * executable ones are here; measured: perf script gave the leaf alone.)
 *
 * After the data, the header's features, as perf record writes them:
 * BUILD_ID (every mapped file's, and the kernel's), HOSTNAME, OSRELEASE,
 * VERSION (of the perfregs-dump that recorded), ARCH, NRCPUS, CPUDESC,
 * CPUID, TOTAL_MEM, CMDLINE (of that perfregs-dump), EVENT_DESC,
 * SAMPLE_TIME (the first and the last sample's) and CLOCKID
 * (CLOCK_MONOTONIC, the samples' clock); each only when the recording
 * says it.  Recordings keep no CPU, NUMA, cache or memory topology, PMU
 * list or wall-clock reference: those stay missing.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <asm/perf_regs.h>
#include <sys/mman.h>
#include <time.h>
#include "types.h"
#include "images.h"
#include "unwind.h"
#include "rec-read.h"
#include "session.h"
#include "outfile.h"
#include "resolve.h"
#include "perfdata.h"

#define SEGS ((1ULL << PERFREGS_REG_DS) | (1ULL << PERFREGS_REG_ES) | \
	      (1ULL << PERFREGS_REG_FS) | (1ULL << PERFREGS_REG_GS))

struct perf_file_section {
	uint64_t offset, size;
};

struct perf_file_header {
	uint64_t magic;
	uint64_t size;
	uint64_t attr_size;
	struct perf_file_section attrs, data, event_types;
	uint64_t features[4];
};

struct perf_file_attr {
	struct perf_event_attr attr;
	struct perf_file_section ids;
};

/* perf's feature bits (tools/perf/util/header.h) */
enum {
	FEAT_BUILD_ID = 2, FEAT_HOSTNAME = 3, FEAT_OSRELEASE = 4, FEAT_VERSION = 5,
	FEAT_ARCH = 6, FEAT_NRCPUS = 7, FEAT_CPUDESC = 8, FEAT_CPUID = 9,
	FEAT_TOTAL_MEM = 10, FEAT_CMDLINE = 11, FEAT_EVENT_DESC = 12, FEAT_SAMPLE_TIME = 21,
	FEAT_CLOCKID = 23,
};

#define NAME_ALIGN	64	/* perf pads its strings to this */
/*
 * perf reads a build-id's file name into char[PATH_MAX] on its stack
 * (perf_header__read_build_ids()) and an MMAP's into a u16-sized record:
 * a longer path from a recording is left out of perf.data.
 */
#define PERF_PATH_MAX	4096
#define BUILD_IDS_MAX	65536
#define PERF_RECORD_MISC_BUILD_ID_SIZE_	(1 << 15)	/* not in every perf_event.h */

struct bid {
	char *path;
	uint8_t id[20];
	uint8_t len;
};

struct conv {
	struct tool tool;		/* what the session hands over */
	struct session *d;
	struct bid *bids;	/* 2 * BUILD_IDS_MAX slots, once one is added */
	size_t nbids;
	FILE *fp;
	int error;
	uint64_t data_size;
	uint64_t umask, imask;		/* perf's registers 0-23 */
	bool xmm;			/* and xmm0-15 in the interrupt registers */
	uint64_t period;
	uint64_t first, last;	/* the samples' times */
	bool kernel_mapped;
	struct seen { uint32_t pid, tid; char comm[16]; } *seen;
	size_t nseen, capseen;
};

static void put(struct conv *c, const void *p, size_t n)
{
	if (!c->error && n && fwrite(p, 1, n, c->fp) != n)
		c->error = errno ? errno : EIO;
	c->data_size += n;
}

static void put_hdr(struct conv *c, uint32_t type, uint16_t misc, size_t size)
{
	struct perf_event_header h = { type, misc, (uint16_t)size };

	/* the callers keep every record below 64 KiB; a wrapped size would
	 * make perf read the rest as records of someone's choosing */
	if (size > UINT16_MAX && !c->error)
		c->error = EOVERFLOW;
	put(c, &h, sizeof(h));
}

static uint32_t bid_hash(const char *path, const uint8_t *id, uint8_t len)
{
	uint32_t h = 2166136261U;	/* FNV-1a over the path, then the id */

	for (; *path; path++)
		h = (h ^ (unsigned char)*path) * 16777619U;
	while (len--)
		h = (h ^ *id++) * 16777619U;
	return h;
}

/*
 * A mapped file's build-id for HEADER_BUILD_ID, once per (path, id): a
 * hash set, as a recording may hold a million mappings of the same few
 * files; at most BUILD_IDS_MAX of them.
 */
static void bid_add(struct conv *c, const char *path, const uint8_t *id, uint8_t len)
{
	uint32_t i, mask = 2 * BUILD_IDS_MAX - 1;
	struct bid *b;

	if (!len || len > 20 || !path[0] || c->nbids >= BUILD_IDS_MAX ||
	    strlen(path) >= PERF_PATH_MAX)
		return;
	if (!c->bids) {
		c->bids = calloc(mask + 1, sizeof(*c->bids));
		if (!c->bids)
			return;
	}
	for (i = bid_hash(path, id, len) & mask; (b = &c->bids[i])->path; i = (i + 1) & mask)
		if (b->len == len && !memcmp(b->id, id, len) && !strcmp(b->path, path))
			return;
	b->path = strdup(path);
	if (!b->path)
		return;
	memcpy(b->id, id, len);
	b->len = len;
	c->nbids++;
}

/*
 * The kernel's text as perf synthesizes it: pid -1, "[kernel.kallsyms]_text"
 * with pgoff the address of _text, so perf relocates kallsyms or a vmlinux
 * of the same build-id to it.  Once, before anything that may need it;
 * only when the recording knows _text (its maker could read kallsyms).
 */
static void kernel_mmap_once(struct conv *c)
{
	static const char name[24] = "[kernel.kallsyms]_text";
	uint64_t text = c->d->info.kernel_text, v[3];
	uint32_t ids[2] = { UINT32_MAX, 0 };

	if (c->kernel_mapped || !text)
		return;
	c->kernel_mapped = true;
	v[0] = text;
	v[1] = 0xffffffffff000000ULL - text;	/* to the fixmap: modules too */
	v[2] = text;
	put_hdr(c, PERF_RECORD_MMAP, PERF_RECORD_MISC_KERNEL, 8 + 8 + 24 + sizeof(name));
	put(c, ids, sizeof(ids));
	put(c, v, sizeof(v));
	put(c, name, sizeof(name));
}

static void comm_once(struct conv *c, const struct perfregs_rec_sample *s)
{
	char comm[24] = { 0 };
	size_t i;

	for (i = 0; i < c->nseen; i++)
		if (c->seen[i].tid == s->tid && !memcmp(c->seen[i].comm, s->comm, 16))
			return;
	if (c->nseen == c->capseen) {
		size_t cap = c->capseen ? c->capseen * 2 : 64;
		void *p = realloc(c->seen, cap * sizeof(*c->seen));

		if (!p)
			return;
		c->seen = p;
		c->capseen = cap;
	}
	c->seen[c->nseen].pid = s->pid;
	c->seen[c->nseen].tid = s->tid;
	memcpy(c->seen[c->nseen].comm, s->comm, 16);
	c->nseen++;
	memcpy(comm, s->comm, 16);
	put_hdr(c, PERF_RECORD_COMM, 0, 8 + 8 + 24);
	put(c, &s->pid, 4);
	put(c, &s->tid, 4);
	put(c, comm, 24);
}

static void on_maps(void *arg, const struct task_maps *tm)
{
	struct conv *c = arg;
	unsigned int i;

	kernel_mmap_once(c);
	for (i = 0; i < tm->n; i++) {
		size_t plen = strlen(tm->m[i].path) + 1, pad = (plen + 7) & ~7UL;
		uint64_t v[3] = { tm->m[i].start, tm->m[i].end - tm->m[i].start,
				  tm->m[i].pgoff };
		uint32_t ids[2] = { tm->pid, tm->pid };
		static const char zeros[8];

		if (plen > PERF_PATH_MAX)
			continue;

		bid_add(c, tm->m[i].path, tm->m[i].build_id, tm->m[i].build_id_len);
		put_hdr(c, PERF_RECORD_MMAP, PERF_RECORD_MISC_USER, 8 + 8 + 24 + pad);
		put(c, ids, sizeof(ids));
		put(c, v, sizeof(v));
		put(c, tm->m[i].path, plen);
		put(c, zeros, pad - plen);
	}
}

/* Side-band events as perf's own: MMAP, COMM (exec), FORK, EXIT. */
static void on_sb(void *arg, const struct sb_event *ev)
{
	struct conv *c = arg;
	static const char zeros[8];
	uint32_t ids[4] = { ev->pid, ev->pid, ev->pid, ev->pid };
	size_t plen, pad;

	kernel_mmap_once(c);
	switch (ev->kind) {
	case SB_MMAP: {
		uint64_t v[3] = { ev->start, ev->end - ev->start, ev->pgoff };

		if (!(ev->prot & PROT_EXEC))
			return;
		bid_add(c, ev->name, ev->build_id, ev->build_id_len);
		plen = strlen(ev->name) + 1;
		if (plen > PERF_PATH_MAX)
			return;
		pad = (plen + 7) & ~7UL;
		put_hdr(c, PERF_RECORD_MMAP, PERF_RECORD_MISC_USER, 8 + 8 + 24 + pad);
		put(c, ids, 8);
		put(c, v, sizeof(v));
		put(c, ev->name, plen);
		put(c, zeros, pad - plen);
		break;
	}
	case SB_EXEC: {
		char comm[16] = { 0 };

		if (!ev->name[0])
			return;	/* a space seeded from /proc: no exec */
		strncpy(comm, ev->name, sizeof(comm) - 1);
		put_hdr(c, PERF_RECORD_COMM, PERF_RECORD_MISC_COMM_EXEC, 8 + 8 + 16);
		put(c, ids, 8);
		put(c, comm, 16);
		break;
	}
	case SB_FORK:
	case SB_EXIT:
		ids[1] = ev->ppid;
		ids[3] = ev->ppid;
		put_hdr(c, ev->kind == SB_FORK ? PERF_RECORD_FORK : PERF_RECORD_EXIT, 0,
			8 + 16 + 8);
		put(c, ids, 16);
		put(c, &ev->time, 8);
		break;
	}
}

/* A register of a set, or 0 when the set lacks it. */
static uint64_t reg_of(uint64_t mask, const uint64_t *vals, int reg)
{
	int i = prf_reg_index(mask, reg);

	return i < 0 ? 0 : vals[i];
}

static void put_regs(struct conv *c, uint64_t want, uint64_t have,
		     const uint64_t *vals, uint64_t abi)
{
	int reg;

	put(c, &abi, 8);
	if (abi == PERF_SAMPLE_REGS_ABI_NONE)
		return;
	for (reg = 0; reg < PERFREGS_REG_MAX; reg++) {
		uint64_t v;

		if (!(want & (1ULL << reg)))
			continue;
		v = reg_of(have, vals, reg);
		put(c, &v, 8);
	}
}

/*
 * xmm0-15 after the interrupt registers, as PERF_REG_X86_XMM0.. (two
 * u64 each, the low one first): the sample's own when its interrupt hit
 * user mode and its state is known, else 0.
 */
static void put_xmm(struct conv *c, const struct perfregs_rec_sample *s,
		    const struct sample_stack *st)
{
	uint64_t v[32] = { 0 };
	const struct sample_simd *x = &st->simd;

	if (!(s->flags & PERFREGS_SF_KERNEL) && x->xmm)
		memcpy(v, x->xmm, 16 * x->nr_vec);	/* nr_vec: 16 at most */
	put(c, v, sizeof(v));
}

/*
 * The sample's call chain as perf's, of the frames every output takes
 * (resolve_frames()): the kernel context and the kernel frames of a
 * kernel-mode sample (its kernel call chain, or its IP), then the user
 * context and the user frames.  How many entries (at most 2 +
 * SAMPLE_FRAMES_MAX).  Addresses only, without the functions inlined
 * there (resolve_inlines()): perf finds those itself from the files
 * when it reads them (perf script --inline, perf report).
 */
static unsigned int chain_of(struct conv *c, const struct resolved *r, uint64_t *chain)
{
	struct sample_frame f[SAMPLE_FRAMES_MAX];
	unsigned int i, n = 0, nf;

	nf = resolve_frames(c->d, &c->d->self, r, "", f);
	for (i = 0; i < nf; i++) {
		/* each context once, before the first frame of its kind */
		if (i == 0 && f[i].kernel)
			chain[n++] = PERF_CONTEXT_KERNEL;
		else if (!f[i].kernel && (i == 0 || f[i - 1].kernel))
			chain[n++] = PERF_CONTEXT_USER;
		chain[n++] = f[i].ip;
	}
	return n;
}

static void on_record(void *arg, int cpu, const struct perfregs_rec_header *rec,
		      const struct sample_stack *st)
{
	struct conv *c = arg;

	kernel_mmap_once(c);
	if (rec->type == PERFREGS_REC_SAMPLE) {
		const struct perfregs_rec_sample *s = (const void *)rec;
		const uint64_t *iv = (const uint64_t *)s->regs;
		const uint64_t *uv = iv + prf_popcount(s->iregs_mask);
		uint64_t uabi = s->abi == PERFREGS_ABI_64 ? PERF_SAMPLE_REGS_ABI_64 :
				s->abi == PERFREGS_ABI_32 ? PERF_SAMPLE_REGS_ABI_32 :
				PERF_SAMPLE_REGS_ABI_NONE;
		uint32_t ids[2] = { s->pid, s->tid }, cpus[2] = { (uint32_t)cpu, 0 };
		uint64_t time = s->time, size, chain[3 + SAMPLE_FRAMES_MAX], ip;
		struct resolved r;
		unsigned int nchain;

		resolve_sample(c->d, &c->d->self, s, st, 0, &r);
		ip = r.ip;
		comm_once(c, s);
		if (!c->first || time < c->first)
			c->first = time;
		if (time > c->last)
			c->last = time;
		nchain = chain_of(c, &r, chain + 1);
		chain[0] = nchain;
		size = 8 + 8 + 8 + 8 + 8 + 8;	/* header ip tid time cpu period */
		size += 8 * (1 + nchain);
		size += 8 + (uabi ? 8 * prf_popcount(c->umask) : 0);
		size += 8 + 8 * prf_popcount(c->imask) + (c->xmm ? 8 * 32 : 0);
		put_hdr(c, PERF_RECORD_SAMPLE,
			(s->flags & PERFREGS_SF_KERNEL) ? PERF_RECORD_MISC_KERNEL :
							  PERF_RECORD_MISC_USER, size);
		put(c, &ip, 8);
		put(c, ids, 8);
		put(c, &time, 8);
		put(c, cpus, 8);
		put(c, &c->period, 8);
		put(c, chain, 8 * (1 + nchain));
		put_regs(c, c->umask, s->uregs_mask, uv, uabi);
		put_regs(c, c->imask, s->iregs_mask, iv,
			 (s->flags & PERFREGS_SF_KERNEL) || s->abi == PERFREGS_ABI_64 ?
			 PERF_SAMPLE_REGS_ABI_64 : PERF_SAMPLE_REGS_ABI_32);
		if (c->xmm)
			put_xmm(c, s, st);
	} else if (rec->type == PERFREGS_REC_LOST) {
		const struct perfregs_rec_lost *l = (const void *)rec;
		uint64_t v[2] = { 0, prf_lost_of(l, PERFREGS_LOST_FULL) +
				     prf_lost_of(l, PERFREGS_LOST_NESTED) };

		if (v[1]) {
			put_hdr(c, PERF_RECORD_LOST, 0, 8 + 16);
			put(c, v, sizeof(v));
		}
	}
}

/* perf's string: u32 length (padded to NAME_ALIGN), the bytes, NULs */
static void put_string(struct conv *c, const char *s)
{
	static const char zeros[NAME_ALIGN];
	uint32_t len = (uint32_t)strlen(s) + 1;
	uint32_t padded = (len + NAME_ALIGN - 1) & ~(uint32_t)(NAME_ALIGN - 1);

	put(c, &padded, 4);
	put(c, s, len);
	put(c, zeros, padded - len);
}

/* One entry of HEADER_BUILD_ID: perf's struct build_id_event + its name. */
static void put_build_id(struct conv *c, uint16_t misc, const uint8_t *id, uint8_t len,
			 const char *name)
{
	static const char zeros[NAME_ALIGN];
	size_t nlen = strlen(name) + 1, padded = (nlen + NAME_ALIGN - 1) & ~(size_t)(NAME_ALIGN - 1);
	uint8_t bid[24] = { 0 };
	int32_t pid = -1;	/* the host's */

	if (nlen > PERF_PATH_MAX)
		return;
	memcpy(bid, id, len);
	bid[20] = len;
	put_hdr(c, 0, misc | PERF_RECORD_MISC_BUILD_ID_SIZE_, 36 + padded);
	put(c, &pid, 4);
	put(c, bid, sizeof(bid));
	put(c, name, nlen);
	put(c, zeros, padded - nlen);
}

/* The content of feature f: what perf record would write there. */
static void put_feature(struct conv *c, int f, const struct perf_file_attr *fa)
{
	const struct rec_info *in = &c->d->info;
	uint32_t u[2];
	uint64_t one = 1, id = 1;
	size_t i;

	switch (f) {
	case FEAT_BUILD_ID:
		if (in->kbuild_id_len)
			put_build_id(c, PERF_RECORD_MISC_KERNEL, in->kbuild_id, in->kbuild_id_len,
				     "[kernel.kallsyms]");
		for (i = 0; c->bids && i < 2 * BUILD_IDS_MAX; i++)
			if (c->bids[i].path)
				put_build_id(c, PERF_RECORD_MISC_USER, c->bids[i].id,
					     c->bids[i].len, c->bids[i].path);
		break;
	case FEAT_HOSTNAME:
		put_string(c, in->host);
		break;
	case FEAT_OSRELEASE:
		put_string(c, in->release);
		break;
	case FEAT_VERSION:	/* of the tool that recorded */
		put_string(c, in->version);
		break;
	case FEAT_CPUDESC:
		put_string(c, in->cpudesc);
		break;
	case FEAT_CPUID:
		put_string(c, in->cpuid);
		break;
	case FEAT_TOTAL_MEM:
		put(c, &in->mem_kb, 8);
		break;
	case FEAT_ARCH:
		put_string(c, in->machine);
		break;
	case FEAT_NRCPUS:
		u[0] = in->nrcpus_conf;
		u[1] = in->nrcpus_online;
		put(c, u, sizeof(u));
		break;
	case FEAT_CMDLINE:
		u[0] = in->nargs;
		put(c, u, 4);
		for (i = 0; i < in->nargs; i++)
			put_string(c, in->args[i]);
		break;
	case FEAT_EVENT_DESC:
		u[0] = 1;			/* events */
		u[1] = sizeof(fa->attr);	/* the size of an attr */
		put(c, u, sizeof(u));
		put(c, &fa->attr, sizeof(fa->attr));
		u[0] = 1;			/* its ids */
		put(c, u, 4);
		put_string(c, c->d->event_name[0] ? c->d->event_name : "unknown");
		put(c, &id, 8);
		break;
	case FEAT_SAMPLE_TIME:
		put(c, &c->first, 8);
		put(c, &c->last, 8);
		break;
	case FEAT_CLOCKID:
		put(c, &one, 8);		/* its resolution, ns */
		break;
	}
}


/* The session's tool: each item to on_*() above. */
static void conv_sample(struct tool *t, int cpu, const struct perfregs_rec_sample *s,
			const struct sample_stack *st)
{
	on_record(container_of(t, struct conv, tool), cpu, &s->header, st);
}

static void conv_lost(struct tool *t, int cpu, const struct perfregs_rec_lost *l)
{
	on_record(container_of(t, struct conv, tool), cpu, &l->header, NULL);
}

static void conv_maps(struct tool *t, const struct task_maps *tm)
{
	on_maps(container_of(t, struct conv, tool), tm);
}

static void conv_sb(struct tool *t, const struct sb_event *ev)
{
	on_sb(container_of(t, struct conv, tool), ev);
}

/*
 * The features the recording can give, after the data: a table of
 * (offset, size), one per bit set in h->features, in bit order, then
 * their contents.
 */
static void put_features(struct conv *c, struct perf_file_header *h,
			 const struct perf_file_attr *fa)
{
	const struct rec_info *in = &c->d->info;
	const int want[] = {
		FEAT_BUILD_ID, FEAT_HOSTNAME, FEAT_OSRELEASE, FEAT_VERSION, FEAT_ARCH,
		FEAT_NRCPUS, FEAT_CPUDESC, FEAT_CPUID, FEAT_TOTAL_MEM, FEAT_CMDLINE,
		FEAT_EVENT_DESC, FEAT_SAMPLE_TIME, FEAT_CLOCKID,
	};
	struct perf_file_section sec[sizeof(want) / sizeof(want[0])] = { { 0 } };
	uint64_t start = h->data.offset + h->data.size, at;
	unsigned int i, n = 0;
	int f[sizeof(want) / sizeof(want[0])];

	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		bool have = want[i] == FEAT_BUILD_ID ? c->nbids || in->kbuild_id_len :
			    want[i] == FEAT_HOSTNAME ? in->host[0] != 0 :
			    want[i] == FEAT_VERSION ? in->version[0] != 0 :
			    want[i] == FEAT_CPUDESC ? in->cpudesc[0] != 0 :
			    want[i] == FEAT_CPUID ? in->cpuid[0] != 0 :
			    want[i] == FEAT_TOTAL_MEM ? in->mem_kb != 0 :
			    want[i] == FEAT_OSRELEASE ? in->release[0] != 0 :
			    want[i] == FEAT_ARCH ? in->machine[0] != 0 :
			    want[i] == FEAT_NRCPUS ? in->nrcpus_conf != 0 :
			    want[i] == FEAT_CMDLINE ? in->nargs != 0 :
			    want[i] == FEAT_SAMPLE_TIME ? c->last != 0 : true;

		if (!have)
			continue;
		h->features[0] |= 1ULL << want[i];
		f[n++] = want[i];
	}
	at = start + n * sizeof(*sec);
	put(c, sec, n * sizeof(*sec));	/* the table, filled in below */
	for (i = 0; i < n; i++) {
		uint64_t before = c->data_size;

		put_feature(c, f[i], fa);
		sec[i].offset = at;
		sec[i].size = c->data_size - before;
		at += sec[i].size;
	}
	if (!c->error && (fseek(c->fp, (long)start, SEEK_SET) ||
			  fwrite(sec, sizeof(*sec), n, c->fp) != n))
		c->error = errno ? errno : EIO;
}

int perfdata_convert(const char *in, const char *out, struct session *d,
		     char *err, size_t errlen)
{
	static const uint32_t types[] = {
#define PERFREGS_EVENT(name, id, type, config, period) [id] = type,
#include <perfregs/events.h>
	};
	static const uint64_t configs[] = {
#define PERFREGS_EVENT(name, id, type, config, period) [id] = config,
#include <perfregs/events.h>
	};
	struct perfregs_config cfg;
	struct rec_input *src;
	struct perf_file_header h = { 0 };
	struct perf_file_attr fa = { 0 };
	struct conv c = { .d = d };
	struct out_file of;
	uint64_t produced, attr_id = 1;
	size_t i;
	int ret, fd;

	/* the recording is read once, from its header on: it may be a pipe */
	ret = rec_open(in, &src, &cfg, err, errlen);
	if (ret)
		return ret;
	/* written from scratch, its header again at the end: not to a FIFO */
	fd = out_create(&of, out, true, err, errlen);
	c.fp = fd < 0 ? NULL : fdopen(fd, "wb");
	if (!c.fp) {
		if (fd >= 0) {
			snprintf(err, errlen, "cannot write %s: %s", out, strerror(errno));
			close(fd);
			out_commit(&of, false, NULL, 0);
		}
		rec_input_free(src);
		return -EIO;
	}
	/*
	 * perf's registers only; the selectors of the user frame where a
	 * module of minor 1 on records them, in no interrupt frame
	 */
	c.umask = cfg.uregs_mask_64 & PERFREGS_MASK_64;
	if (rec_input_abi_minor(src) < 1)
		c.umask &= ~SEGS;
	c.imask = cfg.iregs_mask & PERFREGS_MASK_64 & ~SEGS;
	c.xmm = cfg.simd_mask & PERFREGS_SIMD_XMM;

	c.period = config_period(&cfg);

	fa.attr.size = sizeof(fa.attr);
	fa.attr.type = cfg.event < PERFREGS_EV_MAX ? types[cfg.event] : PERF_TYPE_SOFTWARE;
	fa.attr.config = cfg.event < PERFREGS_EV_MAX ? configs[cfg.event] : 0;
	fa.attr.sample_period = c.period;
	fa.attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			      PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN |
			      PERF_SAMPLE_REGS_USER | PERF_SAMPLE_REGS_INTR;
	fa.attr.sample_regs_user = c.umask;
	fa.attr.sample_regs_intr = c.imask | (c.xmm ? PERF_REG_EXTENDED_MASK : 0);
	fa.attr.use_clockid = 1;
	fa.attr.clockid = CLOCK_MONOTONIC;
	fa.attr.sample_id_all = 0;
	fa.attr.comm = 1;
	fa.attr.mmap = 1;
	fa.attr.exclude_user = !!(cfg.flags & PERFREGS_CF_EXCLUDE_USER);
	fa.attr.exclude_kernel = !!(cfg.flags & PERFREGS_CF_EXCLUDE_KERNEL);
	if (cfg.event == PERFREGS_EV_BREAKPOINT) {
		fa.attr.bp_type = cfg.bp_type;
		fa.attr.bp_addr = cfg.bp_addr;
		fa.attr.bp_len = cfg.bp_len;
	}

	fa.ids.offset = sizeof(h) + sizeof(fa);
	fa.ids.size = sizeof(attr_id);
	/* header, then the attr, then the data; the header is rewritten last */
	put(&c, &h, sizeof(h));
	put(&c, &fa, sizeof(fa));
	put(&c, &attr_id, sizeof(attr_id));	/* the attr's ids: one */
	c.data_size = 0;
	c.tool.sample = conv_sample;
	c.tool.lost = conv_lost;
	c.tool.maps = conv_maps;
	c.tool.sb = conv_sb;
	d->o.summary = true;
	ret = session_read(d, &c.tool, src, &produced, err, errlen);
	rec_input_free(src);

	h.magic = 0x32454c4946524550ULL;	/* "PERFILE2" */
	h.size = sizeof(h);
	h.attr_size = sizeof(fa);
	h.attrs.offset = sizeof(h);
	h.attrs.size = sizeof(fa);
	h.data.offset = sizeof(h) + sizeof(fa) + sizeof(attr_id);
	h.data.size = c.data_size;
	put_features(&c, &h, &fa);
	if (!c.error && (fseek(c.fp, 0, SEEK_SET) || fwrite(&h, sizeof(h), 1, c.fp) != 1))
		c.error = errno ? errno : EIO;
	if (fclose(c.fp) && !c.error)
		c.error = errno;
	free(c.seen);
	for (i = 0; c.bids && i < 2 * BUILD_IDS_MAX; i++)
		free(c.bids[i].path);
	free(c.bids);
	if (c.error) {
		out_commit(&of, false, NULL, 0);
		snprintf(err, errlen, "writing %s: %s", out, strerror(c.error));
		return -EIO;
	}
	if (out_commit(&of, true, err, errlen))
		return -EIO;
	return ret;
}
