// SPDX-License-Identifier: GPL-2.0
/*
 * perfregs-dump: sample registers through /dev/perfregs and decode them.
 *
 *   perfregs-dump [OPTIONS] [-- COMMAND [ARGS]]
 *
 * See docs/perfregs-dump.1.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>
#include "dump.h"

#define VERSION "0.1"

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
};

static void usage(FILE *fp)
{
	fprintf(fp,
"usage: perfregs-dump [OPTIONS] [-- COMMAND [ARGS]]\n"
"Sample interrupt and user registers through /dev/perfregs and decode them.\n"
"\n"
"  -e, --event NAME      cpu-clock (default), task-clock, page-faults,\n"
"                        context-switches, cycles, instructions\n"
"  -c, --period N        events per sample (cpu-clock: ns; default 1000000)\n"
"  -F, --freq HZ         samples per second instead of a period\n"
"  -a, --all-cpus        sample every task on every CPU\n"
"  -p, --pid PID         sample this process and its threads\n"
"      --iregs[=MASK]    interrupt registers (default all; 0 for none)\n"
"      --uregs[=MASK]    user registers, 64-bit mask (default all)\n"
"  -m, --mmap-pages N    data pages per CPU, a power of two (default 64)\n"
"  -d, --duration SEC    stop after SEC seconds\n"
"  -o, --output FILE     write the decoded output to FILE\n"
"  -f, --format FMT      text (default) or json (JSON Lines)\n"
"      --summary         print only the summary\n"
"  -q, --quiet           no progress or summary on stderr\n"
"  -v, --verbose         more detail on stderr\n"
"  -h, --help            this text\n"
"  -V, --version         version of the tool and of the module ABI\n"
"\n"
"With COMMAND and neither -a nor -p, only COMMAND and its threads are\n"
"sampled.  Exit status: 0 ok, 1 usage, 2 device or configuration refused,\n"
"3 COMMAND could not start, 4 malformed records met.\n");
}

static int parse_u64(const char *s, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 0);
	return errno || !*s || *end || *s == '-' ? -1 : 0;
}

struct dump_state {
	struct opts o;
	FILE *out;
	uint64_t samples;
	bool only_summary;
};

static int on_record(void *arg, int cpu, const struct perfregs_rec_header *rec)
{
	struct dump_state *st = arg;

	if (rec->type == PERFREGS_REC_SAMPLE) {
		const struct perfregs_rec_sample *s = (const void *)rec;
		size_t nregs = __builtin_popcountll(s->iregs_mask) +
			       __builtin_popcountll(s->uregs_mask);

		if (rec->size < sizeof(*s) + 8 * nregs)
			return 0;	/* counted as data error by the caller */
		st->samples++;
		if (!st->only_summary)
			out_sample(st->out, &st->o, s);
	} else if (rec->type == PERFREGS_REC_LOST) {
		if (!st->only_summary)
			out_lost(st->out, &st->o, (const void *)rec, cpu);
	}
	return 0;
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
		return "opening it needs CAP_PERFMON or CAP_SYS_ADMIN: run as root";
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
		return "a value is out of range: --mmap-pages must be a power of "
		       "two up to 4096, the period nonzero";
	case ESRCH:
		return "no such process";
	case ENOENT:
	case EOPNOTSUPP:
		return "this event is not available here (no hardware PMU?)";
	case ENOMEM:
		return "not enough memory for the buffers: lower --mmap-pages";
	}
	return "check dmesg";
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "event", required_argument, NULL, 'e' },
		{ "period", required_argument, NULL, 'c' },
		{ "freq", required_argument, NULL, 'F' },
		{ "all-cpus", no_argument, NULL, 'a' },
		{ "pid", required_argument, NULL, 'p' },
		{ "iregs", optional_argument, NULL, 'I' },
		{ "uregs", optional_argument, NULL, 'U' },
		{ "mmap-pages", required_argument, NULL, 'm' },
		{ "duration", required_argument, NULL, 'd' },
		{ "output", required_argument, NULL, 'o' },
		{ "format", required_argument, NULL, 'f' },
		{ "summary", no_argument, NULL, 'S' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct dump_state st = { .o = { .format = FMT_TEXT, .event_name = "cpu-clock" } };
	struct perfregs_config cfg;
	struct prf_reader r;
	const char *output = NULL;
	double duration = 0;
	bool all_cpus = false, period_set = false;
	int pid = -1, c, ret, status = 0, exit_code = EXIT_OK;
	int go_pipe[2] = { -1, -1 };
	pid_t child = -1;
	struct timespec t0, now;
	uint64_t v;
	size_t i;

	prf_config_default(&cfg);
	while ((c = getopt_long(argc, argv, "+e:c:F:ap:m:d:o:f:qvhV", longopts,
				NULL)) != -1) {
		switch (c) {
		case 'e':
			for (i = 0; i < sizeof(events) / sizeof(events[0]); i++)
				if (!strcmp(optarg, events[i].name))
					break;
			if (i == sizeof(events) / sizeof(events[0])) {
				fprintf(stderr, "perfregs-dump: unknown event '%s'; "
					"see --help for the list\n", optarg);
				return EXIT_USAGE;
			}
			cfg.event = events[i].id;
			st.o.event_name = events[i].name;
			if (!period_set)
				cfg.period = events[i].default_period;
			break;
		case 'c':
		case 'F':
			if (parse_u64(optarg, &v) || !v) {
				fprintf(stderr, "perfregs-dump: -%c wants a positive "
					"number, not '%s'\n", c, optarg);
				return EXIT_USAGE;
			}
			cfg.period = v;
			if (c == 'F')
				cfg.flags |= PERFREGS_CF_FREQ;
			else
				cfg.flags &= ~PERFREGS_CF_FREQ;
			period_set = true;
			break;
		case 'a':
			all_cpus = true;
			break;
		case 'p':
			if (parse_u64(optarg, &v) || !v || v > INT32_MAX) {
				fprintf(stderr, "perfregs-dump: bad pid '%s'\n", optarg);
				return EXIT_USAGE;
			}
			pid = (int)v;
			break;
		case 'I':
		case 'U':
			v = PERFREGS_MASK_64;
			if (optarg && parse_u64(optarg, &v)) {
				fprintf(stderr, "perfregs-dump: --%s wants a register "
					"mask such as 0x1ff\n", c == 'I' ? "iregs" : "uregs");
				return EXIT_USAGE;
			}
			if (c == 'I') {
				cfg.iregs_mask = v;
			} else {
				cfg.uregs_mask_64 = v;
				cfg.uregs_mask_32 = v & PERFREGS_MASK_32;
			}
			break;
		case 'm':
			if (parse_u64(optarg, &v) || !v || (v & (v - 1)) || v > 4096) {
				fprintf(stderr, "perfregs-dump: --mmap-pages wants a "
					"power of two from 1 to 4096, not '%s'\n", optarg);
				return EXIT_USAGE;
			}
			cfg.data_pages = (uint32_t)v;
			break;
		case 'd': {
			char *end;

			duration = strtod(optarg, &end);
			if (*end || duration <= 0) {
				fprintf(stderr, "perfregs-dump: --duration wants "
					"seconds > 0, not '%s'\n", optarg);
				return EXIT_USAGE;
			}
			break;
		}
		case 'o':
			output = optarg;
			break;
		case 'f':
			if (!strcmp(optarg, "text")) {
				st.o.format = FMT_TEXT;
			} else if (!strcmp(optarg, "json")) {
				st.o.format = FMT_JSON;
			} else {
				fprintf(stderr, "perfregs-dump: --format is text or "
					"json, not '%s'\n", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'S':
			st.only_summary = true;
			break;
		case 'q':
			st.o.quiet = true;
			break;
		case 'v':
			st.o.verbose++;
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
	if (optind == argc && !all_cpus && pid < 0 && duration <= 0) {
		fprintf(stderr, "perfregs-dump: nothing to sample: give a COMMAND, "
			"-p PID, or -a with -d SECONDS\n");
		return EXIT_USAGE;
	}
	if (all_cpus && pid >= 0) {
		fprintf(stderr, "perfregs-dump: -a and -p exclude each other\n");
		return EXIT_USAGE;
	}

	st.out = stdout;
	if (output && !(st.out = fopen(output, "w"))) {
		fprintf(stderr, "perfregs-dump: cannot write %s: %s\n", output,
			strerror(errno));
		return EXIT_USAGE;
	}

	ret = prf_open(&r, NULL);
	if (ret) {
		fprintf(stderr, "perfregs-dump: cannot open %s: %s; %s\n",
			PERFREGS_DEVICE, strerror(-ret), open_hint(-ret));
		return EXIT_SETUP;
	}

	/* COMMAND waits on a pipe until sampling is on. */
	if (optind < argc) {
		if (pipe(go_pipe)) {
			perror("perfregs-dump: pipe");
			return EXIT_SETUP;
		}
		child = fork();
		if (child < 0) {
			perror("perfregs-dump: fork");
			return EXIT_COMMAND;
		}
		if (child == 0) {
			char b;

			close(go_pipe[1]);
			close(r.fd);
			if (read(go_pipe[0], &b, 1) != 1)
				_exit(127);
			execvp(argv[optind], argv + optind);
			fprintf(stderr, "perfregs-dump: cannot run %s: %s\n",
				argv[optind], strerror(errno));
			_exit(127);
		}
		close(go_pipe[0]);
		if (!all_cpus && pid < 0)
			pid = child;
	}
	cfg.pid = all_cpus ? -1 : pid;

	ret = prf_config(&r, &cfg);
	if (ret) {
		fprintf(stderr, "perfregs-dump: the module refused the "
			"configuration: %s; %s\n", strerror(-ret), config_hint(-ret));
		exit_code = EXIT_SETUP;
		goto out_kill;
	}
	ret = prf_start(&r);
	if (ret) {
		fprintf(stderr, "perfregs-dump: cannot start sampling: %s; %s\n",
			strerror(-ret), config_hint(-ret));
		exit_code = EXIT_SETUP;
		goto out_kill;
	}

	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGPIPE, SIG_IGN);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (child > 0) {
		if (write(go_pipe[1], "g", 1) != 1) {
			perror("perfregs-dump: starting COMMAND");
			exit_code = EXIT_COMMAND;
		}
		close(go_pipe[1]);
	}

	for (;;) {
		long n;
		double elapsed;

		prf_wait(&r, 100);
		n = prf_drain(&r, on_record, &st);
		if (n == -EBADMSG)
			exit_code = EXIT_DATA;
		if (interrupted)
			break;
		if (child > 0 && waitpid(child, &status, WNOHANG) == child) {
			child = -1;
			break;
		}
		clock_gettime(CLOCK_MONOTONIC, &now);
		elapsed = (now.tv_sec - t0.tv_sec) + (now.tv_nsec - t0.tv_nsec) / 1e9;
		if (duration > 0 && elapsed >= duration)
			break;
		if (child < 0 && pid > 0 && kill(pid, 0) && errno == ESRCH)
			break;
	}
	prf_stop(&r);
	if (prf_drain(&r, on_record, &st) == -EBADMSG)
		exit_code = EXIT_DATA;

	if (st.only_summary || st.o.format == FMT_JSON)
		out_summary(st.out, &st.o, st.samples, r.lost, prf_produced(&r));
	if (!st.o.quiet && !(st.only_summary && st.out == stdout))
		out_summary(stderr, &(struct opts){ .format = FMT_TEXT },
			    st.samples, r.lost, prf_produced(&r));
	if (exit_code == EXIT_DATA)
		fprintf(stderr, "perfregs-dump: malformed records were skipped; "
			"this is a bug in the module or a memory corruption\n");

out_kill:
	if (child > 0) {
		if (exit_code != EXIT_OK)
			kill(child, SIGKILL);
		close(go_pipe[1]);
		waitpid(child, &status, 0);
	}
	prf_close(&r);
	if (st.out != stdout && fclose(st.out)) {
		fprintf(stderr, "perfregs-dump: writing %s: %s\n", output,
			strerror(errno));
		return EXIT_DATA;
	}
	if (exit_code == EXIT_OK && WIFEXITED(status) && WEXITSTATUS(status) == 127)
		exit_code = EXIT_COMMAND;
	return exit_code;
}
