/* SPDX-License-Identifier: GPL-2.0 */
/* The files a command reads and writes: -i, -o, --to, --threads. */
#ifndef PERFREGS_DUMP_CMD_IO_OPTS_H
#define PERFREGS_DUMP_CMD_IO_OPTS_H

#include <stdbool.h>
#include "options.h"

/* What record writes and report reads when no file is named. */
#define DEFAULT_RECORDING	"perfregs.prf"

/* What convert writes (--to). */
enum convert_to { TO_PERF, TO_PPROF };

struct io_opts {
	const char *input;		/* -i */
	const char *output;		/* -o */
	unsigned int threads;		/* --threads N; 0: not given */
	enum convert_to to;		/* --to */
	bool to_set;
};

extern const struct opt io_output_opts[];	/* -o */
extern const struct opt io_input_opts[];	/* -i */
extern const struct opt io_threads_opts[];	/* --threads */
extern const struct opt io_convert_opts[];	/* --to */

int io_opt(void *state, const struct opt *o, const char *as_typed, const char *arg);

struct sample_opts;
/*
 * What reads a recording takes no option that only sets up sampling (a
 * recording decodes with the settings it was made with), and --to is
 * convert's: each says so.  GO_ON, or EXIT_USAGE once it has said why.
 */
int io_refuse_sampling(const struct io_opts *io, const struct sample_opts *s);
int io_refuse_to(const struct io_opts *io);

#endif
