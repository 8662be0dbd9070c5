/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Numbers and strings written by hand into a line buffer, for the text
 * and JSON writers (output.c, out-simd.c): printf was 80% of the
 * decoder's time.  Inline: they run for every field of every sample.
 */
#ifndef PERFREGS_DUMP_OUT_PUT_H
#define PERFREGS_DUMP_OUT_PUT_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include "safetext.h"

/* a string literal: its length is known, so one memcpy */
#define put_lit(p, s) put_mem((p), (s), sizeof(s) - 1)

static inline char *put_mem(char *p, const char *s, size_t n)
{
	memcpy(p, s, n);
	return p + n;
}

static inline char *put_str(char *p, const char *s)
{
	while (*s)
		*p++ = *s++;
	return p;
}

/* v in decimal, padded to width with pad ('0' or ' '), or on the right. */
static inline char *put_dec(char *p, uint64_t v, int width, char pad, bool left)
{
	static const char pairs[] =
		"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
		"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
		"8081828384858687888990919293949596979899";
	char tmp[20];
	int n = 20, len;

	while (v >= 100) {	/* two digits a step */
		n -= 2;
		memcpy(tmp + n, pairs + 2 * (v % 100), 2);
		v /= 100;
	}
	if (v >= 10) {
		n -= 2;
		memcpy(tmp + n, pairs + 2 * v, 2);
	} else {
		tmp[--n] = '0' + v;
	}
	len = 20 - n;
	while (!left && width > len) {
		*p++ = pad;
		width--;
	}
	memcpy(p, tmp + n, len);
	p += len;
	while (left && width-- > len)
		*p++ = ' ';
	return p;
}

/* s right-justified in width columns, like %*s. */
static inline char *put_rjust(char *p, const char *s, int width)
{
	int len = strlen(s);

	while (width-- > len)
		*p++ = ' ';
	return put_str(p, s);
}

/*
 * s (at most max bytes) as a JSON string; writes at most 6 * max + 2.
 * Well-formed UTF-8 goes out as it is, but for the C1 controls (U+0080
 * to U+009F), which are \u00XX of their code point, as the C0 controls
 * and DEL; any other byte from 0x80 up is \u00XX of the byte
 * (docs/json-schema.md).  So no control reaches a terminal that shows
 * the line.
 */
static inline char *put_json(char *p, const char *s, size_t max)
{
	static const char digits[] = "0123456789abcdef";
	size_t i, n;
	uint32_t cp;
	bool control;

	*p++ = '"';
	for (i = 0; i < max && s[i]; i++) {
		unsigned char c = s[i];

		if (c == '"' || c == '\\') {
			*p++ = '\\';
			*p++ = c;
			continue;
		}
		if (c >= 0x20 && c < 0x7f) {
			*p++ = c;
			continue;
		}
		n = text_char((const unsigned char *)s + i, max - i, &cp, &control);
		if (control || n == 1) {	/* a control, or a byte of no UTF-8 */
			memcpy(p, "\\u00", 4);
			p[4] = digits[cp >> 4 & 15];
			p[5] = digits[cp & 15];
			p += 6;
		} else {
			memcpy(p, s + i, n);
			p += n;
		}
		i += n - 1;
	}
	*p++ = '"';
	return p;
}

#endif
