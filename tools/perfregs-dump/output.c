// SPDX-License-Identifier: GPL-2.0
/* Text and JSON Lines output of decoded records. */
#define _GNU_SOURCE	/* fwrite_unlocked */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include "types.h"
#include "util.h"
#include "images.h"
#include "regs_x86.h"
#include "aspace.h"
#include "dso.h"
#include "unwind.h"
#include "folded.h"
#include "resolve.h"
#include "inline.h"
#include "safetext.h"
#include "out-put.h"
#include "out-simd.h"
#include "sections.h"
#include "output.h"
#include "filter.h"

static const char *const lost_names[PERFREGS_LOST_MAX] = {
	[PERFREGS_LOST_FULL] = "full",
	[PERFREGS_LOST_NESTED] = "nested",
	[PERFREGS_LOST_THROTTLED] = "throttled",
	[PERFREGS_LOST_ENTRY] = "entry_race",
};

const char *lost_cause_name(int cause)
{
	return cause >= 0 && cause < PERFREGS_LOST_MAX ? lost_names[cause] : "?";
}

static const char *ctx_name(uint32_t flags)
{
	switch (flags & PERFREGS_SF_CTX_MASK) {
	case PERFREGS_SF_CTX_NMI:
		return "nmi";
	case PERFREGS_SF_CTX_IRQ:
		return "irq";
	case PERFREGS_SF_CTX_EXCEPTION:
		return "exception";
	}
	return "unknown";
}

static const char *uregs_src_name(uint32_t flags)
{
	switch (flags & PERFREGS_SF_UREGS_MASK) {
	case PERFREGS_SF_UREGS_DIRECT:
		return "direct";
	case PERFREGS_SF_UREGS_ENTRY:
		return "entry";
	}
	return "none";
}

static const char *kabi_name(uint32_t abi)
{
	return abi == PERFREGS_ABI_64 ? "64" : abi == PERFREGS_ABI_32 ? "32" : "none";
}

/* -F/--fields: the names, as perf script spells those it has */
/* A register value as the layout shows it: 32-bit layouts show 32 bits. */
static uint64_t reg_value(enum layout layout, uint64_t v)
{
	return layout == LAYOUT_I386 ? (uint32_t)v : v;
}

static void json_string(FILE *fp, const char *s, size_t max)
{
	char buf[6 * 320 + 2];

	if (max > 320)
		max = 320;
	fwrite_unlocked(buf, 1, put_json(buf, s, max) - buf, fp);
}

/* The most one register set takes in either format. */
#define REGS_TEXT_MAX	(64 + PERFREGS_REG_EXT_MAX * 48)

/*
 * One register set into p (at most REGS_TEXT_MAX bytes); returns the end.
 * This is most of the output, so it is built by hand: printf made up 80%
 * of the decoder's time.  The text is exactly what " %-6s 0x%0*" PRIx64
 * and "\"%s\":\"0x%" PRIx64 "\"" gave.  The FS and GS base keep their
 * 64 bits in every layout: a mixed-mode task's are its 64-bit TLS.
 */
static char *out_regs(char *p, enum out_format fmt, enum layout layout,
		      uint64_t mask, const uint64_t *vals, const char *label)
{
	const char *const *names;
	int n = 0, shown = 0, nnames;
	int width = layout == LAYOUT_I386 ? 8 : 16;

	if (fmt == FMT_JSON) {
		p = put_lit(put_str(put_lit(p, ",\""), label), "\":{");
	} else {
		p = put_str(put_lit(p, "\n    "), label);
		*p++ = ':';
	}
	names = reg_names(layout, &nnames);
	for (; mask; mask &= mask - 1) {	/* set bits, lowest first */
		int reg = __builtin_ctzll(mask);
		const char *name;
		uint64_t v;
		char *e;

		v = vals[n++];
		if (reg >= nnames || !names[reg])
			continue;
		name = names[reg];
		if (!reg_is_base(reg))
			v = reg_value(layout, v);
		if (fmt == FMT_JSON) {
			if (shown)
				*p++ = ',';
			*p++ = '"';
			p = put_str(p, name);
			p = put_lit(p, "\":\"0x");
			p = put_hex(p, v, 0);
			*p++ = '"';
		} else {
			if (shown && shown % 4 == 0)
				p = put_lit(p, "\n         ");
			/* " %-6s 0x": names have at most 6 characters, */
			memcpy(p, "        0x", 10);
			e = put_str(p + 1, name);
			if (e > p + 7)		/* but fs_base and gs_base */
				p = put_lit(e, " 0x");
			else
				p += 10;
			p = put_hex(p, v, width);
		}
		shown++;
	}
	if (fmt == FMT_JSON)
		*p++ = '}';
	return p;
}

/* Does -F ask for field f? */
static bool field_asked(const struct opts *o, enum field f)
{
	unsigned int i;

	for (i = 0; i < o->nfields; i++)
		if (o->fields[i] == f)
			return true;
	return false;
}

/*
 * A frame of the chain in JSON: its name, the name as the file has it
 * (raw, when it differs), its file, whether it is the kernel's or a
 * function inlined there, its source line.
 */
static void json_frame(FILE *fp, bool first, uint64_t ip, const char *sym, const char *raw,
		       const char *dso, bool kernel, bool inlined, const char *src)
{
	fprintf(fp, "%s{\"ip\":\"0x%" PRIx64 "\"", first ? "" : ",", ip);
	if (sym[0]) {
		fputs(",\"sym\":", fp);
		json_string(fp, sym, 320);
	}
	if (raw && raw[0]) {
		fputs(",\"sym_raw\":", fp);
		json_string(fp, raw, 320);
	}
	if (dso[0]) {
		fputs(",\"dso\":", fp);
		json_string(fp, dso, 256);
	}
	if (kernel)
		fputs(",\"kernel\":true", fp);
	if (inlined)
		fputs(",\"inlined\":true", fp);
	if (src && src[0]) {
		fputs(",\"srcline\":", fp);
		json_string(fp, src, 320);
	}
	fputc('}', fp);
}

/* name cut to len - 1 bytes into buf, made safe for a terminal: its length */
static size_t safe_copy(char *buf, size_t len, const char *name)
{
	size_t k = strnlen(name, len - 1);

	memcpy(buf, name, k);
	buf[k] = 0;
	return text_safe(buf);
}

/*
 * A frame of the chain as text, as fprintf "\n\t%16" PRIx64 " %s (%s)"
 * did, by hand: that was 15% of decoding xz's 32326 samples to text, 25
 * frames each.  sym and dso are safe for a terminal (text_safe()), of
 * sym_len and dso_len bytes, "[unknown]" when 0.  An inlined function's,
 * as perf script shows it: its name, then "(inlined)" for the file; with
 * -F srcline, each frame's source line on a line of its own, as perf's.
 */
static void text_frame(FILE *fp, uint64_t ip, const char *sym, size_t sym_len,
		       const char *dso, size_t dso_len, const char *src)
{
	char line[2 + 16 + 1 + 320 + 2 + 256 + 1 + 3 + 320 + 1];
	char hex[16], *p = line, *e;

	if (!sym_len)
		sym = "[unknown]", sym_len = 9;
	if (!dso_len)
		dso = "[unknown]", dso_len = 9;
	e = put_hex(hex, ip, 0);
	*p++ = '\n';
	*p++ = '\t';
	memset(p, ' ', 16 - (e - hex));
	p += 16 - (e - hex);
	memcpy(p, hex, e - hex);
	p += e - hex;
	*p++ = ' ';
	memcpy(p, sym, sym_len);
	p += sym_len;
	*p++ = ' ';
	*p++ = '(';
	memcpy(p, dso, dso_len);
	p += dso_len;
	*p++ = ')';
	if (src && src[0]) {
		p = put_lit(p, "\n  ");
		p += safe_copy(p, 320, src);
	}
	fwrite(line, 1, p - line, fp);
}

/* Does sample r have a chain to show: a kernel call chain, or a stack to unwind? */
static bool has_callchain(const struct session *d, const struct resolved *r)
{
	return (d->o.callgraph && (r->st->data || r->st->uchain.ips)) ||
	       (!r->in_user && r->st->kchain.nr);
}

/*
 * The sample's kernel call chain (resolve_kchain()), in [kernel.kallsyms],
 * as the start of the chain: its count of frames (k).
 */
static int out_kchain(struct session *d, struct dthread *t, const struct resolved *r)
{
	struct sample_frame kf[PERFREGS_MAX_KCHAIN];
	char name[320];
	unsigned int i, n;

	if (r->in_user || !r->st->kchain.nr)
		return 0;
	n = resolve_kchain(d, t, r, r->sym, kf);
	for (i = 0; i < n; i++) {
		if (d->o.format == FMT_JSON)
			json_frame(t->out, !i, kf[i].ip, kf[i].sym, NULL, "[kernel.kallsyms]",
				   true, false, NULL);
		else
			text_frame(t->out, kf[i].ip, name,
				   safe_copy(name, sizeof(name), kf[i].sym),
				   "[kernel.kallsyms]", 17, NULL);
	}
	return (int)n;
}

/*
 * The sample's chain: its kernel call chain, then (--call-graph) each
 * user frame (unwind_user()), after the functions inlined at its address
 * (inline.c) with --inline, each a frame of its own; JSON gives every
 * user frame's source line, text with -F srcline.
 */
static void out_callchain(struct session *d, struct dthread *t, const struct resolved *r)
{
	const struct perfregs_rec_sample *s = r->s;
	const struct sample_stack *st = r->st;
	struct frame *frames = unwind_frames(t);
	FILE *fp = t->out;
	bool json = d->o.format == FMT_JSON, src = json || field_asked(&d->o, F_SRCLINE);
	bool expand = d->o.inlines && d->o.symbols;
	char raw[sizeof(frames->sym)], name[320];
	int i, n = 0, k;
	unsigned int j;

	n = unwind_user(d, t, s, r->dd.layout, st, frames, SAMPLE_USER_FRAMES);
	if (json)
		fputs(",\"callchain\":[", fp);
	k = out_kchain(d, t, r);
	for (i = 0; i < n; i++) {
		const struct inl_chain *c = NULL;
		const char *fsrc = NULL;

		if (frames[i].map && d->o.symbols && (expand || src))
			c = mapping_inlines(&d->m, frames[i].map, frames[i].lookup);
		for (j = 0; expand && c && j < c->n; j++, k++) {
			const struct inl_frame *x = &c->f[j];

			if (json)
				json_frame(fp, !k, frames[i].ip, x->shown,
					   x->shown != x->name ? x->name : NULL, frames[i].dso,
					   false, true, x->src);
			else
				text_frame(fp, frames[i].ip, name,
					   safe_copy(name, sizeof(name), x->shown), "inlined", 7,
					   src ? x->src : NULL);
		}
		if (c)	/* the function's: where the outermost was inlined, or the address's */
			fsrc = expand || !c->n ? c->src : c->f[0].src;
		raw[0] = 0;
		/* the name as the file has it, for tools that demangle */
		if (json && frames[i].demangled &&
		    user_symbol(&d->m, s, frames[i].lookup, frames[i].ip, SYM_RAW,
				raw, sizeof(raw), NULL) < 0)
			raw[0] = 0;
		if (json)
			json_frame(fp, !k, frames[i].ip, frames[i].sym, raw, frames[i].dso,
				   false, false, fsrc);
		else	/* the frame's own names made safe where they are */
			text_frame(fp, frames[i].ip, frames[i].sym, text_safe(frames[i].sym),
				   frames[i].dso, text_safe(frames[i].dso), src ? fsrc : NULL);
		k++;
	}
	if (json)
		fputc(']', fp);
}

/*
 * -f folded: the sample's frames (resolve_frames()) into the table of
 * stacks; from a thread of --threads into its own table, and the cell
 * of its stack to t->out, for the reading thread to count in order
 * (pool.c).
 */
static void out_folded(struct session *d, struct dthread *t, const struct resolved *r,
		       const char *comm)
{
	struct sample_frame sf[SAMPLE_FRAMES_MAX], sx[SAMPLE_FRAMES_OUT];
	struct folded_frame f[SAMPLE_FRAMES_OUT];
	const struct sample_frame *v;
	char line[FOLDED_LINE_MAX];
	unsigned int i, n;

	n = resolve_frames(d, t, r, r->sym, sf);
	v = resolve_inlines(d, sf, &n, false, sx, SAMPLE_FRAMES_OUT);
	for (i = 0; i < n; i++)
		f[i] = (struct folded_frame){ .sym = v[i].sym, .dso = v[i].dso,
					      .kernel = v[i].kernel, .i386 = v[i].i386,
					      .inlined = v[i].inlined };
	if (t->stack_lines) {
		struct folded_cell *c;

		folded_line(line, comm, f, n);
		c = folded_cell(t->cells, line);	/* NULL: missing, counted so in turn */
		fwrite_unlocked(&c, sizeof(c), 1, t->out);
	} else if (folded_add(d, comm, f, n)) {
		d->folded_dropped++;
	}
}

/*
 * JSON: the source line of the sample's user IP, and with --inline the
 * functions inlined there, innermost first, each with its own line (the
 * first's is the IP's; the next's where the one inside it was inlined).
 */
static void json_leaf(struct session *d, const struct perfregs_rec_sample *s, uint64_t ip,
		      FILE *fp)
{
	struct mapping *m = user_mapping(&d->m, s, ip);
	const struct inl_chain *c = m ? mapping_inlines(&d->m, m, ip) : NULL;
	const char *src;
	unsigned int j;

	if (!c)
		return;
	src = c->n ? c->f[0].src : c->src;
	if (src[0]) {
		fputs(",\"srcline\":", fp);
		json_string(fp, src, 320);
	}
	if (!d->o.inlines || !c->n)
		return;
	fputs(",\"inline\":[", fp);
	for (j = 0; j < c->n; j++) {
		fputs(j ? ",{\"sym\":" : "{\"sym\":", fp);
		json_string(fp, c->f[j].shown, 320);
		if (c->f[j].shown != c->f[j].name) {
			fputs(",\"sym_raw\":", fp);
			json_string(fp, c->f[j].name, 320);
		}
		if (c->f[j].src[0]) {
			fputs(",\"srcline\":", fp);
			json_string(fp, c->f[j].src, 320);
		}
		fputc('}', fp);
	}
	fputc(']', fp);
}

/* What out_sample() has worked out of a sample, for its text. */
struct shown {
	const struct resolved *r;
	const struct perfregs_rec_sample *s;
	struct decoded dd;
	enum layout ilayout;		/* of the interrupt registers */
	const uint64_t *vals, *uvals;	/* the interrupt and user registers */
	const struct sample_stack *st;	/* checked by sample_fits() */
	uint64_t ip;
	bool in_user;
	const char *comm, *sym;		/* text_safe() */
	/* -F dso, period, srcline: "" or 0 when not known, or not asked for */
	const char *dso;		/* text_safe() */
	uint64_t period;
	const char *srcline;		/* FILE:LINE, text_safe() */
};

/*
 * A sample's line: JSON's escapes of sym and sym_raw, its registers
 * (REGS_TEXT_MAX each), SIMD.
 */
#define LINE_BYTES	(2 * 6 * 320 + 512 + 2 * REGS_TEXT_MAX + SIMD_TEXT_MAX)

/* Without -F: every default field, in their order; ALL_LINE on the first line. */
static const uint8_t all_fields[] = {
	F_COMM, F_PID, F_TID, F_CPU, F_TIME, F_EVENT, F_IP, F_SYM, F_MODE,
	F_ABI, F_CONTEXT, F_UREGS_SOURCE, F_SKID,
	F_IREGS, F_UREGS, F_SIMD, F_STACK, F_CALLCHAIN,
};
#define ALL_LINE	13

/*
 * The fields to show, -F's or all_fields: fields[0..*nline) on the
 * first line, the others up to *n on lines of their own.
 */
static inline const uint8_t *fields_of(const struct opts *o, unsigned int *nline,
				       unsigned int *n)
{
	*nline = o->nfields ? o->nline : ALL_LINE;
	*n = o->nfields ? o->nfields : sizeof(all_fields);
	return o->nfields ? o->fields : all_fields;
}

/* "(name)" at p; nothing for "" */
static char *put_paren(char *p, const char *name)
{
	if (!name[0])
		return p;
	*p++ = '(';
	p = put_str(p, name);
	*p++ = ')';
	return p;
}

/*
 * One field of a sample's first line at p, as the default line has it;
 * returns p itself for a field that shows nothing here (a sym not known,
 * a sample without skid, the fields of lines of their own).
 */
static char *text_field(char *p, const struct shown *v, const char *event,
			enum field f)
{
	const struct perfregs_rec_sample *s = v->s;

	switch (f) {
	case F_COMM:
		return put_rjust(p, v->comm, 16);
	case F_PID:
		return put_dec(p, s->pid, 6, ' ', false);
	case F_TID:
		return put_dec(p, s->tid, 6, ' ', true);	/* see text_line() */
	case F_CPU:
		*p++ = '[';
		p = put_dec(p, s->cpu, 3, '0', false);
		*p++ = ']';
		return p;
	case F_TIME:
		p = put_dec(p, s->time / 1000000000, 0, ' ', false);
		*p++ = '.';
		p = put_dec(p, s->time % 1000000000, 9, '0', false);
		*p++ = ':';
		return p;
	case F_EVENT:
		p = put_str(p, event);
		*p++ = ':';
		return p;
	case F_IP:
		return put_hex(put_lit(p, "ip 0x"), v->ip, 0);
	case F_SYM:
		return put_paren(p, v->sym);
	case F_MODE:
		return put_str(p, v->in_user ? "user" : "kernel");
	case F_ABI:
		p = put_str(put_lit(p, "abi "), v->dd.abi_name);
		return v->dd.mixed ? put_lit(p, " (mixed mode)") : p;
	case F_CONTEXT:
		return put_str(put_lit(p, "ctx "), ctx_name(s->flags));
	case F_UREGS_SOURCE:
		p = put_str(put_lit(p, "uregs "), uregs_src_name(s->flags));
		return s->flags & PERFREGS_SF_ENTRY_RACE ? put_lit(p, " (entry race)") : p;
	case F_SKID:
		return s->flags & PERFREGS_SF_SKID ? put_lit(p, "(skid)") : p;
	case F_SYMOFF:		/* sym has its offset already: the same */
		return put_paren(p, v->sym);
	case F_DSO:
		return put_paren(p, v->dso);
	case F_PERIOD:
		return v->period ? put_dec(p, v->period, 0, ' ', false) : p;
	case F_SRCLINE:
		return v->srcline[0] ? put_str(p, v->srcline) : p;
	default:
		return p;
	}
}

/*
 * A sample's first line at p: the fields of -F a space apart, pid/tid
 * with a '/' when tid follows pid, a field that shows nothing without
 * its space, and no padding at the end (tid's).  So every field gives
 * "%16s %6u/%-6u [%03u] %lu.%09lu: %s: ip 0x%lx (sym) ...", as the line
 * was before -F.  Each field once: it fits in LINE_BYTES.
 */
static char *text_line(char *p, const struct shown *v, const struct opts *o)
{
	const char *event = o->event_name;
	char *start = p, *q, *end;
	enum field f, prev = FIELD_MAX;
	unsigned int i, n, nline;
	const uint8_t *fields = fields_of(o, &nline, &n);

	for (i = 0; i < nline; i++) {
		f = fields[i];
		q = p;
		if (p != start)
			*q++ = prev == F_PID && f == F_TID ? '/' : ' ';
		end = text_field(q, v, event, f);
		if (end == q)
			continue;
		p = end;
		prev = f;
	}
	while (prev == F_TID && p[-1] == ' ')	/* its digits are no spaces */
		p--;
	return p;
}

/*
 * The lines after a sample's first, in the order of -F: the registers
 * built at p as the first line is, the stack and the callchain printed
 * after what is built so far.  Returns where what is left to print ends.
 */
static char *text_blocks(struct session *d, struct dthread *t, const struct shown *v,
			 char *line, char *p)
{
	const struct perfregs_rec_sample *s = v->s;
	bool stack = s->flags & PERFREGS_SF_STACK, chain = has_callchain(d, v->r);
	unsigned int i, n;
	const uint8_t *fields = fields_of(&d->o, &i, &n);
	enum field f;

	for (; i < n; i++) {
		f = fields[i];
		if (f == F_IREGS && s->iregs_mask)
			p = out_regs(p, FMT_TEXT, v->ilayout, s->iregs_mask, v->vals,
				     "iregs");
		if (f == F_UREGS && s->uregs_mask)
			p = out_regs(p, FMT_TEXT, v->dd.layout, s->uregs_mask, v->uvals,
				     "uregs");
		if (f == F_SIMD && v->st->simd.present)
			p = out_simd(p, FMT_TEXT, &v->st->simd);
		if ((f != F_STACK || !stack) && (f != F_CALLCHAIN || !chain))
			continue;
		fwrite_unlocked(line, 1, p - line, t->out);
		p = line;
		if (f == F_STACK)
			fprintf(t->out, "\n    stack: %" PRIu64 " bytes from sp, %" PRIu64
				" copied", v->st->size, v->st->copied);
		else
			out_callchain(d, t, v->r);
	}
	return p;
}

/* A sample as text, built in line (LINE_BYTES). */
static void out_text(struct session *d, struct dthread *t, const struct shown *v,
		     char *line)
{
	char *p = text_line(line, v, &d->o);

	p = text_blocks(d, t, v, line, p);
	*p++ = '\n';
	fwrite_unlocked(line, 1, p - line, t->out);
}

/*
 * -F's dso, period and srcline, the fields no other output has, each
 * looked up only when -F asks for it: into dso and src (text_safe()).
 */
static void shown_extra(struct session *d, const struct resolved *r, struct shown *v,
			char *dso, size_t dlen, char *src, size_t slen)
{
	bool want[FIELD_MAX] = { false };
	unsigned int i;

	for (i = 0; i < d->o.nfields; i++)
		want[d->o.fields[i]] = true;
	if (want[F_DSO] && r->have_ip) {
		snprintf(dso, dlen, "%s", resolve_kernel_addr(r->ip) ? "[kernel.kallsyms]" :
			 r->dso ? r->dso : "");
		text_safe(dso);
		v->dso = dso;
	}
	/* a frequency's period changes from sample to sample: not recorded */
	if (want[F_PERIOD] && d->info.cfg_known && !(d->info.cfg.flags & PERFREGS_CF_FREQ))
		v->period = config_period(&d->info.cfg);
	/* the line of the IP itself, kept per file and address (inline.c) */
	if (want[F_SRCLINE] && r->have_ip && d->o.symbols && !resolve_kernel_addr(r->ip)) {
		struct mapping *m = user_mapping(&d->m, r->s, r->ip);
		const struct inl_chain *c = m ? mapping_inlines(&d->m, m, r->ip) : NULL;
		const char *line = !c ? "" : c->n ? c->f[0].src : c->src;

		if (line[0]) {
			snprintf(src, slen, "%s", line);
			text_safe(src);
			v->srcline = src;
		}
	}
}

/* A sample, by thread t, to t->out (or -f folded's table). */
static void out_sample(struct session *d, struct dthread *t,
		       const struct perfregs_rec_sample *s, const struct sample_stack *st)
{
	struct resolved r;
	const struct elf_facts *ef;
	struct decoded dd;
	bool in_user, have_ip;
	enum layout ilayout;
	const uint64_t *vals, *uvals;
	uint64_t ip;
	FILE *fp = t->out;
	char comm[17], *sym, line[LINE_BYTES], *p, dso[256], src[256], raw[sizeof(r.sym)];
	struct shown v;

	resolve_sample(d, t, s, st, RESOLVE_SYM, &r);
	vals = r.vals;
	uvals = r.uvals;
	ef = r.im ? &r.im->facts : NULL;
	dd = r.dd;
	in_user = r.in_user;
	have_ip = r.have_ip;
	ip = r.ip;
	sym = r.sym;
	ilayout = in_user && dd.layout != LAYOUT_NONE ? dd.layout : LAYOUT_X86_64;
	memcpy(comm, s->comm, 16);
	comm[16] = 0;
	if (d->o.format == FMT_FOLDED || d->o.flamegraph) {	/* the stacks only */
		out_folded(d, t, &r, comm);
		return;
	}
	/* the line and both register sets, built by hand like out_regs() */
	p = line;
	if (d->o.format == FMT_JSON) {
		p = put_lit(p, "{\"type\":\"sample\",\"time\":");
		p = put_dec(p, s->time, 0, ' ', false);
		p = put_dec(put_lit(p, ",\"cpu\":"), s->cpu, 0, ' ', false);
		p = put_dec(put_lit(p, ",\"pid\":"), s->pid, 0, ' ', false);
		p = put_dec(put_lit(p, ",\"tid\":"), s->tid, 0, ' ', false);
		p = put_json(put_lit(p, ",\"comm\":"), comm, 16);
		p = put_str(put_lit(p, ",\"context\":\""), ctx_name(s->flags));
		p = put_str(put_lit(p, "\",\"abi\":\""), dd.abi_name);
		p = put_str(put_lit(p, "\",\"mixed\":"), dd.mixed ? "true" : "false");
		p = put_str(put_lit(p, ",\"kernel_abi\":\""), kabi_name(s->abi));
		p = put_str(put_lit(p, "\",\"uregs_source\":\""), uregs_src_name(s->flags));
		p = put_str(put_lit(p, "\",\"mode\":\""), in_user ? "user" : "kernel");
		*p++ = '"';
		if (s->flags & PERFREGS_SF_SKID)
			p = put_lit(p, ",\"skid\":true");
		if (ef && ef->known) {
			p = put_dec(put_lit(p, ",\"elf\":{\"class\":"), ef->elfclass, 0, ' ', false);
			p = put_dec(put_lit(p, ",\"machine\":"), ef->machine, 0, ' ', false);
			*p++ = '}';
		} else {
			p = put_lit(p, ",\"elf\":null");
		}
		if (have_ip) {
			p = put_hex(put_lit(p, ",\"ip\":\"0x"), ip, 0);
			*p++ = '"';
		}
		if (sym[0])
			p = put_json(put_lit(p, ",\"sym\":"), sym, sizeof(r.sym));
		if (r.demangled &&	/* the name as the file has it */
		    user_symbol(&d->m, s, ip, ip, SYM_RAW, raw, sizeof(raw), NULL) >= 0)
			p = put_json(put_lit(p, ",\"sym_raw\":"), raw, sizeof(raw));
		if (have_ip && d->o.symbols && !resolve_kernel_addr(ip)) {
			fwrite_unlocked(line, 1, p - line, fp);
			p = line;
			json_leaf(d, s, ip, fp);
		}
		p = out_regs(p, FMT_JSON, ilayout, s->iregs_mask, vals, "iregs");
		p = out_regs(p, FMT_JSON, dd.layout, s->uregs_mask, uvals, "uregs");
		if (st->simd.present)
			p = out_simd(p, FMT_JSON, &st->simd);
		fwrite_unlocked(line, 1, p - line, fp);
		if (st->data)
			fprintf(fp, ",\"stack\":{\"size\":%" PRIu64 ",\"copied\":%" PRIu64 "}",
				st->size, st->copied);
		if (st->kchain.ips)
			fprintf(fp, ",\"kchain\":{\"nr\":%u,\"truncated\":%s,\"unreliable\":%s,"
				"\"nested\":%s}", st->kchain.nr,
				st->kchain.status & PERFREGS_KCHAIN_TRUNCATED ? "true" : "false",
				st->kchain.status & PERFREGS_KCHAIN_UNRELIABLE ? "true" : "false",
				st->kchain.status & PERFREGS_KCHAIN_NESTED ? "true" : "false");
		if (st->uchain.ips)
			fprintf(fp, ",\"uchain\":{\"nr\":%u,\"truncated\":%s,\"fault\":%s,"
				"\"bad_frame\":%s,\"nested\":%s}", st->uchain.nr,
				st->uchain.status & PERFREGS_UCHAIN_TRUNCATED ? "true" : "false",
				st->uchain.status & PERFREGS_UCHAIN_FAULT ? "true" : "false",
				st->uchain.status & PERFREGS_UCHAIN_BAD_FRAME ? "true" : "false",
				st->uchain.status & PERFREGS_UCHAIN_NESTED ? "true" : "false");
		if (has_callchain(d, &r))
			out_callchain(d, t, &r);
		fputs("}\n", fp);
		return;
	}
	text_safe(comm);
	text_safe(sym);
	v = (struct shown){ .r = &r, .s = s, .dd = dd, .ilayout = ilayout, .vals = vals,
			    .uvals = uvals, .ip = ip, .st = st, .in_user = in_user,
			    .comm = comm, .sym = sym, .dso = "", .srcline = "" };
	if (d->o.nfields)
		shown_extra(d, &r, &v, dso, sizeof(dso), src, sizeof(src));
	out_text(d, t, &v, line);
}

static void out_lost(struct session *d, FILE *fp, const struct perfregs_rec_lost *l,
		     int cpu)
{
	int i;

	if (d->o.format == FMT_JSON) {
		fprintf(fp, "{\"type\":\"lost\",\"time\":%" PRIu64 ",\"cpu\":%d,\"lost\":{",
			(uint64_t)l->time, cpu);
		for (i = 0; i < PERFREGS_LOST_MAX; i++)
			fprintf(fp, "%s\"%s\":%" PRIu64, i ? "," : "",
				lost_cause_name(i), prf_lost_of(l, i));
		fputs("}}\n", fp);
		return;
	}
	fprintf(fp, "LOST [%03d] %" PRIu64 ".%09" PRIu64 ":", cpu,
		(uint64_t)l->time / 1000000000, (uint64_t)l->time % 1000000000);
	for (i = 0; i < PERFREGS_LOST_MAX; i++)
		if (prf_lost_of(l, i))
			fprintf(fp, " %s %" PRIu64, lost_cause_name(i),
				prf_lost_of(l, i));
	fputc('\n', fp);
}

/* What of a record is printed: not with --summary, the losses not with stacks. */
static bool record_shown(const struct session *d, const struct perfregs_rec_header *rec)
{
	if (d->o.summary)
		return false;
	/* the stacks only: the losses are in the summary */
	return rec->type == PERFREGS_REC_SAMPLE ||
	       (d->o.format != FMT_FOLDED && !d->o.flamegraph);
}

/*
 * A record's checks and counts, on the thread that reads the records,
 * in their order; its stack into *st, a loss into *l.  True if it is a
 * sample or a loss, well-formed; false for other types (from a newer
 * module, skipped) and for a malformed one (counted as such).
 */
bool record_check(struct session *d, const struct perfregs_rec_header *rec, size_t size,
		  struct sample_stack *st, struct perfregs_rec_lost *l)
{
	int i;

	if (rec->type == PERFREGS_REC_SAMPLE) {
		if (!sample_fits((const void *)rec, size, st)) {
			d->bad_records++;
			return false;
		}
		d->samples++;
		return true;
	}
	if (rec->type == PERFREGS_REC_LOST) {
		/* ABI 1 recordings carry 4 causes: the size says how many */
		if (!prf_lost_copy(rec, size, l)) {
			d->bad_records++;
			return false;
		}
		for (i = 0; i < PERFREGS_LOST_MAX; i++)
			d->lost[i] += prf_lost_of(l, i);
		return true;
	}
	return false;
}

void record_out(struct session *d, int cpu, const struct perfregs_rec_header *rec,
		const struct sample_stack *st, const struct perfregs_rec_lost *l)
{
	if (!record_shown(d, rec))
		return;
	d->self.out = d->out;
	if (rec->type == PERFREGS_REC_SAMPLE)
		out_sample(d, &d->self, (const void *)rec, st);
	else
		out_lost(d, d->out, l, cpu);
}

/*
 * A record that the reading thread handed out unchecked (pool.c),
 * printed by thread t to t->out: any thread, in any order, as long as
 * the state it reads (images, maps, symbols) is what it was when the
 * reading thread came to it.  Its one check, and its counts into *c
 * (those of decode_record()), as it goes.  False if it is malformed:
 * nothing printed or counted.
 */
bool record_print(struct session *d, struct dthread *t, int cpu,
		  const struct perfregs_rec_header *rec, size_t size, struct rec_counts *c)
{
	struct perfregs_rec_lost l;
	struct sample_stack st;
	int i;

	if (rec->type == PERFREGS_REC_SAMPLE) {
		if (!sample_fits((const void *)rec, size, &st))
			return false;
		c->samples++;
		if (!filter_keep(d, t, d->o.filter, (const void *)rec, &st))
			c->filtered++;
		else if (record_shown(d, rec))
			out_sample(d, t, (const void *)rec, &st);
	} else if (rec->type == PERFREGS_REC_LOST) {
		if (!prf_lost_copy(rec, size, &l))
			return false;
		for (i = 0; i < PERFREGS_LOST_MAX; i++)
			c->lost[i] += prf_lost_of(&l, i);
		if (record_shown(d, rec))
			out_lost(d, t->out, &l, cpu);
	}
	return true;	/* other types: from a newer module, skipped */
}

void decode_record(struct session *d, int cpu,
		   const struct perfregs_rec_header *rec, size_t size)
{
	struct perfregs_rec_lost l;
	struct sample_stack st;

	if (record_check(d, rec, size, &st, &l))
		record_out(d, cpu, rec, &st, &l);
}

void out_summary(struct session *d, FILE *fp, enum out_format fmt,
		 uint64_t produced)
{
	int i;

	if (fmt == FMT_JSON) {
		fprintf(fp, "{\"type\":\"summary\",\"samples\":%" PRIu64
			",\"produced\":%" PRIu64 ",\"malformed\":%" PRIu64 ",\"lost\":{",
			d->samples, produced, d->bad_records);
		for (i = 0; i < PERFREGS_LOST_MAX; i++)
			fprintf(fp, "%s\"%s\":%" PRIu64, i ? "," : "",
				lost_cause_name(i), d->lost[i]);
		fprintf(fp, "},\"sideband_lost\":%" PRIu64, d->m.sb_lost);
		if (d->o.filter)
			fprintf(fp, ",\"filtered\":%" PRIu64, d->filtered);
		fprintf(fp, "}\n");
		return;
	}
	fprintf(fp, "# %" PRIu64 " samples decoded, %" PRIu64 " produced; lost:",
		d->samples, produced);
	for (i = 0; i < PERFREGS_LOST_MAX; i++)
		fprintf(fp, " %s %" PRIu64, lost_cause_name(i), d->lost[i]);
	if (d->bad_records)
		fprintf(fp, "; %" PRIu64 " malformed records skipped", d->bad_records);
	if (d->m.sb_lost)
		fprintf(fp, "; side-band events lost %" PRIu64, d->m.sb_lost);
	if (d->o.filter)
		fprintf(fp, "; %" PRIu64 " left out by the filters", d->filtered);
	if (d->progress_elapsed)	/* on a terminal: the time it took */
		fprintf(fp, "; %.2f s", (double)d->progress_elapsed / 1e9);
	fputc('\n', fp);
}
