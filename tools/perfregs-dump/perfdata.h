/* SPDX-License-Identifier: GPL-2.0 */
/* perfdata.c: a recording into a perf.data file. */
#ifndef PERFREGS_DUMP_PERFDATA_H
#define PERFREGS_DUMP_PERFDATA_H

#include "types.h"

int perfdata_convert(const char *in, const char *out, struct session *d,
		     char *err, size_t errlen);

#endif
