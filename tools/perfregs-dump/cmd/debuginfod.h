/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --debuginfod: the servers a decode of a recording may ask for debug
 * files, given to libdebuginfod through its environment; a live run
 * never asks one.
 */
#ifndef PERFREGS_DUMP_CMD_DEBUGINFOD_H
#define PERFREGS_DUMP_CMD_DEBUGINFOD_H

#include "../types.h"
#include "decode-opts.h"

#define DEBUGINFOD_TIMEOUT_DEFAULT	30		/* s, unless $DEBUGINFOD_MAXTIME */
#define DEBUGINFOD_MAX_BYTES		(1ULL << 30)	/* unless $DEBUGINFOD_MAXSIZE */

/*
 * First thing in main(): $DEBUGINFOD_URLS is kept for --debuginfod and
 * for COMMAND, and taken out of this process's environment, where
 * libdwfl would follow it.
 */
void debuginfod_env_take(void);
/*
 * The environment COMMAND runs with: the user's, $DEBUGINFOD_URLS
 * included.  Made before fork(); debuginfod_child_env_free() after it.
 */
char **debuginfod_child_env(void);
void debuginfod_child_env_free(char **env);
/*
 * Before decoding a recording for mach: the servers of --debuginfod, if
 * asked for.  GO_ON, or the exit status once it has said why not.
 */
int debuginfod_start(struct machine *mach, const struct decode_opts *d);
/* A live run: --debuginfod refused, said so: true. */
bool debuginfod_refused_live(const struct decode_opts *d);

#endif
