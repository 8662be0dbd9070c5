// SPDX-License-Identifier: GPL-2.0
/*
 * mkbig: a large recording of known contents, for the decoder's memory
 * (bench/decode_mem, and a host test that decodes 2e5 and 2e6 samples
 * of the same stacks): N user-mode samples of PROCS processes of
 * THREADS threads each (pid 1000 + 100 p, tid pid + t, comm "bigP"),
 * taken in turn on CPUS CPUs, all in EXE, tests/big_target.S linked
 * -no-pie, whose main is at MAIN (nm), mapped at [0x400000, 0x404000)
 * from offset 0.
 *
 * Sample i is in big_fD, D = (i / (PROCS * THREADS)) % 8, 4 bytes in;
 * with STACK (bytes, a multiple of 8, at least 160) it carries that
 * much stack: the frames of big_fD .. big_f0 and main, each 16 bytes
 * (saved %rbp, return address 10 bytes into the caller), a zero frame
 * after main's, zeros after that.  So PROCS * 8 distinct stacks, each
 * main;big_f0;...;big_fD unwound, big_fD alone without unwinding.
 *
 * With SB, side-band events among the samples, late as those of rings
 * read one after the other are: before every SB-th sample, an exec of
 * one process after the other, at the time of the sample SB / 2 back,
 * and its mapping of EXE at that of the sample SB / 4 back, named EXE
 * and EXE's directory/./name in turn.  So the samples just before the
 * events in the file, and after them in time, are named by the mapping
 * before (one thread reads the events only after printing them); their
 * callchains name the file as the mapping did; a sample between the
 * exec and the mapping, decoded after them, would have no name.
 * A negative SB: the same events every -SB samples, but in time, as a
 * ring's come: just after the sample before them (the exec 400 ns, the
 * mapping 700 ns after it), so each sample after them finds them.
 *
 * usage: mkbig FILE N EXE MAIN [STACK [PROCS [THREADS [CPUS [SB]]]]]
 */
#include <sys/mman.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../tools/perfregs-dump/types.h"
#include "../tools/perfregs-dump/rec-write.h"
#include "../tools/perfregs-dump/session.h"

#define R(x) (1ULL << PERFREGS_REG_##x)

#define DEPTHS		8
#define FN_SIZE		12	/* push, mov, nop, call, pop, ret */
#define FN_BODY		4	/* after push and mov: CFA = %rbp + 16 */
#define FN_RET		10	/* after the call */
#define MAP_START	0x400000ULL
#define MAP_END		0x404000ULL
#define INO		4242

static uint64_t fn_addr(uint64_t main_addr, int depth)	/* -1: main */
{
	return main_addr + FN_SIZE * (uint64_t)(depth + 1);
}

int main(int argc, char **argv)
{
	uint64_t lostv[PERFREGS_LOST_MAX] = { 0 }, main_addr, *buf, *v;
	struct image im = { .dev = 0x801, .ino = INO,
			    .facts = { true, 2 /* ELFCLASS64 */, 62 /* EM_X86_64 */ } };
	struct mapping m = { .start = MAP_START, .end = MAP_END };
	struct task_maps tm = { .ino = INO, .m = &m, .n = 1 };
	long n, i, stack = 0, procs = 4, threads = 4, cpus = 2, sb = 0, p;
	bool in_time = false;
	char dotted[4096];
	const char *slash;
	struct perfregs_config cfg;
	struct recorder *r;

	if (argc < 5 || argc > 10) {
		fprintf(stderr, "usage: mkbig FILE N EXE MAIN [STACK [PROCS [THREADS [CPUS [SB]]]]]\n");
		return 2;
	}
	n = atol(argv[2]);
	main_addr = strtoull(argv[4], NULL, 0);
	if (argc > 5)
		stack = atol(argv[5]);
	if (argc > 6)
		procs = atol(argv[6]);
	if (argc > 7)
		threads = atol(argv[7]);
	if (argc > 8)
		cpus = atol(argv[8]);
	if (argc > 9)
		sb = atol(argv[9]);
	if (sb < 0) {
		sb = -sb;
		in_time = true;
	}
	slash = strrchr(argv[3], '/');
	if (sb < 0 || (sb && (sb < 4 || !slash ||
			      snprintf(dotted, sizeof(dotted), "%.*s/.%s", (int)(slash - argv[3]),
				       argv[3], slash) >= (int)sizeof(dotted)))) {
		fprintf(stderr, "mkbig: bad SB, or EXE has no directory\n");
		return 2;
	}
	if (n < 0 || (stack && (stack % 8 || stack < 16 * (DEPTHS + 2) || stack > 65536)) ||
	    procs < 1 || procs > 100 || threads < 1 || threads > 100 || cpus < 1 ||
	    cpus > 4096 || fn_addr(main_addr, DEPTHS) > MAP_END || main_addr < MAP_START) {
		fprintf(stderr, "mkbig: bad N, STACK, PROCS, THREADS, CPUS or MAIN\n");
		return 2;
	}
	buf = calloc(1, 1024 + stack);
	if (!buf)
		return 1;
	im.path = argv[3];
	m.path = argv[3];
	prf_config_default(&cfg);
	cfg.stack_bytes = stack;
	r = rec_create(argv[1], &cfg, "cpu-clock");
	if (!r) {
		perror(argv[1]);
		return 1;
	}
	rec_image(r, &im);
	for (p = 0; p < procs; p++) {
		tm.pid = 1000 + 100 * p;
		rec_maps(r, &tm);
	}
	for (i = 0; i < n; i++) {
		struct perfregs_rec_sample *s = (void *)buf;
		long task = i % (procs * threads);
		int depth = (i / (procs * threads)) % DEPTHS, k;
		uint64_t ip = fn_addr(main_addr, depth) + FN_BODY;
		uint64_t sp = 0x7ff000000000ULL - 0x100000ULL * task;

		if (sb && i && i % sb == 0) {
			struct sb_event ev = { .kind = SB_EXEC, .name = "big" };

			ev.pid = 1000 + 100 * ((i / sb) % procs);
			ev.time = 1000000ULL + 1000ULL * (in_time ? i - 1 : i - sb / 2) +
				  (in_time ? 400 : 500);
			rec_sb(r, &ev);
			ev.kind = SB_MMAP;
			ev.time = 1000000ULL + 1000ULL * (in_time ? i - 1 : i - sb / 4) +
				  (in_time ? 700 : 500);
			ev.prot = PROT_READ | PROT_EXEC;
			ev.start = MAP_START;
			ev.end = MAP_END;
			ev.name = (i / sb) % 2 ? dotted : argv[3];
			rec_sb(r, &ev);
		}
		memset(s, 0, sizeof(*s));
		s->header.type = PERFREGS_REC_SAMPLE;
		s->time = 1000000ULL + 1000ULL * i;
		s->cpu = i % cpus;
		s->pid = 1000 + 100 * (task / threads);
		s->tid = s->pid + task % threads;
		s->flags = PERFREGS_SF_CTX_IRQ | PERFREGS_SF_UREGS_DIRECT;
		s->abi = PERFREGS_ABI_64;
		snprintf(s->comm, sizeof(s->comm), "big%ld", task / threads);
		s->image_ino = INO;
		s->image_dev = 0x801;
		s->iregs_mask = R(IP) | R(FLAGS);
		v = (uint64_t *)s->regs;
		*v++ = ip;
		*v++ = 0x246;
		s->uregs_mask = R(BX) | R(BP) | R(SP) | R(IP) | R(R12) | R(R13) | R(R14) |
				R(R15);
		*v++ = 0x1111;	/* bx */
		*v++ = sp;	/* bp: the leaf's frame */
		*v++ = sp;
		*v++ = ip;
		*v++ = 0x1212;
		*v++ = 0x1313;
		*v++ = 0x1414;
		*v++ = 0x1515;
		if (stack) {
			s->flags |= PERFREGS_SF_STACK;
			*v++ = stack;
			memset(v, 0, stack);
			for (k = 0; k <= depth; k++) {
				v[2 * k] = sp + 16 * (k + 1);
				v[2 * k + 1] = fn_addr(main_addr, depth - k - 1) + FN_RET;
			}
			v += stack / 8;
			*v++ = stack;
		}
		s->header.size = (char *)v - (char *)s;
		if (rec_sample(r, s->cpu, &s->header)) {
			perror(argv[1]);
			return 1;
		}
	}
	if (rec_close(r, n, lostv)) {
		perror(argv[1]);
		return 1;
	}
	free(buf);
	return 0;
}
