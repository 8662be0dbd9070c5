// SPDX-License-Identifier: GPL-2.0
/*
 * The sampling options: their table and their parsing into a session's
 * configuration (events, periods, register lists, SIMD, CPU lists).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../types.h"
#include "sample-opts.h"

enum {
	K_EVENT = 'e', K_PERIOD = 'c', K_ALL = 'a', K_CPU = 'C', K_PID = 'p',
	K_TID = 't', K_PAGES = 'm', K_DURATION = 'd',
	K_FREQ = 256, K_NO_INHERIT, K_IREGS, K_UREGS, K_SIMD, K_STACK, K_NMI_UNKNOWN,
	K_OVERWRITE, K_KCHAIN, K_NO_KCHAIN,
};

/* The table, with -F for --freq or not (report's -F is --fields). */
#define SAMPLE_OPTS(F)								\
	{ K_EVENT, 'e', "event", ARG_REQUIRED, "EVENT",				\
	  "cpu-clock (default), task-clock, page-faults,\n"			\
	  "context-switches, cycles, instructions, nmi,\n"			\
	  "mem:ADDR[:rwx] (hardware breakpoint, default w);\n"			\
	  "EVENT:u samples user mode only, EVENT:k kernel\n"			\
	  "mode only (not nmi or mem:)", OPT_SAMPLING },			\
	{ K_PERIOD, 'c', "period", ARG_REQUIRED, "N",				\
	  "events per sample (cpu-clock: ns; default 1000000)", OPT_SAMPLING },	\
	{ K_FREQ, F, "freq", ARG_REQUIRED, "HZ",				\
	  "samples per second instead of a period", 0 },			\
	{ K_ALL, 'a', "all-cpus", ARG_NONE, NULL,				\
	  "sample every task on every CPU", OPT_SAMPLING },			\
	{ K_CPU, 'C', "cpu", ARG_REQUIRED, "LIST",				\
	  "only these CPUs (e.g. 0,2-3); implies -a", OPT_SAMPLING },		\
	{ K_PID, 'p', "pid", ARG_REQUIRED, "PID",				\
	  "sample this process: its threads, and what it\n"			\
	  "forks from now on (see --no-inherit)", OPT_SAMPLING },		\
	{ K_TID, 't', "tid", ARG_REQUIRED, "TID",				\
	  "sample this thread only", OPT_SAMPLING },				\
	{ K_NO_INHERIT, 0, "no-inherit", ARG_NONE, NULL,			\
	  "-p or COMMAND: its threads only, not the\n"				\
	  "processes it forks (always so with -e nmi)", OPT_SAMPLING },		\
	{ K_IREGS, 'I', "iregs", ARG_OPTIONAL, "REGS",				\
	  "interrupt registers: names (ip,sp,bx,r12..) or a\n"			\
	  "mask; default all, 'none' for none (also\n"				\
	  "--intr-regs, as perf's)", OPT_SAMPLING },				\
	{ K_IREGS, 0, "intr-regs", ARG_OPTIONAL, "REGS",			\
	  "perf's name of --iregs", OPT_SAMPLING | OPT_ALIAS },			\
	{ K_UREGS, 0, "uregs", ARG_OPTIONAL, "REGS",				\
	  "user registers, same syntax; default all (also\n"			\
	  "--user-regs); also fs_base,gs_base (not in all)", OPT_SAMPLING },	\
	{ K_UREGS, 0, "user-regs", ARG_OPTIONAL, "REGS",			\
	  "perf's name of --uregs", OPT_SAMPLING | OPT_ALIAS },			\
	{ K_SIMD, 0, "simd", ARG_REQUIRED, "LIST",				\
	  "SIMD state of the user frame: xmm,ymm,zmm,opmask\n"			\
	  "(ymm takes xmm, zmm both), or all the CPU offers", OPT_SAMPLING },	\
	{ K_STACK, 0, "user-stack", ARG_REQUIRED, "SIZE",			\
	  "copy up to SIZE bytes of user stack per sample", OPT_SAMPLING },	\
	{ K_KCHAIN, 0, "kernel-callchain", ARG_OPTIONAL, "N",			\
	  "the kernel call chain of each kernel-mode sample,\n"		\
	  "at most N entries (1 to 127; default 127, perf's)", OPT_SAMPLING },	\
	{ K_NO_KCHAIN, 0, "no-kernel-callchain", ARG_NONE, NULL,		\
	  "no kernel call chains (the default)", OPT_SAMPLING },		\
	{ K_NMI_UNKNOWN, 0, "nmi-unknown", ARG_NONE, NULL,			\
	  "with -e nmi: also claim NMIs nobody else claims", OPT_SAMPLING },	\
	{ K_PAGES, 'm', "mmap-pages", ARG_REQUIRED, "N",			\
	  "data pages per CPU, a power of two (default 256)", OPT_SAMPLING },	\
	{ K_OVERWRITE, 0, "overwrite", ARG_NONE, NULL,				\
	  "keep only the newest records (read at the end)", OPT_SAMPLING },	\
	{ K_DURATION, 'd', "duration", ARG_REQUIRED, "SEC",			\
	  "stop after SEC seconds", OPT_SAMPLING },				\
	{ 0 }

const struct opt sample_opts_F[] = { SAMPLE_OPTS('F') };
const struct opt sample_opts_plain[] = { SAMPLE_OPTS(0) };

struct event_name {
	const char *name;
	uint32_t id;
	uint64_t default_period;
};

static const struct event_name events[] = {
#define PERFREGS_EVENT(name, id, type, config, period) { name, id, period },
#include <perfregs/events.h>
};

void sample_opts_init(struct sample_opts *s, bool freq_is_F)
{
	memset(s, 0, sizeof(*s));
	s->pid = -1;
	s->tid = -1;
	s->event_name = "cpu-clock";
	s->freq_is_F = freq_is_F;
	prf_config_default(&s->cfg);
	/*
	 * 1 MiB per CPU: the reader wakes at a quarter (256 KiB), as often
	 * as perf record's does at half of its 512 KiB, and 768 KiB stay
	 * free while it drains.  512 KiB woke it every 128 KiB, and a
	 * sample is 216 bytes with 16 registers (perf's 184: it keeps comm
	 * and image out of its samples): 2.3 times as often as perf's per
	 * sample.  Waking at half of 512 KiB lost samples at high rates.
	 */
	s->cfg.data_pages = 256;
}

int parse_u64(const char *s, uint64_t *v)
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

/* One register name of a list into *mask; -1 once it has said why not. */
static int reg_name(char *tok, uint64_t valid, uint64_t *mask)
{
	static const char *const n64[PERFREGS_REG_EXT_MAX] = {
		"ax", "bx", "cx", "dx", "si", "di", "bp", "sp", "ip", "flags",
		"cs", "ss", "ds", "es", "fs", "gs", "r8", "r9", "r10", "r11",
		"r12", "r13", "r14", "r15", "fs_base", "gs_base",
	};
	char *t;
	int reg;

	for (t = tok; *t; t++)
		*t = tolower((unsigned char)*t);
	reg = reg_lookup(n64, PERFREGS_REG_EXT_MAX, tok);
	/* rax/eax -> ax, rflags/eflags -> flags, but not r8.. */
	if (reg < 0 && (tok[0] == 'r' || tok[0] == 'e') && tok[1] &&
	    !isdigit((unsigned char)tok[1]))
		reg = reg_lookup(n64, PERFREGS_REG_MAX, tok + 1);
	if (reg < 0) {
		fprintf(stderr, "perfregs-dump: unknown register '%s'\n", tok);
		return -1;
	}
	if (!(valid & (1ULL << reg))) {
		fprintf(stderr, "perfregs-dump: %s is a register of the user frame "
			"only (--uregs)\n", tok);
		return -1;
	}
	*mask |= 1ULL << reg;
	return 0;
}

/*
 * "ip,sp,bx,r12" / "rip,esp" / "AX,R8" / "0x1ff" / "none" / "all" (perf's
 * registers); user registers also "fs_base,gs_base" (ABI minor 1, past
 * perf's numbering).  Says what is wrong and returns -1.
 */
static int parse_regs(const char *arg, bool user, uint64_t *mask)
{
	uint64_t valid = PERFREGS_MASK_64 | (user ? PERFREGS_MASK_BASES : 0);
	char *copy, *tok, *save = NULL;
	int ret = 0;

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
		ret = reg_name(tok, valid, mask);
		if (ret)
			break;
	}
	free(copy);
	return ret;
}

/* PERFREGS_SIMD_* by bit, as --simd and the messages name them */
static const char *const simd_names[] = { "xmm", "ymm", "zmm", "opmask" };
#define SIMD_NAMES	(sizeof(simd_names) / sizeof(simd_names[0]))

const char *simd_list(uint64_t mask, char *buf, size_t len)
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

int parse_cpus(const char *arg, uint64_t *bits, unsigned int nwords)
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

/*
 * The event named by the first len bytes of arg, or NULL.  A breakpoint
 * is named mem:ADDR (parse_mem_event()), never by its name alone.
 */
static const struct event_name *event_lookup(const char *arg, const char *mod)
{
	size_t i;

	for (i = 0; i < sizeof(events) / sizeof(events[0]); i++)
		if (events[i].id != PERFREGS_EV_BREAKPOINT &&
		    !strncmp(arg, events[i].name, mod ? (size_t)(mod - arg) :
			     strlen(arg) + 1) &&
		    (!mod || !events[i].name[mod - arg]))
			return &events[i];
	return NULL;
}

/*
 * -e EVENT: a name of events[], with perf's :u or :k, or mem:ADDR[:rwx].
 * Returns GO_ON, or EXIT_USAGE once it has said what is wrong.
 */
static int parse_event(const char *arg, struct sample_opts *s)
{
	struct perfregs_config *cfg = &s->cfg;
	const struct event_name *ev;
	const char *mod;

	if (!strncmp(arg, "mem:", 4)) {
		if (parse_mem_event(arg + 4, cfg)) {
			fprintf(stderr, "perfregs-dump: bad breakpoint '%s': "
				"use mem:ADDR[:rwx], e.g. mem:0x601040:w\n", arg);
			return EXIT_USAGE;
		}
		s->event_name = "mem";
		s->mode_set = true;
		return GO_ON;
	}
	mod = strchr(arg, ':');
	ev = event_lookup(arg, mod);
	if (!ev) {
		fprintf(stderr, "perfregs-dump: unknown event '%s'; "
			"see --help for the list\n", arg);
		return EXIT_USAGE;
	}
	/* perf's modifiers: :u user mode only, :k kernel mode only */
	cfg->flags &= ~(PERFREGS_CF_EXCLUDE_USER | PERFREGS_CF_EXCLUDE_KERNEL);
	if (mod && ev->id == PERFREGS_EV_NMI) {
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
	cfg->event = ev->id;
	s->event_name = ev->name;
	s->mode_set = mod || ev->id == PERFREGS_EV_NMI;
	if (!s->period_set)
		cfg->period = ev->default_period;
	return GO_ON;
}

/*
 * -c N or -F/--freq HZ: a period, or a frequency.  -F is --freq unless
 * it is the command's --fields (as perf record's -F and perf script's);
 * as_typed says how it was given.  Returns GO_ON, or EXIT_USAGE once it
 * has said what is wrong.
 */
static int parse_rate(const char *arg, bool freq, const char *as_typed,
		      struct sample_opts *s)
{
	bool short_F = !strcmp(as_typed, "-F");
	uint64_t v;

	if (parse_u64(arg, &v) || !v) {
		fprintf(stderr, "perfregs-dump: %s wants a positive number, not '%s'%s\n",
			!freq ? "-c" : short_F ? "-F" : "--freq", arg, short_F ?
			" (-F is --freq here; --fields LIST, or -F in report, picks "
			"the fields of the text output)" : "");
		return EXIT_USAGE;
	}
	s->cfg.period = v;
	if (freq)
		s->cfg.flags |= PERFREGS_CF_FREQ;
	else
		s->cfg.flags &= ~PERFREGS_CF_FREQ;
	if (freq && !s->sampling_opt)
		s->sampling_opt = s->freq_is_F ? "-F/--freq" : "--freq";
	s->period_set = true;
	return GO_ON;
}

static int parse_pid(const char *arg, int key, struct sample_opts *s)
{
	uint64_t v;

	if (parse_u64(arg, &v) || !v || v > INT32_MAX) {
		fprintf(stderr, "perfregs-dump: bad %s '%s'\n", key == K_PID ? "pid" : "tid",
			arg);
		return EXIT_USAGE;
	}
	if (key == K_PID)
		s->pid = (int)v;
	else
		s->tid = (int)v;
	return GO_ON;
}

static int parse_reg_opt(const char *arg, int key, struct perfregs_config *cfg)
{
	uint64_t v;

	if (parse_regs(arg, key == K_UREGS, &v)) {
		fprintf(stderr, "perfregs-dump: --%s wants register names "
			"such as ip,sp,bx,r12%s or a mask such as 0x1ff\n",
			key == K_IREGS ? "iregs" : "uregs",
			key == K_IREGS ? "" : ",fs_base,gs_base");
		return EXIT_USAGE;
	}
	if (key == K_IREGS) {
		cfg->iregs_mask = v;
	} else {
		cfg->uregs_mask_64 = v;
		cfg->uregs_mask_32 = v & (PERFREGS_MASK_32 | PERFREGS_MASK_BASES);
	}
	return GO_ON;
}

/* The options that take a number of their own: chain, pages, stack, duration. */
static int parse_amount(const char *arg, int key, struct sample_opts *s)
{
	uint64_t v;
	char *end;

	switch (key) {
	case K_KCHAIN:
		if (!arg) {
			v = PERFREGS_MAX_KCHAIN;
		} else if (parse_u64(arg, &v) || !v || v > PERFREGS_MAX_KCHAIN) {
			fprintf(stderr, "perfregs-dump: --kernel-callchain takes 1 to %u "
				"entries, not '%s'\n", PERFREGS_MAX_KCHAIN, arg);
			return EXIT_USAGE;
		}
		s->cfg.kchain_max = (uint32_t)v;
		s->kchain_set = true;
		break;
	case K_STACK:
		if (parse_u64(arg, &v) || v % 8 || v > PERFREGS_MAX_STACK_BYTES) {
			fprintf(stderr, "perfregs-dump: --user-stack wants a multiple "
				"of 8 up to %u, not '%s'\n", PERFREGS_MAX_STACK_BYTES, arg);
			return EXIT_USAGE;
		}
		s->cfg.stack_bytes = (uint32_t)v;
		break;
	case K_PAGES:
		if (parse_u64(arg, &v) || !v || (v & (v - 1)) || v > PERFREGS_MAX_DATA_PAGES) {
			fprintf(stderr, "perfregs-dump: --mmap-pages wants a "
				"power of two from 1 to %u, not '%s'\n",
				PERFREGS_MAX_DATA_PAGES, arg);
			return EXIT_USAGE;
		}
		s->cfg.data_pages = (uint32_t)v;
		break;
	case K_DURATION:
		s->duration = strtod(arg, &end);
		if (*end || s->duration <= 0) {
			fprintf(stderr, "perfregs-dump: --duration wants "
				"seconds > 0, not '%s'\n", arg);
			return EXIT_USAGE;
		}
		break;
	}
	return GO_ON;
}

int sample_opt(void *state, const struct opt *o, const char *as_typed, const char *arg)
{
	struct sample_opts *s = state;
	uint64_t v;

	if ((o->flags & OPT_SAMPLING) && !s->sampling_opt) {
		/* as the messages name it: --iregs for -I and --intr-regs too */
		if (o->key == K_IREGS || o->key == K_UREGS)
			snprintf(s->sampling_buf, sizeof(s->sampling_buf), "--%s",
				 o->key == K_IREGS ? "iregs" : "uregs");
		else if (o->short_name)
			snprintf(s->sampling_buf, sizeof(s->sampling_buf), "-%c/--%s",
				 o->short_name, o->long_name);
		else
			snprintf(s->sampling_buf, sizeof(s->sampling_buf), "--%s",
				 o->long_name);
		s->sampling_opt = s->sampling_buf;
	}
	switch (o->key) {
	case K_EVENT:
		return parse_event(arg, s);
	case K_PERIOD:
	case K_FREQ:
		return parse_rate(arg, o->key == K_FREQ, as_typed, s);
	case K_ALL:
		s->all_cpus = true;
		break;
	case K_CPU:
		s->cpu_list = arg;
		s->all_cpus = true;
		break;
	case K_PID:
	case K_TID:
		return parse_pid(arg, o->key, s);
	case K_IREGS:
	case K_UREGS:
		return parse_reg_opt(arg, o->key, &s->cfg);
	case K_SIMD:
		if (parse_simd(arg, &v, &s->simd_all)) {
			fprintf(stderr, "perfregs-dump: --simd wants SIMD components, "
				"xmm,ymm,zmm,opmask, or all (what this CPU offers), "
				"not '%s'\n", arg);
			return EXIT_USAGE;
		}
		s->cfg.simd_mask = v;
		break;
	case K_KCHAIN:
	case K_STACK:
	case K_PAGES:
	case K_DURATION:
		return parse_amount(arg, o->key, s);
	case K_NO_KCHAIN:
		s->cfg.kchain_max = 0;
		s->kchain_set = true;
		break;
	case K_NMI_UNKNOWN:
		s->cfg.flags |= PERFREGS_CF_NMI_UNKNOWN;
		break;
	case K_OVERWRITE:
		s->cfg.flags |= PERFREGS_CF_OVERWRITE;
		break;
	case K_NO_INHERIT:
		s->no_inherit = true;
		break;
	}
	return GO_ON;
}
