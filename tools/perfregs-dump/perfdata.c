// SPDX-License-Identifier: GPL-2.0
/*
 * perfregs-dump convert: a recording into a perf.data file that perf
 * script and perf report read.
 *
 * One attr: the session's event and period, sample_type IP | TID | TIME |
 * CPU | PERIOD | REGS_USER | REGS_INTR (| STACK_USER when the recording
 * has stack snapshots).  perf's register masks are one per attr, so the
 * user mask is the session's 64-bit one; a register a sample lacks (the
 * upper registers of a 32-bit frame) is written as 0, as perf itself
 * does.  COMM and MMAP records come from the recording's samples and
 * mappings, in front of the samples that need them; LOST records carry
 * the losses.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>
#include <sys/mman.h>
#include "types.h"
#include "recording.h"
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

struct conv {
	FILE *fp;
	int error;
	uint64_t data_size;
	uint64_t umask, imask;
	uint32_t stack;
	uint64_t period;
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

	put(c, &h, sizeof(h));
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

	for (i = 0; i < tm->n; i++) {
		size_t plen = strlen(tm->m[i].path) + 1, pad = (plen + 7) & ~7UL;
		uint64_t v[3] = { tm->m[i].start, tm->m[i].end - tm->m[i].start,
				  tm->m[i].pgoff };
		uint32_t ids[2] = { tm->pid, tm->pid };
		static const char zeros[8];

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

	switch (ev->kind) {
	case SB_MMAP: {
		uint64_t v[3] = { ev->start, ev->end - ev->start, ev->pgoff };

		if (!(ev->prot & PROT_EXEC))
			return;
		plen = strlen(ev->name) + 1;
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

static void on_record(void *arg, int cpu, const struct perfregs_rec_header *rec)
{
	struct conv *c = arg;

	if (rec->type == PERFREGS_REC_SAMPLE) {
		const struct perfregs_rec_sample *s = (const void *)rec;
		const uint64_t *iv = (const uint64_t *)s->regs;
		const uint64_t *uv = iv + prf_popcount(s->iregs_mask);
		uint64_t uabi = s->abi == PERFREGS_ABI_64 ? PERF_SAMPLE_REGS_ABI_64 :
				s->abi == PERFREGS_ABI_32 ? PERF_SAMPLE_REGS_ABI_32 :
				PERF_SAMPLE_REGS_ABI_NONE;
		uint64_t ip = reg_of(s->iregs_mask, iv, PERFREGS_REG_IP);
		uint32_t ids[2] = { s->pid, s->tid }, cpus[2] = { (uint32_t)cpu, 0 };
		uint64_t time = s->time, size, stack_size = 0;
		const unsigned char *stack = NULL;
		uint64_t copied = 0;

		if (s->flags & PERFREGS_SF_STACK) {
			stack_size = *(const uint64_t *)(uv + prf_popcount(s->uregs_mask));
			stack = (const unsigned char *)(uv + prf_popcount(s->uregs_mask) + 1);
			copied = *(const uint64_t *)(stack + stack_size);
		}
		comm_once(c, s);
		size = 8 + 8 + 8 + 8 + 8 + 8;	/* header ip tid time cpu period */
		size += 8 + (uabi ? 8 * prf_popcount(c->umask) : 0);
		if (c->stack)
			size += 8 + (uabi ? c->stack + 8 : 0);
		size += 8 + 8 * prf_popcount(c->imask);
		put_hdr(c, PERF_RECORD_SAMPLE,
			(s->flags & PERFREGS_SF_KERNEL) ? PERF_RECORD_MISC_KERNEL :
							  PERF_RECORD_MISC_USER, size);
		put(c, &ip, 8);
		put(c, ids, 8);
		put(c, &time, 8);
		put(c, cpus, 8);
		put(c, &c->period, 8);
		put_regs(c, c->umask, s->uregs_mask, uv, uabi);
		if (c->stack) {
			/* perf's layout: size, data[size], dyn_size; size 0 without regs */
			uint64_t sz = uabi ? c->stack : 0;
			unsigned char *buf;

			put(c, &sz, 8);
			if (sz) {
				buf = calloc(1, sz);
				if (buf && stack)
					memcpy(buf, stack, stack_size < sz ? stack_size : sz);
				put(c, buf ? buf : (void *)"", buf ? sz : 0);
				free(buf);
				copied = copied < sz ? copied : sz;
				put(c, &copied, 8);
			}
		}
		put_regs(c, c->imask, s->iregs_mask, iv,
			 (s->flags & PERFREGS_SF_KERNEL) || s->abi == PERFREGS_ABI_64 ?
			 PERF_SAMPLE_REGS_ABI_64 : PERF_SAMPLE_REGS_ABI_32);
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

int perfdata_convert(const char *in, const char *out, struct decoder *d,
		     char *err, size_t errlen)
{
	static const uint32_t types[] = {
		[PERFREGS_EV_CPU_CLOCK] = PERF_TYPE_SOFTWARE,
		[PERFREGS_EV_TASK_CLOCK] = PERF_TYPE_SOFTWARE,
		[PERFREGS_EV_PAGE_FAULTS] = PERF_TYPE_SOFTWARE,
		[PERFREGS_EV_CONTEXT_SWITCHES] = PERF_TYPE_SOFTWARE,
		[PERFREGS_EV_CYCLES] = PERF_TYPE_HARDWARE,
		[PERFREGS_EV_INSTRUCTIONS] = PERF_TYPE_HARDWARE,
		[PERFREGS_EV_BREAKPOINT] = PERF_TYPE_BREAKPOINT,
		[PERFREGS_EV_NMI] = PERF_TYPE_SOFTWARE,
	};
	static const uint64_t configs[] = {
		[PERFREGS_EV_CPU_CLOCK] = PERF_COUNT_SW_CPU_CLOCK,
		[PERFREGS_EV_TASK_CLOCK] = PERF_COUNT_SW_TASK_CLOCK,
		[PERFREGS_EV_PAGE_FAULTS] = PERF_COUNT_SW_PAGE_FAULTS,
		[PERFREGS_EV_CONTEXT_SWITCHES] = PERF_COUNT_SW_CONTEXT_SWITCHES,
		[PERFREGS_EV_CYCLES] = PERF_COUNT_HW_CPU_CYCLES,
		[PERFREGS_EV_INSTRUCTIONS] = PERF_COUNT_HW_INSTRUCTIONS,
		[PERFREGS_EV_BREAKPOINT] = 0,
		[PERFREGS_EV_NMI] = PERF_COUNT_SW_CPU_CLOCK,
	};
	struct perfregs_config cfg;
	struct perf_file_header h = { 0 };
	struct perf_file_attr fa = { 0 };
	struct conv c = { 0 };
	uint64_t produced;
	int ret;

	ret = rec_config(in, &cfg, err, errlen);
	if (ret)
		return ret;
	c.fp = fopen(out, "wb");
	if (!c.fp) {
		snprintf(err, errlen, "cannot write %s: %s", out, strerror(errno));
		return -EIO;
	}
	c.umask = cfg.uregs_mask_64 & ~SEGS;
	c.imask = cfg.iregs_mask & ~SEGS;
	/* a perf sample's size is 16 bits: keep the stack well below */
	c.stack = cfg.stack_bytes < 32768 ? cfg.stack_bytes : 32768;
	c.period = cfg.event == PERFREGS_EV_BREAKPOINT || cfg.event == PERFREGS_EV_NMI ||
		   (cfg.flags & PERFREGS_CF_FREQ) ? 1 : cfg.period;

	fa.attr.size = sizeof(fa.attr);
	fa.attr.type = cfg.event < PERFREGS_EV_MAX ? types[cfg.event] : PERF_TYPE_SOFTWARE;
	fa.attr.config = cfg.event < PERFREGS_EV_MAX ? configs[cfg.event] : 0;
	fa.attr.sample_period = c.period;
	fa.attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			      PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |
			      PERF_SAMPLE_REGS_USER | PERF_SAMPLE_REGS_INTR |
			      (c.stack ? PERF_SAMPLE_STACK_USER : 0);
	fa.attr.sample_regs_user = c.umask;
	fa.attr.sample_regs_intr = c.imask;
	fa.attr.sample_stack_user = c.stack;
	fa.attr.comm = 1;
	fa.attr.mmap = 1;
	fa.attr.exclude_user = !!(cfg.flags & PERFREGS_CF_EXCLUDE_USER);
	fa.attr.exclude_kernel = !!(cfg.flags & PERFREGS_CF_EXCLUDE_KERNEL);
	if (cfg.event == PERFREGS_EV_BREAKPOINT) {
		fa.attr.bp_type = cfg.bp_type;
		fa.attr.bp_addr = cfg.bp_addr;
		fa.attr.bp_len = cfg.bp_len;
	}

	/* header, then the attr, then the data; the header is rewritten last */
	put(&c, &h, sizeof(h));
	put(&c, &fa, sizeof(fa));
	c.data_size = 0;
	d->learnt_maps = on_maps;
	d->learnt_sb = on_sb;
	d->record_hook = on_record;
	d->learnt_arg = &c;
	d->o.summary = true;
	ret = rec_decode(in, d, &produced, err, errlen);

	h.magic = 0x32454c4946524550ULL;	/* "PERFILE2" */
	h.size = sizeof(h);
	h.attr_size = sizeof(fa);
	h.attrs.offset = sizeof(h);
	h.attrs.size = sizeof(fa);
	h.data.offset = sizeof(h) + sizeof(fa);
	h.data.size = c.data_size;
	if (!c.error && (fseek(c.fp, 0, SEEK_SET) || fwrite(&h, sizeof(h), 1, c.fp) != 1))
		c.error = errno ? errno : EIO;
	if (fclose(c.fp) && !c.error)
		c.error = errno;
	free(c.seen);
	if (c.error) {
		snprintf(err, errlen, "writing %s: %s", out, strerror(c.error));
		return -EIO;
	}
	return ret;
}
