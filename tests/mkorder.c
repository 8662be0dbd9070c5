// SPDX-License-Identifier: GPL-2.0
/*
 * mkorder: a recording whose side-band events come out of time order,
 * as they do when the rings of two CPUs are read one after the other: a
 * child's exec and its executable's mapping first, the fork that made
 * it (written on the parent's CPU) last.  One sample of the child, after
 * all of them in time, at ADDR in EXE, mapped at [START, END) from file
 * offset PGOFF.  The decoder must name it from EXE.
 *
 * With "parent" last, the other late event: the parent maps EXE at 150
 * and forks the child at 200, which does not exec; the mapping is read
 * after the fork, and the child must have it all the same.
 *
 * With "orphan", the child's events come before any of its parent's:
 * its exec at 300, its fork at 200, then the parent's exec at 100 and
 * mapping of EXE at 150.  The sample is at 250, before the child's
 * exec: it must be named from the parent's mapping all the same.
 *
 * usage: mkorder FILE EXE ADDR START END PGOFF [parent|orphan]
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "../tools/perfregs-dump/types.h"
#include "../tools/perfregs-dump/rec-write.h"
#include "../tools/perfregs-dump/session.h"

#define R(x) (1ULL << PERFREGS_REG_##x)

int main(int argc, char **argv)
{
	uint64_t lostv[PERFREGS_LOST_MAX] = { 0 }, buf[32] = { 0 }, addr;
	struct perfregs_rec_sample *s = (void *)buf;
	uint64_t *v = (uint64_t *)s->regs;
	struct perfregs_config cfg;
	struct sb_event ev;
	struct recorder *r;

	bool parent = argc == 8 && !strcmp(argv[7], "parent");
	bool orphan = argc == 8 && !strcmp(argv[7], "orphan");

	if (argc != 7 && !parent && !orphan) {
		fprintf(stderr, "usage: mkorder FILE EXE ADDR START END PGOFF [parent|orphan]\n");
		return 1;
	}
	addr = strtoull(argv[3], NULL, 0);
	prf_config_default(&cfg);
	r = rec_create(argv[1], &cfg, "cpu-clock");
	if (!r) {
		perror(argv[1]);
		return 1;
	}
	if (orphan) {
		memset(&ev, 0, sizeof(ev));
		ev.kind = SB_EXEC;
		ev.pid = 11;
		ev.time = 300;
		ev.name = "prog";
		rec_sb(r, &ev);
		ev.kind = SB_FORK;
		ev.ppid = 10;
		ev.time = 200;
		ev.name = "";
		rec_sb(r, &ev);
	}
	/* the parent, pid 10: exec'd at 100 */
	memset(&ev, 0, sizeof(ev));
	ev.kind = SB_EXEC;
	ev.pid = 10;
	ev.time = 100;
	ev.name = "sh";
	rec_sb(r, &ev);
	if (parent || orphan) {
		/* the fork at 200 first, then the parent's mapping at 150 */
		memset(&ev, 0, sizeof(ev));
		ev.kind = SB_FORK;
		ev.pid = 11;
		ev.ppid = 10;
		ev.time = 200;
		ev.name = "";
		if (parent)
			rec_sb(r, &ev);
		ev.kind = SB_MMAP;
		ev.pid = 10;
		ev.ppid = 0;
		ev.time = 150;
		ev.start = strtoull(argv[4], NULL, 0);
		ev.end = strtoull(argv[5], NULL, 0);
		ev.pgoff = strtoull(argv[6], NULL, 0);
		ev.prot = PROT_READ | PROT_EXEC;
		ev.name = argv[2];
		rec_sb(r, &ev);
		goto sample;
	}
	/* the child, pid 11: its exec at 300 and its mapping at 310 ... */
	ev.pid = 11;
	ev.time = 300;
	ev.name = "prog";
	rec_sb(r, &ev);
	ev.kind = SB_MMAP;
	ev.time = 310;
	ev.start = strtoull(argv[4], NULL, 0);
	ev.end = strtoull(argv[5], NULL, 0);
	ev.pgoff = strtoull(argv[6], NULL, 0);
	ev.prot = PROT_READ | PROT_EXEC;
	ev.name = argv[2];
	rec_sb(r, &ev);
	/* ... read before its fork at 200, from the other CPU's ring */
	memset(&ev, 0, sizeof(ev));
	ev.kind = SB_FORK;
	ev.pid = 11;
	ev.ppid = 10;
	ev.time = 200;
	ev.name = "";
	rec_sb(r, &ev);
sample:
	s->header.type = PERFREGS_REC_SAMPLE;
	s->time = orphan ? 250 : 400;
	s->pid = s->tid = 11;
	s->flags = PERFREGS_SF_CTX_IRQ | PERFREGS_SF_UREGS_DIRECT;
	s->abi = PERFREGS_ABI_64;
	snprintf(s->comm, sizeof(s->comm), "prog");
	s->iregs_mask = R(IP);
	*v++ = addr;
	s->uregs_mask = R(IP);
	*v++ = addr;
	s->header.size = (char *)v - (char *)s;
	rec_sample(r, 0, &s->header);
	if (rec_close(r, 1, lostv)) {
		perror(argv[1]);
		return 1;
	}
	return 0;
}
