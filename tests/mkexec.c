// SPDX-License-Identifier: GPL-2.0
/*
 * mkexec: a recording made as the live tool makes one of COMMAND, and
 * COMMAND's sample decoded as the live tool decodes it, so that the
 * host tests can hold the two decodings side by side.
 *
 * COMMAND is "/bin/sh -c 'exec DL_TARGET ...'", started on CPU 1: both
 * execs of its process (sh's, then dl_target's under the same pid) are
 * reported in CPU 1's side-band ring.  dl_target then moves itself to
 * CPU 0 (DL_TARGET_CPU) and dlopen()s LIB there: that mapping is
 * reported in CPU 0's ring, which a drain reads first.  So one drain,
 * as the live tool's first one after COMMAND started, reads LIB's
 * mapping before any exec of the process.  As perfregs-dump does for
 * COMMAND (sideband_start()), the process is tracked from before its
 * exec (space_begin()), the events are applied and written to FILE as
 * they are read (sb_drain()), and the sample, in SYM of LIB after all
 * of them, is written and then decoded (on_record()): its JSON line on
 * stdout.  perfregs-dump -i FILE must print the same line.
 *
 * usage: mkexec FILE DL_TARGET LIB SYM
 * Exit status 0, 1 on failure, 77 when perf_event_open() is refused or
 * CPUs 0 and 1 are not both there to run on.
 */
#define _GNU_SOURCE	/* sched_setaffinity */
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "../tools/perfregs-dump/types.h"
#include "../tools/perfregs-dump/images.h"
#include "../tools/perfregs-dump/aspace.h"
#include "../tools/perfregs-dump/sideband.h"
#include "../tools/perfregs-dump/output.h"
#include "../tools/perfregs-dump/rec-write.h"
#include "../tools/perfregs-dump/session.h"
#include "../tools/perfregs-dump/learnt.h"

#define R(x) (1ULL << PERFREGS_REG_##x)

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		_exit(126);
}

int main(int argc, char **argv)
{
	static struct session d;
	uint64_t lostv[PERFREGS_LOST_MAX] = { 0 }, buf[32] = { 0 }, addr, t;
	struct perfregs_rec_sample *s = (void *)buf;
	uint64_t *v = (uint64_t *)s->regs;
	int go[2], to[2], from[2], status, i;
	struct perfregs_config cfg;
	struct sideband *sb;
	struct recorder *r;
	char err[256], line[64];
	cpu_set_t can;
	struct stat st;
	FILE *in;
	pid_t pid;

	if (argc != 5 || stat(argv[2], &st)) {
		fprintf(stderr, "usage: mkexec FILE DL_TARGET LIB SYM\n");
		return 1;
	}
	if (sched_getaffinity(0, sizeof(can), &can) || !CPU_ISSET(0, &can) ||
	    !CPU_ISSET(1, &can)) {
		fprintf(stderr, "mkexec: CPUs 0 and 1 are not both there to run on\n");
		return 77;
	}
	if (pipe(go) || pipe(to) || pipe(from))
		return 1;
	pid = fork();
	if (pid == 0) {
		char b;

		pin(1);
		dup2(to[0], 0);
		dup2(from[1], 1);
		close(go[1]);
		if (read(go[0], &b, 1) != 1)
			_exit(127);
		setenv("DL_TARGET_CPU", "0", 1);
		/* as test_realprog.py runs its workloads: sh, then exec */
		execl("/bin/sh", "sh", "-c", "exec \"$0\" \"$@\"", argv[2], argv[3], argv[4],
		      argv[3], argv[4], (char *)NULL);
		_exit(127);
	}
	close(go[0]);
	close(to[0]);
	close(from[1]);
	/* as sideband_start() for COMMAND: the events of its process, inherited */
	sb = sb_open(pid, true, err, sizeof(err));
	if (!sb) {
		fprintf(stderr, "mkexec: %s\n", err);
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		return 77;
	}
	prf_config_default(&cfg);
	r = rec_create(argv[1], &cfg, "cpu-clock");
	if (!r) {
		perror(argv[1]);
		return 1;
	}
	d.m.live = true;
	pthread_mutex_init(&d.m.learn_lock, NULL);
	d.o.format = FMT_JSON;
	d.o.symbols = true;
	d.o.event_name = "cpu-clock";
	d.out = stdout;
	d.m.sideband = true;
	learnt_init(&d.m);	/* as record: what is learnt goes to r, in order */
	space_begin(&d.m, (uint32_t)pid);		/* its exec will come */
	if (write(go[1], "g", 1) != 1)
		return 1;
	in = fdopen(from[0], "r");
	if (!in || !fgets(line, sizeof(line), in)) {
		fprintf(stderr, "mkexec: dl_target said nothing\n");
		return 1;
	}
	addr = strtoull(line, NULL, 16);
	t = now_ns();
	/* the first drain: CPU 0's ring (LIB's mapping), then CPU 1's (the execs) */
	sb_drain(sb, &d.m);
	s->header.type = PERFREGS_REC_SAMPLE;
	s->time = t;
	s->pid = s->tid = (uint32_t)pid;
	s->cpu = 0;
	s->flags = PERFREGS_SF_CTX_IRQ | PERFREGS_SF_UREGS_DIRECT;
	s->abi = PERFREGS_ABI_64;
	snprintf(s->comm, sizeof(s->comm), "dl_target");
	s->image_ino = st.st_ino;
	s->image_dev = (uint32_t)st.st_dev;
	s->iregs_mask = R(IP);
	*v++ = addr;
	s->uregs_mask = R(IP);
	*v++ = addr;
	s->header.size = (char *)v - (char *)s;
	/* as on_record(): to the file, then decoded */
	session_forward_learnt(&d, rec_tool(r));
	rec_sample(r, 0, &s->header);
	decode_record(&d, 0, &s->header, s->header.size);
	fflush(stdout);
	for (i = 0; i < 2; i++)
		if (write(to[1], "n\n", 2) != 2 || (!i && !fgets(line, sizeof(line), in)))
			break;
	waitpid(pid, &status, 0);
	sb_drain(sb, &d.m);
	session_forward_learnt(&d, rec_tool(r));
	if (rec_close(r, 1, lostv)) {
		perror(argv[1]);
		return 1;
	}
	sb_close(sb);
	return WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : 1;
}
