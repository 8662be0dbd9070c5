// SPDX-License-Identifier: GPL-2.0
/*
 * Stress: several sessions at the highest sample rate the kernel allows,
 * on every CPU, with NMIs (the runner injects them), readers that stall
 * and readers SIGKILLed mid-read, CPUs going offline and online, and a
 * target that forks, execs and exits in a loop, for a bounded time.
 * Afterwards every surviving session must account for every sample:
 * received + lost (full, nested) == produced, and the LOST records it
 * read must agree with its control pages.  The module must reload.
 *
 * Environment: PERFREGS_STRESS_SECONDS (default 10), PERFREGS_KO.
 * Output is KTAP; "# stress seconds: N" for the summary.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>
#include "common.h"

enum kind { K_MAXRATE, K_STALL, K_TASK, K_NMI, K_MAX };
static const char *const kind_name[K_MAX] = {
	"all CPUs at the highest rate", "a reader that stalls",
	"a fork/exec/exit target", "raw NMIs",
};

static volatile sig_atomic_t done;
static void on_term(int sig) { done = 1; }

static long env_long(const char *name, long def)
{
	const char *v = getenv(name);

	return v && *v ? strtol(v, NULL, 0) : def;
}

static long read_long(const char *path, long def)
{
	FILE *f = fopen(path, "r");
	long v = def;

	if (f) {
		if (fscanf(f, "%ld", &v) != 1)
			v = def;
		fclose(f);
	}
	return v;
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

struct counts {
	uint64_t received;
};

static int count(void *arg, int cpu, const struct perfregs_rec_header *rec,
		 size_t size)
{
	struct counts *c = arg;

	if (rec->type == PERFREGS_REC_SAMPLE)
		c->received++;
	return 0;
}

static void config_for(enum kind k, struct perfregs_config *cfg, pid_t target)
{
	prf_config_default(cfg);
	cfg->flags = PERFREGS_CF_FREQ;
	/* what the kernel allows; it throttles itself beyond */
	cfg->period = read_long("/proc/sys/kernel/perf_event_max_sample_rate", 100000);
	cfg->data_pages = 4;
	cfg->stack_bytes = 256;
	switch (k) {
	case K_STALL:
		cfg->data_pages = 1;
		break;
	case K_TASK:
		cfg->pid = target;
		break;
	case K_NMI:
		cfg->event = PERFREGS_EV_NMI;
		cfg->flags = 0;
		cfg->period = 1;
		break;
	default:
		break;
	}
}

/*
 * A session until SIGTERM, in a child process; writes its result line
 * "received produced lost_ctl lost_inband" to fd out.
 */
static void session(enum kind k, pid_t target, int out)
{
	struct perfregs_config cfg;
	struct prf_reader r;
	struct counts c = { 0 };
	uint64_t ctl, inband;
	char line[160];
	int ret;

	signal(SIGTERM, on_term);
	config_for(k, &cfg, target);
	ret = prf_open(&r, NULL);
	if (!ret)
		ret = prf_config(&r, &cfg);
	if (!ret)
		ret = prf_start(&r);
	if (ret) {
		dprintf(out, "error %d\n", -ret);
		_exit(1);
	}
	while (!done) {
		if (k == K_STALL) {
			usleep(700000);
		} else {
			prf_wait(&r, 100);
		}
		if (prf_drain(&r, count, &c) < 0) {
			dprintf(out, "error %d (malformed record)\n", EBADMSG);
			_exit(1);
		}
	}
	prf_stop(&r);
	prf_drain(&r, count, &c);
	ctl = prf_lost_total(&r, PERFREGS_LOST_FULL) +
	      prf_lost_total(&r, PERFREGS_LOST_NESTED);
	inband = r.lost[PERFREGS_LOST_FULL] + r.lost[PERFREGS_LOST_NESTED];
	snprintf(line, sizeof(line), "%" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 "\n",
		 c.received, prf_produced(&r), ctl, inband);
	if (write(out, line, strlen(line)) < 0)
		_exit(1);
	prf_close(&r);
	_exit(0);
}

/* A reader that is SIGKILLed mid-read: it never stops its session. */
static void victim(void)
{
	struct perfregs_config cfg;
	struct prf_reader r;
	struct counts c = { 0 };

	config_for(K_MAXRATE, &cfg, 0);
	if (prf_open(&r, NULL) || prf_config(&r, &cfg) || prf_start(&r))
		_exit(1);
	for (;;) {
		prf_wait(&r, 10);
		prf_drain(&r, count, &c);
	}
}

/* The task target: forks children that exec /bin/true, forever. */
static void forker(void)
{
	for (;;) {
		pid_t p = fork();

		if (p == 0) {
			execl("/bin/true", "true", NULL);
			_exit(127);
		}
		if (p > 0)
			waitpid(p, NULL, 0);
	}
}

static pid_t spawn(void (*fn)(void))
{
	pid_t p = fork();

	if (p == 0)
		fn();
	return p;
}

int main(void)
{
	long secs = env_long("PERFREGS_STRESS_SECONDS", 10);
	const char *ko = getenv("PERFREGS_KO");
	const char *cpu1 = "/sys/devices/system/cpu/cpu1/online";
	pid_t pids[K_MAX], target, vic = 0;
	int fds[K_MAX][2], k, t = 0, fails = 0;
	unsigned long kills = 0, hotplugs = 0, hotplug_errs = 0;
	double start, next_kill, next_plug;
	bool cpu1_off = false, can_plug;

	printf("TAP version 13\n1..%d\n", K_MAX + 3);
	if (!module_loaded()) {
		for (k = 0; k < K_MAX + 3; k++)
			printf("ok %d # SKIP perfregs is not loaded\n", k + 1);
		return 4;
	}
	can_plug = access(cpu1, W_OK) == 0;
	printf("# stress: %ld s at %ld Hz per CPU, %s, NMIs from the host if the runner injects them\n",
	       secs, read_long("/proc/sys/kernel/perf_event_max_sample_rate", 0),
	       can_plug ? "cpu1 offline/online" : "no hotplug (no cpu1)");
	fflush(stdout);
	target = spawn(forker);
	for (k = 0; k < K_MAX; k++) {
		if (pipe(fds[k]))
			return 1;
		pids[k] = fork();
		if (pids[k] == 0) {
			close(fds[k][0]);
			session(k, target, fds[k][1]);
		}
		close(fds[k][1]);
	}

	start = now();
	next_kill = start + 0.2;
	next_plug = start + 0.5;
	while (now() - start < secs) {
		usleep(50000);
		if (now() >= next_kill) {	/* kill the reader, start another */
			if (vic) {
				kill(vic, SIGKILL);
				waitpid(vic, NULL, 0);
				kills++;
			}
			vic = spawn(victim);
			next_kill = now() + 0.1 + (rand() % 400) / 1000.0;
		}
		if (can_plug && now() >= next_plug) {
			if (write_file(cpu1, cpu1_off ? "1" : "0"))
				hotplug_errs++;
			else
				cpu1_off = !cpu1_off, hotplugs++;
			next_plug = now() + 0.5;
		}
		if ((int)(now() - start) / 10 > t) {	/* progress */
			t = (int)(now() - start) / 10;
			printf("# stress: %d s, %lu readers killed, %lu hotplug steps\n",
			       t * 10, kills, hotplugs);
			fflush(stdout);
		}
	}
	if (vic) {
		kill(vic, SIGKILL);
		waitpid(vic, NULL, 0);
		kills++;
	}
	if (cpu1_off) {
		if (write_file(cpu1, "1"))
			hotplug_errs++;
		else
			cpu1_off = false, hotplugs++;
	}
	kill(target, SIGKILL);
	waitpid(target, NULL, 0);

	for (k = 0; k < K_MAX; k++) {
		char line[160] = "";
		unsigned long long rec = 0, prod = 0, ctl = 0, inb = 0;
		ssize_t n;
		int st;

		kill(pids[k], SIGTERM);
		waitpid(pids[k], &st, 0);
		n = read(fds[k][0], line, sizeof(line) - 1);
		line[n > 0 ? n : 0] = 0;
		close(fds[k][0]);
		if (sscanf(line, "%llu %llu %llu %llu", &rec, &prod, &ctl, &inb) != 4) {
			printf("not ok %d %s: session failed: %s\n", k + 1, kind_name[k],
			       *line ? line : "no result\n");
			fails++;
			continue;
		}
		printf("# %s: produced %llu, received %llu, lost %llu (LOST records %llu)\n",
		       kind_name[k], prod, rec, ctl, inb);
		if (k != K_NMI)
			printf("# MEASURE produced %llu > 0\n", prod);
		if (prod == rec + ctl && ctl == inb && (prod > 0 || k == K_NMI)) {
			printf("ok %d %s: received + lost == produced\n", k + 1, kind_name[k]);
		} else {
			printf("not ok %d %s: received + lost == produced\n", k + 1, kind_name[k]);
			fails++;
		}
	}
	printf("# MEASURE kills %lu > 0\n", kills);
	printf("%s %d %lu readers SIGKILLed mid-read\n", kills ? "ok" : "not ok", K_MAX + 1, kills);
	if (!can_plug)
		printf("ok %d # SKIP no cpu1 to take offline\n", K_MAX + 2);
	else
		printf("# MEASURE hotplugs %lu > 0\n"
		       "%s %d cpu1 went offline and online %lu times (%lu refused)\n", hotplugs,
		       hotplugs && !cpu1_off ? "ok" : "not ok", K_MAX + 2, hotplugs,
		       hotplug_errs);
	fails += can_plug && (!hotplugs || cpu1_off);
	printf("# stress seconds: %ld\n", secs);
	fflush(stdout);
	fails += !kills;
	if (!ko) {
		printf("ok %d # SKIP PERFREGS_KO not set: cannot reload the module\n", K_MAX + 3);
	} else {
		char cmd[512];
		int st;

		snprintf(cmd, sizeof(cmd), "rmmod perfregs && insmod '%s'", ko);
		st = system(cmd);
		st = WIFEXITED(st) && WEXITSTATUS(st) == 0;
		printf("%s %d the module unloads and loads after the stress\n",
		       st ? "ok" : "not ok", K_MAX + 3);
		fails += !st;
	}
	return fails ? 1 : 0;
}
