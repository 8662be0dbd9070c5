// SPDX-License-Identifier: GPL-2.0
/*
 * Symbols' names demangled: C++ (the Itanium ABI) and Rust (legacy and
 * v0) by libiberty's demangler, the one perf links, with perf's options
 * (DMGL_NO_OPTS: no parameters, so ns::W<int>::spin, and Rust's legacy
 * hash left out), trying Rust first as cplus_demangle() does in its
 * auto style: a legacy Rust name is also a C++ one.
 *
 * The name comes from a file a recording names, so it is hostile:
 *
 * - libiberty's recursion limits stay on (no DMGL_NO_RECURSE_LIMIT): a
 *   C++ name over 1024 bytes is refused (its parser's arrays are on the
 *   stack, 2 components a byte), a nesting deeper than 2048 too, and
 *   Rust's too; names past DEMANGLE_IN_MAX are not even tried.
 * - Back-references make the output exponential in the input: 330
 *   bytes of _Z1fI...Ev (each template argument a pair of the previous
 *   one twice) demangle to 2^30 pairs, minutes and gigabytes.  The
 *   callback interfaces, which allocate nothing (their arrays are on
 *   the stack), hand the output over as it comes; past the budget
 *   (DEMANGLE_OUT_MAX, more than any writer shows) the callback jumps
 *   back here (longjmp), the demangler left with nothing to free, and
 *   the name is what came before it, cut as every long name is cut.
 *   What one name costs is bounded by that: its parse, and printing
 *   at most the budget.
 * - But not out of Rust's demangler: it malloc()s the buffer of a
 *   punycode identifier and frees it after printing it, and a jump
 *   from inside that print leaked it (up to 16 KiB a name, each time a
 *   file's table is read again: a second reader found it, 144 bytes a
 *   call on a name of 9 such identifiers).  A Rust name's output past
 *   the budget is dropped instead, the demangler left to finish, and
 *   its time bounded by refusing a v0 name (_R) with more than
 *   RUST_BACKREFS_MAX back-references ('B', counted high: a 'B' of an
 *   identifier counts too): each one can double what is printed.
 * - A name cut at the budget is cut back to a whole UTF-8 character.
 */
#include <setjmp.h>
#include <stdbool.h>
#include <string.h>
#include <libiberty/demangle.h>
#include "demangle.h"

/* perf's options, without -v: the function's name, no parameters */
#define DEMANGLE_OPTS	DMGL_NO_OPTS

#define RUST_BACKREFS_MAX	16

struct out {
	char *buf;
	size_t len, n;		/* buf's size (the budget), bytes in it */
	bool jump;		/* past the budget: longjmp() (C++), else drop (Rust) */
	bool cut;		/* something was left out */
	jmp_buf full;		/* back to demangle_name(): the budget is spent */
};

static void put(const char *s, size_t n, void *arg)
{
	struct out *o = arg;
	size_t room = o->len - 1 - o->n;

	if (n > room) {
		memcpy(o->buf + o->n, s, room);
		o->n += room;
		o->cut = true;
		if (o->jump)
			longjmp(o->full, 1);
		return;
	}
	memcpy(o->buf + o->n, s, n);
	o->n += n;
}

/* a v0 Rust name with more back-references than RUST_BACKREFS_MAX */
static bool rust_too_deep(const char *raw)
{
	unsigned int b = 0;

	if (raw[1] != 'R')
		return false;
	for (; *raw; raw++)
		if (*raw == 'B' && ++b > RUST_BACKREFS_MAX)
			return true;
	return false;
}

/* n bytes of a cut name made to end on a whole UTF-8 character */
static size_t utf8_whole(const char *buf, size_t n)
{
	size_t k = n, need;
	unsigned char c;

	while (k && ((unsigned char)buf[k - 1] & 0xc0) == 0x80)
		k--;
	if (!k)
		return n;
	c = (unsigned char)buf[k - 1];
	if (c < 0x80)
		return n;	/* ASCII: whole, and whatever follows is loose bytes */
	need = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
	return n - (k - 1) >= need ? n : k - 1;
}

/*
 * Rust, else C++, into o: 1 when demangled (or cut at the budget).  Its
 * own function, so that o lives in the caller's frame, not in the one
 * longjmp() comes back to.
 */
static int demangle_into(const char *raw, struct out *o)
{
	o->jump = false;
	if (!rust_too_deep(raw) && rust_demangle_callback(raw, DEMANGLE_OPTS, put, o))
		return 1;
	o->n = 0;	/* what it wrote before it failed is not a name */
	o->cut = false;
	o->jump = true;
	if (setjmp(o->full))
		return 1;	/* cut: what came before the budget */
	return cplus_demangle_v3_callback(raw, DEMANGLE_OPTS, put, o);
}

size_t demangle_name(const char *raw, char *buf, size_t len)
{
	struct out o;

	if (len < 2 || raw[0] != '_' || strnlen(raw, DEMANGLE_IN_MAX + 1) > DEMANGLE_IN_MAX)
		return 0;
	o.buf = buf;
	o.len = len < DEMANGLE_OUT_MAX ? len : DEMANGLE_OUT_MAX;
	o.n = 0;
	o.cut = false;
	if (!demangle_into(raw, &o) || !o.n)
		return 0;
	if (o.cut)
		o.n = utf8_whole(buf, o.n);
	buf[o.n] = 0;
	return o.n;
}
