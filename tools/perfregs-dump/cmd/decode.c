// SPDX-License-Identifier: GPL-2.0
/*
 * Decoding a recording to the standard output (script, report, -i), and
 * what ends every decode: the stacks printed, the side-band's losses.
 */
#define _GNU_SOURCE	/* sched_getaffinity */
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>
#include "../output.h"
#include "../folded.h"
#include "../flame.h"
#include "../session.h"
#include "../pool.h"
#include "../diag.h"
#include "../filter.h"
#include "diag.h"
#include "decode.h"

/* Side-band events were lost: what that means for the names. */
void sb_lost_note(const struct session *d)
{
	fprintf(stderr, "perfregs-dump: the side-band lost %" PRIu64 " events: samples "
		"in mappings made then may go unnamed, or be named by what was "
		"mapped there before\n", d->m.sb_lost);
}

/* -v after -i: where and how the recording was made, and what it held. */
void verbose_recording(const char *path, const struct session *d)
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
	fprintf(stderr, "perfregs-dump: %zu kernel symbols, %u vDSO images\n", d->m.nksyms,
		d->m.nblobs);
}

/*
 * The stacks, once all samples are in: --flamegraph's SVG first, as
 * folded_print() empties the table, then -f folded's lines.  Returns
 * EXIT_OK or EXIT_IO.
 */
int print_stacks(struct session *d)
{
	int ret = EXIT_OK;
	char err[512];

	if (d->o.flamegraph) {
		if (flame_write(d, d->o.flamegraph, err, sizeof(err))) {
			fprintf(stderr, "perfregs-dump: %s\n", err);
			ret = EXIT_IO;
		} else {
			if (d->folded_dropped && d->o.format != FMT_FOLDED)
				fprintf(stderr, "perfregs-dump: out of memory: %" PRIu64 " samples "
					"are missing from the flame graph\n", d->folded_dropped);
			if (!d->o.quiet && !strcmp(d->o.flamegraph, "-"))
				fprintf(stderr, "perfregs-dump: wrote a flame graph to the standard "
					"output: open the file it went to in a browser\n");
			else if (!d->o.quiet)
				fprintf(stderr, "perfregs-dump: wrote %s, a flame graph: open it "
					"in a browser\n", d->o.flamegraph);
		}
	}
	if (d->o.format == FMT_FOLDED) {
		if (d->folded_dropped)
			fprintf(stderr, "perfregs-dump: out of memory: %" PRIu64 " samples are "
				"missing from the folded stacks\n", d->folded_dropped);
		folded_print(d, d->out);
	}
	return ret;
}

/*
 * --threads' default: a thread per CPU this process may run on (its
 * affinity: taskset, a cgroup's cpuset), at most POOL_THREADS_MAX.
 */
unsigned int default_threads(void)
{
	cpu_set_t set;
	long n = 0;

	if (!sched_getaffinity(0, sizeof(set), &set))
		n = CPU_COUNT(&set);
	if (n <= 0)
		n = sysconf(_SC_NPROCESSORS_ONLN);
	return n < 1 ? 1 : n > POOL_THREADS_MAX ? POOL_THREADS_MAX : (unsigned int)n;
}

static volatile sig_atomic_t decode_stop;

static void decode_on_signal(int sig)
{
	decode_stop = sig;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* On a terminal, from the first second on, twice a second: how far, how fast. */
static void decode_progress(struct session *d, uint64_t off, uint64_t size)
{
	uint64_t now = now_ns();
	double s = (double)(now - d->progress_t0) / 1e9;

	if (now < d->progress_next)
		return;
	d->progress_next = now + 500000000ULL;
	if (size && size != UINT64_MAX)
		fprintf(stderr, "\rperfregs-dump: %.0f s, %" PRIu64 " samples, %.0f a second, "
			"%" PRIu64 "%% of the recording\033[K", s, d->samples,
			(double)d->samples / s, off / (size / 100 + 1));
	else
		fprintf(stderr, "\rperfregs-dump: %.0f s, %" PRIu64 " samples, %.0f a second, "
			"%" PRIu64 " MiB read\033[K", s, d->samples, (double)d->samples / s,
			off >> 20);
	d->progress_shown = true;
}

void decode_watch(struct session *d)
{
	struct sigaction sa = { .sa_handler = decode_on_signal };

	/* a read restarts, and a second Ctrl-C ends the tool at once */
	sa.sa_flags = SA_RESTART | SA_RESETHAND;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	d->stop = &decode_stop;
	if (d->o.quiet || !isatty(STDERR_FILENO))
		return;
	d->progress = decode_progress;
	d->progress_t0 = now_ns();
	d->progress_next = d->progress_t0 + 1000000000ULL;
}

void decode_watch_end(struct session *d)
{
	if (d->progress_shown)
		fputs("\r\033[K", stderr);	/* the progress line makes way */
	d->progress_shown = false;
	if (d->progress)
		d->progress_elapsed = now_ns() - d->progress_t0;
	d->progress = NULL;
}

/*
 * Decode a recording, its samples printed by threads workers (pool.c);
 * by this thread alone with 1, or when nothing of a sample is printed
 * (--summary).  Without --threads (later), the workers start only once
 * this thread has decoded alone for a while (pool_later()).
 */
static int decode_file_run(const char *path, struct session *d, unsigned int threads,
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
	decode_watch(d);
	ret = rec_decode(path, d, &produced, err, sizeof(err));
	decode_watch_end(d);
	if (ret == -EPROTO) {	/* no recording: nothing decoded to sum up */
		if (d->pool)
			pool_end(d);
		fprintf(stderr, "perfregs-dump: %s\n", err);
		return EXIT_DATA;
	}
	if (!d->o.quiet)
		diag_print(&d->m, stderr);
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
	if (d->m.sb_lost && !d->o.quiet)
		sb_lost_note(d);
	/* what went wrong first, then the sum of what was decoded before it */
	if (ret == -EINTR)
		fprintf(stderr, "perfregs-dump: interrupted: the records before it were "
			"decoded\n");
	else if (ret == -EIO)
		fprintf(stderr, "perfregs-dump: %s\n", err);
	else if (ret)
		fprintf(stderr, "perfregs-dump: %s; the records before it were decoded\n",
			err);
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
	return ret == -EIO ? EXIT_IO : ret == -EINTR ? EXIT_INTERRUPTED :
	       ret ? EXIT_DATA : EXIT_OK;
}

int decode_file(const char *path, struct session *d, unsigned int threads, bool later)
{
	int ret = decode_file_run(path, d, threads, later);

	session_free(d);
	return ret;
}

/* The first and the last sample's time of a recording (--time with percents). */
struct time_span_tool {
	struct tool tool;
	uint64_t first, last;
	bool any;
};

static void span_sample(struct tool *t, int cpu, const struct perfregs_rec_sample *s,
			const struct sample_stack *st)
{
	struct time_span_tool *ts = container_of(t, struct time_span_tool, tool);

	if (!ts->any || s->time < ts->first)
		ts->first = s->time;
	if (!ts->any || s->time > ts->last)
		ts->last = s->time;
	ts->any = true;
}

int decode_filter_prepare(struct filter *f, const char *path)
{
	struct time_span_tool ts = { .tool = { .sample = span_sample } };
	struct session *d;
	struct stat st;
	uint64_t produced;
	char err[512];
	int ret;

	if (!f || !f->pct)
		return EXIT_OK;
	if (!strcmp(path, "-") || stat(path, &st) || !S_ISREG(st.st_mode)) {
		fprintf(stderr, "perfregs-dump: --time in percents reads the recording "
			"twice: it wants a file, not '%s'\n", path);
		return EXIT_USAGE;
	}
	d = calloc(1, sizeof(*d));
	if (!d) {
		fprintf(stderr, "perfregs-dump: out of memory\n");
		return EXIT_IO;
	}
	d->o.quiet = true;
	d->o.summary = true;
	ret = session_decode(path, d, &ts.tool, &produced, err, sizeof(err));
	session_free(d);
	free(d);
	if (ret == -EIO) {
		fprintf(stderr, "perfregs-dump: %s\n", err);
		return EXIT_IO;
	}
	/* a malformed record: the decode proper says so; the span is of those before */
	filter_time_base(f, ts.first, ts.last);
	return EXIT_OK;
}
