// SPDX-License-Identifier: GPL-2.0
/*
 * mkadopt: a recording whose last event, an exec read late, adopts two
 * children forked before it was read, with the address spaces' budget
 * (aspace.c, SPACE_MAPS_BUDGET) FILL versions short of full.  One
 * thread prints every sample of child C2 (N of them, 1 KiB stacks in
 * tests/big_target.S's big_f0..big_f7, at MAIN) through main; then the
 * exec of their parent P comes, later than every sample, and the
 * children it adopts are rebuilt (children_rebuild()), which may give
 * C2 up (space_give_up(): an unknown space for all times).  With
 * --threads, the workers still printing C2's samples must not see that:
 * that exec waits for them (space_event_later()).
 *
 * The budget is filled by process Z, 1446 mappings made one after the
 * other (1446 * 1447 / 2 mappings in its versions, and the versions),
 * and FILL execs of process Y.  With FILL 940 the rebuild gives C2 up;
 * with some 5 more, one thread already gives it up before its samples.
 *
 * usage: mkadopt FILE EXE MAIN N FILL
 */
#include <sys/mman.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../tools/perfregs-dump/types.h"
#include "../tools/perfregs-dump/rec-write.h"
#include "../tools/perfregs-dump/session.h"

#define R(x)	(1ULL << PERFREGS_REG_##x)
#define INO	4242
#define STACK	1024
#define Z_MAPS	1446

enum { P = 4000, C1 = 3000, C2 = 2000, Y = 7100, Z = 7000 };

static void sb(struct recorder *r, uint32_t kind, uint32_t pid, uint32_t ppid,
	       uint64_t time, uint64_t start, uint64_t end, const char *name)
{
	struct sb_event ev = { .kind = kind, .pid = pid, .ppid = ppid, .time = time,
			       .start = start, .end = end, .name = name };

	if (kind == SB_MMAP)
		ev.prot = PROT_READ | PROT_EXEC;
	rec_sb(r, &ev);
}

int main(int argc, char **argv)
{
	uint64_t lostv[PERFREGS_LOST_MAX] = { 0 }, main_addr, *buf, *v;
	struct image im = { .dev = 0x801, .ino = INO,
			    .facts = { true, 2 /* ELFCLASS64 */, 62 /* EM_X86_64 */ } };
	struct perfregs_config cfg;
	struct recorder *r;
	long k, i, n, fill;
	char name[64];

	if (argc != 6) {
		fprintf(stderr, "usage: mkadopt FILE EXE MAIN N FILL\n");
		return 2;
	}
	main_addr = strtoull(argv[3], NULL, 0);
	n = atol(argv[4]);
	fill = atol(argv[5]);
	buf = calloc(1, 1024 + 2 * STACK);
	if (!buf || n <= 0 || fill < 0)
		return 2;
	im.path = argv[2];
	prf_config_default(&cfg);
	cfg.stack_bytes = STACK;
	r = rec_create(argv[1], &cfg, "cpu-clock");
	if (!r) {
		perror(argv[1]);
		return 1;
	}
	rec_image(r, &im);
	/* the budget: Z's versions, then Y's execs */
	sb(r, SB_EXEC, Z, 0, 10, 0, 0, "z");
	for (k = 0; k < Z_MAPS; k++) {
		snprintf(name, sizeof(name), "/z/lib%ld.so", k);
		sb(r, SB_MMAP, Z, 0, 20 + k, 0x10000000ULL + 0x1000ULL * k,
		   0x10001000ULL + 0x1000ULL * k, name);
	}
	for (k = 0; k < fill; k++)
		sb(r, SB_EXEC, Y, 0, 10 + k, 0, 0, "y");
	/* C2 runs big_target; C1 is begun; both forked by P, not yet known */
	sb(r, SB_EXEC, C2, 0, 100000, 0, 0, "c2");
	sb(r, SB_MMAP, C2, 0, 200000, 0x400000, 0x404000, argv[2]);
	sb(r, SB_BEGIN, C1, 0, 0, 0, 0, "");
	sb(r, SB_FORK, C1, P, 1000000, 0, 0, "");
	sb(r, SB_MMAP, C1, 0, 1000001, 0x20000000, 0x20001000, "/c1/lib.so");
	sb(r, SB_FORK, C2, P, 5000000, 0, 0, "");
	/* C2's samples, from 300000 to 900000: main > big_f0 .. big_fD */
	for (i = 0; i < n; i++) {
		struct perfregs_rec_sample *s = (void *)buf;
		int depth = i % 8, j;
		uint64_t ip = main_addr + 12 * (depth + 1) + 4, sp = 0x7ff000000000ULL;

		memset(s, 0, sizeof(*s));
		s->header.type = PERFREGS_REC_SAMPLE;
		s->time = 300000 + 600000ULL * i / n;
		s->cpu = i % 2;
		s->pid = C2;
		s->tid = C2;
		s->flags = PERFREGS_SF_CTX_IRQ | PERFREGS_SF_UREGS_DIRECT | PERFREGS_SF_STACK;
		s->abi = PERFREGS_ABI_64;
		snprintf(s->comm, sizeof(s->comm), "c2");
		s->image_ino = INO;
		s->image_dev = 0x801;
		s->iregs_mask = R(IP) | R(FLAGS);
		v = (uint64_t *)s->regs;
		*v++ = ip;
		*v++ = 0x246;
		s->uregs_mask = R(BX) | R(BP) | R(SP) | R(IP) | R(R12) | R(R13) | R(R14) |
				R(R15);
		*v++ = 0x1111;
		*v++ = sp;
		*v++ = sp;
		*v++ = ip;
		*v++ = 0x1212;
		*v++ = 0x1313;
		*v++ = 0x1414;
		*v++ = 0x1515;
		*v++ = STACK;
		memset(v, 0, STACK);
		for (j = 0; j <= depth; j++) {
			v[2 * j] = sp + 16 * (j + 1);
			v[2 * j + 1] = main_addr + 12 * (depth - j) + 10;
		}
		v += STACK / 8;
		*v++ = STACK;
		s->header.size = (char *)v - (char *)s;
		rec_sample(r, s->cpu, &s->header);
	}
	/* P's exec, read late: after every sample, before both forks */
	sb(r, SB_EXEC, P, 0, 950000, 0, 0, "p");
	return rec_close(r, n, lostv) ? 1 : 0;
}
