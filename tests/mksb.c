// SPDX-License-Identifier: GPL-2.0
/*
 * mksb: a recording whose address space comes from perf's side-band
 * events, as the live tool makes it, with samples written by hand.  It
 * starts dl_target under side-band events (sideband.c), as perfregs-dump
 * starts COMMAND: the child waits until the events are open, then
 * execs.  At each of dl_target's two phases (plugin A loaded, then
 * dlclose()d and plugin B loaded, mostly at the same address) it takes
 * the time (CLOCK_MONOTONIC, the samples' clock) and the address
 * dl_target printed; the two samples are written after all the events.
 * Decoding the recording must name the first sample by plugin A and the
 * second by plugin B.
 *
 * usage: mksb FILE DL_TARGET LIB_A SYM_A LIB_B SYM_B
 * Exit status 0, 1 on failure, 77 when perf_event_open() is refused.
 */
#include <errno.h>
#include <inttypes.h>
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
#include "../tools/perfregs-dump/rec-write.h"
#include "../tools/perfregs-dump/session.h"
#include "../tools/perfregs-dump/learnt.h"

#define R(x) (1ULL << PERFREGS_REG_##x)

static void sample(struct recorder *r, pid_t pid, uint64_t ino, uint64_t addr,
		   uint64_t t)
{
	uint64_t buf[32] = { 0 };
	struct perfregs_rec_sample *s = (void *)buf;
	uint64_t *v = (uint64_t *)s->regs;

	s->header.type = PERFREGS_REC_SAMPLE;
	s->time = t;
	s->pid = s->tid = (uint32_t)pid;
	s->flags = PERFREGS_SF_CTX_IRQ | PERFREGS_SF_UREGS_DIRECT;
	s->abi = PERFREGS_ABI_64;
	snprintf(s->comm, sizeof(s->comm), "dl_target");
	s->image_ino = ino;
	s->image_dev = 0x801;
	s->iregs_mask = R(IP);
	*v++ = addr;
	s->uregs_mask = R(IP);
	*v++ = addr;
	s->header.size = (char *)v - (char *)s;
	rec_sample(r, 0, &s->header);
}

int main(int argc, char **argv)
{
	static struct session d;
	uint64_t lostv[PERFREGS_LOST_MAX] = { 0 }, addr[2], t[2];
	int go[2], to[2], from[2], status, i;
	struct perfregs_config cfg;
	struct image im = { 0 };
	struct sideband *sb;
	struct recorder *r;
	char err[256], line[64];
	struct stat st;
	FILE *in;
	pid_t pid;

	if (argc != 7 || stat(argv[2], &st)) {
		fprintf(stderr, "usage: mksb FILE DL_TARGET LIB_A SYM_A LIB_B SYM_B\n");
		return 1;
	}
	if (pipe(go) || pipe(to) || pipe(from))
		return 1;
	pid = fork();
	if (pid == 0) {
		char b;

		dup2(to[0], 0);
		dup2(from[1], 1);
		close(go[1]);
		if (read(go[0], &b, 1) != 1)
			_exit(127);
		execv(argv[2], argv + 2);
		_exit(127);
	}
	close(go[0]);
	close(to[0]);
	close(from[1]);
	sb = sb_open(pid, true, err, sizeof(err));
	if (!sb) {
		fprintf(stderr, "mksb: %s\n", err);
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
	learnt_init(&d.m);	/* as record: what is learnt goes to r, in order */
	space_begin(&d.m, (uint32_t)pid);
	im.dev = 0x801;
	im.ino = st.st_ino;
	im.path = argv[2];
	im.facts.known = true;
	im.facts.elfclass = 2;	/* ELFCLASS64 */
	im.facts.machine = 62;	/* EM_X86_64 */
	rec_image(r, &im);
	if (write(go[1], "g", 1) != 1)
		return 1;
	in = fdopen(from[0], "r");
	for (i = 0; i < 2; i++) {
		if (!in || !fgets(line, sizeof(line), in)) {
			fprintf(stderr, "mksb: dl_target said nothing\n");
			return 1;
		}
		addr[i] = strtoull(line, NULL, 16);
		t[i] = now_ns();
		if (write(to[1], "n\n", 2) != 2)
			return 1;
	}
	waitpid(pid, &status, 0);
	/*
	 * Both samples after every event, as when decoding lags behind:
	 * only the samples' times can tell plugin A's from plugin B's.
	 */
	sb_drain(sb, &d.m);
	session_forward_learnt(&d, rec_tool(r));
	for (i = 0; i < 2; i++)
		sample(r, pid, st.st_ino, addr[i], t[i]);
	printf("%#" PRIx64 " %#" PRIx64 "\n", addr[0], addr[1]);
	session_forward_learnt(&d, rec_tool(r));
	if (rec_close(r, 2, lostv)) {
		perror(argv[1]);
		return 1;
	}
	sb_close(sb);
	return WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : 1;
}
