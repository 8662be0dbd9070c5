// SPDX-License-Identifier: GPL-2.0
/*
 * mkwrap: a recording whose frame pointer makes the unwinder's bounds
 * checks wrap around 2^64, and DATA, the file it maps.
 *
 * Two tasks (pids 100 and 200, x86-64 images): the first maps DATA at
 * 0x100000000, the second at 0xffffffffffffe000 (a page, from offset
 * 0).  Each has 7 user-mode samples at IP 0x1000 (no mapping: the
 * unwinder steps by the frame pointer), with SP 0 to 6, RBP
 * 0xfffffffffffffffc and 64 bytes of stack: the 32-bit word 1, then
 * bytes 0x33.  The word at RBP is not the task's, in neither the stack
 * nor a mapping.  But "addr - sp + 8 > stack_len" wrapped to a few bytes
 * for SP 0 to 4, and read it from before the snapshot (the size word,
 * then the 1): for SP 0, 0x100000000, a caller's frame in the first
 * task's DATA, whose word 8 is 0x2222.  And "addr + 8 > end" wrapped
 * for the second task's mapping at the top: DATA at 0x1ffc, 0x20, a
 * frame in the stack.  (In the first task's, that read is at an offset
 * pread() refuses.)  The word at RBP + 8, which wraps to 4, is the
 * stack's for SP 0 to 4: so each of those samples has 2 frames, the IP
 * and that word, and those of SP 5 and 6 one.
 *
 * usage: mkwrap FILE DATA
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../tools/perfregs-dump/types.h"
#include "../tools/perfregs-dump/rec-write.h"
#include "../tools/perfregs-dump/session.h"

#define R(x) (1ULL << PERFREGS_REG_##x)

#define PID		100
#define INO		1000
#define DATA_LOW	0x100000000ULL
#define DATA_TOP	0xffffffffffffe000ULL

static int write_data(const char *path)
{
	static unsigned char buf[0x3000];
	uint64_t v;
	FILE *fp = fopen(path, "w");

	if (!fp)
		return -1;
	memcpy(buf, "\177ELF", 4);	/* memory_read() reads ELF files only */
	v = 0x2222;			/* at 0x100000008 */
	memcpy(buf + 8, &v, 8);
	v = 0x20;			/* at 0xfffffffffffffffc */
	memcpy(buf + 0x1ffc, &v, 8);
	if (fwrite(buf, 1, sizeof(buf), fp) != sizeof(buf)) {
		fclose(fp);
		return -1;
	}
	return fclose(fp);
}

int main(int argc, char **argv)
{
	uint64_t lostv[PERFREGS_LOST_MAX] = { 0 };
	struct image im = { .dev = 0x801,
			    .facts = { true, 2 /* ELFCLASS64 */, 62 /* EM_X86_64 */ },
			    .path = (char *)"/nonexistent/on/this/machine" };
	static const uint64_t at[2] = { DATA_LOW, DATA_TOP };
	struct perfregs_config cfg;
	struct recorder *r;
	unsigned int t, sp;

	if (argc != 3) {
		fprintf(stderr, "usage: mkwrap FILE DATA\n");
		return 2;
	}
	if (write_data(argv[2])) {
		perror(argv[2]);
		return 1;
	}
	prf_config_default(&cfg);
	r = rec_create(argv[1], &cfg, "cpu-clock");
	if (!r) {
		perror(argv[1]);
		return 1;
	}
	for (t = 0; t < 2; t++) {
		struct mapping m = { .start = at[t], .end = at[t] + 0x1000, .path = argv[2] };
		struct task_maps tm = { .pid = PID * (t + 1), .ino = INO + t, .m = &m, .n = 1 };

		im.ino = INO + t;
		rec_image(r, &im);
		rec_maps(r, &tm);
	}
	for (t = 0; t < 2; t++) {
		for (sp = 0; sp <= 6; sp++) {
			uint64_t buf[64] = { 0 };
			struct perfregs_rec_sample *s = (void *)buf;
			uint64_t *v = (uint64_t *)s->regs;
			unsigned char *st;

			s->header.type = PERFREGS_REC_SAMPLE;
			s->time = 1000 + 10 * t + sp;
			s->pid = s->tid = PID * (t + 1);
			s->flags = PERFREGS_SF_CTX_IRQ | PERFREGS_SF_UREGS_DIRECT |
				   PERFREGS_SF_STACK;
			s->abi = PERFREGS_ABI_64;
			snprintf(s->comm, sizeof(s->comm), "wrap%u", sp);
			s->image_ino = INO + t;
			s->image_dev = 0x801;
			s->iregs_mask = R(IP);
			*v++ = 0x1000;
			s->uregs_mask = R(BP) | R(SP) | R(IP);	/* in register order */
			*v++ = 0xfffffffffffffffcULL;
			*v++ = sp;
			*v++ = 0x1000;
			*v++ = 64;			/* size */
			st = (unsigned char *)v;
			memset(st, 0x33, 64);
			memset(st, 0, 4);
			st[0] = 1;
			v += 64 / 8;
			*v++ = 64;			/* copied */
			s->header.size = (char *)v - (char *)s;
			if (rec_sample(r, 0, &s->header)) {
				perror(argv[1]);
				return 1;
			}
		}
	}
	if (rec_close(r, 14, lostv)) {
		perror(argv[1]);
		return 1;
	}
	return 0;
}
