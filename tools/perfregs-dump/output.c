// SPDX-License-Identifier: GPL-2.0
/* Text and JSON Lines output of decoded records. */
#include <inttypes.h>
#include <string.h>
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

/* Print one register set; returns the number of values consumed. */
static int out_regs(FILE *fp, const struct opts *o, enum layout layout,
		    uint64_t mask, const uint64_t *vals, const char *label)
{
	int reg, n = 0, shown = 0;

	if (o->format == FMT_JSON)
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
		if (o->format == FMT_JSON) {
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
	if (o->format == FMT_JSON)
		fputc('}', fp);
	return n;
}

void out_sample(FILE *fp, const struct opts *o,
		const struct perfregs_rec_sample *s)
{
	const struct elf_facts *ef = elf_facts_of_task(s->pid, s->comm);
	struct decoded d = decide_layout(s->abi, ef);
	bool in_user = !(s->flags & PERFREGS_SF_KERNEL);
	enum layout ilayout = in_user && d.layout != LAYOUT_NONE ?
			      d.layout : LAYOUT_X86_64;
	int ip_idx = prf_reg_index(s->iregs_mask, PERFREGS_REG_IP);
	uint64_t ip = ip_idx >= 0 ? s->regs[ip_idx] : 0;
	const uint64_t *vals = (const uint64_t *)s->regs;
	char comm[17];

	memcpy(comm, s->comm, 16);
	comm[16] = 0;
	if (o->format == FMT_JSON) {
		fprintf(fp, "{\"type\":\"sample\",\"time\":%" PRIu64
			",\"cpu\":%u,\"pid\":%u,\"tid\":%u,\"comm\":",
			(uint64_t)s->time, s->cpu, s->pid, s->tid);
		json_string(fp, comm, 16);
		fprintf(fp, ",\"context\":\"%s\",\"abi\":\"%s\",\"mixed\":%s"
			",\"kernel_abi\":\"%s\",\"uregs_source\":\"%s\"",
			ctx_name(s->flags), d.abi_name, d.mixed ? "true" : "false",
			kabi_name(s->abi), uregs_src_name(s->flags));
		if (ef && ef->known)
			fprintf(fp, ",\"elf\":{\"class\":%u,\"machine\":%u}",
				ef->elfclass, ef->machine);
		else
			fputs(",\"elf\":null", fp);
		if (ip_idx >= 0)
			fprintf(fp, ",\"ip\":\"0x%" PRIx64 "\"", ip);
		vals += out_regs(fp, o, ilayout, s->iregs_mask, vals, "iregs");
		out_regs(fp, o, d.layout, s->uregs_mask, vals, "uregs");
		fputs("}\n", fp);
		return;
	}
	fprintf(fp, "%16s %6u/%-6u [%03u] %" PRIu64 ".%09" PRIu64
		": %s ip 0x%" PRIx64 " %s abi %s%s uregs %s%s",
		comm, s->pid, s->tid, s->cpu, (uint64_t)s->time / 1000000000,
		(uint64_t)s->time % 1000000000, o->event_name, ip,
		in_user ? "user" : "kernel", d.abi_name,
		d.mixed ? " (mixed mode)" : "", uregs_src_name(s->flags),
		(s->flags & PERFREGS_SF_ENTRY_RACE) ? " (entry race)" : "");
	fprintf(fp, " ctx %s", ctx_name(s->flags));
	if (s->iregs_mask)
		vals += out_regs(fp, o, ilayout, s->iregs_mask, vals, "iregs");
	if (s->uregs_mask)
		out_regs(fp, o, d.layout, s->uregs_mask, vals, "uregs");
	fputc('\n', fp);
}

void out_lost(FILE *fp, const struct opts *o,
	      const struct perfregs_rec_lost *l, int cpu)
{
	int i, first = 1;

	if (o->format == FMT_JSON) {
		fprintf(fp, "{\"type\":\"lost\",\"time\":%" PRIu64 ",\"cpu\":%d,\"lost\":{",
			(uint64_t)l->time, cpu);
		for (i = 0; i < PERFREGS_LOST_MAX; i++) {
			fprintf(fp, "%s\"%s\":%" PRIu64, first ? "" : ",",
				lost_cause_name(i), (uint64_t)l->lost[i]);
			first = 0;
		}
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

void out_summary(FILE *fp, const struct opts *o, uint64_t samples,
		 const uint64_t *lost, uint64_t produced)
{
	int i;

	if (o->format == FMT_JSON) {
		fprintf(fp, "{\"type\":\"summary\",\"samples\":%" PRIu64
			",\"produced\":%" PRIu64 ",\"lost\":{", samples, produced);
		for (i = 0; i < PERFREGS_LOST_MAX; i++)
			fprintf(fp, "%s\"%s\":%" PRIu64, i ? "," : "",
				lost_cause_name(i), lost[i]);
		fputs("}}\n", fp);
		return;
	}
	fprintf(fp, "# %" PRIu64 " samples decoded, %" PRIu64 " produced; lost:",
		samples, produced);
	for (i = 0; i < PERFREGS_LOST_MAX; i++)
		fprintf(fp, " %s %" PRIu64, lost_cause_name(i), lost[i]);
	fputc('\n', fp);
}
