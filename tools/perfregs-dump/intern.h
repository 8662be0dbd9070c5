/* SPDX-License-Identifier: GPL-2.0 */
/*
 * intern.c: one reference-counted copy of each path a mapping names,
 * shared by every mapping and version that holds it.
 */
#ifndef PERFREGS_DUMP_INTERN_H
#define PERFREGS_DUMP_INTERN_H

#include <stddef.h>

/*
 * The shared copy of s, with a reference more; NULL without memory.
 * *added (if not NULL) gets the bytes a new copy took, 0 for one that
 * was there.  Any thread may call these.
 */
char *str_intern(const char *s, size_t *added);
/* A reference more to s, a shared copy the caller holds one of; s may be NULL. */
char *str_ref(const char *s);
/* A reference less; the last frees the copy.  s may be NULL. */
void str_put(const char *s);

#endif
