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

/*
 * "name+0xoff" into buf, like snprintf "%s+0x%lx" (a long name is cut),
 * without printf: this runs once per decoded sample.
 */
void sym_offset(char *buf, size_t len, const char *name, uint64_t off)
{
	size_t n = strlen(name);

	if (len < 20 + 1) {	/* "+0x" and 16 digits and the NUL */
		if (len)
			buf[0] = 0;
		return;
	}
	if (n > len - 20)
		n = len - 20;
	memcpy(buf, name, n);
	memcpy(buf + n, "+0x", 3);
	*put_hex(buf + n + 3, off, 0) = 0;
}
