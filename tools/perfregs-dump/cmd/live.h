/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A live run: sample a COMMAND, a process or the CPUs, and decode the
 * samples as they come, record them (-o), or both.
 */
#ifndef PERFREGS_DUMP_CMD_LIVE_H
#define PERFREGS_DUMP_CMD_LIVE_H

#include "../types.h"
#include "sample-opts.h"
#include "decode-opts.h"
#include "learner.h"
#include "record-file.h"

/* What a live run is asked to do. */
struct live_args {
	struct sample_opts *s;
	struct decode_opts *d;
	const char *output;		/* -o FILE or -; NULL: decode only */
	char **command;			/* COMMAND [ARGS], NULL-terminated; NULL if none */
};

/* Sample, live: decode as it comes, record (-o), or both (-f). Returns the exit status. */
int live_run(struct live_args *o);

/* What a live run holds, shared with its learner thread (live.c, live-records.c). */
struct live {
	struct session d;
	struct learnt memo[LEARNT_CPUS];	/* for on_record() */
	struct learner learner;		/* its own memo */
	struct prf_reader *r;
	struct sideband *sb;		/* perf's side-band events, if open */
	struct recorder *rec;
	bool spans;		/* only recording, every record: raw runs (on_raw_span) */
	int filter_tid;
	int rec_error;
	bool tee;		/* -o with -f: record and print */
	struct record_file file;	/* -o's */
	struct tool *rec_tool;		/* the recorder, as the session's tool */
	/* only recording: what on_raw_span() saw, for progress and summary */
	uint64_t raw_samples;
	uint64_t raw_lost[PERFREGS_LOST_MAX];
	uint8_t *copy;		/* on_record()'s copy of a ring's record */
	size_t copy_cap;
};

/* prf_drain()'s and prf_drain_raw()'s callbacks, and the check after a recording */
long live_drain(struct prf_reader *r, struct live *lv);
int live_verify(const char *path, struct session *live, const struct live *lv,
		uint64_t produced);

#endif
