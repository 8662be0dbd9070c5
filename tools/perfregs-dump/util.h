/* SPDX-License-Identifier: GPL-2.0 */
/* perfregs-dump: small helpers of the lowest layer, used by any other. */
#ifndef PERFREGS_DUMP_UTIL_H
#define PERFREGS_DUMP_UTIL_H

#include <stdint.h>
#include <string.h>

/* "00".."ff": two hex digits per byte, half the steps of one per nibble */
extern char hex_pairs[256][2];

/*
 * v in lowercase hex, zero-padded to width digits (0: no padding).
 * Inline: the output runs it for every register of every sample.
 */
static inline char *put_hex(char *p, uint64_t v, int width)
{
	int n = v ? (67 - __builtin_clzll(v)) / 4 : 1, i;

	if (n < width)	/* the high nibbles are 0: no separate padding loop */
		n = width;
	for (i = n - 2; i >= 0; i -= 2) {
		memcpy(p + i, hex_pairs[v & 255], 2);
		v >>= 8;
	}
	if (i == -1)	/* odd count: the top digit alone */
		p[0] = hex_pairs[v & 15][1];
	return p + n;
}

/* "name+0xoff" into buf (len bytes), like snprintf "%s+0x%lx", a long name cut */
void sym_offset(char *buf, size_t len, const char *name, uint64_t off);

#endif
