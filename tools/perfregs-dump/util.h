/* SPDX-License-Identifier: GPL-2.0 */
/* perfregs-dump: small helpers of the lowest layer, used by any other. */
#ifndef PERFREGS_DUMP_UTIL_H
#define PERFREGS_DUMP_UTIL_H

#include <stdint.h>
#include <string.h>

/* "00".."ff": two hex digits per byte, half the steps of one per nibble */
extern char hex_pairs[256][2];

/*
 * h with the n bytes at p mixed in, eight a step, for the tool's hash
 * tables (folded stacks, report's entries and names): a byte a step
 * (FNV) was 9% of -f folded of xz's samples and of report --children.
 * "a" and "a\0" differ.
 */
static inline uint64_t hash_bytes(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;
	uint64_t w;

	for (; n >= 8; b += 8, n -= 8) {
		memcpy(&w, b, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdULL;
		h ^= h >> 32;
	}
	w = 0;
	memcpy(&w, b, n);
	h = (h ^ w ^ (uint64_t)n << 59) * 0xc4ceb9fe1a85ec53ULL;
	return h ^ h >> 29;
}

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
