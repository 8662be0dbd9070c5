// SPDX-License-Identifier: GPL-2.0
/*
 * perfregs-dump: sample registers through /dev/perfregs and decode them,
 * live or from a recording.
 *
 *   perfregs-dump [OPTIONS] [-- COMMAND [ARGS]]
 *   perfregs-dump -i FILE [-f text|json]
 *
 * See docs/perfregs-dump.1 for options and exit codes.
 */
#define _GNU_SOURCE	/* sched_getaffinity */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include "types.h"
#include "images.h"
#include "symbols.h"
#include "aspace.h"
#include "sideband.h"
#include "output.h"
#include "folded.h"
#include "flame.h"
#include "recording.h"
#include "perfdata.h"
#include "pprof.h"
#include "pool.h"
#include "outfile.h"
#include "decoder.h"

#define VERSION PERFREGS_TOOL_VERSION

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	interrupted = sig;
}

struct event_name {
	const char *name;
	uint32_t id;
	uint64_t default_period;
};

static const struct event_name events[] = {
	{ "cpu-clock", PERFREGS_EV_CPU_CLOCK, 1000000 },
	{ "task-clock", PERFREGS_EV_TASK_CLOCK, 1000000 },
	{ "page-faults", PERFREGS_EV_PAGE_FAULTS, 1 },
	{ "context-switches", PERFREGS_EV_CONTEXT_SWITCHES, 1 },
	{ "cycles", PERFREGS_EV_CYCLES, 1000000 },
	{ "instructions", PERFREGS_EV_INSTRUCTIONS, 1000000 },
	{ "nmi", PERFREGS_EV_NMI, 0 },
};

/* What record writes and report reads when no file is named. */
#define DEFAULT_RECORDING	"perfregs.prf"

static void usage(FILE *fp)
{
	fprintf(fp,
"usage: perfregs-dump [OPTIONS] [-- COMMAND [ARGS]]\n"
"       perfregs-dump record [OPTIONS] [-o FILE] [-- COMMAND [ARGS]]\n"
"       perfregs-dump report [-i FILE] [-f text|json|folded] [--call-graph dwarf]\n"
"                            [-F FIELDS] [--flamegraph SVG] [--threads N]\n"
"       perfregs-dump -i FILE [-f text|json|folded] [--fields FIELDS]\n"
"                             [--flamegraph SVG] [--threads N]\n"
"       perfregs-dump convert [--to perf|pprof] -i FILE -o OUTPUT\n"
"Sample interrupt and user registers through /dev/perfregs and decode them.\n"
"\n"
"  -e, --event EVENT     cpu-clock (default), task-clock, page-faults,\n"
"                        context-switches, cycles, instructions, nmi,\n"
"                        mem:ADDR[:rwx] (hardware breakpoint, default w);\n"
"                        EVENT:u samples user mode only, EVENT:k kernel\n"
"                        mode only (not nmi or mem:)\n"
"  -c, --period N        events per sample (cpu-clock: ns; default 1000000)\n"
"  -F, --freq HZ         samples per second instead of a period (in report,\n"
"                        -F is --fields, as perf script's -F)\n"
"  -a, --all-cpus        sample every task on every CPU\n"
"  -C, --cpu LIST        only these CPUs (e.g. 0,2-3); implies -a\n"
"  -p, --pid PID         sample this process: its threads, and what it\n"
"                        forks from now on (see --no-inherit)\n"
"  -t, --tid TID         sample this thread only\n"
"      --no-inherit      -p or COMMAND: its threads only, not the\n"
"                        processes it forks (always so with -e nmi)\n"
"  -I, --iregs[=REGS]    interrupt registers: names (ip,sp,bx,r12..) or a\n"
"                        mask; default all, 'none' for none (also\n"
"                        --intr-regs, as perf's)\n"
"      --uregs[=REGS]    user registers, same syntax; default all (also\n"
"                        --user-regs); also fs_base,gs_base (not in all)\n"
"      --simd LIST       SIMD state of the user frame: xmm,ymm,zmm,opmask\n"
"                        (ymm takes xmm, zmm both), or all the CPU offers\n"
"      --user-stack SIZE copy up to SIZE bytes of user stack per sample\n"
"  -g, --call-graph dwarf[,SIZE]  unwind each sample's user stack with\n"
"                        DWARF CFI from SIZE bytes of it (default 8192);\n"
"                        -g is --call-graph dwarf\n"
"      --nmi-unknown     with -e nmi: also claim NMIs nobody else claims\n"
"  -m, --mmap-pages N    data pages per CPU, a power of two (default 256)\n"
"      --overwrite       keep only the newest records (read at the end)\n"
"  -d, --duration SEC    stop after SEC seconds\n"
"  -o, --output FILE     record to FILE instead of decoding (with -f:\n"
"                        record and decode); an existing FILE is kept\n"
"                        as FILE.old; -: the standard output (a pipe)\n"
"  -i, --input FILE      decode the recording FILE (a pipe too; -: the\n"
"                        standard input)\n"
"  -f, --format FMT      text (default), json (JSON Lines) or folded\n"
"                        (stacks and counts, for flame graphs)\n"
"      --fields FIELDS   what text output shows of a sample, in the order\n"
"                        of FIELDS (report: -F FIELDS too): comm,pid,tid,\n"
"                        cpu,time,event,ip,sym,mode,abi,context,\n"
"                        uregs_source,skid on its first line, then iregs,\n"
"                        uregs,simd,stack,callchain; all by default;\n"
"                        -FIELD,... or +FIELD,... take from or add to all\n"
"      --flamegraph SVG  draw the stacks of -f folded as a flame graph: one\n"
"                        SVG file with search and zoom for a browser\n"
"      --no-symbols      do not look up symbols\n"
"      --symfs DIR       look for the sampled files under DIR (recordings\n"
"                        from elsewhere; also by build-id in\n"
"                        $PERFREGS_BUILDID_DIR/HEX and /usr/lib/debug)\n"
"      --summary         print only the summary\n"
"      --threads N       decode a recording's samples in N threads (default:\n"
"                        one per CPU once one has decoded for 0.1 s, unless\n"
"                        a file is nearly read then; the output is the same\n"
"                        for any N)\n"
"      --to FMT          convert to perf (perf.data, the default) or pprof\n"
"                        (gzipped profile.proto, for go tool pprof)\n"
"  -q, --quiet           no progress or summary on stderr\n"
"  -v, --verbose         more detail on stderr: the session's settings;\n"
"                        with -i, where and how the recording was made\n"
"  -h, --help            this text\n"
"  -V, --version         version of the tool and of the module ABI\n"
"\n"
"record writes perfregs.prf unless -o says otherwise; report reads it unless\n"
"-i says otherwise, or decodes a live run given a COMMAND, -p, -t or -a.\n"
"With COMMAND and neither -a nor -p/-t, COMMAND is sampled (its threads and\n"
"what it forks).  Exit status: 0 ok, 1 usage, 2 device or configuration refused,\n"
"3 COMMAND could not start, 4 malformed records or recording, 5 file error.\n");
}

static int parse_u64(const char *s, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 0);
	return errno || !*s || *end || *s == '-' ? -1 : 0;
}

/* The register of the first n names that is name, or -1. */
static int reg_lookup(const char *const *names, int n, const char *name)
{
	int reg;

	for (reg = 0; reg < n; reg++)
		if (!strcmp(name, names[reg]))
			return reg;
	return -1;
}

/*
 * "ip,sp,bx,r12" / "rip,esp" / "AX,R8" / "0x1ff" / "none" / "all" (perf's
 * registers); user registers also "fs_base,gs_base" (ABI minor 1, past
 * perf's numbering).  Says what is wrong and returns -1.
 */
static int parse_regs(const char *arg, bool user, uint64_t *mask)
{
	static const char *const n64[PERFREGS_REG_EXT_MAX] = {
		"ax", "bx", "cx", "dx", "si", "di", "bp", "sp", "ip", "flags",
		"cs", "ss", "ds", "es", "fs", "gs", "r8", "r9", "r10", "r11",
		"r12", "r13", "r14", "r15", "fs_base", "gs_base",
	};
	uint64_t valid = PERFREGS_MASK_64 | (user ? PERFREGS_MASK_BASES : 0);
	char *copy, *tok, *save = NULL;
	int reg, ret = 0;

	if (!arg || !strcmp(arg, "all")) {
		*mask = PERFREGS_MASK_64;
		return 0;
	}
	if (!strcmp(arg, "none")) {
		*mask = 0;
		return 0;
	}
	if (isdigit((unsigned char)arg[0])) {
		if (!parse_u64(arg, mask) && !(*mask & ~valid))
			return 0;
		fprintf(stderr, "perfregs-dump: bad register mask '%s': bits 0-23 (perf's "
			"PERF_REG_X86 numbering)%s\n", arg,
			user ? ", and 24-25 for fs_base and gs_base" : "");
		return -1;
	}
	*mask = 0;
	copy = strdup(arg);
	if (!copy)
		return -1;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *t = tok;

		for (; *t; t++)
			*t = tolower((unsigned char)*t);
		reg = reg_lookup(n64, PERFREGS_REG_EXT_MAX, tok);
		/* rax/eax -> ax, rflags/eflags -> flags, but not r8.. */
		if (reg < 0 && (tok[0] == 'r' || tok[0] == 'e') && tok[1] &&
		    !isdigit((unsigned char)tok[1]))
			reg = reg_lookup(n64, PERFREGS_REG_MAX, tok + 1);
		if (reg < 0) {
			fprintf(stderr, "perfregs-dump: unknown register '%s'\n", tok);
			ret = -1;
			break;
		}
		if (!(valid & (1ULL << reg))) {
			fprintf(stderr, "perfregs-dump: %s is a register of the user frame "
				"only (--uregs)\n", tok);
			ret = -1;
			break;
		}
		*mask |= 1ULL << reg;
	}
	free(copy);
	return ret;
}

/* PERFREGS_SIMD_* by bit, as --simd and the messages name them */
static const char *const simd_names[] = { "xmm", "ymm", "zmm", "opmask" };
#define SIMD_NAMES	(sizeof(simd_names) / sizeof(simd_names[0]))

/* A PERFREGS_SIMD_* mask as "xmm,ymm" into buf, "none" when empty. */
static const char *simd_list(uint64_t mask, char *buf, size_t len)
{
	size_t i, off = 0;

	buf[0] = 0;
	for (i = 0; i < SIMD_NAMES && off < len; i++)
		if (mask & (1ULL << i))
			off += snprintf(buf + off, len - off, "%s%s", off ? "," : "",
					simd_names[i]);
	if (!buf[0])
		snprintf(buf, len, "none");
	return buf;
}

/*
 * --simd LIST: xmm, ymm, zmm, opmask, comma-separated, or all (what the
 * module offers: *all set, the mask resolved once it is known).  ymm
 * takes xmm with it and zmm both, so that each register is known whole.
 */
static int parse_simd(const char *arg, uint64_t *mask, bool *all)
{
	char *copy, *tok, *save = NULL;
	size_t i;
	int ret = 0;

	*mask = 0;
	*all = !strcmp(arg, "all");
	if (*all)
		return 0;
	copy = strdup(arg);
	if (!copy)
		return -1;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < SIMD_NAMES; i++)
			if (!strcasecmp(tok, simd_names[i]))
				break;
		if (i == SIMD_NAMES) {
			ret = -1;
			break;
		}
		*mask |= 1ULL << i;
	}
	free(copy);
	if (*mask & PERFREGS_SIMD_ZMM)
		*mask |= PERFREGS_SIMD_YMM;
	if (*mask & PERFREGS_SIMD_YMM)
		*mask |= PERFREGS_SIMD_XMM;
	return ret || !*mask ? -1 : 0;
}

/* "0,2-3" into a bitmap of 64-bit words */
static int parse_cpus(const char *arg, uint64_t *bits, unsigned int nwords)
{
	const char *p = arg;

	memset(bits, 0, nwords * 8);
	while (*p) {
		char *end;
		unsigned long a, b;

		a = strtoul(p, &end, 10);
		if (end == p)
			return -1;
		b = a;
		if (*end == '-') {
			p = end + 1;
			b = strtoul(p, &end, 10);
			if (end == p || b < a)
				return -1;
		}
		if (b >= nwords * 64UL)
			return -1;
		for (; a <= b; a++)
			bits[a / 64] |= 1ULL << (a % 64);
		p = end;
		if (*p == ',')
			p++;
		else if (*p)
			return -1;
	}
	return 0;
}

static int parse_mem_event(const char *arg, struct perfregs_config *cfg)
{
	char *end;
	uint64_t addr;

	errno = 0;
	addr = strtoull(arg, &end, 0);
	if (errno || end == arg)
		return -1;
	cfg->event = PERFREGS_EV_BREAKPOINT;
	cfg->bp_addr = addr;
	cfg->bp_type = PERFREGS_BP_W;
	cfg->bp_len = 8;
	cfg->period = 1;
	if (*end == ':') {
		cfg->bp_type = 0;
		for (end++; *end; end++) {
			if (*end == 'r')
				cfg->bp_type |= PERFREGS_BP_R;
			else if (*end == 'w')
				cfg->bp_type |= PERFREGS_BP_W;
			else if (*end == 'x')
				cfg->bp_type |= PERFREGS_BP_X;
			else
				return -1;
		}
	} else if (*end) {
		return -1;
	}
	/* the hardware has no read-only breakpoints: r means rw */
	if (cfg->bp_type == PERFREGS_BP_R)
		cfg->bp_type |= PERFREGS_BP_W;
	return cfg->bp_type ? 0 : -1;
}

/* The last task a CPU's samples named, once its image and maps were known. */
struct learnt {
	bool known;
	uint32_t pid, dev;
	uint64_t ino;
};
#define LEARNT_CPUS	1024	/* CPUs above: no memo */

struct live {
	struct decoder d;
	struct learnt memo[LEARNT_CPUS];	/* for on_record() */
	struct learnt learner_memo[LEARNT_CPUS];	/* for the learner */
	struct prf_reader *r;
	struct sideband *sb;		/* perf's side-band events, if open */
	pthread_t learner;
	bool learner_running;
	int learner_stop;	/* atomic: set to stop the learner */
	int learner_wake;	/* eventfd: wakes the learner to stop */
	sem_t learner_ready;	/* the learner has set itself up */
	struct recorder *rec;
	bool spans;		/* only recording, every record: raw runs (on_raw_span) */
	int filter_tid;
	int rec_error;
	bool tee;		/* -o with -f: record and print */
	/*
	 * -o: its path, its directory (out_open()) and its name and its
	 * .old's in there; a file of our own (made here); FILE.old made of
	 * what FILE was (rec_old_st)
	 */
	const char *rec_path, *rec_base;
	int rec_dirfd;
	char *rec_old;
	struct stat rec_old_st;
	bool rec_fresh, rec_kept_old;
	bool rec_stdout;	/* -o -: the standard output (rec_path names it) */
	/* only recording: what on_raw_span() saw, for progress and summary */
	uint64_t raw_samples;
	uint64_t raw_lost[PERFREGS_LOST_MAX];
	uint8_t *copy;		/* on_record()'s copy of a ring's record */
	size_t copy_cap;
};

/*
 * Learn the image and maps of a sample's task, unless the previous
 * sample of its CPU was of the same task and both were known then: one
 * compare instead of two hash lookups for a CPU that stays on a task.
 */
static inline bool learnt_already(const struct learnt *memo, int cpu,
				   const struct perfregs_rec_sample *s)
{
	const struct learnt *m;

	if (cpu < 0 || cpu >= LEARNT_CPUS)
		return false;
	m = &memo[cpu];
	return m->known && m->pid == s->pid && m->ino == s->image_ino &&
	       m->dev == s->image_dev;
}

static void learn_task(struct decoder *d, struct learnt *memo, int cpu,
		       const struct perfregs_rec_sample *s)
{
	struct learnt *m = cpu >= 0 && cpu < LEARNT_CPUS ? &memo[cpu] : NULL;

	if (learnt_already(memo, cpu, s))
		return;
	if (!image_learn(d, s) && s->image_ino)
		return;		/* not known (yet): no memo */
	/* the side-band tells about a tracked process: no /proc for it */
	if (d->o.symbols && !space_tracked(d, s->pid)) {
		maps_learn(d, s);
		if (s->pid && !maps_find(d, s->pid, s->image_ino))
			return;
	}
	if (m) {
		m->pid = s->pid;
		m->ino = s->image_ino;
		m->dev = s->image_dev;
		m->known = true;
	}
}

/* The learner's view of a record (see learner_main()). */
static int learn_record(void *arg, int cpu, const struct perfregs_rec_header *rec,
			size_t size)
{
	struct live *lv = arg;
	const struct perfregs_rec_sample *s = (const void *)rec;

	if (rec->type != PERFREGS_REC_SAMPLE || size < sizeof(*s))
		return 0;
	if (lv->filter_tid > 0 && s->tid != (uint32_t)lv->filter_tid)
		return 0;
	learn_task(&lv->d, lv->learner_memo, cpu, s);
	return 0;
}

/*
 * Decoding (symbols, unwinding) can fall behind the samples: on a slow
 * kernel the first symbol lookup in a new library took seconds.  The
 * tasks the samples name may be gone by the time their turn comes, and
 * with them /proc/PID/exe and maps.  So a learner thread looks at what
 * the rings hold, without consuming it, and learns about new tasks
 * while they still exist, whatever the decoding is doing.  It looks at
 * most every 20 ms, and only when the module reports a sample of a new
 * process or image (POLLPRI): a run of one long task wakes it once.
 * A module older than ABI minor 1 cannot report that: then it looks
 * every 20 ms.
 */
static bool learner_stopping(struct live *lv)
{
	return __atomic_load_n(&lv->learner_stop, __ATOMIC_RELAXED);
}

static void *learner_main(void *arg)
{
	struct live *lv = arg;
	const uint64_t gap = 20000000;	/* ns: at most one look per gap */
	struct pollfd pfd = { .fd = lv->learner_wake, .events = POLLIN };
	bool waits = prf_has_new_tasks(lv->r);
	uint64_t last = 0, now;
	int ev;

	/*
	 * This thread's malloc arena, set up now, before COMMAND runs: at
	 * the first new task it cost the sampled task ~25k instructions.
	 */
	free(malloc(64));
	sem_post(&lv->learner_ready);

	while (!learner_stopping(lv)) {
		if (waits) {
			ev = prf_wait_new_task(lv->r, lv->learner_wake, -1);
			if (ev == -EINTR)
				continue;
			if (ev < 0 || (ev & PRF_WAIT_WOKEN))
				break;
			if (ev & (POLLHUP | POLLERR)) {
				/* stopped or the target is gone: a last look, then wait */
				prf_peek(lv->r, learn_record, lv);
				while (!learner_stopping(lv) && poll(&pfd, 1, -1) < 0 &&
				       errno == EINTR)
					;
				break;
			}
		}
		now = now_ns();
		if (now - last < gap) {
			struct timespec rest = { 0, (long)(gap - (now - last)) };

			nanosleep(&rest, NULL);
			if (learner_stopping(lv))
				break;
		}
		last = now_ns();
		prf_peek(lv->r, learn_record, lv);
	}
	return NULL;
}

/*
 * What else ends the wait for the rings: COMMAND's exit (pidfd), and a
 * side-band ring at its watermark, so that an exec storm's events are
 * read before they fill it (not only once a second, when recording).
 * One epoll fd for all, edge-triggered: a side-band event of a thread
 * that has exited stays readable (POLLHUP) and would not let it sleep.
 */
static int wait_also_fd(int pidfd, const struct sideband *sb)
{
	int fds[1024], n = sb_fds(sb, fds, 1024), efd, i;
	struct epoll_event e = { .events = EPOLLIN | EPOLLET };

	if (!n)
		return pidfd;
	efd = epoll_create1(EPOLL_CLOEXEC);
	if (efd < 0)
		return pidfd;
	if (pidfd >= 0) {
		e.data.fd = pidfd;
		epoll_ctl(efd, EPOLL_CTL_ADD, pidfd, &e);
	}
	for (i = 0; i < n; i++) {
		e.data.fd = fds[i];
		epoll_ctl(efd, EPOLL_CTL_ADD, fds[i], &e);
	}
	return efd;
}

/* prf_reader's before_records: see sideband.c, "Ordering" */
static void apply_sideband(void *arg)
{
	struct live *lv = arg;

	sb_drain(lv->sb, &lv->d);
}

/*
 * perf's side-band events for the target (pid, or every CPU with -1),
 * so that every mapping is known as it is made; without them (perf
 * refuses, too little locked memory) maps come from /proc, once per
 * task image, as before.
 */
static void sideband_start(struct live *lv, int pid, bool inherit, pid_t child)
{
	char err[256];

	lv->sb = sb_open(pid, inherit, err, sizeof(err));
	if (!lv->sb) {
		if (!lv->d.o.quiet)
			fprintf(stderr, "perfregs-dump: no side-band events (%s): "
				"mappings are read from /proc once per task, so "
				"libraries loaded later may go unnamed\n", err);
		return;
	}
	lv->d.sideband = true;
	if (child > 0) {
		/*
		 * COMMAND runs our own code until its exec: from the go
		 * pipe's read through execvp()'s search of PATH, one
		 * execve() per directory.  Samples taken there are ours,
		 * in the copy of our space that fork() gave it; they were
		 * left with no mapping (no name, no chain).  So its space
		 * starts as /proc shows it now, blocked on the pipe, and
		 * the exec's events replace it.
		 */
		pthread_mutex_lock(&lv->d.learn_lock);
		if (!space_seed(&lv->d, (uint32_t)child))
			space_begin(&lv->d, (uint32_t)child);	/* its exec will come */
		pthread_mutex_unlock(&lv->d.learn_lock);
	} else if (pid > 0) {
		/* events from now on; what it has mapped so far from /proc */
		pthread_mutex_lock(&lv->d.learn_lock);
		space_seed(&lv->d, (uint32_t)pid);
		pthread_mutex_unlock(&lv->d.learn_lock);
	}
	lv->r->before_records = apply_sideband;
	lv->r->before_arg = lv;
}

static void learner_start(struct live *lv)
{
	sigset_t all, old;

	lv->learner_wake = eventfd(0, EFD_CLOEXEC);
	if (lv->learner_wake < 0)
		return;	/* decoding still learns each task as its turn comes */
	/* signals (SIGINT, SIGTERM) stay with the main thread */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	sem_init(&lv->learner_ready, 0, 0);
	lv->learner_running = !pthread_create(&lv->learner, NULL, learner_main, lv);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	while (lv->learner_running && sem_wait(&lv->learner_ready) && errno == EINTR)
		;
	sem_destroy(&lv->learner_ready);
	if (!lv->learner_running) {
		close(lv->learner_wake);
		lv->learner_wake = -1;
	}
}

static void learner_stop(struct live *lv)
{
	uint64_t one = 1;

	if (!lv->learner_running)
		return;
	__atomic_store_n(&lv->learner_stop, 1, __ATOMIC_RELAXED);
	if (write(lv->learner_wake, &one, sizeof(one)) != sizeof(one))
		perror("perfregs-dump: waking the learner");
	pthread_join(lv->learner, NULL);
	close(lv->learner_wake);
	lv->learner_wake = -1;
	lv->learner_running = false;
}

/* A kernel-mode sample's interrupt ip, if it has one within @size bytes. */
static bool kernel_ip(const struct perfregs_rec_sample *s, size_t size, uint64_t *ip)
{
	int idx;

	if (!(s->flags & PERFREGS_SF_KERNEL) ||
	    (idx = prf_reg_index(s->iregs_mask, PERFREGS_REG_IP)) < 0 ||
	    sizeof(*s) + 8 * ((size_t)idx + 1) > size)
		return false;
	*ip = s->regs[idx];
	return true;
}

/*
 * Only recording, a sample of a task not learnt yet or taken in kernel
 * mode: learn its task, if the learner thread has not, and pick out its
 * kernel symbol for the recording.
 */
static void learn_sample(struct live *lv, int cpu,
			 const struct perfregs_rec_sample *s, size_t size)
{
	uint64_t ip;

	learn_task(&lv->d, lv->memo, cpu, s);
	if (lv->d.o.symbols && kernel_ip(s, size, &ip))
		ksym_learn(&lv->d, ip);
}

static int on_record(void *arg, int cpu, const struct perfregs_rec_header *ring_rec,
		     size_t size)
{
	struct live *lv = arg;
	struct decoder *d = &lv->d;
	struct perfregs_rec_header *rec;

	/*
	 * The record is decoded from a copy, made once with the length the
	 * walk checked, which its header then says: the kernel rewrites
	 * the ring's bytes under us when another holder of the session
	 * moves data_tail, and the decoder reads the type, the register
	 * masks and the sections' sizes more than once.  One memcpy of
	 * the record; decoding it costs far more.
	 */
	if (size > lv->copy_cap) {
		size_t cap = size > 2 * lv->copy_cap ? size : 2 * lv->copy_cap;
		uint8_t *p = realloc(lv->copy, cap);

		if (!p) {
			perror("perfregs-dump: a record's copy");
			return 1;
		}
		lv->copy = p;
		lv->copy_cap = cap;
	}
	memcpy(lv->copy, ring_rec, size);
	rec = (struct perfregs_rec_header *)lv->copy;
	rec->size = size;

	if (rec->type == PERFREGS_REC_SAMPLE && size >= sizeof(struct perfregs_rec_sample)) {
		const struct perfregs_rec_sample *s = (const void *)rec;
		uint64_t ip;

		if (lv->filter_tid > 0 && s->tid != (uint32_t)lv->filter_tid)
			return 0;
		learn_task(d, lv->memo, cpu, s);
		if (d->o.symbols && lv->rec && kernel_ip(s, size, &ip))
			ksym_learn(d, ip);
	}
	if (lv->rec) {
		bool summary = d->o.summary;

		/*
		 * The record goes to the file and is decoded under learn_lock,
		 * which the learner thread holds to hand what it learns to the
		 * file and publish it: that comes before both or after both,
		 * so a later decode of the file knows what this one knew.
		 */
		pthread_mutex_lock(&d->learn_lock);
		if (rec_records(lv->rec, cpu, rec, size, NULL, 0))
			lv->rec_error = 1;
		if (!lv->tee)
			d->o.summary = true;	/* count and check, print nothing */
		decode_record(d, cpu, rec, size);
		d->o.summary = summary;
		pthread_mutex_unlock(&d->learn_lock);
	} else {
		decode_record(d, cpu, rec, size);
	}
	return 0;
}

/* A sample's fixed part and registers: what raw_record() needs of one. */
union rec_fixed {
	struct perfregs_rec_sample s;
	struct perfregs_rec_lost l;
	uint8_t b[sizeof(struct perfregs_rec_sample) + 8 * PERFREGS_REG_MAX];
};

/*
 * Only recording, one record of a raw span (on_raw_span()): count it,
 * and learn about a sample whose task is not learnt yet, or that hit the
 * kernel.  Only the fixed part of a sample is needed (and lies in rec).
 */
static int raw_record(void *arg, int cpu, const struct perfregs_rec_header *rec,
		      size_t size)
{
	struct live *lv = arg;
	const struct perfregs_rec_sample *s = (const void *)rec;
	uint32_t type = __atomic_load_n(&rec->type, __ATOMIC_RELAXED);
	struct perfregs_rec_lost l;
	union rec_fixed c;
	size_t n;
	int i;

	if (type == PERFREGS_REC_SAMPLE && size >= sizeof(*s)) {
		lv->raw_samples++;
		if (!learnt_already(lv->memo, cpu, s) || (s->flags & PERFREGS_SF_KERNEL)) {
			/* learnt from a copy: the ring's bytes may change (on_record()) */
			n = size < sizeof(c) ? size : sizeof(c);
			memcpy(&c, rec, n);
			c.s.header.size = n;
			learn_sample(lv, cpu, &c.s, n);
		}
	} else if (type == PERFREGS_REC_LOST && prf_lost_copy(rec, size, &l)) {
		for (i = 0; i < PERFREGS_LOST_MAX; i++)
			lv->raw_lost[i] += prf_lost_of(&l, i);
	}
	return 0;
}

/*
 * Only recording: a ring's unread bytes, as they lie (prf_drain_raw()),
 * go to the file in one go, and are checked when the run is over
 * (verify_recording()), as perf record processes its build-ids after
 * the run.  Before, one pass over their headers counts them and finds
 * the samples whose task is not learnt yet, or that hit the kernel: one
 * compare for the others.  Every instruction here is taken from the
 * sampled tasks: of a record that wraps the ring's end, only the fixed
 * part is copied.  What learning adds to the file goes before the bytes.
 * A header that makes no sense ends the pass: the bytes still go to the
 * file, where verify_recording() reports them.
 */
static int on_raw_span(void *arg, int cpu, const void *a, size_t alen,
		       const void *b, size_t blen)
{
	struct live *lv = arg;
	union rec_fixed copy;

	prf_walk(a, alen, b, blen, &copy, sizeof(copy), raw_record, lv, cpu, NULL);
	if (rec_records(lv->rec, cpu, a, alen, b, blen))
		lv->rec_error = 1;
	return 0;
}

/*
 * After an only-recording run: read the recording back, as a later
 * decode will, to check its records and count them for the summary.
 * Nothing of it runs while the sampled tasks do.  Returns the exit code.
 * A FILE that cannot be read back (a pipe, a device, the standard
 * output of -o -) is not checked; the summary then counts what the rings
 * handed over.
 */
static int verify_recording(const char *path, struct decoder *live,
			    const struct live *lv, uint64_t produced)
{
	struct decoder *d;
	uint64_t in_file;
	struct stat st;
	char err[512];
	int ret, exit_code = EXIT_OK, i;

	if (lv->rec_stdout || stat(path, &st) || !S_ISREG(st.st_mode)) {
		live->samples = lv->raw_samples;
		for (i = 0; i < PERFREGS_LOST_MAX; i++)
			live->lost[i] = lv->raw_lost[i];
		if (!live->o.quiet)
			out_summary(live, stderr, FMT_TEXT, produced);
		return EXIT_OK;
	}
	d = calloc(1, sizeof(*d));
	if (!d) {
		fprintf(stderr, "perfregs-dump: checking %s: out of memory\n", path);
		return EXIT_IO;
	}
	d->o = live->o;
	d->o.summary = true;	/* count and check, print nothing */
	d->o.symbols = false;
	d->out = stdout;
	ret = rec_decode(path, d, &in_file, err, sizeof(err));
	if (ret == -EIO) {
		fprintf(stderr, "perfregs-dump: reading %s back: %s\n", path, err);
		exit_code = EXIT_IO;
	} else if (ret || d->bad_records) {
		fprintf(stderr, "perfregs-dump: %s: %s\n", path,
			ret ? err : "malformed records");
		exit_code = EXIT_DATA;
	}
	if (!live->o.quiet)
		out_summary(d, stderr, FMT_TEXT, produced);
	decoder_free(d);
	free(d);
	return exit_code;
}

/* What the rings hold: raw when only recording, else record by record. */
static long drain(struct prf_reader *r, struct live *lv)
{
	if (lv->spans)
		return prf_drain_raw(r, on_raw_span, lv);
	return prf_drain(r, on_record, lv);
}

static const char *open_hint(int err)
{
	switch (err) {
	case ENOENT:
	case ENODEV:
	case ENXIO:
		return "the perfregs module is not loaded: insmod perfregs.ko "
		       "(or modprobe perfregs)";
	case EACCES:
	case EPERM:
		return "check the mode of /dev/perfregs (the udev rule makes it 0666)";
	case EPROTO:
		return "the module speaks another ABI major version: rebuild the "
		       "tool and the module from the same tree";
	}
	return "check dmesg";
}

static const char *config_hint(int err)
{
	switch (err) {
	case EINVAL:
		return "a value is out of range (see dmesg-free rules in "
		       "perfregs-dump(1)): --mmap-pages a power of two up to 4096, "
		       "a nonzero period, --user-stack a multiple of 8 that fits "
		       "in half the buffer, CPUs that exist";
	case EACCES:
		return "-e nmi needs CAP_PERFMON, --nmi-unknown CAP_SYS_ADMIN "
		       "(docs/security.md)";
	case EPERM:
		return "kernel lockdown forbids kernel registers: sample user "
		       "mode only (EVENT:u)";
	case ESRCH:
		return "no such process";
	case ENOENT:
	case EOPNOTSUPP:
	case ENODEV:
		return "this event is not available here (no hardware PMU, or "
		       "none of the CPUs asked for is online?)";
	case ENOMEM:
		return "the rings exceed your locked-memory allowance (perfregs "
		       "mlock_kb per CPU plus ulimit -l, for all the rings your "
		       "user holds) or your memory cgroup's limit: lower "
		       "--mmap-pages, close other sessions, or raise ulimit -l";
	case EBUSY:
		return "the hardware breakpoint slots are taken";
	}
	return "check dmesg";
}

/* The first line of a /proc or /sys file, or "" */
static void read_line(const char *path, char *buf, int len)
{
	FILE *fp = fopen(path, "r");

	buf[0] = 0;
	if (fp) {
		if (!fgets(buf, len, fp))
			buf[0] = 0;
		buf[strcspn(buf, "\n")] = 0;
		fclose(fp);
	}
}

/* Kernel lockdown forbids reading kernel state (its registers too). */
static bool lockdown_confidentiality(void)
{
	char ld[128];

	read_line("/sys/kernel/security/lockdown", ld, sizeof(ld));
	return strstr(ld, "[confidentiality]");
}

/* Why perf_event_open() may have said no, in perf's words. */
static const char *witness_hint(int err, const struct perfregs_config *cfg)
{
	static char buf[320];
	char paranoid[16];

	read_line("/proc/sys/kernel/perf_event_paranoid", paranoid, sizeof(paranoid));
	if (!paranoid[0])
		strcpy(paranoid, "?");
	if (err == EPERM && !(cfg->flags & PERFREGS_CF_EXCLUDE_KERNEL) &&
	    lockdown_confidentiality())
		return "kernel lockdown (confidentiality) forbids kernel "
		       "registers: sample user mode only (EVENT:u)";
	switch (err) {
	case EACCES:
	case EPERM:
		snprintf(buf, sizeof(buf), "kernel.perf_event_paranoid is %s: "
			 "without CAP_PERFMON, 2 allows your own processes in "
			 "user mode (EVENT:u), 1 also kernel mode, 0 or less "
			 "also whole CPUs (-a); or the target is not yours",
			 paranoid);
		return buf;
	case EINVAL:
		return cfg->flags & PERFREGS_CF_FREQ ?
		       "the frequency is above kernel.perf_event_max_sample_rate" :
		       "perf does not take this event or period";
	case ESRCH:
		return "no such process";
	case ENOENT:
	case EOPNOTSUPP:
	case ENODEV:
		return "this event is not available here (no hardware PMU?)";
	}
	return "see perf_event_open(2)";
}

static double elapsed_since(const struct timespec *t0)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - t0->tv_sec) + (now.tv_nsec - t0->tv_nsec) / 1e9;
}

/* Side-band events were lost: what that means for the names. */
static void sb_lost_note(const struct decoder *d)
{
	fprintf(stderr, "perfregs-dump: the side-band lost %" PRIu64 " events: samples "
		"in mappings made then may go unnamed, or be named by what was "
		"mapped there before\n", d->sb_lost);
}

/* -v: the session as configured (live) or as recorded (-i). */
static void verbose_session(const struct perfregs_config *cfg, const char *event)
{
	char simd[64];

	fprintf(stderr, "perfregs-dump: session: event %s, %s %" PRIu64 "%s, iregs 0x%" PRIx64
		", uregs 0x%" PRIx64 " (64-bit) 0x%" PRIx64 " (32-bit), SIMD %s, user stack %u "
		"bytes, %u pages per CPU%s%s%s\n", event,
		cfg->flags & PERFREGS_CF_FREQ ? "frequency" : "period", (uint64_t)cfg->period,
		cfg->flags & PERFREGS_CF_FREQ ? " Hz" : "", (uint64_t)cfg->iregs_mask,
		(uint64_t)cfg->uregs_mask_64, (uint64_t)cfg->uregs_mask_32,
		simd_list(cfg->simd_mask, simd, sizeof(simd)), cfg->stack_bytes,
		cfg->data_pages, cfg->flags & PERFREGS_CF_INHERIT ? ", inherited" : "",
		cfg->flags & PERFREGS_CF_OVERWRITE ? ", overwrite" : "",
		cfg->flags & PERFREGS_CF_EXCLUDE_KERNEL ? ", user mode only" :
		cfg->flags & PERFREGS_CF_EXCLUDE_USER ? ", kernel mode only" : "");
}

/* -v after -i: where and how the recording was made, and what it held. */
static void verbose_recording(const char *path, const struct decoder *d)
{
	const struct rec_info *in = &d->info;
	unsigned int i;

	fprintf(stderr, "perfregs-dump: %s: recorded by perfregs-dump %s on %s (kernel %s, "
		"%s, %u of %u CPUs online, module ABI %u.%u)\n", path,
		in->version[0] ? in->version : "?", in->host[0] ? in->host : "?",
		in->release[0] ? in->release : "?", in->machine[0] ? in->machine : "?",
		in->nrcpus_online, in->nrcpus_conf, in->abi_major, in->abi_minor);
	if (in->nargs) {
		fputs("perfregs-dump: command line:", stderr);
		for (i = 0; i < in->nargs; i++) {
			const unsigned char *a = (const unsigned char *)in->args[i];

			/* the recording's bytes: no escape sequence reaches the terminal */
			fputc(' ', stderr);
			for (; *a; a++)
				if (*a >= ' ' && *a < 0x7f && *a != '\\')
					fputc(*a, stderr);
				else
					fprintf(stderr, "\\x%02x", *a);
		}
		fputc('\n', stderr);
	}
	/* the header as it was read: a FIFO or a pipe gives it once */
	if (in->cfg_known)
		verbose_session(&in->cfg, d->o.event_name);
	fprintf(stderr, "perfregs-dump: %zu kernel symbols, %u vDSO images\n", d->nksyms,
		d->nblobs);
}

/*
 * The stacks, once all samples are in: --flamegraph's SVG first, as
 * folded_print() empties the table, then -f folded's lines.  Returns
 * EXIT_OK or EXIT_IO.
 */
static int print_stacks(struct decoder *d)
{
	int ret = EXIT_OK;

	if (d->o.flamegraph && flame_write(d, d->o.flamegraph))
		ret = EXIT_IO;
	if (d->o.format == FMT_FOLDED)
		folded_print(d, d->out);
	return ret;
}

/*
 * --threads' default: a thread per CPU this process may run on (its
 * affinity: taskset, a cgroup's cpuset), at most POOL_THREADS_MAX.
 */
static unsigned int default_threads(void)
{
	cpu_set_t set;
	long n = 0;

	if (!sched_getaffinity(0, sizeof(set), &set))
		n = CPU_COUNT(&set);
	if (n <= 0)
		n = sysconf(_SC_NPROCESSORS_ONLN);
	return n < 1 ? 1 : n > POOL_THREADS_MAX ? POOL_THREADS_MAX : (unsigned int)n;
}

/*
 * Decode a recording, its samples printed by threads workers (pool.c);
 * by this thread alone with 1, or when nothing of a sample is printed
 * (--summary).  Without --threads (later), the workers start only once
 * this thread has decoded alone for a while (pool_later()).
 */
static int decode_file(const char *path, struct decoder *d, unsigned int threads,
		       bool later)
{
	uint64_t produced;
	unsigned int used = 1;
	char err[512];
	int ret, stacks, lost = 0;

	if (threads > 1 && !d->o.summary && later)
		pool_later(d, threads);
	else if (threads > 1 && !d->o.summary)
		d->pool = pool_start(d, threads);
	ret = rec_decode(path, d, &produced, err, sizeof(err));
	if (d->pool)
		used = d->threads;
	if (d->pool)
		lost = pool_end(d);
	if (d->o.verbose && used > 1 && d->pool_alone)
		fprintf(stderr, "perfregs-dump: %u threads printed the samples after the "
			"first %" PRIu64 ", printed by one\n", used, d->pool_alone);
	else if (d->o.verbose)
		fprintf(stderr, "perfregs-dump: %u thread%s printed the samples%s\n", used,
			used > 1 ? "s" : "", used == 1 && later && threads > 1 ?
			" (a small recording: more would only warm their own caches)" : "");
	if (d->o.verbose && used > 1)
		fprintf(stderr, "perfregs-dump: the reading thread waited for the workers "
			"%" PRIu64 " times, before items that change what samples decode to\n",
			d->pool_waits);
	if (d->o.verbose)
		verbose_recording(path, d);
	stacks = print_stacks(d);
	if (d->sb_lost && !d->o.quiet)
		sb_lost_note(d);
	if (d->o.summary || d->o.format == FMT_JSON)
		out_summary(d, d->out, d->o.format, produced);
	if (!d->o.quiet && !(d->o.summary && d->out == stdout))
		out_summary(d, stderr, FMT_TEXT, produced);
	if (fflush(d->out)) {
		fprintf(stderr, "perfregs-dump: writing the output: %s\n", strerror(errno));
		return EXIT_IO;
	}
	if (lost) {
		fprintf(stderr, "perfregs-dump: output of the decoding threads lost: %s\n",
			strerror(-lost));
		return EXIT_IO;
	}
	if (stacks != EXIT_OK)
		return stacks;
	if (ret == -EIO) {
		fprintf(stderr, "perfregs-dump: %s\n", err);
		return EXIT_IO;
	}
	if (ret) {
		fprintf(stderr, "perfregs-dump: %s; the records before it were decoded\n",
			err);
		return EXIT_DATA;
	}
	return EXIT_OK;
}

/*
 * perf's shape: record (sample to a file), report (decode a file, or a
 * live run), convert (to perf.data).  Without a subcommand, the options
 * alone say what to do, as before.
 */
enum command { CMD_NONE, CMD_RECORD, CMD_REPORT, CMD_CONVERT };

/* What the steps of main() return to go on; anything else is the exit status. */
#define GO_ON	(-1)

/* What convert writes (--to). */
enum convert_to { TO_PERF, TO_PPROF };

/* The command line, as parse_options() leaves it. */
struct options {
	enum command cmd;
	enum convert_to to;
	bool to_set;
	struct perfregs_config cfg;
	const char *output, *input, *cpu_list;
	const char *sampling_opt;	/* the first option that only sets up sampling */
	const char *fields_opt;		/* -F or --fields, as given; NULL if neither */
	unsigned int threads;		/* --threads N; 0: not given */
	double duration;
	bool all_cpus, no_inherit;
	bool mode_set;			/* -e's :u/:k given, or nmi, mem: (none taken) */
	bool simd_all;			/* --simd all: what the module offers */
	bool tee;			/* -f: decode also what is recorded */
	int pid, tid;
	char **command;			/* COMMAND [ARGS], NULL-terminated; NULL if none */
	uint64_t cpus[PERFREGS_MAX_CPU_BYTES / 8];	/* -C's, cfg.cpus_ptr once parsed */
};

/* What out_open() holds, let go of once -o's directory is no longer worked in. */
static void out_release(struct live *lv)
{
	if (lv->rec_dirfd >= 0)
		close(lv->rec_dirfd);
	lv->rec_dirfd = -1;
	free(lv->rec_old);
	lv->rec_old = NULL;
}

/*
 * -o -: the recording goes to the standard output, as perf record -o -
 * sends perf.data down a pipe.  The writer needs no seek (a header that
 * changes once it went out is said, rec_update_config()).  Not to a
 * terminal: a recording is no text.  Returns a descriptor of its own
 * (rec_close() closes it, not stdout), or -1 once it has said why.
 */
static int out_stdout(struct live *lv)
{
	int fd;

	lv->rec_path = "the standard output";
	lv->rec_stdout = true;
	if (isatty(STDOUT_FILENO)) {
		fprintf(stderr, "perfregs-dump: -o - writes the recording to the standard "
			"output, a terminal here: send it to a file or a pipe "
			"(-o - | perfregs-dump report -i -), or give -o a FILE\n");
		return -1;
	}
	fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
	if (fd < 0)
		fprintf(stderr, "perfregs-dump: cannot write the standard output: %s\n",
			strerror(errno));
	return fd;
}

/*
 * -o FILE, as record makes it.  Every name is taken relative to FILE's
 * directory, opened once (a directory on the way swapped meanwhile
 * changes nothing after), and no symlink that may have been planted at
 * FILE or FILE.old is followed where something is made:
 *  - an existing regular FILE, or a symlink that leads to no device or
 *    FIFO (its target untouched, if any), is kept as FILE.old, as perf
 *    record keeps perf.data.old: renameat() moves the name, and takes
 *    FILE.old's place whatever is there, without following it;
 *  - FILE is then made with O_CREAT | O_EXCL | O_NOFOLLOW, mode OUT_MODE
 *    (0600: the recording holds raw process memory): a name that
 *    appeared meanwhile, a symlink above all, is an error, never opened;
 *  - a device or a FIFO, or a symlink to one, is written to, unless
 *    someone else may have put it there to read the recording (in /tmp:
 *    out_write_to()); one that is not what was checked once open
 *    (swapped meanwhile) is refused.
 * Returns the descriptor, or -1 once it has said why.
 */
static int out_open(struct live *lv, const char *path)
{
	struct stat st, to;
	const char *base;
	char err[512];
	int fd;

	lv->rec_path = path;
	lv->rec_dirfd = out_dir(path, &base, err, sizeof(err));
	lv->rec_base = base;
	if (lv->rec_dirfd < 0) {
		fprintf(stderr, "perfregs-dump: %s\n", err);
		goto fail;
	}
	lv->rec_old = malloc(strlen(base) + 5);
	if (!lv->rec_old) {
		fprintf(stderr, "perfregs-dump: out of memory\n");
		goto fail;
	}
	sprintf(lv->rec_old, "%s.old", base);
	if (fstatat(lv->rec_dirfd, base, &st, AT_SYMLINK_NOFOLLOW)) {
		if (errno != ENOENT) {
			fprintf(stderr, "perfregs-dump: cannot write %s: %s\n", path,
				strerror(errno));
			goto fail;
		}
	} else if (S_ISDIR(st.st_mode)) {
		fprintf(stderr, "perfregs-dump: cannot write %s: %s\n", path, strerror(EISDIR));
		goto fail;
	} else if (!S_ISREG(st.st_mode) &&
		   (!S_ISLNK(st.st_mode) || (!fstatat(lv->rec_dirfd, base, &to, 0) &&
					     !S_ISREG(to.st_mode) && !S_ISDIR(to.st_mode)))) {
		/* a device or a FIFO, or a symlink to one: written to */
		fd = out_write_to(lv->rec_dirfd, path, base, &st, S_ISLNK(st.st_mode) ? &to : &st,
				  err, sizeof(err));
		if (fd < 0) {
			fprintf(stderr, "perfregs-dump: %s\n", err);
			goto fail;
		}
		return fd;
	} else if (renameat(lv->rec_dirfd, base, lv->rec_dirfd, lv->rec_old)) {
		fprintf(stderr, "perfregs-dump: cannot keep %s as %s.old: %s\n", path, path,
			strerror(errno));
		goto fail;
	} else {
		lv->rec_kept_old = true;
		lv->rec_old_st = st;	/* what FILE.old is, if it is still ours */
	}
	fd = openat(lv->rec_dirfd, base, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		    OUT_MODE);
	if (fd < 0) {
		fprintf(stderr, "perfregs-dump: cannot make %s: %s%s\n", path, strerror(errno),
			errno == EEXIST || errno == ELOOP ? " (it appeared meanwhile: "
			"another process at work in that directory?)" : "");
		if (lv->rec_kept_old)
			fprintf(stderr, "perfregs-dump: what was %s is %s.old\n", path, path);
		goto fail;
	}
	lv->rec_fresh = true;
	return fd;

fail:
	out_release(lv);
	return -1;
}

/*
 * Sampling never started: the recording begun has nothing in it.  Take
 * it away and put FILE.old back as FILE, so that a refused run loses no
 * earlier recording (perf record would leave an empty perf.data).
 */
static void rec_undo(struct live *lv)
{
	struct stat mine, now;
	bool known;

	if (!lv->rec)
		return;
	known = !rec_discard(lv->rec, &mine);
	lv->rec = NULL;
	/*
	 * Only the file this run made, still under its name in the directory
	 * it was made in; and FILE.old back only if it is still what FILE was.
	 */
	if (!lv->rec_fresh || !known ||
	    fstatat(lv->rec_dirfd, lv->rec_base, &now, AT_SYMLINK_NOFOLLOW) ||
	    !S_ISREG(now.st_mode) || now.st_dev != mine.st_dev || now.st_ino != mine.st_ino ||
	    unlinkat(lv->rec_dirfd, lv->rec_base, 0) || !lv->rec_kept_old)
		return;
	if (fstatat(lv->rec_dirfd, lv->rec_old, &now, AT_SYMLINK_NOFOLLOW) ||
	    now.st_dev != lv->rec_old_st.st_dev || now.st_ino != lv->rec_old_st.st_ino ||
	    renameat(lv->rec_dirfd, lv->rec_old, lv->rec_dirfd, lv->rec_base))
		fprintf(stderr, "perfregs-dump: cannot put %s.old back as %s\n", lv->rec_path,
			lv->rec_path);
}

/* The subcommand in argv[1], taken out of argv: getopt sees the options only. */
static enum command parse_command(int *argc, char ***argv)
{
	enum command cmd = CMD_NONE;

	if (*argc > 1 && !strcmp((*argv)[1], "record"))
		cmd = CMD_RECORD;
	else if (*argc > 1 && !strcmp((*argv)[1], "report"))
		cmd = CMD_REPORT;
	else if (*argc > 1 && !strcmp((*argv)[1], "convert"))
		cmd = CMD_CONVERT;
	if (cmd != CMD_NONE) {
		(*argv)[1] = (*argv)[0];
		(*argv)++;
		(*argc)--;
	}
	return cmd;
}

/*
 * -e EVENT: a name of events[], with perf's :u or :k, or mem:ADDR[:rwx].
 * Returns GO_ON, or EXIT_USAGE once it has said what is wrong.
 */
static int parse_event(const char *arg, struct options *o, struct decoder *d,
		       bool period_set)
{
	struct perfregs_config *cfg = &o->cfg;
	const char *mod;
	size_t i;

	if (!strncmp(arg, "mem:", 4)) {
		if (parse_mem_event(arg + 4, cfg)) {
			fprintf(stderr, "perfregs-dump: bad breakpoint '%s': "
				"use mem:ADDR[:rwx], e.g. mem:0x601040:w\n", arg);
			return EXIT_USAGE;
		}
		d->o.event_name = "mem";
		o->mode_set = true;
		return GO_ON;
	}
	mod = strchr(arg, ':');
	for (i = 0; i < sizeof(events) / sizeof(events[0]); i++)
		if (!strncmp(arg, events[i].name, mod ? (size_t)(mod - arg) :
			     strlen(arg) + 1) &&
		    (!mod || !events[i].name[mod - arg]))
			break;
	if (i == sizeof(events) / sizeof(events[0])) {
		fprintf(stderr, "perfregs-dump: unknown event '%s'; "
			"see --help for the list\n", arg);
		return EXIT_USAGE;
	}
	/* perf's modifiers: :u user mode only, :k kernel mode only */
	cfg->flags &= ~(PERFREGS_CF_EXCLUDE_USER | PERFREGS_CF_EXCLUDE_KERNEL);
	if (mod && events[i].id == PERFREGS_EV_NMI) {
		fprintf(stderr, "perfregs-dump: the nmi event takes no "
			"modifier: it samples every NMI\n");
		return EXIT_USAGE;
	}
	if (mod && (!strcmp(mod, ":u") || !strcmp(mod, ":k"))) {
		cfg->flags |= mod[1] == 'u' ? PERFREGS_CF_EXCLUDE_KERNEL :
					      PERFREGS_CF_EXCLUDE_USER;
	} else if (mod && strcmp(mod, ":uk") && strcmp(mod, ":ku")) {
		fprintf(stderr, "perfregs-dump: unknown modifier in '%s': "
			"use :u (user mode only) or :k (kernel mode only)\n", arg);
		return EXIT_USAGE;
	}
	cfg->event = events[i].id;
	d->o.event_name = events[i].name;
	o->mode_set = mod || events[i].id == PERFREGS_EV_NMI;
	if (!period_set)
		cfg->period = events[i].default_period;
	return GO_ON;
}

/*
 * -c N or -F/--freq HZ: a period, or a frequency.  -F is --freq but in
 * report (as perf record's -F and perf script's); short_F says it was
 * -F.  Returns GO_ON, or EXIT_USAGE once it has said what is wrong.
 */
static int parse_rate(const char *arg, bool freq, bool short_F, struct options *o)
{
	uint64_t v;

	if (parse_u64(arg, &v) || !v) {
		fprintf(stderr, "perfregs-dump: %s wants a positive number, not '%s'%s\n",
			!freq ? "-c" : short_F ? "-F" : "--freq", arg, short_F ?
			" (-F is --freq here; --fields LIST, or -F in report, picks "
			"the fields of the text output)" : "");
		return EXIT_USAGE;
	}
	o->cfg.period = v;
	if (freq)
		o->cfg.flags |= PERFREGS_CF_FREQ;
	else
		o->cfg.flags &= ~PERFREGS_CF_FREQ;
	if (freq && !o->sampling_opt)	/* in report, -F is no --freq */
		o->sampling_opt = o->cmd == CMD_REPORT ? "--freq" : "-F/--freq";
	return GO_ON;
}

/*
 * -F/--fields LIST (opt says which): what the text output shows of each
 * sample (fields_parse()).  Returns GO_ON, or EXIT_USAGE once it has
 * said what is wrong.
 */
static int parse_fields(const char *arg, const char *opt, struct options *o,
			struct decoder *d)
{
	char err[512];

	if (fields_parse(arg, &d->o, err, sizeof(err))) {
		fprintf(stderr, "perfregs-dump: %s: %s\n", opt, err);
		return EXIT_USAGE;
	}
	o->fields_opt = opt;
	return GO_ON;
}

/*
 * -F/--fields picks what the text output shows: JSON keeps every key
 * of docs/json-schema.md, -f folded and --flamegraph print stacks, and
 * convert and a recording without -f print no samples.  Says so and
 * returns true for those.
 */
static bool fields_refused(const struct options *o, const struct decoder *d)
{
	const char *what = NULL;

	if (!o->fields_opt)
		return false;
	if (d->o.format == FMT_JSON)
		what = "-f json (its lines keep every key of docs/json-schema.md)";
	else if (d->o.format == FMT_FOLDED || d->o.flamegraph)
		what = "-f folded or --flamegraph (they print stacks)";
	else if (o->cmd == CMD_CONVERT)
		what = "convert (it prints no samples)";
	else if ((o->output || o->cmd == CMD_RECORD) && !o->tee)
		what = "a recording without -f text (it prints no samples)";
	if (!what)
		return false;
	fprintf(stderr, "perfregs-dump: %s picks the fields of the text output: "
		"not for %s\n", o->fields_opt, what);
	return true;
}

/*
 * The subcommand and the options into o, and the decoding options into
 * d->o.  Nothing is checked here that depends on the mode, only each
 * option's own value.  Returns GO_ON, or the exit status: EXIT_USAGE
 * once it has said what is wrong, EXIT_OK after --help or --version.
 */
static int parse_options(int argc, char **argv, struct options *o, struct decoder *d)
{
	enum { OPT_IREGS = 256, OPT_UREGS, OPT_STACK, OPT_OVERWRITE, OPT_SUMMARY,
	       OPT_NMI_UNKNOWN, OPT_NO_SYMBOLS, OPT_CALLGRAPH, OPT_SYMFS,
	       OPT_NO_INHERIT, OPT_FLAMEGRAPH, OPT_TO, OPT_FREQ, OPT_FIELDS, OPT_THREADS,
	       OPT_SIMD };
	static const struct option longopts[] = {
		{ "event", required_argument, NULL, 'e' },
		{ "period", required_argument, NULL, 'c' },
		{ "freq", required_argument, NULL, OPT_FREQ },
		{ "fields", required_argument, NULL, OPT_FIELDS },
		{ "all-cpus", no_argument, NULL, 'a' },
		{ "cpu", required_argument, NULL, 'C' },
		{ "pid", required_argument, NULL, 'p' },
		{ "tid", required_argument, NULL, 't' },
		{ "iregs", optional_argument, NULL, OPT_IREGS },
		{ "intr-regs", optional_argument, NULL, OPT_IREGS },	/* perf's */
		{ "uregs", optional_argument, NULL, OPT_UREGS },
		{ "user-regs", optional_argument, NULL, OPT_UREGS },	/* perf's */
		{ "simd", required_argument, NULL, OPT_SIMD },
		{ "user-stack", required_argument, NULL, OPT_STACK },
		{ "call-graph", required_argument, NULL, OPT_CALLGRAPH },
		{ "nmi-unknown", no_argument, NULL, OPT_NMI_UNKNOWN },
		{ "mmap-pages", required_argument, NULL, 'm' },
		{ "overwrite", no_argument, NULL, OPT_OVERWRITE },
		{ "no-inherit", no_argument, NULL, OPT_NO_INHERIT },
		{ "duration", required_argument, NULL, 'd' },
		{ "output", required_argument, NULL, 'o' },
		{ "input", required_argument, NULL, 'i' },
		{ "format", required_argument, NULL, 'f' },
		{ "flamegraph", required_argument, NULL, OPT_FLAMEGRAPH },
		{ "no-symbols", no_argument, NULL, OPT_NO_SYMBOLS },
		{ "symfs", required_argument, NULL, OPT_SYMFS },
		{ "summary", no_argument, NULL, OPT_SUMMARY },
		{ "threads", required_argument, NULL, OPT_THREADS },
		{ "to", required_argument, NULL, OPT_TO },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	/* options that set up sampling: a recording was made with its own */
	static const struct {
		int c;
		const char *name;
	} sampling_only[] = {
		{ 'e', "-e/--event" }, { 'c', "-c/--period" },	/* --freq: parse_rate() */
		{ 'a', "-a/--all-cpus" }, { 'C', "-C/--cpu" }, { 'p', "-p/--pid" },
		{ 't', "-t/--tid" }, { 'd', "-d/--duration" }, { 'm', "-m/--mmap-pages" },
		{ OPT_IREGS, "--iregs" }, { OPT_UREGS, "--uregs" }, { OPT_SIMD, "--simd" },
		{ OPT_STACK, "--user-stack" }, { OPT_OVERWRITE, "--overwrite" },
		{ OPT_NO_INHERIT, "--no-inherit" }, { OPT_NMI_UNKNOWN, "--nmi-unknown" },
	};
	struct perfregs_config *cfg = &o->cfg;
	bool period_set = false, format_set = false, short_F;
	uint64_t v;
	size_t i;
	int c, ret;

	memset(o, 0, sizeof(*o));
	o->pid = -1;
	o->tid = -1;
	o->cmd = parse_command(&argc, &argv);
	d->o.format = FMT_TEXT;
	d->o.event_name = "cpu-clock";
	d->o.symbols = true;
	d->out = stdout;
	prf_config_default(cfg);
	/*
	 * 1 MiB per CPU: the reader wakes at a quarter (256 KiB), as often
	 * as perf record's does at half of its 512 KiB, and 768 KiB stay
	 * free while it drains.  512 KiB woke it every 128 KiB, and a
	 * sample is 216 bytes with 16 registers (perf's 184: it keeps comm
	 * and image out of its samples): 2.3 times as often as perf's per
	 * sample.  Waking at half of 512 KiB lost samples at high rates.
	 */
	cfg->data_pages = 256;
	while ((c = getopt_long(argc, argv, "+e:c:F:aC:p:t:m:d:o:i:f:qvhVgI::", longopts,
				NULL)) != -1) {
		if (c == 'I')
			c = OPT_IREGS;		/* perf's -I: --intr-regs */
		if (c == 'g') {			/* perf's -g; here = --call-graph dwarf */
			c = OPT_CALLGRAPH;
			optarg = (char *)"dwarf";
		}
		short_F = c == 'F';		/* as perf's: report's fields, else --freq */
		if (short_F)
			c = o->cmd == CMD_REPORT ? OPT_FIELDS : OPT_FREQ;
		for (i = 0; i < sizeof(sampling_only) / sizeof(sampling_only[0]); i++)
			if (c == sampling_only[i].c && !o->sampling_opt)
				o->sampling_opt = sampling_only[i].name;
		switch (c) {
		case 'e':
			ret = parse_event(optarg, o, d, period_set);
			if (ret != GO_ON)
				return ret;
			break;
		case 'c':
		case OPT_FREQ:
			ret = parse_rate(optarg, c == OPT_FREQ, short_F, o);
			if (ret != GO_ON)
				return ret;
			period_set = true;
			break;
		case OPT_FIELDS:
			ret = parse_fields(optarg, short_F ? "-F" : "--fields", o, d);
			if (ret != GO_ON)
				return ret;
			break;
		case 'a':
			o->all_cpus = true;
			break;
		case 'C':
			o->cpu_list = optarg;
			o->all_cpus = true;
			break;
		case 'p':
		case 't':
			if (parse_u64(optarg, &v) || !v || v > INT32_MAX) {
				fprintf(stderr, "perfregs-dump: bad %s '%s'\n",
					c == 'p' ? "pid" : "tid", optarg);
				return EXIT_USAGE;
			}
			if (c == 'p')
				o->pid = (int)v;
			else
				o->tid = (int)v;
			break;
		case OPT_IREGS:
		case OPT_UREGS:
			if (parse_regs(optarg, c == OPT_UREGS, &v)) {
				fprintf(stderr, "perfregs-dump: --%s wants register names "
					"such as ip,sp,bx,r12%s or a mask such as 0x1ff\n",
					c == OPT_IREGS ? "iregs" : "uregs",
					c == OPT_IREGS ? "" : ",fs_base,gs_base");
				return EXIT_USAGE;
			}
			if (c == OPT_IREGS) {
				cfg->iregs_mask = v;
			} else {
				cfg->uregs_mask_64 = v;
				cfg->uregs_mask_32 = v & (PERFREGS_MASK_32 | PERFREGS_MASK_BASES);
			}
			break;
		case OPT_SIMD:
			if (parse_simd(optarg, &v, &o->simd_all)) {
				fprintf(stderr, "perfregs-dump: --simd wants SIMD components, "
					"xmm,ymm,zmm,opmask, or all (what this CPU offers), "
					"not '%s'\n", optarg);
				return EXIT_USAGE;
			}
			cfg->simd_mask = v;
			break;
		case OPT_STACK:
			if (parse_u64(optarg, &v) || v % 8 || v > PERFREGS_MAX_STACK_BYTES) {
				fprintf(stderr, "perfregs-dump: --user-stack wants a multiple "
					"of 8 up to %u, not '%s'\n", PERFREGS_MAX_STACK_BYTES,
					optarg);
				return EXIT_USAGE;
			}
			cfg->stack_bytes = (uint32_t)v;
			break;
		case OPT_CALLGRAPH: {
			const char *size = NULL;

			if (!strncmp(optarg, "dwarf,", 6))
				size = optarg + 6;
			else if (strcmp(optarg, "dwarf")) {
				fprintf(stderr, "perfregs-dump: --call-graph takes "
					"dwarf[,SIZE], not '%s'\n", optarg);
				return EXIT_USAGE;
			}
			v = 8192;
			if (size && (parse_u64(size, &v) || !v || v % 8 ||
				     v > PERFREGS_MAX_STACK_BYTES)) {
				fprintf(stderr, "perfregs-dump: --call-graph dwarf,SIZE "
					"wants a multiple of 8 up to %u\n",
					PERFREGS_MAX_STACK_BYTES);
				return EXIT_USAGE;
			}
			cfg->stack_bytes = (uint32_t)v;
			d->o.callgraph = true;
			if (size && !o->sampling_opt)	/* what to copy: sampling */
				o->sampling_opt = "--call-graph dwarf,SIZE";
			break;
		}
		case OPT_NMI_UNKNOWN:
			cfg->flags |= PERFREGS_CF_NMI_UNKNOWN;
			break;
		case 'm':
			if (parse_u64(optarg, &v) || !v || (v & (v - 1)) ||
			    v > PERFREGS_MAX_DATA_PAGES) {
				fprintf(stderr, "perfregs-dump: --mmap-pages wants a "
					"power of two from 1 to %u, not '%s'\n",
					PERFREGS_MAX_DATA_PAGES, optarg);
				return EXIT_USAGE;
			}
			cfg->data_pages = (uint32_t)v;
			break;
		case OPT_OVERWRITE:
			cfg->flags |= PERFREGS_CF_OVERWRITE;
			break;
		case OPT_NO_INHERIT:
			o->no_inherit = true;
			break;
		case 'd': {
			char *end;

			o->duration = strtod(optarg, &end);
			if (*end || o->duration <= 0) {
				fprintf(stderr, "perfregs-dump: --duration wants "
					"seconds > 0, not '%s'\n", optarg);
				return EXIT_USAGE;
			}
			break;
		}
		case 'o':
			o->output = optarg;
			break;
		case 'i':
			o->input = optarg;
			break;
		case 'f':
			o->tee = true;
			format_set = true;
			if (!strcmp(optarg, "text")) {
				d->o.format = FMT_TEXT;
			} else if (!strcmp(optarg, "json")) {
				d->o.format = FMT_JSON;
			} else if (!strcmp(optarg, "folded")) {
				d->o.format = FMT_FOLDED;
			} else {
				fprintf(stderr, "perfregs-dump: --format is text, json "
					"or folded, not '%s'\n", optarg);
				return EXIT_USAGE;
			}
			break;
		case OPT_FLAMEGRAPH:
			d->o.flamegraph = optarg;
			o->tee = true;		/* as -f: record decodes too */
			break;
		case OPT_SYMFS:
			d->o.symfs = optarg;
			break;
		case OPT_NO_SYMBOLS:
			d->o.symbols = false;
			break;
		case OPT_SUMMARY:
			d->o.summary = true;
			break;
		case OPT_THREADS:
			if (parse_u64(optarg, &v) || !v || v > POOL_THREADS_MAX) {
				fprintf(stderr, "perfregs-dump: --threads wants a number of "
					"threads from 1 to %d, not '%s'\n", POOL_THREADS_MAX,
					optarg);
				return EXIT_USAGE;
			}
			o->threads = (unsigned int)v;
			break;
		case OPT_TO:
			if (!strcmp(optarg, "perf")) {
				o->to = TO_PERF;
			} else if (!strcmp(optarg, "pprof")) {
				o->to = TO_PPROF;
			} else {
				fprintf(stderr, "perfregs-dump: --to is perf (perf.data) or "
					"pprof (profile.proto), not '%s'\n", optarg);
				return EXIT_USAGE;
			}
			o->to_set = true;
			break;
		case 'q':
			d->o.quiet = true;
			break;
		case 'v':
			d->o.verbose++;
			break;
		case 'h':
			usage(stdout);
			return EXIT_OK;
		case 'V':
			printf("perfregs-dump %s, ABI %d.%d\n", VERSION,
			       PERFREGS_ABI_MAJOR, PERFREGS_ABI_MINOR);
			return EXIT_OK;
		default:
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (d->o.flamegraph && (o->cmd == CMD_CONVERT ||
				(format_set && d->o.format != FMT_FOLDED))) {
		fprintf(stderr, "perfregs-dump: --flamegraph draws the stacks of -f folded: "
			"it takes no -f text or json, and convert none\n");
		return EXIT_USAGE;
	}
	if (fields_refused(o, d))
		return EXIT_USAGE;
	if (optind < argc)
		o->command = argv + optind;
	return GO_ON;
}

enum mode { MODE_CONVERT, MODE_DECODE, MODE_LIVE };

/* For a sampling option given with -i: what may have been meant. */
static const char *sampling_hint(const char *opt)
{
	if (!strncmp(opt, "--call-graph", 12))
		return " (--call-graph dwarf alone unwinds its stacks)";
	if (!strcmp(opt, "-F/--freq"))
		return " (the fields of the text output are --fields LIST, or "
		       "report -F LIST)";
	return "";
}

/*
 * What to do, as perf does it: record samples to a file (perfregs.prf
 * unless -o), report decodes one (perfregs.prf unless -i) or, given
 * something to sample, a live run; convert writes perf.data.  Without a
 * subcommand, -i decodes a file and anything else samples.  Returns GO_ON
 * with *mode set, or EXIT_USAGE once it has said what is wrong.
 */
static int pick_mode(struct options *o, enum mode *mode)
{
	if (o->cmd == CMD_RECORD) {
		if (o->input) {
			fprintf(stderr, "perfregs-dump: record samples: it takes no -i "
				"(perfregs-dump report -i FILE decodes)\n");
			return EXIT_USAGE;
		}
		if (!o->output)
			o->output = DEFAULT_RECORDING;
	} else if (o->cmd == CMD_REPORT) {
		if (o->output) {
			fprintf(stderr, "perfregs-dump: report decodes: it takes no -o "
				"(perfregs-dump record -o FILE records)\n");
			return EXIT_USAGE;
		}
		if (!o->input && !o->command && !o->all_cpus && o->pid < 0 && o->tid < 0)
			o->input = DEFAULT_RECORDING;	/* as perf report reads perf.data */
	}
	if (o->input && o->sampling_opt) {
		fprintf(stderr, "perfregs-dump: -i takes no %s: it sets up sampling, and a "
			"recording decodes with the settings it was made with%s\n",
			o->sampling_opt, sampling_hint(o->sampling_opt));
		return EXIT_USAGE;
	}
	if (o->to_set && o->cmd != CMD_CONVERT) {
		fprintf(stderr, "perfregs-dump: --to says what convert writes: "
			"perfregs-dump convert --to %s -i FILE -o OUTPUT\n",
			o->to == TO_PPROF ? "pprof" : "perf");
		return EXIT_USAGE;
	}
	if (o->cmd == CMD_CONVERT)
		*mode = MODE_CONVERT;
	else
		*mode = o->input ? MODE_DECODE : MODE_LIVE;
	return GO_ON;
}

/* convert [--to perf|pprof] -i RECORDING -o OUTPUT */
static int run_convert(const struct options *o, struct decoder *d)
{
	bool pprof = o->to == TO_PPROF;
	char err[512];
	int ret;

	if (!o->input || !o->output || o->command) {
		fprintf(stderr, "perfregs-dump: usage: perfregs-dump convert -i "
			"RECORDING -o perf.data, or convert --to pprof -i RECORDING "
			"-o prof.pb.gz\n");
		return EXIT_USAGE;
	}
	if (pprof)
		ret = pprof_convert(o->input, o->output, d, err, sizeof(err));
	else
		ret = perfdata_convert(o->input, o->output, d, err, sizeof(err));
	decoder_free(d);
	if (ret) {
		fprintf(stderr, "perfregs-dump: %s\n", err);
		return ret == -EIO ? EXIT_IO : EXIT_DATA;
	}
	if (!d->o.quiet)
		fprintf(stderr, "perfregs-dump: wrote %s (%" PRIu64 " samples); read it "
			"with %s %s\n", o->output, d->samples,
			pprof ? "go tool pprof" : "perf script -i", o->output);
	return EXIT_OK;
}

/* -i FILE, or report from a file: decode a recording */
static int run_decode(const struct options *o, struct decoder *d)
{
	int ret;

	if (o->command || o->output || o->all_cpus || o->pid > 0 || o->tid > 0) {
		fprintf(stderr, "perfregs-dump: -i decodes a recording: it takes "
			"no COMMAND, -o, -a, -p or -t\n");
		return EXIT_USAGE;
	}
	ret = decode_file(o->input, d, o->threads ? o->threads : default_threads(),
			  !o->threads);
	decoder_free(d);
	return ret;
}

/* A live run's own state, beside struct live (which the learner shares). */
struct live_run {
	struct prf_reader r;
	pid_t child;		/* COMMAND's process, until it is reaped */
	int status;		/* its wait status */
	int go_fd;		/* COMMAND runs once a byte comes down this pipe */
	int exit_code;
};

/*
 * What a live run needs before the device is opened: a target, options
 * that go together, the CPU list, the process of -t's thread, and -o's
 * file.  Returns GO_ON or the exit status.
 */
static int live_prepare(struct options *o, struct live *lv)
{
	struct decoder *d = &lv->d;

	if (!o->command && !o->all_cpus && o->pid < 0 && o->tid < 0) {
		fprintf(stderr, "perfregs-dump: nothing to sample: give a COMMAND, "
			"-p PID, -t TID, or -a (with -d SECONDS)\n");
		return EXIT_USAGE;
	}
	if ((o->all_cpus && (o->pid > 0 || o->tid > 0)) || (o->pid > 0 && o->tid > 0)) {
		fprintf(stderr, "perfregs-dump: -a/-C, -p and -t exclude each other\n");
		return EXIT_USAGE;
	}
	if ((o->cfg.flags & PERFREGS_CF_NMI_UNKNOWN) && o->cfg.event != PERFREGS_EV_NMI) {
		fprintf(stderr, "perfregs-dump: --nmi-unknown goes with -e nmi\n");
		return EXIT_USAGE;
	}
	if (o->cpu_list) {
		if (parse_cpus(o->cpu_list, o->cpus, sizeof(o->cpus) / 8)) {
			fprintf(stderr, "perfregs-dump: bad CPU list '%s': use e.g. "
				"0,2-3\n", o->cpu_list);
			return EXIT_USAGE;
		}
		o->cfg.cpus_ptr = (uintptr_t)o->cpus;
		o->cfg.cpus_bytes = sizeof(o->cpus);
	}
	if (o->tid > 0) {
		/* the module targets processes: take the thread's, filter here */
		char path[64], line[256];
		FILE *fp;

		snprintf(path, sizeof(path), "/proc/%d/status", o->tid);
		fp = fopen(path, "r");
		while (fp && fgets(line, sizeof(line), fp))
			if (sscanf(line, "Tgid: %d", &o->pid) == 1)
				break;
		if (fp)
			fclose(fp);
		if (o->pid <= 0) {
			fprintf(stderr, "perfregs-dump: no thread %d\n", o->tid);
			return EXIT_SETUP;
		}
		lv->filter_tid = o->tid;
	}
	lv->tee = o->tee;
	if (o->output && !strcmp(o->output, "-") && o->tee &&
	    (!d->o.flamegraph || d->o.format == FMT_FOLDED || d->o.summary)) {
		fprintf(stderr, "perfregs-dump: -o - writes the recording to the standard "
			"output: it takes no -f or --summary, which print there too; "
			"decode it on the way (-o - | perfregs-dump report -i -)\n");
		return EXIT_USAGE;
	}
	if (o->output) {
		int fd = strcmp(o->output, "-") ? out_open(lv, o->output) : out_stdout(lv);

		if (fd < 0)
			return EXIT_IO;
		lv->rec = rec_create_fd(fd, lv->rec_path, &o->cfg, d->o.event_name);
		if (!lv->rec) {
			fprintf(stderr, "perfregs-dump: cannot write %s: %s\n", lv->rec_path,
				strerror(errno));
			return EXIT_IO;
		}
		d->learnt_image = rec_image;
		d->learnt_maps = rec_maps;
		d->learnt_ksym = rec_ksym;
		d->learnt_sb = rec_sb;
		d->learnt_blob = rec_blob;
		d->learnt_arg = lv->rec;
		/*
		 * Whole runs of records, unless -t keeps only some, or they
		 * are decoded too (-f): then one by one (see on_record()).
		 */
		lv->spans = lv->filter_tid <= 0 && !lv->tee;
	}
	return GO_ON;
}

/*
 * COMMAND, forked: it waits on a pipe until sampling is on (see
 * command_go()).  Without -a or -p, it is the target.  Returns GO_ON or
 * the exit status.
 */
static int command_fork(struct options *o, struct live *lv, struct live_run *run)
{
	int go_pipe[2];

	image_prelearn(&lv->d, o->command[0]);
	if (pipe(go_pipe)) {
		perror("perfregs-dump: pipe");
		return EXIT_SETUP;
	}
	run->child = fork();
	if (run->child < 0) {
		perror("perfregs-dump: fork");
		return EXIT_COMMAND;
	}
	if (run->child == 0) {
		char b;

		close(go_pipe[1]);
		close(run->r.fd);
		signal(SIGPIPE, SIG_DFL);	/* exec keeps SIG_IGN */
		if (read(go_pipe[0], &b, 1) != 1)
			_exit(127);
		execvp(o->command[0], o->command);
		fprintf(stderr, "perfregs-dump: cannot run %s: %s\n",
			o->command[0], strerror(errno));
		_exit(127);
	}
	close(go_pipe[0]);
	run->go_fd = go_pipe[1];
	if (!o->all_cpus && o->pid < 0)
		o->pid = run->child;
	return GO_ON;
}

/* Let COMMAND run: sampling is on. */
static void command_go(struct live_run *run)
{
	if (run->child <= 0)
		return;
	if (write(run->go_fd, "g", 1) != 1) {
		perror("perfregs-dump: starting COMMAND");
		run->exit_code = EXIT_COMMAND;
	}
	close(run->go_fd);
	run->go_fd = -1;
}

/*
 * perf record's fallback: when perf_event_open() refuses an event that
 * was given no :u or :k because kernel.perf_event_paranoid is above 1
 * (no CAP_PERFMON: user mode of one's own processes only), sample user
 * mode only, with a note, and tell the recording.  Not under lockdown:
 * its refusal says so, and EVENT:u is asked for by name.  True if cfg
 * changed and is worth another try.
 */
static bool user_only_fallback(const struct options *o, struct live *lv,
			       struct live_run *run, struct perfregs_config *cfg, int ret)
{
	char paranoid[16];
	int err;

	if (!run->r.witness_errno || (ret != -EACCES && ret != -EPERM) || o->mode_set ||
	    (cfg->flags & (PERFREGS_CF_EXCLUDE_KERNEL | PERFREGS_CF_EXCLUDE_USER)))
		return false;
	read_line("/proc/sys/kernel/perf_event_paranoid", paranoid, sizeof(paranoid));
	if (atoi(paranoid) <= 1 || lockdown_confidentiality())
		return false;
	cfg->flags |= PERFREGS_CF_EXCLUDE_KERNEL;
	if (!lv->d.o.quiet)
		fprintf(stderr, "perfregs-dump: kernel.perf_event_paranoid is %s: sampling "
			"user mode only (%s:u), as perf record falls back; CAP_PERFMON or a "
			"paranoid of 1 samples kernel mode too\n", paranoid,
			lv->d.o.event_name);
	err = lv->rec ? rec_update_config(lv->rec, cfg) : 0;
	if (err == -ESPIPE)
		fprintf(stderr, "perfregs-dump: cannot note user mode only in %s: its "
			"header went out already, and a pipe is not rewritten: it says "
			"user and kernel mode\n", lv->rec_path);
	else if (err)
		fprintf(stderr, "perfregs-dump: cannot note user mode only in %s: %s\n",
			lv->rec_path, strerror(-err));
	return true;
}

/*
 * What the session asks of the module beyond ABI 2.0 (the FS and GS
 * base, SIMD state: minor 1), against what the module speaks and offers,
 * before it is configured: one of minor 0 would refuse the bases as a
 * bad mask (EINVAL) and a simd_mask as a configuration too large (E2BIG),
 * and one that lacks a SIMD component says EOPNOTSUPP; here each is
 * named.  --simd all becomes what it offers.  The recording's header
 * says the module's ABI and the session as it goes to the module.
 * Returns EXIT_OK, or EXIT_SETUP once it has said what the module or
 * the CPU cannot do.
 */
static int module_fit(struct options *o, struct live *lv, const struct prf_reader *r)
{
	struct perfregs_config *cfg = &o->cfg;
	const struct perfregs_version *v = &r->version;
	uint64_t offered = v->size >= PERFREGS_VERSION_SIZE_VER1 ? v->simd_offered : 0;
	bool bases = (cfg->uregs_mask_64 | cfg->uregs_mask_32) & PERFREGS_MASK_BASES;
	bool simd = cfg->simd_mask || o->simd_all;
	char asked[64], have[64], lack[64];

	if (lv->rec)	/* before sampling: in the buffer, always taken */
		rec_update_abi(lv->rec, v->major,
			       v->minor < PERFREGS_ABI_MINOR ? v->minor : PERFREGS_ABI_MINOR);
	if (v->minor < 1) {
		if (bases || simd) {
			fprintf(stderr, "perfregs-dump: %s need%s the perfregs module of ABI "
				"%d.1 or later; the one loaded speaks %u.%u: load the module "
				"built with this tool\n", bases && simd ?
				"fs_base, gs_base and --simd" : bases ? "fs_base and gs_base" :
				"--simd", !bases && simd ? "s" : "", PERFREGS_ABI_MAJOR,
				v->major, v->minor);
			return EXIT_SETUP;
		}
		cfg->size = PERFREGS_CONFIG_SIZE_VER0;	/* the configuration it knows */
	}
	if (o->simd_all) {
		if (!offered) {
			fprintf(stderr, "perfregs-dump: --simd all: this CPU and kernel offer "
				"no SIMD state (no XSAVE)\n");
			return EXIT_SETUP;
		}
		cfg->simd_mask = offered;
	}
	if (cfg->simd_mask & ~offered) {
		fprintf(stderr, "perfregs-dump: --simd %s: this CPU and kernel do not offer "
			"%s; they offer %s\n", simd_list(cfg->simd_mask, asked, sizeof(asked)),
			simd_list(cfg->simd_mask & ~offered, lack, sizeof(lack)),
			simd_list(offered, have, sizeof(have)));
		return EXIT_SETUP;
	}
	if (lv->rec)
		rec_update_config(lv->rec, cfg);
	return EXIT_OK;
}

/*
 * Configure the session for the target, load what decoding and the
 * recording need before the rings fill, and start sampling.  Returns
 * EXIT_OK or EXIT_SETUP.
 */
static int live_start(struct options *o, struct live *lv, struct live_run *run)
{
	struct perfregs_config *cfg = &o->cfg;
	struct decoder *d = &lv->d;
	int ret;

	if (module_fit(o, lv, &run->r) != EXIT_OK)
		return EXIT_SETUP;
	cfg->pid = o->all_cpus ? -1 : o->pid;
	/* perf record's default: what the process forks is sampled too */
	if (cfg->pid >= 0 && !o->no_inherit && cfg->event != PERFREGS_EV_NMI)
		cfg->flags |= PERFREGS_CF_INHERIT;

	ret = prf_config(&run->r, cfg);
	if (ret && user_only_fallback(o, lv, run, cfg, ret))
		ret = prf_config(&run->r, cfg);
	if (ret) {
		if (run->r.witness_errno)
			fprintf(stderr, "perfregs-dump: perf_event_open(2) refused "
				"this event for this target: %s; %s\n",
				strerror(-ret), witness_hint(-ret, cfg));
		else
			fprintf(stderr, "perfregs-dump: the module refused the "
				"configuration: %s; %s%s\n", strerror(-ret),
				config_hint(-ret), ret == -EOPNOTSUPP && cfg->simd_mask ?
				" (or a --simd component this CPU lacks)" : "");
		return EXIT_SETUP;
	}
	if (d->o.verbose)
		verbose_session(cfg, d->o.event_name);
	/*
	 * Slow (kallsyms has >100k lines): before the rings start filling
	 * and before COMMAND runs, also when only recording (kernel symbols
	 * of the samples go into the recording).
	 */
	if (d->o.symbols)
		ksyms_load(d);
	if (d->o.symbols)
		sideband_start(lv, cfg->pid, !!(cfg->flags & PERFREGS_CF_INHERIT), run->child);
	ret = prf_start(&run->r);
	if (ret) {
		fprintf(stderr, "perfregs-dump: cannot start sampling: %s; %s\n",
			strerror(-ret), ret == -EACCES ?
			"the target may no longer be watched (did it run a setuid "
			"program, or change its user?)" : config_hint(-ret));
		return EXIT_SETUP;
	}
	if (!(cfg->flags & PERFREGS_CF_OVERWRITE))
		learner_start(lv);	/* overwrite mode reads only at the end */
	return EXIT_OK;
}

/*
 * Drain the rings until COMMAND exits, the target is gone, -d's time is
 * up or a signal comes, with a progress line every 2 s on stderr.  A
 * live decode drains every 100 ms, so that its output follows the
 * samples.  A recording only drains when a ring reaches its watermark,
 * as perf record does, and wakes once a second for the progress line:
 * each wake-up costs the sampled task a context switch.  The exit of
 * COMMAND ends the wait at once (pidfd).
 */
static void live_loop(const struct options *o, struct live *lv, struct live_run *run)
{
	const struct perfregs_config *cfg = &o->cfg;
	struct decoder *d = &lv->d;
	int pidfd = -1, waitfd, wait_ms, i;
	double last_progress = 0;
	bool progress = isatty(STDERR_FILENO);	/* for a person, as perf does */
	struct timespec t0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	command_go(run);
	if (run->child > 0)
		pidfd = (int)syscall(SYS_pidfd_open, run->child, 0);
	wait_ms = lv->rec && !lv->tee && (run->child <= 0 || pidfd >= 0) ? 1000 : 100;
	waitfd = wait_also_fd(pidfd, lv->sb);
	for (;;) {
		double t;
		int ev, ms = wait_ms;

		if (o->duration > 0) {
			t = o->duration - elapsed_since(&t0);
			if (t * 1000 < ms)
				ms = t > 0 ? (int)(t * 1000) + 1 : 0;
		}
		ev = prf_wait_also(&run->r, waitfd, ms);
		if (!(cfg->flags & PERFREGS_CF_OVERWRITE) && drain(&run->r, lv) == -EBADMSG)
			run->exit_code = EXIT_DATA;
		sb_drain(lv->sb, d);	/* keep its rings from filling */
		if (interrupted)
			break;
		if (run->child > 0 && waitpid(run->child, &run->status, WNOHANG) == run->child) {
			run->child = -1;
			break;
		}
		t = elapsed_since(&t0);
		if (o->duration > 0 && t >= o->duration)
			break;
		if (run->child < 0 && o->pid > 0 && ev > 0 && (ev & POLLHUP))
			break;	/* the target process is gone */
		if (!d->o.quiet && progress && t - last_progress >= 2 && t >= 3) {
			uint64_t lost = 0, samples = lv->spans ?
						      lv->raw_samples : d->samples;

			for (i = 0; i < PERFREGS_LOST_MAX; i++)
				if (i != PERFREGS_LOST_ENTRY)
					lost += prf_lost_total(&run->r, i);
			fprintf(stderr, "perfregs-dump: %.0f s, %" PRIu64 " samples "
				"(%.0f/s), %" PRIu64 " lost\n", t, samples,
				samples / t, lost);
			last_progress = t;
		}
	}
	prf_stop(&run->r);
	learner_stop(lv);
	if (waitfd >= 0 && waitfd != pidfd)
		close(waitfd);
	if (pidfd >= 0)
		close(pidfd);
}

/*
 * After the loop: the last drain, the recording closed (and read back
 * when only recording), the summaries and what went wrong, into
 * run->exit_code.
 */
static void live_finish(const struct options *o, struct live *lv, struct live_run *run)
{
	struct decoder *d = &lv->d;
	struct prf_reader *r = &run->r;
	bool verified = false;
	int ret, i;

	if (drain(r, lv) == -EBADMSG)
		run->exit_code = EXIT_DATA;

	if (lv->rec) {
		uint64_t lost[PERFREGS_LOST_MAX];

		for (i = 0; i < PERFREGS_LOST_MAX; i++)
			lost[i] = prf_lost_total(r, i);
		if (rec_close(lv->rec, prf_produced(r), lost) || lv->rec_error) {
			fprintf(stderr, "perfregs-dump: writing %s failed: %s\n",
				lv->rec_path, strerror(errno ? errno : EIO));
			run->exit_code = EXIT_IO;
		} else if (lv->spans) {
			ret = verify_recording(o->output, d, lv, prf_produced(r));
			if (run->exit_code == EXIT_OK)
				run->exit_code = ret;
			verified = true;
		}
		if (lv->spans && !verified) {
			/* not decoded as they came: what the rings handed over */
			d->samples = lv->raw_samples;
			for (i = 0; i < PERFREGS_LOST_MAX; i++)
				d->lost[i] = lv->raw_lost[i];
		}
	}
	if ((!lv->rec || lv->tee) && print_stacks(d) != EXIT_OK && run->exit_code == EXIT_OK)
		run->exit_code = EXIT_IO;
	if ((!lv->rec || lv->tee) && (d->o.summary || d->o.format == FMT_JSON))
		out_summary(d, d->out, d->o.format, prf_produced(r));
	if (!d->o.quiet && !(d->o.summary && !lv->rec) && !verified)
		out_summary(d, stderr, FMT_TEXT, prf_produced(r));
	if (d->sb_lost && !d->o.quiet)
		sb_lost_note(d);
	if (interrupted && !d->o.quiet)
		fprintf(stderr, "perfregs-dump: interrupted, stopped cleanly\n");
	if (run->exit_code == EXIT_DATA || d->bad_records)
		fprintf(stderr, "perfregs-dump: malformed records were skipped; "
			"this is a bug in the module or a memory corruption\n");
	if (d->bad_records && run->exit_code == EXIT_OK)
		run->exit_code = EXIT_DATA;
	if (fflush(stdout) && run->exit_code == EXIT_OK) {
		fprintf(stderr, "perfregs-dump: writing the output: %s\n",
			strerror(errno));
		run->exit_code = EXIT_IO;
	}
}

/*
 * The end of a live run, whatever it came to: COMMAND killed if the run
 * failed, and reaped; all closed.  Returns the exit status.
 */
static int live_end(struct live *lv, struct live_run *run)
{
	learner_stop(lv);
	if (run->child > 0) {
		if (run->exit_code != EXIT_OK && run->exit_code != EXIT_DATA)
			kill(run->child, SIGKILL);
		if (run->go_fd >= 0)
			close(run->go_fd);
		waitpid(run->child, &run->status, 0);
	}
	prf_close(&run->r);
	sb_close(lv->sb);
	decoder_free(&lv->d);
	free(lv->copy);
	lv->copy = NULL;
	if (run->exit_code == EXIT_OK && WIFEXITED(run->status) &&
	    WEXITSTATUS(run->status) == 127)
		run->exit_code = EXIT_COMMAND;
	return run->exit_code;
}

/* Sample, live: decode as it comes, record (-o, record), or both (-f). */
static int run_live(struct options *o, struct live *lv)
{
	struct live_run run = { .child = -1, .go_fd = -1, .exit_code = EXIT_OK };
	struct decoder *d = &lv->d;
	int ret;

	lv->rec_dirfd = -1;
	ret = live_prepare(o, lv);
	if (ret != GO_ON)
		goto out;
	d->live = true;
	pthread_mutex_init(&d->learn_lock, NULL);
	/* from here on Ctrl-C ends the run cleanly, with its summary */
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGPIPE, SIG_IGN);

	ret = prf_open(&run.r, NULL);
	if (ret) {
		fprintf(stderr, "perfregs-dump: cannot open %s: %s; %s\n",
			PERFREGS_DEVICE, strerror(-ret), open_hint(-ret));
		rec_undo(lv);
		ret = EXIT_SETUP;
		goto out;
	}
	lv->r = &run.r;
	if (o->command) {
		ret = command_fork(o, lv, &run);
		if (ret != GO_ON) {
			rec_undo(lv);
			goto out;
		}
	}
	run.exit_code = live_start(o, lv, &run);
	if (run.exit_code == EXIT_OK) {
		live_loop(o, lv, &run);
		live_finish(o, lv, &run);
	}
	ret = live_end(lv, &run);
	if (run.exit_code == EXIT_SETUP)	/* live_start(): never sampled */
		rec_undo(lv);
out:
	out_release(lv);	/* after rec_undo(): it works in that directory */
	return ret;
}

int main(int argc, char **argv)
{
	static struct live lv;		/* big, and shared with the learner */
	struct options o;
	enum mode mode;
	int ret;

	rec_cmdline(argc, argv);	/* as typed, for convert's perf.data */
	ret = parse_options(argc, argv, &o, &lv.d);
	if (ret == GO_ON)
		ret = pick_mode(&o, &mode);
	if (ret != GO_ON)
		return ret;
	switch (mode) {
	case MODE_CONVERT:
		return run_convert(&o, &lv.d);
	case MODE_DECODE:
		return run_decode(&o, &lv.d);
	case MODE_LIVE:
		break;
	}
	return run_live(&o, &lv);
}
