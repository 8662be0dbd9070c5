// SPDX-License-Identifier: GPL-2.0
/*
 * mkversions: a recording of one process with the files LIB... mapped
 * (each whole, from offset 0, at its own base) and K versions of its
 * address space (LIB1 mapped again at its place), one sample with a
 * stack in each version at LIB1+OFF1, and the last samples each in
 * another LIB at its OFF, for --call-graph dwarf: what every version's
 * unwinder costs in open files.
 *
 * usage: mkversions FILE K LIB OFF [LIB OFF]...
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include "../tools/perfregs-dump/types.h"
#include "../tools/perfregs-dump/rec-write.h"
#include "../tools/perfregs-dump/session.h"

#define R(x) (1ULL << PERFREGS_REG_##x)
#define BASE(j) (0x7f0000000000ULL + (uint64_t)(j) * 0x10000000ULL)

int main(int argc, char **argv)
{
	uint64_t lostv[PERFREGS_LOST_MAX] = { 0 }, size[16], off[16];
	struct sb_event ev = { .kind = SB_EXEC, .pid = 42, .time = 1, .name = "x" };
	struct perfregs_config cfg;
	struct recorder *r;
	int k, i, j, nl;
	struct stat st;

	if (argc < 5 || argc % 2 == 0 || argc > 3 + 2 * 16) {
		fprintf(stderr, "usage: mkversions FILE K LIB OFF [LIB OFF]...\n");
		return 1;
	}
	k = atoi(argv[2]);
	nl = (argc - 3) / 2;
	prf_config_default(&cfg);
	r = rec_create(argv[1], &cfg, "cpu-clock");
	if (!r) {
		perror(argv[1]);
		return 1;
	}
	rec_sb(r, &ev);
	for (j = 0; j < nl; j++) {
		if (stat(argv[3 + 2 * j], &st)) {
			perror(argv[3 + 2 * j]);
			return 1;
		}
		size[j] = ((uint64_t)st.st_size + 4095) & ~4095ULL;
		off[j] = strtoull(argv[4 + 2 * j], NULL, 0);
		ev.kind = SB_MMAP;
		ev.time = 2;
		ev.prot = PROT_READ | PROT_EXEC;
		ev.start = BASE(j);
		ev.end = BASE(j) + size[j];
		ev.pgoff = 0;
		ev.name = argv[3 + 2 * j];
		rec_sb(r, &ev);
	}
	for (i = 0; i < k; i++) {
		uint64_t buf[64] = { 0 };
		struct perfregs_rec_sample *s = (void *)buf;
		uint64_t *v = (uint64_t *)s->regs;

		ev.time = 10 + 10 * (uint64_t)i;	/* a new version */
		ev.start = BASE(0);
		ev.end = BASE(0) + size[0];
		ev.name = argv[3];
		rec_sb(r, &ev);
		j = i >= k - nl ? i - (k - nl) : 0;
		s->header.type = PERFREGS_REC_SAMPLE;
		s->time = 15 + 10 * (uint64_t)i;
		s->pid = s->tid = 42;
		s->flags = PERFREGS_SF_CTX_IRQ | PERFREGS_SF_UREGS_DIRECT | PERFREGS_SF_STACK;
		s->abi = PERFREGS_ABI_64;
		snprintf(s->comm, sizeof(s->comm), "versions");
		s->iregs_mask = R(IP);
		*v++ = BASE(j) + off[j];
		s->uregs_mask = R(SP) | R(IP);	/* in register order */
		*v++ = 0x7ffff000;
		*v++ = BASE(j) + off[j];
		*v++ = 8;	/* stack: size, 8 bytes, copied */
		*v++ = 0;
		*v++ = 8;
		s->header.size = (char *)v - (char *)s;
		rec_sample(r, 0, &s->header);
	}
	return rec_close(r, k, lostv) ? 1 : 0;
}
