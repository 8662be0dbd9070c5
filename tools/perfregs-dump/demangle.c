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
 */
#include <setjmp.h>
#include <string.h>
#include <libiberty/demangle.h>
#include "demangle.h"

/* perf's options, without -v: the function's name, no parameters */
#define DEMANGLE_OPTS	DMGL_NO_OPTS

struct out {
	char *buf;
	size_t len, n;		/* buf's size (the budget), bytes in it */
	jmp_buf full;		/* back to demangle_name(): the budget is spent */
};

static void put(const char *s, size_t n, void *arg)
{
	struct out *o = arg;
	size_t room = o->len - 1 - o->n;

	if (n > room) {
		memcpy(o->buf + o->n, s, room);
		o->n += room;
		longjmp(o->full, 1);
	}
	memcpy(o->buf + o->n, s, n);
	o->n += n;
}

/*
 * Rust, else C++, into o: 1 when demangled (or cut at the budget).  Its
 * own function, so that o lives in the caller's frame, not in the one
 * longjmp() comes back to.
 */
static int demangle_into(const char *raw, struct out *o)
{
	if (setjmp(o->full))
		return 1;	/* cut: what came before the budget */
	if (rust_demangle_callback(raw, DEMANGLE_OPTS, put, o))
		return 1;
	o->n = 0;	/* what it wrote before it failed is not a name */
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
	if (!demangle_into(raw, &o) || !o.n)
		return 0;
	buf[o.n] = 0;
	return o.n;
}
