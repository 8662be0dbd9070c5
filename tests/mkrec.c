// SPDX-License-Identifier: GPL-2.0
/*
 * mkrec: write a synthetic perfregs recording with known contents, for
 * host-side tests of the decoder and as the fuzzer's seed.
 *
 * Four tasks, one per layout, each with its own image: pid 100 x86-64,
 * pid 200 i386, pid 300 x32 (ELFCLASS32 + EM_X86_64, kernel ABI 64) and
 * pid 400 mixed mode (an ELFCLASS64 image with kernel ABI 32).  Each
 * gets N samples whose user registers hold the magic values of
 * selftests/magic.h, plus one LOST record and a kernel-mode sample with
 * a recorded kernel symbol.
 *
 * usage: mkrec FILE [N]
 */
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../tools/perfregs-dump/types.h"
#include "../tools/perfregs-dump/rec-write.h"
#include "../tools/perfregs-dump/session.h"
#include "../selftests/magic.h"

#define R(x) (1ULL << PERFREGS_REG_##x)

static void sample(struct recorder *r, uint32_t pid, uint32_t abi, uint64_t ino,
		   uint64_t t, bool kernel)
{
	uint64_t buf[64] = { 0 };
	struct perfregs_rec_sample *s = (void *)buf;
	uint64_t umask, *v = (uint64_t *)s->regs;

	s->header.type = PERFREGS_REC_SAMPLE;
	s->time = t;
	s->cpu = pid / 100 - 1;
	s->pid = s->tid = pid;
	s->flags = PERFREGS_SF_CTX_IRQ | (kernel ? PERFREGS_SF_KERNEL | PERFREGS_SF_UREGS_ENTRY :
					  PERFREGS_SF_UREGS_DIRECT);
	s->abi = abi;
	snprintf(s->comm, sizeof(s->comm), "task%u", pid);
	s->image_ino = ino;
	s->image_dev = 0x801;
	s->iregs_mask = R(IP) | R(FLAGS);
	*v++ = kernel ? 0xffffffff81000010ULL : 0x401000 + pid;
	*v++ = 0x246;	/* odd-length hex: "0x246", zero-padded in text */
	if (abi == PERFREGS_ABI_32) {
		umask = R(BX) | R(SI) | R(DI) | R(BP) | R(IP);
		*v++ = MAGIC32_EBX;
		*v++ = MAGIC32_ESI;
		*v++ = MAGIC32_EDI;
		*v++ = MAGIC32_EBP;
		*v++ = 0x401000 + pid;
	} else {
		umask = R(BX) | R(BP) | R(IP) | R(R12) | R(R13) | R(R14) | R(R15);
		*v++ = MAGIC64_RBX;
		*v++ = MAGIC64_RBP;
		*v++ = 0x401000 + pid;
		*v++ = MAGIC64_R12;
		*v++ = MAGIC64_R13;
		*v++ = MAGIC64_R14;
		*v++ = MAGIC64_R15;
	}
	s->uregs_mask = umask;
	s->header.size = (char *)v - (char *)s;
	rec_sample(r, s->cpu, &s->header);
}

int main(int argc, char **argv)
{
	static const struct {
		uint32_t pid, abi;
		uint8_t cls;
		uint16_t machine;
	} tasks[] = {
		{ 100, PERFREGS_ABI_64, ELFCLASS64, EM_X86_64 },
		{ 200, PERFREGS_ABI_32, ELFCLASS32, EM_386 },
		{ 300, PERFREGS_ABI_64, ELFCLASS32, EM_X86_64 },
		{ 400, PERFREGS_ABI_32, ELFCLASS64, EM_X86_64 },
	};
	struct perfregs_config cfg;
	struct recorder *r;
	struct perfregs_rec_lost lost;
	struct ksym k = { .start = 0xffffffff81000000ULL, .end = 0xffffffff81000100ULL,
			  .name = (char *)"known_kernel_function" };
	uint64_t produced = 0, lostv[PERFREGS_LOST_MAX] = { 3 };
	int n = argc > 2 ? atoi(argv[2]) : 10, i, t;

	if (argc < 2) {
		fprintf(stderr, "usage: mkrec FILE [N]\n");
		return 1;
	}
	prf_config_default(&cfg);
	r = rec_create(argv[1], &cfg, "cpu-clock");
	if (!r) {
		perror(argv[1]);
		return 1;
	}
	rec_ksym(r, &k);
	for (t = 0; t < 4; t++) {
		struct image im = { .dev = 0x801, .ino = 1000 + t,
				    .facts = { true, tasks[t].cls, tasks[t].machine },
				    .path = (char *)"/nonexistent/on/this/machine" };

		rec_image(r, &im);
	}
	for (i = 0; i < n; i++)
		for (t = 0; t < 4; t++, produced++)
			sample(r, tasks[t].pid, tasks[t].abi, 1000 + t, 1000000ULL * i + t,
			       false);
	sample(r, 100, PERFREGS_ABI_64, 1000, 999999999, true);
	produced += 1 + 3;
	/*
	 * Three lost records in two LOST records: one as ABI 1 wrote them
	 * (four cause slots, 48 bytes), one as ABI 2 does (eight slots).
	 */
	memset(&lost, 0, sizeof(lost));
	lost.header.type = PERFREGS_REC_LOST;
	lost.header.size = 16 + 4 * 8;
	lost.time = 1000000000;
	lost.lost[PERFREGS_LOST_FULL] = 1;
	rec_sample(r, 0, &lost.header);
	lost.header.size = sizeof(lost);
	lost.lost[PERFREGS_LOST_FULL] = 2;
	rec_sample(r, 0, &lost.header);
	if (rec_close(r, produced, lostv)) {
		perror(argv[1]);
		return 1;
	}
	return 0;
}
