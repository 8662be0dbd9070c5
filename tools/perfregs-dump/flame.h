/* SPDX-License-Identifier: GPL-2.0 */
/* flame.c: --flamegraph, the stacks of -f folded as an interactive SVG. */
#ifndef PERFREGS_DUMP_FLAME_H
#define PERFREGS_DUMP_FLAME_H

#include <stdio.h>
#include "types.h"

int flame_print(struct session *d, FILE *fp);
int flame_write(struct session *d, const char *path, char *err, size_t errlen);

#endif
