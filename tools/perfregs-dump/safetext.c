// SPDX-License-Identifier: GPL-2.0
/*
 * Which characters of a name from a recording may reach a terminal as
 * they are.  A comm, a symbol or a path comes from the sampled system or
 * from whoever wrote the recording, and the outputs go to terminals: a
 * control in it can move the cursor, rewrite the line, or start an
 * escape sequence.  Those are C0 (below 0x20) and DEL, and C1, U+0080 to
 * U+009F: in UTF-8 C2 80 to C2 9F, which a UTF-8 terminal takes for the
 * controls themselves (U+009B is CSI, as ESC [ is), and a byte 0x80 to
 * 0x9f that is no part of well-formed UTF-8, which a terminal reading
 * bytes (an 8-bit mode) takes for one.  The same byte inside a
 * well-formed sequence is none: 0x82 of the euro sign, E2 82 AC.  Every
 * writer asks text_char() (output.c's text and JSON, folded.c, whose
 * lines flame.c draws), and each shows a control its own way: '?', an
 * escape, '_', U+FFFD.
 */
#include <string.h>
#include "safetext.h"

/*
 * The length of the well-formed UTF-8 sequence at s, of at most n bytes,
 * or 0 (Unicode's table 3-7: no overlong form, no surrogate D800-DFFF,
 * nothing above U+10FFFF, no sequence cut short).  A NUL is no
 * continuation byte: nothing past the end of s is read.
 */
size_t utf8_len(const unsigned char *s, size_t n)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t len, i;

	if (s[0] < 0xc2 || s[0] > 0xf4)
		return 0;
	len = s[0] < 0xe0 ? 2 : s[0] < 0xf0 ? 3 : 4;
	if (s[0] == 0xe0)
		lo = 0xa0;	/* overlong below U+0800 */
	else if (s[0] == 0xed)
		hi = 0x9f;	/* surrogates */
	else if (s[0] == 0xf0)
		lo = 0x90;	/* overlong below U+10000 */
	else if (s[0] == 0xf4)
		hi = 0x8f;	/* above U+10FFFF */
	if (n < len || s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < len; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return len;
}

/*
 * The character at s, of at most n bytes (n > 0; a NUL ends it): its
 * length, which is 1 for a byte that is no part of well-formed UTF-8;
 * in *cp its code point, or that byte's value; in *control whether it
 * is one (cp_control(), of that value too: a byte 0x80-0x9f).
 */
size_t text_char(const unsigned char *s, size_t n, uint32_t *cp, bool *control)
{
	size_t len = s[0] >= 0x80 ? utf8_len(s, n) : 0, i;

	*cp = s[0];
	if (len) {
		*cp = s[0] & (0xff >> (len + 1));
		for (i = 1; i < len; i++)
			*cp = *cp << 6 | (s[i] & 0x3f);
	}
	*control = cp_control(*cp);
	return len ? len : 1;
}

/*
 * s made fit for a terminal in place, for the text writers: each
 * control (text_char()) becomes '?', well-formed UTF-8 stays; the new
 * length.
 */
size_t text_safe(char *s)
{
	const uint64_t ones = 0x0101010101010101ULL, high = 0x8080808080808080ULL;
	size_t len = strlen(s), i = 0, o, n;
	uint64_t w, del;
	uint32_t cp;
	bool control;

	/*
	 * Eight bytes a step while none of them can be one to replace (a
	 * test that may say so wrongly, never that none is when one is): a
	 * byte at a time was 15% of the instructions of decoding xz's
	 * samples to text with --call-graph dwarf.  A byte from 0x80 up
	 * is looked at.
	 */
	for (; i + 8 <= len; i += 8) {
		memcpy(&w, s + i, 8);
		del = w ^ (ones * 0x7f);
		if ((((w - ones * ' ') & ~w) | ((del - ones) & ~del) | w) & high)
			break;
	}
	for (o = i; i < len; i += n) {
		unsigned char c = s[i];

		/*
		 * Printable ASCII, nearly every byte of a name, as it is: a
		 * call and a memmove() for each byte of the tail took the text
		 * output with --call-graph dwarf of mkbig's 20000 samples from
		 * 222 (before the C1 escapes) to 262 million instructions; 235
		 * with this.
		 */
		if (c >= ' ' && c < 0x7f) {
			if (o != i)
				s[o] = c;
			o++;
			n = 1;
			continue;
		}
		n = text_char((const unsigned char *)s + i, len - i, &cp, &control);
		if (control) {
			s[o++] = '?';
		} else {
			memmove(s + o, s + i, n);
			o += n;
		}
	}
	s[o] = 0;
	return o;
}
