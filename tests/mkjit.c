// SPDX-License-Identifier: GPL-2.0
/*
 * mkjit: a recording of samples in JIT code, as record would make it
 * (jitmap.c): the address space of live process PID (space_seed(),
 * which keeps no anonymous mapping), its perf map noted as the learner
 * notes it, one user-mode sample at each ADDR, each named as the live
 * decoder names it ("ADDR SYMBOL DSO" a line on the standard output),
 * then the map read to its end into the recording, as at the end of
 * record.  --late first asks PID (SIGUSR1) to append a line to its map,
 * after the samples.  An ADDR of "rewrite" asks PID (SIGUSR2) to write
 * its map anew, then the samples go on.  --others N first notes N
 * processes that do not exist (pids past pid_max), as a live run notes
 * every process it learns, most with no map.  --map reads MAP as the map of PID, a process that
 * is gone (NSPID: its pid in its own namespace), with no address space:
 * the recording perf's samples of a process that ran would make.
 *
 * --dump DUMP NSPID does the same with a jitdump (jit-NSPID.dump), its
 * code loads taken as jitmap.c takes them (jitdump.c).  An ADDR@TIME
 * sample has TIME (hex ns) as its time, else now.
 *
 * usage: mkjit FILE PID [--others N] [--late] ADDR...
 *        mkjit FILE PID --map MAP NSPID ADDR...
 *        mkjit FILE PID --dump DUMP NSPID ADDR...
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "../tools/perfregs-dump/types.h"
#include "../tools/perfregs-dump/images.h"
#include "../tools/perfregs-dump/aspace.h"
#include "../tools/perfregs-dump/jitmap.h"
#include "../tools/perfregs-dump/rec-write.h"
#include "../tools/perfregs-dump/session.h"
#include "../tools/perfregs-dump/learnt.h"
#include "../tools/perfregs-dump/diag.h"

#define R(x) (1ULL << PERFREGS_REG_##x)

/* MAP's first JITMAP_FILE_MAX bytes, as jitmap.c would take them */
static void load_map(struct machine *m, uint32_t pid, uint32_t nspid, const char *path)
{
	char *buf = malloc(JITMAP_FILE_MAX);
	ssize_t n, have = 0;
	int fd = open(path, O_RDONLY);

	if (!buf || fd < 0) {
		perror(path);
		exit(1);
	}
	while (have < JITMAP_FILE_MAX &&
	       (n = read(fd, buf + have, JITMAP_FILE_MAX - have)) > 0)
		have += n;
	close(fd);
	jitmap_load(m, pid, nspid, buf, (size_t)have);
	free(buf);
}

/* DUMP's code loads, as jitmap.c takes a live process's: a recording's item of it */
static void load_dump(struct machine *m, uint32_t pid, uint32_t nspid, const char *path)
{
	unsigned char *buf = malloc(JITDUMP_FILE_MAX);
	ssize_t n, have = 0;
	int fd = open(path, O_RDONLY);

	if (!buf || fd < 0) {
		perror(path);
		exit(1);
	}
	while (have < (ssize_t)JITDUMP_FILE_MAX &&
	       (n = read(fd, buf + have, JITDUMP_FILE_MAX - have)) > 0)
		have += n;
	close(fd);
	jitmap_load_dump(m, pid, nspid, path, buf, (size_t)have);
	free(buf);
}

int main(int argc, char **argv)
{
	static struct session d;
	uint64_t lostv[PERFREGS_LOST_MAX] = { 0 }, buf[32], addr;
	struct perfregs_rec_sample *s = (void *)buf;
	struct perfregs_config cfg;
	struct recorder *r;
	bool late = false;
	char sym[320], *at;
	const char *dso;
	int pid, i = 3, n = 0;

	if (argc < 4) {
		fprintf(stderr, "usage: mkjit FILE PID [--others N] [--late] ADDR...\n"
			"       mkjit FILE PID --map MAP NSPID ADDR...\n");
		return 1;
	}
	pid = atoi(argv[2]);
	prf_config_default(&cfg);
	r = rec_create(argv[1], &cfg, "cpu-clock");
	if (!r) {
		perror(argv[1]);
		return 1;
	}
	learnt_init(&d.m);	/* as record: what is learnt goes to r, in order */
	if (!strcmp(argv[3], "--map") && argc > 5) {
		load_map(&d.m, (uint32_t)pid, (uint32_t)atoi(argv[5]), argv[4]);
		i = 6;
	} else if (!strcmp(argv[3], "--dump") && argc > 5) {
		load_dump(&d.m, (uint32_t)pid, (uint32_t)atoi(argv[5]), argv[4]);
		i = 6;
	} else {
		d.m.live = true;
		pthread_mutex_init(&d.m.learn_lock, NULL);
		space_seed(&d.m, (uint32_t)pid);
		if (!strcmp(argv[3], "--others") && argc > 5) {
			uint32_t k, others = (uint32_t)atoi(argv[4]);

			for (k = 0; k < others; k++)	/* 2^30 up: past any pid_max */
				jitmap_note(&d.m, (1U << 30) + k);
			i = 5;
		}
		jitmap_note(&d.m, (uint32_t)pid);
		if (!strcmp(argv[i], "--late")) {
			late = true;
			i++;
		}
	}
	for (; i < argc; i++, n++) {
		uint64_t *v = (uint64_t *)s->regs;

		if (!strcmp(argv[i], "rewrite")) {
			kill(pid, SIGUSR2);
			usleep(300000);	/* and past jitmap.c's 100 ms between reads */
			n--;
			continue;
		}
		addr = strtoull(argv[i], &at, 16);
		memset(buf, 0, sizeof(buf));
		s->header.type = PERFREGS_REC_SAMPLE;
		s->time = *at == '@' ? strtoull(at + 1, NULL, 16) : now_ns();
		s->pid = s->tid = (uint32_t)pid;
		s->flags = PERFREGS_SF_CTX_IRQ | PERFREGS_SF_UREGS_DIRECT;
		s->abi = PERFREGS_ABI_64;
		snprintf(s->comm, sizeof(s->comm), "jit");
		s->iregs_mask = R(IP);
		*v++ = addr;
		s->uregs_mask = R(IP);
		*v++ = addr;
		s->header.size = (char *)v - (char *)s;
		session_forward_learnt(&d, rec_tool(r));
		rec_sample(r, 0, &s->header);
		if (user_symbol(&d.m, s, addr, addr, 0, sym, sizeof(sym), &dso) < 0)
			snprintf(sym, sizeof(sym), "none");
		printf("%llx %s %s\n", (unsigned long long)addr, sym, dso[0] ? dso : "none");
	}
	if (late) {	/* a line written after the samples */
		kill(pid, SIGUSR1);
		usleep(300000);
	}
	jitmap_final(&d.m);	/* as record's end */
	session_forward_learnt(&d, rec_tool(r));
	if (rec_close(r, n, lostv)) {
		perror(argv[1]);
		return 1;
	}
	diag_print(&d.m, stderr);
	session_free(&d);
	return 0;
}
