// SPDX-License-Identifier: GPL-2.0
/*
 * mklatevdso: a recording whose vDSO image item comes after the [vdso]
 * mapping's side-band event, as a merged or hand-made one may have it
 * (the tool itself writes the image first): EXEC, MMAP [vdso] with its
 * build-id, a sample in the vDSO (t=300), an MMAP of another file (a new
 * version of the space, t=400), the image, a sample in the vDSO again
 * (t=500).  The image is this process's own vDSO; the samples are at
 * SYM (__vdso_clock_gettime by default).  With --threads the event at
 * t=400 is applied while a worker may not yet have printed the sample
 * at t=300: the t=500 sample must decode the same with 1 thread and 2.
 *
 * usage: mklatevdso FILE [SYM]
 */
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include "../tools/perfregs-dump/types.h"
#include "../tools/perfregs-dump/rec-write.h"
#include "../tools/perfregs-dump/session.h"
#include "../tools/perfregs-dump/vdso.h"

#define R(x) (1ULL << PERFREGS_REG_##x)
#define PID 4242

static void sample(struct recorder *r, uint64_t addr, uint64_t t)
{
	uint64_t buf[32] = { 0 };
	struct perfregs_rec_sample *s = (void *)buf;
	uint64_t *v = (uint64_t *)s->regs;

	s->header.type = PERFREGS_REC_SAMPLE;
	s->time = t;
	s->pid = PID;
	s->tid = PID;
	s->flags = PERFREGS_SF_CTX_IRQ | PERFREGS_SF_UREGS_DIRECT;
	s->abi = PERFREGS_ABI_64;
	snprintf(s->comm, sizeof(s->comm), "late");
	s->iregs_mask = R(IP);
	*v++ = addr;
	s->uregs_mask = R(IP);
	*v++ = addr;
	s->header.size = (uint16_t)((char *)v - (char *)s);
	rec_sample(r, 0, &s->header);
}

/* SYM's address in this process's vDSO, from its dynamic symbols */
static uint64_t vdso_sym(const char *name)
{
	const char *base = (const char *)getauxval(AT_SYSINFO_EHDR);
	const Elf64_Ehdr *e = (const void *)base;
	const Elf64_Shdr *sh;
	unsigned int i, j;

	if (!base)
		return 0;
	sh = (const void *)(base + e->e_shoff);
	for (i = 0; i < e->e_shnum; i++) {
		const Elf64_Sym *s = (const void *)(base + sh[i].sh_offset);
		const char *str = base + sh[sh[i].sh_link].sh_offset;

		if (sh[i].sh_type != SHT_DYNSYM)
			continue;
		for (j = 0; j < sh[i].sh_size / sizeof(*s); j++)
			if (!strcmp(str + s[j].st_name, name))
				return (uint64_t)(uintptr_t)base + s[j].st_value;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static struct session d;	/* only to learn the build-id */
	uint64_t lost[PERFREGS_LOST_MAX] = { 0 }, start = 0, end = 0, addr;
	struct perfregs_config cfg;
	struct sb_event ev = { 0 };
	const struct blob *b;
	struct recorder *r;
	char line[512];
	FILE *fp;

	if (argc < 2) {
		fprintf(stderr, "usage: mklatevdso FILE [SYM]\n");
		return 1;
	}
	fp = fopen("/proc/self/maps", "r");
	while (fp && fgets(line, sizeof(line), fp))
		if (strstr(line, "[vdso]"))
			sscanf(line, "%lx-%lx", &start, &end);
	if (fp)
		fclose(fp);
	addr = vdso_sym(argc > 2 ? argv[2] : "__vdso_clock_gettime");
	b = start ? blob_add(&d.m, (void *)(uintptr_t)start, end - start) : NULL;
	if (!addr || !b) {
		fprintf(stderr, "mklatevdso: no vDSO or no %s in it\n",
			argc > 2 ? argv[2] : "__vdso_clock_gettime");
		return 1;
	}
	prf_config_default(&cfg);
	r = rec_create(argv[1], &cfg, "cpu-clock");
	if (!r)
		return 1;
	ev.kind = SB_EXEC;
	ev.pid = PID;
	ev.time = 100;
	ev.name = "late";
	rec_sb(r, &ev);
	ev.kind = SB_MMAP;
	ev.time = 200;
	ev.start = start;
	ev.end = end;
	ev.prot = PROT_READ | PROT_EXEC;
	ev.name = "[vdso]";
	ev.build_id_len = b->build_id_len;
	memcpy(ev.build_id, b->build_id, b->build_id_len);
	rec_sb(r, &ev);
	sample(r, addr, 300);
	memset(&ev, 0, sizeof(ev));
	ev.kind = SB_MMAP;
	ev.pid = PID;
	ev.time = 400;
	ev.start = 0x100000000ULL;
	ev.end = 0x100001000ULL;
	ev.prot = PROT_READ | PROT_EXEC;
	ev.name = "/nonexistent/libx.so";
	rec_sb(r, &ev);
	rec_blob(r, b, (void *)(uintptr_t)start);
	sample(r, addr, 500);
	return rec_close(r, 2, lost) ? 1 : 0;
}
