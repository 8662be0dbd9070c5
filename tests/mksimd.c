// SPDX-License-Identifier: GPL-2.0
/*
 * mksimd: a recording whose samples carry the registers of ABI minor 1
 * with known values: the selectors, the FS and GS base, and SIMD
 * sections of every component mix, of 64- and 32-bit frames, known and
 * unknown; or, given a KIND, the same with one malformed sample among
 * them, for host tests of the decoder (text, JSON, convert) and as the
 * fuzzer's seed.
 *
 * Tasks: pid 100 x86-64 (image 1000), pid 200 i386 (1001) and pid 400
 * mixed mode (1003: a 64-bit image, kernel ABI 32).  Each gets, at time
 * 1000000 * pid + i, one user-mode sample for each mix i of mixes[]
 * (i = 0..7), then i = 8: a kernel-mode sample with xmm and ymm (its
 * interrupt registers the kernel's); i = 9..14: unknown states, reasons
 * 1 to 5 and 7 (one no tool knows yet); i = 15: xmm and a user stack of
 * 16 bytes after the section.
 *
 * The values (what the host tests compute on their own):
 *   xmm n:      MAGIC_XMM_LO(n), MAGIC_XMM_HI(n) of selftests/magic.h,
 *               the low quadword first
 *   ymm n:      bits 128-255 MAGIC_YMM_LO(n), MAGIC_YMM_HI(n)
 *   zmm n < 16: bits 256 + 64 j, j = 0..3: ZMM_Q(n, j)
 *   zmm 16-31:  quadword j = 0..7: ZMM_Q(n, j)
 *   k n:        K_VAL(n)
 *   mxcsr:      0x1f80 | pid / 100
 *   a component of a newer module (bit 4): 32 bytes of 0xee after them
 *   user registers: ip 0x401000 + pid, sp 0x7ffe0000 + pid, ds 0x2b,
 *   es 0x2b, fs 0x63, gs 0x6b, fs_base FS_BASE(pid), gs_base
 *   GS_BASE(pid) (i386: FS_BASE32, GS_BASE32); a kernel-mode sample has
 *   no gs_base, as the module records it
 *
 * KIND, the malformed sample (time 1000000 * 100 + 50, after two good
 * samples of pid 100, before one more): short (a section shorter than
 * its header), nr_vec (12 vectors), nr_vec32 (16 in a 32-bit frame),
 * odd (a size not a multiple of 8), overrun (a size past the record's
 * end), long (xmm and 8 bytes more, in the record), mismatch (xmm and ymm
 * in the size of xmm alone), known0 (no
 * component and no reason), both (components and a reason), ibase (the
 * FS base among the interrupt registers), noabi (a section in a sample
 * of ABI none).
 *
 * usage: mksimd FILE [KIND]
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
#define SEGS (R(DS) | R(ES) | R(FS) | R(GS))

#define ZMM_Q(n, j)	(0x5a4d4d00c0de0000ULL | (uint64_t)(n) << 8 | (j))
#define K_VAL(n)	(0x4b6d736bc0de0000ULL | (n))
#define FS_BASE(pid)	(0x00007f1200000000ULL | (pid))
#define GS_BASE(pid)	(0x00007f3400000000ULL | (pid))
#define FS_BASE32	0xf7f12000U
#define GS_BASE32	0xf7f34000U

#define SIMD_NEWER	(1U << 4)	/* a component of a newer module */

static const uint32_t mixes[] = {
	PERFREGS_SIMD_XMM,
	PERFREGS_SIMD_XMM | PERFREGS_SIMD_YMM,
	PERFREGS_SIMD_ALL,
	PERFREGS_SIMD_OPMASK,
	PERFREGS_SIMD_YMM,			/* upper halves alone */
	PERFREGS_SIMD_ZMM,			/* zmm's upper halves, zmm16-31 */
	PERFREGS_SIMD_XMM | PERFREGS_SIMD_ZMM,	/* no ymm: zmm not whole */
	PERFREGS_SIMD_XMM | SIMD_NEWER,
};
#define NMIX	(sizeof(mixes) / sizeof(mixes[0]))

/* What one sample is to be. */
struct want {
	uint32_t pid, abi;
	uint64_t t;
	bool kernel;
	uint32_t components;	/* 0: unknown, for reason */
	uint32_t reason;
	bool stack;
	const char *bad;	/* a malformed section of this kind, or NULL */
};

static void put64(unsigned char **p, uint64_t v)
{
	memcpy(*p, &v, 8);
	*p += 8;
}

/* The SIMD section of w at p; returns its end. */
static unsigned char *simd(unsigned char *p, const struct want *w)
{
	unsigned int nvec = w->abi == PERFREGS_ABI_64 ? 16 : 8, n, j;
	struct perfregs_rec_simd h = {
		.components = w->components, .nr_vec = nvec,
		.mxcsr = w->components & PERFREGS_SIMD_XMM ? 0x1f80 | w->pid / 100 : 0,
		.unknown = w->components ? 0 : w->reason,
	};
	unsigned char *start = p;

	p += sizeof(h);
	if (w->components & PERFREGS_SIMD_XMM)
		for (n = 0; n < nvec; n++) {
			put64(&p, MAGIC_XMM_LO(n));
			put64(&p, MAGIC_XMM_HI(n));
		}
	if (w->components & PERFREGS_SIMD_YMM)
		for (n = 0; n < nvec; n++) {
			put64(&p, MAGIC_YMM_LO(n));
			put64(&p, MAGIC_YMM_HI(n));
		}
	if (w->components & PERFREGS_SIMD_ZMM) {
		for (n = 0; n < nvec; n++)
			for (j = 0; j < 4; j++)
				put64(&p, ZMM_Q(n, j));
		for (n = 16; nvec == 16 && n < 32; n++)
			for (j = 0; j < 8; j++)
				put64(&p, ZMM_Q(n, j));
	}
	if (w->components & PERFREGS_SIMD_OPMASK)
		for (n = 0; n < 8; n++)
			put64(&p, K_VAL(n));
	if (w->components & SIMD_NEWER) {
		memset(p, 0xee, 32);
		p += 32;
	}
	if (w->bad && !strcmp(w->bad, "long")) {
		memset(p, 0, 8);	/* 8 bytes more than its components take */
		p += 8;
	}
	h.size = p - start;
	if (!w->bad) {
	} else if (!strcmp(w->bad, "short")) {
		h.size = 16;
	} else if (!strcmp(w->bad, "nr_vec")) {
		h.nr_vec = 12;
	} else if (!strcmp(w->bad, "nr_vec32")) {
		h.nr_vec = 16;		/* in a 32-bit frame, whose data has 8 */
	} else if (!strcmp(w->bad, "odd")) {
		h.size -= 4;
	} else if (!strcmp(w->bad, "overrun")) {
		h.size += 64;
	} else if (!strcmp(w->bad, "mismatch")) {
		h.components |= PERFREGS_SIMD_YMM;
	} else if (!strcmp(w->bad, "known0")) {
		h.components = 0;
		h.unknown = 0;
	} else if (!strcmp(w->bad, "both")) {
		h.unknown = PERFREGS_SIMD_UNKNOWN_SAVED;
	}
	memcpy(start, &h, sizeof(h));
	return p;
}

static void sample(struct recorder *r, const struct want *w)
{
	static uint64_t buf[2048];
	struct perfregs_rec_sample *s = (void *)buf;
	unsigned char *p;
	uint64_t *v = (uint64_t *)s->regs;

	memset(buf, 0, sizeof(buf));
	s->header.type = PERFREGS_REC_SAMPLE;
	s->time = w->t;
	s->cpu = w->pid / 100 - 1;
	s->pid = s->tid = w->pid;
	s->flags = PERFREGS_SF_CTX_IRQ | PERFREGS_SF_SIMD |
		   (w->kernel ? PERFREGS_SF_KERNEL | PERFREGS_SF_UREGS_ENTRY :
				PERFREGS_SF_UREGS_DIRECT);
	s->abi = w->bad && !strcmp(w->bad, "noabi") ? PERFREGS_ABI_NONE : w->abi;
	snprintf(s->comm, sizeof(s->comm), "simd%u", w->pid);
	s->image_ino = w->pid == 100 ? 1000 : w->pid == 200 ? 1001 : 1003;
	s->image_dev = 0x801;
	s->iregs_mask = R(IP);
	*v++ = w->kernel ? 0xffffffff81000010ULL : 0x401000 + w->pid;
	if (w->bad && !strcmp(w->bad, "ibase")) {
		s->iregs_mask |= 1ULL << PERFREGS_REG_FS_BASE;
		*v++ = FS_BASE(w->pid);
	}
	s->uregs_mask = R(SP) | R(IP) | SEGS | (1ULL << PERFREGS_REG_FS_BASE) |
			(w->kernel ? 0 : 1ULL << PERFREGS_REG_GS_BASE);
	*v++ = 0x7ffe0000 + w->pid;
	*v++ = 0x401000 + w->pid;
	*v++ = 0x2b;	/* ds */
	*v++ = 0x2b;	/* es */
	*v++ = 0x63;	/* fs */
	*v++ = 0x6b;	/* gs */
	*v++ = w->pid == 200 ? FS_BASE32 : FS_BASE(w->pid);
	if (!w->kernel)
		*v++ = w->pid == 200 ? GS_BASE32 : GS_BASE(w->pid);
	p = simd((unsigned char *)v, w);
	if (w->stack) {
		s->flags |= PERFREGS_SF_STACK;
		put64(&p, 16);
		put64(&p, 0x1111111111111111ULL);
		put64(&p, 0x2222222222222222ULL);
		put64(&p, 16);
	}
	s->header.size = ((p - (unsigned char *)s) + 7) & ~7UL;
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
		{ 400, PERFREGS_ABI_32, ELFCLASS64, EM_X86_64 },
	};
	const char *bad = argc > 2 ? argv[2] : NULL;
	uint64_t lostv[PERFREGS_LOST_MAX] = { 0 }, produced = 0;
	struct perfregs_config cfg;
	struct recorder *r;
	struct want w;
	unsigned int t, i;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: mksimd FILE [KIND]\n");
		return 1;
	}
	prf_config_default(&cfg);
	cfg.uregs_mask_64 |= PERFREGS_MASK_BASES;
	cfg.uregs_mask_32 |= PERFREGS_MASK_BASES;
	cfg.simd_mask = PERFREGS_SIMD_ALL;
	r = rec_create(argv[1], &cfg, "cpu-clock");
	if (!r) {
		perror(argv[1]);
		return 1;
	}
	for (t = 0; t < 3; t++) {
		struct image im = { .dev = 0x801, .ino = tasks[t].pid == 100 ? 1000 :
					      tasks[t].pid == 200 ? 1001 : 1003,
				    .facts = { true, tasks[t].cls, tasks[t].machine },
				    .path = (char *)"/nonexistent/on/this/machine" };

		rec_image(r, &im);
	}
	if (bad) {
		w = (struct want){ .pid = 100, .abi = PERFREGS_ABI_64,
				   .components = PERFREGS_SIMD_XMM };
		if (!strcmp(bad, "nr_vec32")) {
			w.pid = 200;
			w.abi = PERFREGS_ABI_32;
		}
		for (i = 0; i < 4; i++, produced++) {
			w.t = 1000000ULL * 100 + 48 + i;
			w.bad = i == 2 ? bad : NULL;
			sample(r, &w);
		}
	} else {
		for (t = 0; t < 3; t++)
			for (i = 0; i < 16; i++, produced++) {
				w = (struct want){ .pid = tasks[t].pid, .abi = tasks[t].abi,
						   .t = 1000000ULL * tasks[t].pid + i };
				if (i < NMIX) {
					w.components = mixes[i];
				} else if (i == 8) {
					w.kernel = true;
					w.components = PERFREGS_SIMD_XMM | PERFREGS_SIMD_YMM;
				} else if (i < 15) {
					w.kernel = true;
					w.reason = i < 14 ? i - 8 : 7;
				} else {
					w.components = PERFREGS_SIMD_XMM;
					w.stack = true;
				}
				sample(r, &w);
			}
	}
	if (rec_close(r, produced, lostv)) {
		perror(argv[1]);
		return 1;
	}
	return 0;
}
