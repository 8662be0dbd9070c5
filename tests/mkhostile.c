// SPDX-License-Identifier: GPL-2.0
/*
 * mkhostile: write a perfregs recording whose strings and paths are the
 * caller's, byte for byte, for host tests of what the decoder does with
 * a recording it cannot trust: names that are not valid UTF-8, mappings
 * of FIFOs and of paths that climb out of --symfs, odd event names.
 *
 * One task (pid 100, an x86-64 image) and one user-mode sample at
 * ADDR (-a; default 0x400010) with comm COMM.  With -m, the task maps
 * PATH executable over the page of ADDR, from file offset 0 (build-id
 * HEX with -b), and with -s the sample carries 64 bytes of stack and a
 * frame pointer into that mapping, for --call-graph dwarf.  With -f,
 * the frame pointer is BP instead, and with -d the task also maps DATA
 * (read-only, build-id HEX with -D) over the page of BP from offset 0:
 * words the unwinder reads at BP are then outside the stack snapshot,
 * in DATA.  With -k, a recorded kernel symbol NAME and a kernel-mode
 * sample 0x10 into it; with -K, N more kernel symbols of 16 bytes, ksymI,
 * each below the one before (descending order, after NAME's), and with
 * -S a kernel-mode sample 4 into each after it (symbols and samples in
 * turn).  With -O, N rounds of symbols that overlap (below NAME's, each
 * round's below the last): outerI of 0x100 bytes, innerI 0x10 into it
 * of 0x10, and sameI as outerI, each followed by kernel-mode samples 4,
 * 0x18 and 0x80 into outerI, and in outer0.
 *
 * With -A, the recording's command line (its arg= info) is ARG, the
 * option given once per word.
 *
 * With -L, N LOST records first, in one write straight to FILE (as a
 * ring's records go): the header has left the buffer then.  With -U,
 * the session then falls back to user mode only (rec_update_config()),
 * as record does when perf refuses kernel mode; a header that cannot
 * be updated is said, and is no error.
 *
 * FILE - is the standard output, as record -o - has it.
 *
 * usage: mkhostile FILE [-e EVENT] [-c COMM] [-k NAME [-K N [-S]] [-O N]] [-a ADDR]
 *                  [-A ARG]...
 *                  [-L N] [-U]
 *                  [-m PATH [-b HEX] [-s] [-f BP [-d DATA [-D HEX]]]]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "../tools/perfregs-dump/types.h"
#include "../tools/perfregs-dump/rec-write.h"
#include "../tools/perfregs-dump/session.h"

#define R(x) (1ULL << PERFREGS_REG_##x)

#define PID		100
#define INO		1000
#define KSYM_START	0xffffffff81000000ULL

static uint64_t addr = 0x400010;
static uint64_t bp;	/* 0: a frame pointer into the mapping of addr */
static uint64_t kaddr = KSYM_START + 0x10;	/* a kernel-mode sample's IP */

static void sample(struct recorder *r, const char *comm, bool kernel, bool stack)
{
	uint64_t buf[64] = { 0 };
	struct perfregs_rec_sample *s = (void *)buf;
	uint64_t *v = (uint64_t *)s->regs;

	s->header.type = PERFREGS_REC_SAMPLE;
	s->time = kernel ? 2000 : 1000;
	s->pid = s->tid = PID;
	s->flags = PERFREGS_SF_CTX_IRQ | (kernel ? PERFREGS_SF_KERNEL | PERFREGS_SF_UREGS_ENTRY :
					  PERFREGS_SF_UREGS_DIRECT);
	s->abi = PERFREGS_ABI_64;
	strncpy(s->comm, comm, sizeof(s->comm) - 1);	/* cut as the kernel cuts */
	s->image_ino = INO;
	s->image_dev = 0x801;
	s->iregs_mask = R(IP);
	*v++ = kernel ? kaddr : addr;
	s->uregs_mask = R(BP) | R(SP) | R(IP);
	*v++ = bp ? bp : (addr & ~0xfffULL) + 0x800;	/* bp: a frame pointer */
	*v++ = 0x7ffff000;			/* sp */
	*v++ = addr;				/* ip */
	if (stack) {
		s->flags |= PERFREGS_SF_STACK;
		*v++ = 64;		/* size */
		v += 64 / 8;		/* the stack: zeros */
		*v++ = 64;		/* copied */
	}
	s->header.size = (char *)v - (char *)s;
	rec_sample(r, 0, &s->header);
}

static int hex_id(const char *hex, uint8_t *id, uint8_t *len)
{
	unsigned int b;

	for (*len = 0; hex[0] && hex[1] && *len < 20; hex += 2) {
		if (sscanf(hex, "%2x", &b) != 1)
			return -1;
		id[(*len)++] = (uint8_t)b;
	}
	return *hex ? -1 : 0;
}

int main(int argc, char **argv)
{
	const char *event = "cpu-clock", *comm = "hostile", *ksym = NULL, *path = NULL;
	const char *data = NULL;
	char *args[16];
	int nargs = 0;
	uint64_t lostv[PERFREGS_LOST_MAX] = { 0 };
	struct image im = { .dev = 0x801, .ino = INO,
			    .facts = { true, 2 /* ELFCLASS64 */, 62 /* EM_X86_64 */ },
			    .path = (char *)"/nonexistent/on/this/machine" };
	struct perfregs_config cfg;
	struct task_maps tm = { .pid = PID, .ino = INO };
	struct mapping m[2] = { 0 }, *code = &m[0], *dm = &m[1];
	bool stack = false;
	struct recorder *r;
	long more_ksyms = 0, nlost = 0, rounds = 0, i;
	bool user_only = false, in_turn = false;
	int c, n = 1;

	while ((c = getopt(argc, argv, "e:c:k:K:SO:a:m:b:sf:d:D:A:L:U")) != -1) {
		switch (c) {
		case 'e':
			event = optarg;
			break;
		case 'c':
			comm = optarg;
			break;
		case 'k':
			ksym = optarg;
			break;
		case 'K':
			more_ksyms = atol(optarg);
			break;
		case 'S':
			in_turn = true;
			break;
		case 'O':
			rounds = atol(optarg);
			break;
		case 'L':
			nlost = atol(optarg);
			break;
		case 'U':
			user_only = true;
			break;
		case 'a':
			addr = strtoull(optarg, NULL, 0);
			break;
		case 'm':
			path = optarg;
			break;
		case 'b':
		case 'D':
			if (hex_id(optarg, c == 'b' ? code->build_id : dm->build_id,
				   c == 'b' ? &code->build_id_len : &dm->build_id_len)) {
				fprintf(stderr, "mkhostile: bad build-id '%s'\n", optarg);
				return 2;
			}
			break;
		case 'f':
			bp = strtoull(optarg, NULL, 0);
			break;
		case 'd':
			data = optarg;
			break;
		case 'A':
			if (nargs < 16)
				args[nargs++] = optarg;
			break;
		case 's':
			stack = true;
			break;
		default:
			goto usage;
		}
	}
	if (optind + 1 != argc) {
usage:
		fprintf(stderr, "usage: mkhostile FILE [-e EVENT] [-c COMM] [-k NAME [-K N [-S]] [-O N]] "
			"[-a ADDR] [-A ARG]... [-m PATH [-b HEX] [-s] [-f BP [-d DATA [-D HEX]]]] "
			"[-L N] [-U]\n");
		return 2;
	}
	prf_config_default(&cfg);
	rec_cmdline(nargs, args);
	r = rec_create(argv[optind], &cfg, event);
	if (!r) {
		perror(argv[optind]);
		return 1;
	}
	if (nlost > 0) {
		struct perfregs_rec_lost *l = calloc(nlost, sizeof(*l));

		for (i = 0; l && i < nlost; i++) {
			l[i].header.type = PERFREGS_REC_LOST;
			l[i].header.size = sizeof(*l);
			l[i].time = 500;
		}
		if (!l || rec_records(r, 0, l, nlost * sizeof(*l), NULL, 0)) {
			perror(argv[optind]);
			return 1;
		}
		free(l);
	}
	if (user_only) {
		int err;

		cfg.flags |= PERFREGS_CF_EXCLUDE_KERNEL;
		err = rec_update_config(r, &cfg);
		if (err)
			fprintf(stderr, "mkhostile: the header says kernel mode too: %s\n",
				strerror(-err));
	}
	rec_image(r, &im);
	if (path) {
		code->start = addr & ~0xfffULL;
		code->end = code->start + 0x1000;
		code->path = (char *)path;
		tm.m = m;
		tm.n = 1;
		if (data && bp) {
			dm->start = bp & ~0xfffULL;
			dm->end = dm->start + 0x1000;
			dm->path = (char *)data;
			if (dm->start == code->start) {
				fprintf(stderr, "mkhostile: -f BP is on the page of ADDR\n");
				return 2;
			}
			if (dm->start < code->start) {	/* the maps are sorted */
				struct mapping t = *code;

				*code = *dm;
				*dm = t;
			}
			tm.n = 2;
		}
		rec_maps(r, &tm);
	}
	if (ksym) {
		struct ksym k = { .start = KSYM_START, .end = KSYM_START + 0x100,
				  .name = (char *)ksym };

		rec_ksym(r, &k);
		for (i = 0; i < more_ksyms; i++) {
			char name[32];

			snprintf(name, sizeof(name), "ksym%ld", i);
			k.start = KSYM_START - 16 * (uint64_t)(i + 1);
			k.end = k.start + 16;
			k.name = name;
			rec_ksym(r, &k);
			if (in_turn) {
				kaddr = k.start + 4;
				sample(r, comm, true, false);
				n++;
			}
		}
		for (i = 0; i < rounds; i++) {
			static const uint64_t at[] = { 4, 0x18, 0x80 };
			uint64_t base = KSYM_START - 0x1000 * (uint64_t)(i + 1), outer0;
			char name[32];
			unsigned int j;

			outer0 = KSYM_START - 0x1000;
			for (j = 0; j < 3; j++) {
				snprintf(name, sizeof(name), "%s%ld", j == 0 ? "outer" :
					 j == 1 ? "inner" : "same", i);
				k.start = base + (j == 1 ? 0x10 : 0);
				k.end = j == 1 ? k.start + 0x10 : base + 0x100;
				k.name = name;
				rec_ksym(r, &k);
				kaddr = base + at[j];
				sample(r, comm, true, false);
				kaddr = outer0 + at[j];
				sample(r, comm, true, false);
				n += 2;
			}
		}
		kaddr = KSYM_START + 0x10;
	}
	sample(r, comm, false, stack);
	if (ksym) {
		sample(r, comm, true, false);
		n++;
	}
	if (rec_close(r, n, lostv)) {
		perror(argv[optind]);
		return 1;
	}
	return 0;
}
