// SPDX-License-Identifier: GPL-2.0
/* Small helpers of the lowest layer (util.h). */
#include "util.h"

char hex_pairs[256][2];

static void __attribute__((constructor)) hex_pairs_init(void)
{
	static const char digits[] = "0123456789abcdef";
	int i;

	for (i = 0; i < 256; i++) {
		hex_pairs[i][0] = digits[i >> 4];
		hex_pairs[i][1] = digits[i & 15];
	}
}
