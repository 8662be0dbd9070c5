/* SPDX-License-Identifier: GPL-2.0 */
/* regs_x86.c: register names of the x86 user ABIs. */
#ifndef PERFREGS_DUMP_REGS_X86_H
#define PERFREGS_DUMP_REGS_X86_H

#include "types.h"

const char *const *reg_names(enum layout layout, int *count);
bool reg_is_base(int reg);

#endif
