/* SPDX-License-Identifier: GPL-2.0 */
/*
 * demangle.c: a symbol's name demangled, C++ (the Itanium ABI) and Rust
 * (legacy and v0), by libiberty's demangler as perf names them, within
 * a budget.
 */
#ifndef PERFREGS_DUMP_DEMANGLE_H
#define PERFREGS_DUMP_DEMANGLE_H

#include <stddef.h>

/*
 * The longest name demangle_name() takes (a longer one is shown as it
 * is) and the most it writes: every writer shows less of a name (a
 * frame's at most 236 bytes, a sample's 300).
 */
#define DEMANGLE_IN_MAX		4096
#define DEMANGLE_OUT_MAX	512

/*
 * raw demangled into buf (len bytes, at most DEMANGLE_OUT_MAX are used):
 * the length written, the name cut at len - 1 bytes if it is longer; 0
 * when raw is no C++ or Rust name libiberty demangles (a C name), or
 * is longer than DEMANGLE_IN_MAX.  Any thread may call it.
 */
size_t demangle_name(const char *raw, char *buf, size_t len);

#endif
