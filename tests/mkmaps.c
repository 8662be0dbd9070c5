// SPDX-License-Identifier: GPL-2.0
/*
 * mkmaps: write a perfregs recording of one live process, as the live
 * tool would have learnt it: its image, its executable mappings from
 * /proc/PID/maps, and N user-mode samples at each address of ADDR (one,
 * or several separated by commas), in the ABI of its ELF class (i386
 * for an ELFCLASS32 program).  The host tests point ADDR at a function
 * whose name they know, in programs linked by GNU ld and by lld, or at
 * a program's PLT entries, and ask the decoder to name it.
 *
 * usage: mkmaps FILE PID ADDR[,ADDR...] [N]
 */
#include <elf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "../tools/perfregs-dump/types.h"
#include "../tools/perfregs-dump/rec-write.h"
#include "../tools/perfregs-dump/session.h"

#define R(x) (1ULL << PERFREGS_REG_##x)

/* Sample t of the task, at user and interrupted IP addr. */
static void sample(struct recorder *r, int pid, uint64_t ino, uint64_t addr, uint32_t abi,
		   int t)
{
	uint64_t buf[64];
	struct perfregs_rec_sample *s = (void *)buf;
	uint64_t *v = (uint64_t *)s->regs;

	memset(buf, 0, sizeof(buf));
	s->header.type = PERFREGS_REC_SAMPLE;
	s->time = 1000 + t;
	s->pid = s->tid = pid;
	s->flags = PERFREGS_SF_CTX_IRQ | PERFREGS_SF_UREGS_DIRECT;
	s->abi = abi;
	snprintf(s->comm, sizeof(s->comm), "target");
	s->image_ino = ino;
	s->image_dev = 0x801;
	s->iregs_mask = R(IP);
	*v++ = addr;
	s->uregs_mask = R(IP);
	*v++ = addr;
	s->header.size = (char *)v - (char *)s;
	rec_sample(r, 0, &s->header);
}

int main(int argc, char **argv)
{
	uint64_t lostv[PERFREGS_LOST_MAX] = { 0 }, addr;
	struct mapping m[32];
	struct task_maps tm = { 0 };
	struct perfregs_config cfg;
	struct image im = { 0 };
	char path[64], line[4096], file[4096], perm[8], *a;
	unsigned char ident[EI_NIDENT + 4] = { 0 };
	struct recorder *r;
	struct stat st;
	unsigned long long start, end, pgoff;
	int pid, n, i, total = 0;
	uint32_t abi;
	FILE *f;

	if (argc < 4) {
		fprintf(stderr, "usage: mkmaps FILE PID ADDR[,ADDR...] [N]\n");
		return 2;
	}
	pid = atoi(argv[2]);
	n = argc > 4 ? atoi(argv[4]) : 10;
	snprintf(path, sizeof(path), "/proc/%d/exe", pid);
	f = fopen(path, "rb");
	if (stat(path, &st) || !f || fread(ident, 1, sizeof(ident), f) != sizeof(ident)) {
		perror(path);
		return 1;
	}
	fclose(f);
	im.dev = 0x801;
	im.ino = st.st_ino;
	im.path = realpath(path, NULL);
	im.facts.known = true;
	im.facts.elfclass = ident[EI_CLASS];
	im.facts.machine = ident[EI_NIDENT + 2] | ident[EI_NIDENT + 3] << 8;	/* e_machine */
	abi = im.facts.elfclass == ELFCLASS32 && im.facts.machine == EM_386 ? PERFREGS_ABI_32 :
									       PERFREGS_ABI_64;
	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	f = fopen(path, "r");
	if (!f) {
		perror(path);
		return 1;
	}
	while (fgets(line, sizeof(line), f) && tm.n < 32) {
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %4095s",
			   &start, &end, perm, &pgoff, file) != 5 ||
		    perm[2] != 'x' || file[0] != '/')
			continue;
		memset(&m[tm.n], 0, sizeof(m[0]));
		m[tm.n].start = start;
		m[tm.n].end = end;
		m[tm.n].pgoff = pgoff;
		m[tm.n].path = strdup(file);
		tm.n++;
	}
	fclose(f);
	tm.pid = pid;
	tm.ino = st.st_ino;
	tm.m = m;
	prf_config_default(&cfg);
	r = rec_create(argv[1], &cfg, "cpu-clock");
	if (!r) {
		perror(argv[1]);
		return 1;
	}
	rec_image(r, &im);
	rec_maps(r, &tm);
	for (a = argv[3]; *a; a += *a == ',') {
		addr = strtoull(a, &a, 0);
		for (i = 0; i < n; i++)
			sample(r, pid, st.st_ino, addr, abi, total++);
		if (*a && *a != ',')
			break;	/* not a number: no more */
	}
	if (rec_close(r, total, lostv)) {
		perror(argv[1]);
		return 1;
	}
	return 0;
}
