// SPDX-License-Identifier: GPL-2.0
/* Text and JSON Lines output of decoded records. */
#include <inttypes.h>
#include <string.h>
#include <stdlib.h>
#include "dump.h"

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

/* A register value as the layout shows it: 32-bit layouts show 32 bits. */
static uint64_t reg_value(enum layout layout, uint64_t v)
{
	return layout == LAYOUT_I386 ? (uint32_t)v : v;
}

static void json_string(FILE *fp, const char *s, size_t max)
{
	size_t i;

	fputc('"', fp);
	for (i = 0; i < max && s[i]; i++) {
		unsigned char c = s[i];

		if (c == '"' || c == '\\')
			fprintf(fp, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			fprintf(fp, "\\u%04x", c);
		else
			fputc(c, fp);
	}
	fputc('"', fp);
}

/* Print one register set. */
static void out_regs(FILE *fp, enum out_format fmt, enum layout layout,
		     uint64_t mask, const uint64_t *vals, const char *label)
{
	int reg, n = 0, shown = 0;

	if (fmt == FMT_JSON)
		fprintf(fp, ",\"%s\":{", label);
	else
		fprintf(fp, "\n    %s:", label);
	for (reg = 0; reg < PERFREGS_REG_MAX; reg++) {
		const char *name;
		uint64_t v;

		if (!(mask & (1ULL << reg)))
			continue;
		v = vals[n++];
		name = reg_name(layout, reg);
		if (!name)
			continue;
		v = reg_value(layout, v);
		if (fmt == FMT_JSON) {
			fprintf(fp, "%s\"%s\":\"0x%" PRIx64 "\"", shown ? "," : "",
				name, v);
		} else {
			if (shown && shown % 4 == 0)
				fputs("\n         ", fp);
			fprintf(fp, " %-6s 0x%0*" PRIx64, name,
				layout == LAYOUT_I386 ? 8 : 16, v);
		}
		shown++;
	}
	if (fmt == FMT_JSON)
		fputc('}', fp);
}

/* The size a sample record must have, or 0 if its header is inconsistent. */
static size_t sample_size(const struct perfregs_rec_sample *s, size_t avail,
			  uint64_t *stack_size, uint64_t *stack_copied)
{
	size_t nregs, need;
	const uint64_t *p;

	if (avail < sizeof(*s) || s->header.size > avail)
		return 0;
	if ((s->iregs_mask | s->uregs_mask) & ~PERFREGS_MASK_64)
		return 0;
	nregs = __builtin_popcountll(s->iregs_mask) +
		__builtin_popcountll(s->uregs_mask);
	need = sizeof(*s) + 8 * nregs;
	*stack_size = *stack_copied = 0;
	if (s->flags & PERFREGS_SF_STACK) {
		if (s->header.size < need + 16)
			return 0;
		p = (const uint64_t *)((const char *)s + need);
		if (p[0] > PERFREGS_MAX_STACK_BYTES || p[0] % 8)
			return 0;
		*stack_size = p[0];
		need += 16 + p[0];
		if (s->header.size < need)
			return 0;
		*stack_copied = *(const uint64_t *)((const char *)s + need - 8);
		if (*stack_copied > *stack_size)
			return 0;
	}
	return s->header.size == need ? need : 0;
}

static void out_callchain(struct decoder *d, const struct perfregs_rec_sample *s,
			  enum layout layout, uint64_t stack_size,
			  uint64_t stack_copied)
{
	static struct frame frames[128];
	const unsigned char *stack = (const unsigned char *)s + s->header.size -
				     8 - stack_size;
	FILE *fp = d->out;
	int i, n;

	n = unwind_sample(d, s, layout, stack, stack_copied, frames, 128);
	if (d->o.format == FMT_JSON) {
		fputs(",\"callchain\":[", fp);
		for (i = 0; i < n; i++) {
			fprintf(fp, "%s{\"ip\":\"0x%" PRIx64 "\"", i ? "," : "",
				frames[i].ip);
			if (frames[i].sym[0]) {
				fputs(",\"sym\":", fp);
				json_string(fp, frames[i].sym, sizeof(frames[i].sym));
			}
			if (frames[i].dso[0]) {
				fputs(",\"dso\":", fp);
				json_string(fp, frames[i].dso, sizeof(frames[i].dso));
			}
			fputc('}', fp);
		}
		fputc(']', fp);
		return;
	}
	for (i = 0; i < n; i++)
		fprintf(fp, "\n\t%16" PRIx64 " %s (%s)", frames[i].ip,
			frames[i].sym[0] ? frames[i].sym : "[unknown]",
			frames[i].dso[0] ? frames[i].dso : "[unknown]");
}

static void out_sample(struct decoder *d, const struct perfregs_rec_sample *s,
		       uint64_t stack_size, uint64_t stack_copied)
{
	const struct image *im = image_find(d, s->image_dev, s->image_ino);
	const struct elf_facts *ef = im ? &im->facts : NULL;
	struct decoded dd = decide_layout(s->abi, ef);
	bool in_user = !(s->flags & PERFREGS_SF_KERNEL);
	enum layout ilayout = in_user && dd.layout != LAYOUT_NONE ?
			      dd.layout : LAYOUT_X86_64;
	const uint64_t *vals = (const uint64_t *)s->regs;
	int ip_idx = prf_reg_index(s->iregs_mask, PERFREGS_REG_IP);
	int uip_idx = prf_reg_index(s->uregs_mask, PERFREGS_REG_IP);
	bool have_ip = ip_idx >= 0 || uip_idx >= 0;
	uint64_t ip = ip_idx >= 0 ? vals[ip_idx] :
		      uip_idx >= 0 ? vals[__builtin_popcountll(s->iregs_mask) + uip_idx] : 0;
	FILE *fp = d->out;
	char comm[17], sym[320] = "";
	int ret = -1;

	memcpy(comm, s->comm, 16);
	comm[16] = 0;
	if (have_ip && d->o.symbols) {
		if (ip >= 0xffff800000000000ULL)
			ret = kernel_symbol(d, ip, sym, sizeof(sym));
		else
			ret = user_symbol(d, s, ip, sym, sizeof(sym));
	}
	if (ret)
		sym[0] = 0;
	if (d->o.format == FMT_JSON) {
		fprintf(fp, "{\"type\":\"sample\",\"time\":%" PRIu64
			",\"cpu\":%u,\"pid\":%u,\"tid\":%u,\"comm\":",
			(uint64_t)s->time, s->cpu, s->pid, s->tid);
		json_string(fp, comm, 16);
		fprintf(fp, ",\"context\":\"%s\",\"abi\":\"%s\",\"mixed\":%s"
			",\"kernel_abi\":\"%s\",\"uregs_source\":\"%s\"",
			ctx_name(s->flags), dd.abi_name, dd.mixed ? "true" : "false",
			kabi_name(s->abi), uregs_src_name(s->flags));
		if (ef && ef->known)
			fprintf(fp, ",\"elf\":{\"class\":%u,\"machine\":%u}",
				ef->elfclass, ef->machine);
		else
			fputs(",\"elf\":null", fp);
		if (have_ip)
			fprintf(fp, ",\"ip\":\"0x%" PRIx64 "\"", ip);
		if (sym[0]) {
			fputs(",\"sym\":", fp);
			json_string(fp, sym, sizeof(sym));
		}
		out_regs(fp, FMT_JSON, ilayout, s->iregs_mask, vals, "iregs");
		out_regs(fp, FMT_JSON, dd.layout, s->uregs_mask,
			 vals + __builtin_popcountll(s->iregs_mask), "uregs");
		if (s->flags & PERFREGS_SF_STACK)
			fprintf(fp, ",\"stack\":{\"size\":%" PRIu64 ",\"copied\":%" PRIu64 "}",
				stack_size, stack_copied);
		if (d->o.callgraph && (s->flags & PERFREGS_SF_STACK))
			out_callchain(d, s, dd.layout, stack_size, stack_copied);
		fputs("}\n", fp);
		return;
	}
	fprintf(fp, "%16s %6u/%-6u [%03u] %" PRIu64 ".%09" PRIu64
		": %s: ip 0x%" PRIx64 "%s%s%s %s abi %s%s ctx %s uregs %s%s",
		comm, s->pid, s->tid, s->cpu, (uint64_t)s->time / 1000000000,
		(uint64_t)s->time % 1000000000, d->o.event_name, ip,
		sym[0] ? " (" : "", sym, sym[0] ? ")" : "",
		in_user ? "user" : "kernel", dd.abi_name,
		dd.mixed ? " (mixed mode)" : "", ctx_name(s->flags),
		uregs_src_name(s->flags),
		(s->flags & PERFREGS_SF_ENTRY_RACE) ? " (entry race)" : "");
	if (s->iregs_mask)
		out_regs(fp, FMT_TEXT, ilayout, s->iregs_mask, vals, "iregs");
	if (s->uregs_mask)
		out_regs(fp, FMT_TEXT, dd.layout, s->uregs_mask,
			 vals + __builtin_popcountll(s->iregs_mask), "uregs");
	if (s->flags & PERFREGS_SF_STACK)
		fprintf(fp, "\n    stack: %" PRIu64 " bytes from sp, %" PRIu64 " copied",
			stack_size, stack_copied);
	if (d->o.callgraph && (s->flags & PERFREGS_SF_STACK))
		out_callchain(d, s, dd.layout, stack_size, stack_copied);
	fputc('\n', fp);
}

static void out_lost(struct decoder *d, const struct perfregs_rec_lost *l, int cpu)
{
	FILE *fp = d->out;
	int i;

	if (d->o.format == FMT_JSON) {
		fprintf(fp, "{\"type\":\"lost\",\"time\":%" PRIu64 ",\"cpu\":%d,\"lost\":{",
			(uint64_t)l->time, cpu);
		for (i = 0; i < PERFREGS_LOST_MAX; i++)
			fprintf(fp, "%s\"%s\":%" PRIu64, i ? "," : "",
				lost_cause_name(i), (uint64_t)l->lost[i]);
		fputs("}}\n", fp);
		return;
	}
	fprintf(fp, "LOST [%03d] %" PRIu64 ".%09" PRIu64 ":", cpu,
		(uint64_t)l->time / 1000000000, (uint64_t)l->time % 1000000000);
	for (i = 0; i < PERFREGS_LOST_MAX; i++)
		if (l->lost[i])
			fprintf(fp, " %s %" PRIu64, lost_cause_name(i),
				(uint64_t)l->lost[i]);
	fputc('\n', fp);
}

/* Decode one kernel record of avail bytes; count what is malformed. */
void decode_record(struct decoder *d, int cpu,
		   const struct perfregs_rec_header *rec, size_t avail)
{
	uint64_t ss, sc;
	int i;

	if (rec->type == PERFREGS_REC_SAMPLE) {
		const struct perfregs_rec_sample *s = (const void *)rec;

		if (!sample_size(s, avail, &ss, &sc)) {
			d->bad_records++;
			return;
		}
		d->samples++;
		if (d->record_hook)
			d->record_hook(d->learnt_arg, cpu, rec);
		if (!d->o.summary)
			out_sample(d, s, ss, sc);
	} else if (rec->type == PERFREGS_REC_LOST) {
		const struct perfregs_rec_lost *l = (const void *)rec;

		if (rec->size != sizeof(*l) || avail < sizeof(*l)) {
			d->bad_records++;
			return;
		}
		for (i = 0; i < PERFREGS_LOST_MAX; i++)
			d->lost[i] += l->lost[i];
		if (d->record_hook)
			d->record_hook(d->learnt_arg, cpu, rec);
		if (!d->o.summary)
			out_lost(d, l, cpu);
	}
	/* other types: from a newer module, skipped */
}

void out_summary(struct decoder *d, FILE *fp, enum out_format fmt,
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
		fputs("}}\n", fp);
		return;
	}
	fprintf(fp, "# %" PRIu64 " samples decoded, %" PRIu64 " produced; lost:",
		d->samples, produced);
	for (i = 0; i < PERFREGS_LOST_MAX; i++)
		fprintf(fp, " %s %" PRIu64, lost_cause_name(i), d->lost[i]);
	if (d->bad_records)
		fprintf(fp, "; %" PRIu64 " malformed records skipped", d->bad_records);
	fputc('\n', fp);
}
