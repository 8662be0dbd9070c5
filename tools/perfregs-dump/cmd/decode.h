/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Decoding a recording to the standard output (script, report, -i), and
 * what ends every decode: the stacks printed, the side-band's losses.
 */
#ifndef PERFREGS_DUMP_CMD_DECODE_H
#define PERFREGS_DUMP_CMD_DECODE_H

#include "../types.h"

/*
 * Decode the recording at path, its samples printed by threads workers
 * (later: only once one thread has decoded a while).  Returns the exit
 * status; d is freed.
 */
int decode_file(const char *path, struct session *d, unsigned int threads, bool later);
/* --threads' default: a thread per CPU this process may run on. */
unsigned int default_threads(void);
/* --flamegraph's SVG, then -f folded's lines: EXIT_OK or EXIT_IO */
int print_stacks(struct session *d);
/* -v: where and how the recording at path was made, and what it held */
void verbose_recording(const char *path, const struct session *d);
/* Side-band events were lost: what that means for the names. */
void sb_lost_note(const struct session *d);
/*
 * --time in percents: the recording at path read once for its first and
 * last sample's time, which the percents become; EXIT_OK, or an exit
 * status with what is wrong said.
 */
/*
 * Around a decode of a recording: SIGINT and SIGTERM stop it at the next
 * record (session_read() -EINTR), and on a terminal a progress line
 * tells how far it is; decode_watch_end() clears that line and keeps
 * the time it took, for the summary (d->progress_elapsed).
 */
void decode_watch(struct session *d);
void decode_watch_end(struct session *d);
struct filter;
int decode_filter_prepare(struct filter *f, const char *path);

#endif
