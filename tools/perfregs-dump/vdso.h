/* SPDX-License-Identifier: GPL-2.0 */
/* vdso.c: vDSO images. */
#ifndef PERFREGS_DUMP_VDSO_H
#define PERFREGS_DUMP_VDSO_H

#include "types.h"

const struct blob *blob_add(struct machine *mach, const void *data, size_t size);
const struct blob *blob_for(struct machine *mach, const struct mapping *m);
const struct blob *vdso_read(struct machine *mach, uint32_t pid, uint64_t start,
			     uint64_t end);
void blobs_free(struct machine *mach);

#endif
