/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Why the device, the module or perf said no, in words that say what to
 * do; and what -v says of a session.
 */
#ifndef PERFREGS_DUMP_CMD_DIAG_H
#define PERFREGS_DUMP_CMD_DIAG_H

#include <stdbool.h>
#include "../../lib/libperfregs.h"

const char *open_hint(int err);
const char *config_hint(int err);
/* Why perf_event_open() may have said no, in perf's words. */
const char *witness_hint(int err, const struct perfregs_config *cfg, char *buf, size_t len);
/* The first line of a /proc or /sys file, or "" */
void read_line(const char *path, char *buf, int len);
/* Kernel lockdown forbids reading kernel state (its registers too). */
bool lockdown_confidentiality(void);
/* -v: the session as configured (live) or as recorded (-i). */
void verbose_session(const struct perfregs_config *cfg, const char *event);

#endif
