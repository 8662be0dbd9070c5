/* SPDX-License-Identifier: GPL-2.0 */
/* vdso.c: vDSO images. */
#ifndef PERFREGS_DUMP_VDSO_H
#define PERFREGS_DUMP_VDSO_H

#include "types.h"

const struct blob *blob_add(struct decoder *d, const void *data, size_t size);
const struct blob *blob_for(struct decoder *d, const struct mapping *m);
const struct blob *vdso_read(struct decoder *d, uint32_t pid, uint64_t start,
			     uint64_t end);
void blobs_free(struct decoder *d);

#endif
