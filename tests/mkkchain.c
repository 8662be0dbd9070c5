// SPDX-License-Identifier: GPL-2.0
/*
 * mkkchain: a recording whose kernel-mode samples carry kernel call
 * chains (PERFREGS_SF_KCHAIN, ABI minor 2) over known kernel symbols;
 * or, given a KIND, four samples with a hostile one among them, for
 * host tests of the decoder (tests/kchain_check.py) and as the fuzzer's
 * seed.
 *
 * The session asks for chains (kchain_max 127: a header of format 4).
 * Kernel symbols (ITEM_KSYM), K = 0xffffffff81000000:
 *   kc_inner [K, K + 0x100), kc_middle [K + 0x100, K + 0x200),
 *   kc_outer [K + 0x200, K + 0x300), kc_entry [K + 0x300, K + 0x400)
 * One task, pid 100 comm "kchain" (an x86-64 image, 1000), samples at
 * time 1000000 + i:
 *   0: kernel mode, IP K + 0x10; chain K + 0x10, K + 0x150, K + 0x300,
 *      K + 0x380: kc_inner+0x10, then return addresses kc_middle+0x50,
 *      kc_outer+0x100 (K + 0x300 is kc_outer's end and kc_entry's
 *      start: the byte before it, the call's, is kc_outer's) and
 *      kc_entry+0x80
 *   1: kernel mode, IP K + 0x20; chain K + 0x20, K + 0x110, status
 *      TRUNCATED and 0x80 (a bit of a newer module)
 *   2: kernel mode, IP K + 0x30; status NESTED, no entry
 *   3: user mode, IP 0x401000, no chain
 *   4: kernel mode, IP K + 0x40, with a SIMD section (state unknown,
 *      saved), then the chain K + 0x40, K + 0x250 (status UNRELIABLE),
 *      then 16 bytes of user stack: the sections in their order
 *
 * KIND, the hostile sample (time 2000000 + 2, after two good samples
 * of the chain of sample 0, before one more):
 *   nr128      nr 128, and 128 entries in the record
 *   overrun    nr 4, the record holding 2 entries
 *   long       8 bytes after the chain, no flag says what they are
 *   odd        a record size 4 bytes past its chain: not 8-aligned
 *   tail       a stack, then 16 bytes, and flag 0x8000 (a newer
 *              module's section after the stack): not hostile, skipped
 *   tail_known the same 16 bytes without flag 0x8000
 *
 * KIND user PROG BODY RET: the task maps PROG (a non-PIE executable,
 * from 0x400000, file offset 0) and one kernel-mode sample (time
 * 3000000) has the chain of sample 0 and a user frame at BODY, a frame
 * pointer body (tests/fp_target.S's fp_body: the CFA is %rbp + 16) whose
 * %rbp is the user SP: the stack's second word, RET, is its return
 * address, for --call-graph dwarf: kernel frames, then user frames.
 *
 * usage: mkkchain FILE [KIND | user PROG BODY RET]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../tools/perfregs-dump/types.h"
#include "../tools/perfregs-dump/rec-write.h"
#include "../tools/perfregs-dump/session.h"

#define R(x) (1ULL << PERFREGS_REG_##x)
#define K		0xffffffff81000000ULL
#define SF_NEWER	0x8000U		/* a sample flag no module has yet */

/* What one sample is to be. */
struct want {
	uint64_t t, ip, uip, ret;
	bool kernel, simd, stack;
	unsigned int nr;		/* entries of the chain */
	uint64_t ips[4];
	uint32_t status;
	const char *bad;		/* a KIND, or NULL */
};

static void put64(unsigned char **p, uint64_t v)
{
	memcpy(*p, &v, 8);
	*p += 8;
}

/* The chain section of w at p, as KIND makes it; its end. */
static unsigned char *kchain(unsigned char *p, const struct want *w)
{
	struct perfregs_rec_kchain h = { .nr = w->nr, .status = w->status };
	bool nr128 = w->bad && !strcmp(w->bad, "nr128");
	unsigned int i, n = nr128 ? 128 : w->nr;

	if (nr128)
		h.nr = 128;
	if (w->bad && !strcmp(w->bad, "overrun")) {
		h.nr = 4;
		n = 2;
	}
	memcpy(p, &h, sizeof(h));
	p += sizeof(h);
	for (i = 0; i < n; i++)
		put64(&p, i < w->nr ? w->ips[i] : K + 0x10 * i);
	return p;
}

static void sample(struct recorder *r, const struct want *w)
{
	static uint64_t buf[512];
	struct perfregs_rec_sample *s = (void *)buf;
	uint64_t *v = (uint64_t *)s->regs;
	const char *bad = w->bad ? w->bad : "";
	unsigned char *p;
	size_t size;

	memset(buf, 0, sizeof(buf));
	s->header.type = PERFREGS_REC_SAMPLE;
	s->time = w->t;
	s->pid = s->tid = 100;
	s->flags = PERFREGS_SF_CTX_IRQ | (w->kernel ? PERFREGS_SF_KERNEL | PERFREGS_SF_UREGS_ENTRY :
					   PERFREGS_SF_UREGS_DIRECT);
	s->abi = PERFREGS_ABI_64;
	snprintf(s->comm, sizeof(s->comm), "kchain");
	s->image_ino = 1000;
	s->image_dev = 0x801;
	s->iregs_mask = R(IP);
	*v++ = w->ip;
	s->uregs_mask = R(BP) | R(SP) | R(IP);
	*v++ = 0x7ffe0000;	/* bp: the frame at sp */
	*v++ = 0x7ffe0000;
	*v++ = w->uip ? w->uip : 0x401000;
	p = (unsigned char *)v;
	if (w->simd) {
		struct perfregs_rec_simd h = { .size = sizeof(h), .nr_vec = 16,
					       .unknown = PERFREGS_SIMD_UNKNOWN_SAVED };

		s->flags |= PERFREGS_SF_SIMD;
		memcpy(p, &h, sizeof(h));
		p += sizeof(h);
	}
	if (w->kernel) {
		s->flags |= PERFREGS_SF_KCHAIN;
		p = kchain(p, w);
	}
	if (!strcmp(bad, "long"))
		put64(&p, 0);
	if (w->stack && w->ret) {	/* the caller's %rbp, the return address, zeros */
		s->flags |= PERFREGS_SF_STACK;
		put64(&p, 64);
		put64(&p, 0);
		put64(&p, w->ret);
		memset(p, 0, 48);
		p += 48;
		put64(&p, 64);
	} else if (w->stack) {
		s->flags |= PERFREGS_SF_STACK;
		put64(&p, 16);
		put64(&p, 0x1111111111111111ULL);
		put64(&p, 0x2222222222222222ULL);
		put64(&p, 16);
	}
	if (!strcmp(bad, "tail") || !strcmp(bad, "tail_known")) {
		if (!strcmp(bad, "tail"))
			s->flags |= SF_NEWER;
		put64(&p, 0xeeeeeeeeeeeeeeeeULL);
		put64(&p, 0xeeeeeeeeeeeeeeeeULL);
	}
	size = p - (unsigned char *)s;
	s->header.size = size + (!strcmp(bad, "odd") ? 4 : 0);
	/* the item holds whole words, whatever the record says */
	rec_records(r, 0, s, (size + (!strcmp(bad, "odd") ? 8 : 0) + 7) & ~7UL, NULL, 0);
}

int main(int argc, char **argv)
{
	static const char *const names[] = { "kc_inner", "kc_middle", "kc_outer", "kc_entry" };
	const char *bad = argc > 2 ? argv[2] : NULL;
	uint64_t lostv[PERFREGS_LOST_MAX] = { 0 }, produced = 0;
	struct image im = { .dev = 0x801, .ino = 1000, .facts = { true, 2, 62 },
			    .path = (char *)"/nonexistent/on/this/machine" };
	struct want chain0 = { .kernel = true, .ip = K + 0x10, .nr = 4,
			       .ips = { K + 0x10, K + 0x150, K + 0x300, K + 0x380 } };
	struct perfregs_config cfg;
	struct recorder *r;
	struct want w;
	unsigned int i;

	if (argc < 2 || (argc > 3 && (argc != 6 || strcmp(argv[2], "user")))) {
		fprintf(stderr, "usage: mkkchain FILE [KIND | user PROG BODY RET]\n");
		return 1;
	}
	prf_config_default(&cfg);
	cfg.kchain_max = PERFREGS_MAX_KCHAIN;
	cfg.stack_bytes = 16;
	r = rec_create(argv[1], &cfg, "cpu-clock");
	if (!r) {
		perror(argv[1]);
		return 1;
	}
	rec_image(r, &im);
	for (i = 0; i < 4; i++) {
		struct ksym k = { .start = K + 0x100 * i, .end = K + 0x100 * (i + 1),
				  .name = (char *)names[i] };

		rec_ksym(r, &k);
	}
	if (bad && !strcmp(bad, "user")) {
		struct mapping m = { .start = 0x400000, .path = argv[3] };
		struct task_maps tm = { .pid = 100, .ino = 1000, .n = 1, .m = &m };
		FILE *fp = fopen(argv[3], "rb");

		if (!fp || fseek(fp, 0, SEEK_END)) {
			perror(argv[3]);
			return 1;
		}
		m.end = m.start + ((ftell(fp) + 0xfff) & ~0xfffL);
		fclose(fp);
		rec_maps(r, &tm);
		w = chain0;
		w.t = 3000000;
		w.nr = 2;
		w.stack = true;
		w.uip = strtoull(argv[4], NULL, 0);
		w.ret = strtoull(argv[5], NULL, 0);
		sample(r, &w);
		produced = 1;
	} else if (bad) {
		for (i = 0; i < 4; i++, produced++) {
			w = chain0;
			w.t = 2000000 + i;
			w.bad = i == 2 ? bad : NULL;
			w.stack = i == 2 && !strncmp(bad, "tail", 4);
			sample(r, &w);
		}
	} else {
		w = chain0;
		w.t = 1000000;
		sample(r, &w);
		w = (struct want){ .t = 1000001, .kernel = true, .ip = K + 0x20, .nr = 2,
				   .ips = { K + 0x20, K + 0x110 },
				   .status = PERFREGS_KCHAIN_TRUNCATED | 0x80 };
		sample(r, &w);
		w = (struct want){ .t = 1000002, .kernel = true, .ip = K + 0x30,
				   .status = PERFREGS_KCHAIN_NESTED };
		sample(r, &w);
		w = (struct want){ .t = 1000003, .ip = 0x401000 };
		sample(r, &w);
		w = (struct want){ .t = 1000004, .kernel = true, .ip = K + 0x40, .simd = true,
				   .stack = true, .nr = 2, .ips = { K + 0x40, K + 0x250 },
				   .status = PERFREGS_KCHAIN_UNRELIABLE };
		sample(r, &w);
		produced = 5;
	}
	if (rec_close(r, produced, lostv)) {
		perror(argv[1]);
		return 1;
	}
	return 0;
}
