/* SPDX-License-Identifier: GPL-2.0 */
/*
 * safetext.c: which characters of a name from a recording (a comm, a
 * symbol, a path) may reach a terminal as they are, for every writer.
 */
#ifndef PERFREGS_DUMP_SAFETEXT_H
#define PERFREGS_DUMP_SAFETEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A control: C0 (below 0x20), DEL, or C1 (U+0080-U+009F, 0x9b is CSI). */
static inline bool cp_control(uint32_t cp)
{
	return cp < 0x20 || (cp >= 0x7f && cp <= 0x9f);
}

size_t utf8_len(const unsigned char *s, size_t n);
size_t text_char(const unsigned char *s, size_t n, uint32_t *cp, bool *control);
/* s in place with each control '?': its new length */
size_t text_safe(char *s);

#endif
