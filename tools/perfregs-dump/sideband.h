/* SPDX-License-Identifier: GPL-2.0 */
/* sideband.c: perf's side-band events of the sampled tasks, live. */
#ifndef PERFREGS_DUMP_SIDEBAND_H
#define PERFREGS_DUMP_SIDEBAND_H

#include "types.h"

struct sideband;
struct sideband *sb_open(int pid, bool inherit, char *err, size_t errlen);
int sb_drain(struct sideband *sb, struct machine *mach);
uint64_t sb_lost(const struct sideband *sb);
int sb_fds(const struct sideband *sb, int *fds, int max);
void sb_close(struct sideband *sb);

#endif
