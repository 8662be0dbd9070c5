// SPDX-License-Identifier: GPL-2.0
/*
 * A live run: sample a COMMAND, a process or the CPUs, and decode the
 * samples as they come, record them (-o), or both.
 */
#define _GNU_SOURCE	/* execvpe */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include "../images.h"
#include "../ksyms.h"
#include "../aspace.h"
#include "../sideband.h"
#include "../output.h"
#include "../rec-write.h"
#include "../session.h"
#include "../learnt.h"
#include "../diag.h"
#include "../jitmap.h"
#include "diag.h"
#include "decode.h"
#include "debuginfod.h"
#include "live.h"

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	interrupted = sig;
}

static double elapsed_since(const struct timespec *t0)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - t0->tv_sec) + (now.tv_nsec - t0->tv_nsec) / 1e9;
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

	sb_drain(lv->sb, &lv->d.m);
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
	lv->d.m.sideband = true;
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
		pthread_mutex_lock(&lv->d.m.learn_lock);
		if (!space_seed(&lv->d.m, (uint32_t)child))
			space_begin(&lv->d.m, (uint32_t)child);	/* its exec will come */
		pthread_mutex_unlock(&lv->d.m.learn_lock);
	} else if (pid > 0) {
		/* events from now on; what it has mapped so far from /proc */
		pthread_mutex_lock(&lv->d.m.learn_lock);
		space_seed(&lv->d.m, (uint32_t)pid);
		pthread_mutex_unlock(&lv->d.m.learn_lock);
	}
	lv->r->before_records = apply_sideband;
	lv->r->before_arg = lv;
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
static int live_prepare(struct live_args *o, struct live *lv)
{
	struct session *d = &lv->d;

	if (!o->command && !o->s->all_cpus && o->s->pid < 0 && o->s->tid < 0) {
		fprintf(stderr, "perfregs-dump: nothing to sample: give a COMMAND, "
			"-p PID, -t TID, or -a (with -d SECONDS)\n");
		return EXIT_USAGE;
	}
	if ((o->s->all_cpus && (o->s->pid > 0 || o->s->tid > 0)) || (o->s->pid > 0 && o->s->tid > 0)) {
		fprintf(stderr, "perfregs-dump: -a/-C, -p and -t exclude each other\n");
		return EXIT_USAGE;
	}
	if ((o->s->cfg.flags & PERFREGS_CF_NMI_UNKNOWN) && o->s->cfg.event != PERFREGS_EV_NMI) {
		fprintf(stderr, "perfregs-dump: --nmi-unknown goes with -e nmi\n");
		return EXIT_USAGE;
	}
	/* -g's kernel chains, as perf record -g's: where the kernel is sampled */
	if (o->s->fp_kchain && !o->s->kchain_set &&
	    !(o->s->cfg.flags & PERFREGS_CF_EXCLUDE_KERNEL))
		o->s->cfg.kchain_max = o->s->cfg.uchain_max;
	if (o->s->cfg.kchain_max && (o->s->cfg.flags & PERFREGS_CF_EXCLUDE_KERNEL)) {
		fprintf(stderr, "perfregs-dump: --kernel-callchain walks the kernel's stack of "
			"kernel-mode samples, and %s:u samples user mode only: drop one\n",
			d->o.event_name);
		return EXIT_USAGE;
	}
	if (o->s->cpu_list) {
		if (parse_cpus(o->s->cpu_list, o->s->cpus, sizeof(o->s->cpus) / 8)) {
			fprintf(stderr, "perfregs-dump: bad CPU list '%s': use e.g. "
				"0,2-3\n", o->s->cpu_list);
			return EXIT_USAGE;
		}
		o->s->cfg.cpus_ptr = (uintptr_t)o->s->cpus;
		o->s->cfg.cpus_bytes = sizeof(o->s->cpus);
	}
	if (o->s->tid > 0) {
		/* the module targets processes: take the thread's, filter here */
		char path[64], line[256];
		FILE *fp;

		snprintf(path, sizeof(path), "/proc/%d/status", o->s->tid);
		fp = fopen(path, "r");
		while (fp && fgets(line, sizeof(line), fp))
			if (sscanf(line, "Tgid: %d", &o->s->pid) == 1)
				break;
		if (fp)
			fclose(fp);
		if (o->s->pid <= 0) {
			fprintf(stderr, "perfregs-dump: no thread %d\n", o->s->tid);
			return EXIT_SETUP;
		}
		lv->filter_tid = o->s->tid;
	}
	lv->tee = o->d->tee;
	if (o->output && !strcmp(o->output, "-") && o->d->tee &&
	    (!d->o.flamegraph || d->o.format == FMT_FOLDED || d->o.summary)) {
		fprintf(stderr, "perfregs-dump: -o - writes the recording to the standard "
			"output: it takes no -f or --summary, which print there too; "
			"decode it on the way (-o - | perfregs-dump report -i -)\n");
		return EXIT_USAGE;
	}
	if (o->output) {
		int fd = record_file_open(&lv->file, o->output);

		if (fd < 0)
			return EXIT_IO;
		lv->rec = rec_create_fd(fd, lv->file.path, &o->s->cfg, d->o.event_name);
		if (!lv->rec) {
			fprintf(stderr, "perfregs-dump: cannot write %s: %s\n", lv->file.path,
				strerror(errno));
			return EXIT_IO;
		}
		/* what is learnt is queued, and goes to the file before the samples */
		learnt_init(&d->m);
		lv->rec_tool = rec_tool(lv->rec);
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
static int command_fork(struct live_args *o, struct live *lv, struct live_run *run)
{
	char **env;	/* the user's, $DEBUGINFOD_URLS too */
	int go_pipe[2];

	image_prelearn(&lv->d.m, o->command[0]);
	if (pipe(go_pipe)) {
		perror("perfregs-dump: pipe");
		return EXIT_SETUP;
	}
	env = debuginfod_child_env();
	run->child = fork();
	if (run->child < 0) {
		perror("perfregs-dump: fork");
		debuginfod_child_env_free(env);
		return EXIT_COMMAND;
	}
	if (run->child == 0) {
		char b;

		close(go_pipe[1]);
		close(run->r.fd);
		signal(SIGPIPE, SIG_DFL);	/* exec keeps SIG_IGN */
		if (read(go_pipe[0], &b, 1) != 1)
			_exit(127);
		execvpe(o->command[0], o->command, env);
		fprintf(stderr, "perfregs-dump: cannot run %s: %s\n",
			o->command[0], strerror(errno));
		_exit(127);
	}
	debuginfod_child_env_free(env);
	close(go_pipe[0]);
	run->go_fd = go_pipe[1];
	if (!o->s->all_cpus && o->s->pid < 0)
		o->s->pid = run->child;
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
static bool user_only_fallback(const struct live_args *o, struct live *lv,
			       struct live_run *run, struct perfregs_config *cfg, int ret)
{
	char paranoid[16];
	int err;

	if (!run->r.witness_errno || (ret != -EACCES && ret != -EPERM) || o->s->mode_set ||
	    (cfg->flags & (PERFREGS_CF_EXCLUDE_KERNEL | PERFREGS_CF_EXCLUDE_USER)) ||
	    (cfg->kchain_max && o->s->kchain_set))	/* asked for kernel chains by name */
		return false;
	read_line("/proc/sys/kernel/perf_event_paranoid", paranoid, sizeof(paranoid));
	if (atoi(paranoid) <= 1 || lockdown_confidentiality())
		return false;
	cfg->flags |= PERFREGS_CF_EXCLUDE_KERNEL;
	cfg->kchain_max = 0;	/* -g's: user chains only, as perf's fallback */
	if (!lv->d.o.quiet)
		fprintf(stderr, "perfregs-dump: kernel.perf_event_paranoid is %s: sampling "
			"user mode only (%s:u), as perf record falls back; CAP_PERFMON or a "
			"paranoid of 1 samples kernel mode too\n", paranoid,
			lv->d.o.event_name);
	err = lv->rec ? rec_update_config(lv->rec, cfg) : 0;
	if (err == -ESPIPE)
		fprintf(stderr, "perfregs-dump: cannot note user mode only in %s: its "
			"header went out already, and a pipe is not rewritten: it says "
			"user and kernel mode\n", lv->file.path);
	else if (err)
		fprintf(stderr, "perfregs-dump: cannot note user mode only in %s: %s\n",
			lv->file.path, strerror(-err));
	return true;
}

/* --kernel-callchain, to a module before them (which says E2BIG). */
static void kchain_refused(uint32_t minor)
{
	fprintf(stderr, "perfregs-dump: this perfregs module (ABI minor %u) has no kernel "
		"call chains: load a newer one, or drop --kernel-callchain\n", minor);
}

/*
 * What the session asks of the module beyond ABI 2.0 (the FS and GS
 * base, SIMD state: minor 1; kernel call chains: minor 2), against what
 * the module speaks and offers, before it is configured: one of minor 0
 * would refuse the bases as a bad mask (EINVAL), and a simd_mask, as one
 * of minor 1 a kchain_max, as a configuration too large (E2BIG), and one
 * that lacks a SIMD component says EOPNOTSUPP; here each is named.
 * --simd all becomes what it offers.  The recording's header says the
 * module's ABI and the session as it goes to the module.
 * Returns EXIT_OK, or EXIT_SETUP once it has said what the module or
 * the CPU cannot do.
 */
static int module_fit(struct live_args *o, struct live *lv, const struct prf_reader *r)
{
	struct perfregs_config *cfg = &o->s->cfg;
	const struct perfregs_version *v = &r->version;
	uint64_t offered = v->size >= PERFREGS_VERSION_SIZE_VER1 ? v->simd_offered : 0;
	bool bases = (cfg->uregs_mask_64 | cfg->uregs_mask_32) & PERFREGS_MASK_BASES;
	bool simd = cfg->simd_mask || o->s->simd_all;
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
	if (cfg->kchain_max && v->minor < 2 && o->s->kchain_set) {
		kchain_refused(v->minor);
		return EXIT_SETUP;
	}
	if (cfg->uchain_max && v->minor < 3) {	/* -g's kernel chains came with it */
		fprintf(stderr, "perfregs-dump: this perfregs module (ABI minor %u) has no "
			"frame-pointer call chains: load a newer one, or use --call-graph "
			"dwarf\n", v->minor);
		return EXIT_SETUP;
	}
	if (o->s->simd_all) {
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
static int live_start(struct live_args *o, struct live *lv, struct live_run *run)
{
	struct perfregs_config *cfg = &o->s->cfg;
	struct session *d = &lv->d;
	char hint[320];
	int ret;

	if (module_fit(o, lv, &run->r) != EXIT_OK)
		return EXIT_SETUP;
	cfg->pid = o->s->all_cpus ? -1 : o->s->pid;
	/* perf record's default: what the process forks is sampled too */
	if (cfg->pid >= 0 && !o->s->no_inherit && cfg->event != PERFREGS_EV_NMI)
		cfg->flags |= PERFREGS_CF_INHERIT;

	ret = prf_config(&run->r, cfg);
	if (ret && user_only_fallback(o, lv, run, cfg, ret))
		ret = prf_config(&run->r, cfg);
	if (ret == -E2BIG && cfg->kchain_max) {	/* a module that did not say its minor */
		kchain_refused(run->r.version.minor);
		return EXIT_SETUP;
	}
	if (ret) {
		if (run->r.witness_errno)
			fprintf(stderr, "perfregs-dump: perf_event_open(2) refused "
				"this event for this target: %s; %s\n",
				strerror(-ret), witness_hint(-ret, cfg, hint, sizeof(hint)));
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
		ksyms_load(&d->m);
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
	if (!(cfg->flags & PERFREGS_CF_OVERWRITE)) {	/* overwrite mode reads only at the end */
		lv->learner.d = d;
		lv->learner.r = &run->r;
		lv->learner.filter_tid = lv->filter_tid;
		learner_start(&lv->learner);
	}
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
static void live_loop(const struct live_args *o, struct live *lv, struct live_run *run)
{
	const struct perfregs_config *cfg = &o->s->cfg;
	struct session *d = &lv->d;
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

		if (o->s->duration > 0) {
			t = o->s->duration - elapsed_since(&t0);
			if (t * 1000 < ms)
				ms = t > 0 ? (int)(t * 1000) + 1 : 0;
		}
		ev = prf_wait_also(&run->r, waitfd, ms);
		if (!(cfg->flags & PERFREGS_CF_OVERWRITE) && live_drain(&run->r, lv) == -EBADMSG)
			run->exit_code = EXIT_DATA;
		sb_drain(lv->sb, &d->m);	/* keep its rings from filling */
		if (!d->o.quiet)
			diag_print(&d->m, stderr);
		if (interrupted)
			break;
		if (run->child > 0 && waitpid(run->child, &run->status, WNOHANG) == run->child) {
			run->child = -1;
			break;
		}
		t = elapsed_since(&t0);
		if (o->s->duration > 0 && t >= o->s->duration)
			break;
		if (run->child < 0 && o->s->pid > 0 && ev > 0 && (ev & POLLHUP))
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
	learner_stop(&lv->learner);
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
static void live_finish(const struct live_args *o, struct live *lv, struct live_run *run)
{
	struct session *d = &lv->d;
	struct prf_reader *r = &run->r;
	bool verified = false;
	int ret, i;

	if (live_drain(r, lv) == -EBADMSG)
		run->exit_code = EXIT_DATA;
	/* the JIT maps to their ends, for the recording: lines written after a sample */
	if (lv->rec && d->o.symbols)
		jitmap_final(&d->m);
	if (!d->o.quiet)
		diag_print(&d->m, stderr);

	if (lv->rec) {
		uint64_t lost[PERFREGS_LOST_MAX];

		for (i = 0; i < PERFREGS_LOST_MAX; i++)
			lost[i] = prf_lost_total(r, i);
		session_forward_learnt(d, lv->rec_tool);	/* what came after the last sample */
		if (rec_close(lv->rec, prf_produced(r), lost) || lv->rec_error) {
			fprintf(stderr, "perfregs-dump: writing %s failed: %s\n",
				lv->file.path, strerror(errno ? errno : EIO));
			run->exit_code = EXIT_IO;
		} else if (lv->spans) {
			ret = live_verify(o->output, d, lv, prf_produced(r));
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
	if (d->m.sb_lost && !d->o.quiet)
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
	learner_stop(&lv->learner);
	if (run->child > 0) {
		if (run->exit_code != EXIT_OK && run->exit_code != EXIT_DATA)
			kill(run->child, SIGKILL);
		if (run->go_fd >= 0)
			close(run->go_fd);
		waitpid(run->child, &run->status, 0);
	}
	prf_close(&run->r);
	sb_close(lv->sb);
	session_free(&lv->d);
	free(lv->copy);
	lv->copy = NULL;
	if (run->exit_code == EXIT_OK && WIFEXITED(run->status) &&
	    WEXITSTATUS(run->status) == 127)
		run->exit_code = EXIT_COMMAND;
	return run->exit_code;
}

/* Sample, live: decode as it comes, record (-o, record), or both (-f). */
static int run_live(struct live_args *o, struct live *lv)
{
	struct live_run run = { .child = -1, .go_fd = -1, .exit_code = EXIT_OK };
	struct session *d = &lv->d;
	int ret;

	record_file_init(&lv->file);
	ret = live_prepare(o, lv);
	if (ret != GO_ON)
		goto out;
	d->m.live = true;
	pthread_mutex_init(&d->m.learn_lock, NULL);
	/* from here on Ctrl-C ends the run cleanly, with its summary */
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGPIPE, SIG_IGN);

	ret = prf_open(&run.r, NULL);
	if (ret) {
		fprintf(stderr, "perfregs-dump: cannot open %s: %s; %s\n",
			PERFREGS_DEVICE, strerror(-ret), open_hint(-ret));
		record_file_undo(&lv->file, &lv->rec);
		ret = EXIT_SETUP;
		goto out;
	}
	lv->r = &run.r;
	if (o->command) {
		ret = command_fork(o, lv, &run);
		if (ret != GO_ON) {
			record_file_undo(&lv->file, &lv->rec);
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
		record_file_undo(&lv->file, &lv->rec);
out:
	record_file_release(&lv->file);	/* after rec_undo(): it works in that directory */
	return ret;
}


int live_run(struct live_args *a)
{
	struct live *lv = calloc(1, sizeof(*lv));	/* big, and shared with the learner */
	int ret;

	if (debuginfod_refused_live(a->d))
		return EXIT_USAGE;
	if (!lv) {
		fprintf(stderr, "perfregs-dump: out of memory\n");
		return EXIT_SETUP;
	}
	lv->d.o = a->d->o;
	lv->d.o.event_name = a->s->event_name;
	lv->d.m.symfs = a->d->o.symfs;
	lv->d.m.demangle = a->d->o.demangle;
	lv->d.m.inline_frames = a->d->o.inlines;
	lv->d.out = stdout;
	ret = run_live(a, lv);
	free(lv);
	return ret;
}
