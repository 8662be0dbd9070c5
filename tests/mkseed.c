// SPDX-License-Identifier: GPL-2.0
/*
 * mkseed: the address space of a live process as -p starts it
 * (space_seed(): /proc/PID/maps, as events at time 0), one user-mode
 * sample at ADDR, written to a recording; and the symbol the live
 * decoder gives ADDR, printed.  The host tests run it on a program whose
 * file was deleted while it runs.  With more PID ADDR pairs, the same for
 * each, one decoder for all (as -a has), one line each.
 *
 * usage: mkseed FILE PID ADDR [PID ADDR]...
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../tools/perfregs-dump/types.h"
#include "../tools/perfregs-dump/images.h"
#include "../tools/perfregs-dump/aspace.h"
#include "../tools/perfregs-dump/rec-write.h"
#include "../tools/perfregs-dump/session.h"
#include "../tools/perfregs-dump/learnt.h"

#define R(x) (1ULL << PERFREGS_REG_##x)

int main(int argc, char **argv)
{
	static struct session d;
	uint64_t lostv[PERFREGS_LOST_MAX] = { 0 }, buf[32], addr;
	struct perfregs_rec_sample *s = (void *)buf;
	struct perfregs_config cfg;
	struct recorder *r;
	char sym[256];
	int pid, i;

	if (argc < 4 || argc % 2) {
		fprintf(stderr, "usage: mkseed FILE PID ADDR [PID ADDR]...\n");
		return 1;
	}
	prf_config_default(&cfg);
	r = rec_create(argv[1], &cfg, "cpu-clock");
	if (!r) {
		perror(argv[1]);
		return 1;
	}
	d.m.live = true;
	pthread_mutex_init(&d.m.learn_lock, NULL);
	learnt_init(&d.m);	/* as record: what is learnt goes to r, in order */
	for (i = 2; i < argc; i += 2)
		space_seed(&d.m, (uint32_t)atoi(argv[i]));
	for (i = 2; i < argc; i += 2) {
		uint64_t *v = (uint64_t *)s->regs;

		pid = atoi(argv[i]);
		addr = strtoull(argv[i + 1], NULL, 0);
		memset(buf, 0, sizeof(buf));
		s->header.type = PERFREGS_REC_SAMPLE;
		s->time = now_ns();
		s->pid = s->tid = (uint32_t)pid;
		s->flags = PERFREGS_SF_CTX_IRQ | PERFREGS_SF_UREGS_DIRECT;
		s->abi = PERFREGS_ABI_64;
		snprintf(s->comm, sizeof(s->comm), "target");
		s->iregs_mask = R(IP);
		*v++ = addr;
		s->uregs_mask = R(IP);
		*v++ = addr;
		s->header.size = (char *)v - (char *)s;
		session_forward_learnt(&d, rec_tool(r));
		rec_sample(r, 0, &s->header);
		snprintf(sym, sizeof(sym), "none");
		user_symbol(&d.m, s, addr, addr, 0, sym, sizeof(sym), NULL);
		printf("%s\n", sym);
	}
	session_forward_learnt(&d, rec_tool(r));
	if (rec_close(r, (argc - 2) / 2, lostv)) {
		perror(argv[1]);
		return 1;
	}
	session_free(&d);
	return 0;
}
