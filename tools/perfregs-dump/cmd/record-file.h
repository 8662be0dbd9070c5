/* SPDX-License-Identifier: GPL-2.0 */
/*
 * record -o FILE: the recording's file, made as perf record makes
 * perf.data (FILE.old kept, nothing planted followed), or -o - for the
 * standard output; and undone when sampling never started.
 */
#ifndef PERFREGS_DUMP_CMD_RECORD_FILE_H
#define PERFREGS_DUMP_CMD_RECORD_FILE_H

#include <stdbool.h>
#include <sys/stat.h>

struct recorder;

struct record_file {
	const char *path;	/* as given, or "the standard output" */
	const char *base;	/* its name in dirfd */
	int dirfd;		/* its directory, opened once; -1: none */
	char *old;		/* base.old */
	struct stat old_st;	/* what base.old is, made of what base was */
	bool fresh;		/* made here */
	bool kept_old;		/* base was kept as base.old */
	bool is_stdout;		/* -o - */
};

void record_file_init(struct record_file *f);
/* -o FILE or -o -: the descriptor to write, or -1 once it has said why. */
int record_file_open(struct record_file *f, const char *path);
/*
 * Sampling never started: the recording begun has nothing in it.  Take
 * it away and put FILE.old back as FILE.  Takes *rec (rec_discard()).
 */
void record_file_undo(struct record_file *f, struct recorder **rec);
/* What record_file_open() holds, once nothing more is done in its directory. */
void record_file_release(struct record_file *f);

#endif
