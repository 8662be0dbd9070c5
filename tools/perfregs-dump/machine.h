/* SPDX-License-Identifier: GPL-2.0 */
/* machine.c: the sampled machine as a whole (struct machine), and its end. */
#ifndef PERFREGS_DUMP_MACHINE_H
#define PERFREGS_DUMP_MACHINE_H

#include "types.h"

void machine_free(struct machine *mach);

#endif
