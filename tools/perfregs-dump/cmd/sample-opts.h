/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The sampling options (record, a live report, the tool without a
 * command): event, period, target, registers, stack, rings.
 */
#ifndef PERFREGS_DUMP_CMD_SAMPLE_OPTS_H
#define PERFREGS_DUMP_CMD_SAMPLE_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "../../lib/libperfregs.h"
#include "options.h"

struct sample_opts {
	struct perfregs_config cfg;
	const char *event_name;		/* as samples are labelled */
	const char *cpu_list;		/* -C's, parsed into cpus when sampling */
	uint64_t cpus[PERFREGS_MAX_CPU_BYTES / 8];
	int pid, tid;			/* -p, -t; -1: none */
	double duration;		/* -d; 0: none */
	bool all_cpus, no_inherit;
	bool mode_set;			/* -e's :u/:k given, or nmi, mem: (none taken) */
	bool simd_all;			/* --simd all: what the module offers */
	bool period_set;		/* -c or --freq given: -e keeps it */
	bool freq_is_F;			/* -F is --freq in this command */
	bool kchain_set;		/* --kernel-callchain or --no-kernel-callchain given */
	bool fp_kchain;			/* --call-graph fp: kernel chains too, if allowed */
	const char *sampling_opt;	/* the first option that only sets up sampling */
	char sampling_buf[64];		/* its name, when made here */
};

/*
 * The user stack --call-graph fp copies for the leaf's CFI: the words
 * from the SP up to where the leaf's frames meet the chain (8 bytes for
 * libc's read() of a 64-bit program, about 48 for an i386 one through
 * __kernel_vsyscall), and a frameless leaf's locals.  Each byte is an
 * instruction of the sample under -icount (bench/regsets, fpchain in
 * fp_c: 2481 instructions a sample with 512 bytes, 2225 with 256; perf
 * -g's 3642): on hardware a rep movsb of either is a few cycles.
 */
#define FP_LEAF_STACK	256

/* What the tables give the handler: sample_opt(). */
extern const struct opt sample_opts_F[];	/* -F is --freq (record, none) */
extern const struct opt sample_opts_plain[];	/* --freq only (report: -F is --fields) */

void sample_opts_init(struct sample_opts *s, bool freq_is_F);
int sample_opt(void *state, const struct opt *o, const char *as_typed, const char *arg);

/* "0,2-3" into a bitmap of 64-bit words */
int parse_cpus(const char *arg, uint64_t *bits, unsigned int nwords);
int parse_u64(const char *s, uint64_t *v);
/* A PERFREGS_SIMD_* mask as "xmm,ymm" into buf, "none" when empty. */
const char *simd_list(uint64_t mask, char *buf, size_t len);

#endif
