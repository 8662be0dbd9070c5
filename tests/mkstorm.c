// SPDX-License-Identifier: GPL-2.0
/*
 * mkstorm: a recording with N side-band events for one process, to show
 * that the decoder's memory stays bounded however they come:
 *   late  N execs in decreasing time: each one rebuilds all after it
 *   maps  N disjoint code mappings in increasing time: each version
 *         copies all the mappings before it
 * or stays fast:
 *   fan   N other processes of 10 events each, and a process with one
 *         child, forked last, that then learns of N mappings of its
 *         own made before that fork: each one late for the child, whose
 *         copy is taken again; the N others have nothing to do with it
 *   alt   a child whose 8000 forks are claimed by two parents in turn
 *         (each fork links it to its parent again), then N mappings of
 *         one parent, each late for the last of those forks only
 * One sample at the end.
 *
 * usage: mkstorm FILE N late|maps|fan|alt
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "../tools/perfregs-dump/types.h"
#include "../tools/perfregs-dump/rec-write.h"
#include "../tools/perfregs-dump/session.h"

int main(int argc, char **argv)
{
	uint64_t lostv[PERFREGS_LOST_MAX] = { 0 };
	struct sb_event ev = { .kind = SB_EXEC, .pid = 42, .time = 1, .name = "x" };
	struct perfregs_config cfg;
	struct recorder *r;
	long n, i;

	if (argc != 4 || (strcmp(argv[3], "late") && strcmp(argv[3], "maps") &&
			  strcmp(argv[3], "fan") && strcmp(argv[3], "alt"))) {
		fprintf(stderr, "usage: mkstorm FILE N late|maps|fan|alt\n");
		return 1;
	}
	n = atol(argv[2]);
	prf_config_default(&cfg);
	r = rec_create(argv[1], &cfg, "cpu-clock");
	if (!r) {
		perror(argv[1]);
		return 1;
	}
	rec_sb(r, &ev);
	if (argv[3][0] == 'a') {
		struct sb_event e = { .prot = PROT_READ | PROT_EXEC, .name = "/x",
				      .start = 0x100000, .end = 0x101000 };

		e.kind = SB_EXEC;	/* the parents 41 and 42 (42 is above) */
		e.pid = 41;
		e.time = 2;
		rec_sb(r, &e);
		e.kind = SB_FORK;	/* 43, forked 8000 times, by 42 and 41 in turn */
		e.pid = 43;
		for (i = 0; i < 8000; i++) {
			e.ppid = i % 2 ? 41 : 42;
			e.time = 1000000000ULL + i;
			rec_sb(r, &e);
		}
		e.kind = SB_MMAP;	/* 42's own, each just before its last fork */
		e.pid = 42;
		e.ppid = 0;
		e.time = 1000000000ULL + 7997;
		for (i = 0; i < n; i++)
			rec_sb(r, &e);
		return rec_close(r, 0, lostv) ? 1 : 0;
	}
	if (argv[3][0] == 'f') {
		struct sb_event e = { .prot = PROT_READ | PROT_EXEC, .name = "/x",
				      .start = 0x100000, .end = 0x101000 };
		long k;

		for (i = 0; i < n; i++) {	/* the others: an exec, 9 mappings */
			e.kind = SB_EXEC;
			e.pid = 1000 + i;
			e.time = 2 + i;
			rec_sb(r, &e);
			e.kind = SB_MMAP;
			for (k = 0; k < 9; k++)
				rec_sb(r, &e);
		}
		e.kind = SB_FORK;	/* 43, a child of 42, forked last */
		e.pid = 43;
		e.ppid = 42;
		e.time = 1000000000ULL;
		rec_sb(r, &e);
		e.kind = SB_MMAP;	/* 42's own, each before the fork */
		e.pid = 42;
		for (i = 0; i < n; i++) {
			e.time = 1000000000ULL - n + i;
			rec_sb(r, &e);
		}
		return rec_close(r, 0, lostv) ? 1 : 0;
	}
	for (i = 0; i < n; i++) {
		struct sb_event e = { .pid = 42, .name = "/x" };

		if (argv[3][0] == 'l') {
			e.kind = SB_EXEC;
			e.time = 1000000000ULL - i;
		} else {
			e.kind = SB_MMAP;
			e.time = 10 + i;
			e.prot = PROT_READ | PROT_EXEC;
			e.start = 0x100000 + i * 0x1000ULL;
			e.end = e.start + 0x1000;
		}
		rec_sb(r, &e);
	}
	return rec_close(r, 0, lostv) ? 1 : 0;
}
