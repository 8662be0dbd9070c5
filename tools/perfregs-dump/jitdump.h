/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jitdump.c: the code loads of a jitdump file (jit-PID.dump, as V8's
 * --perf-prof, the JVM's and .NET's agents write it for perf inject
 * --jit): each load's address, size and name, for jitmap.c to name JIT
 * code by.
 */
#ifndef PERFREGS_DUMP_JITDUMP_H
#define PERFREGS_DUMP_JITDUMP_H

#include <stddef.h>
#include <stdint.h>

#define JITDUMP_HEADER_MIN	40	/* magic .. flags */
#define JITDUMP_HEADER_MAX	4096	/* a header says its size: no more */

/*
 * The whole records of buf, len bytes of the file from offset off (0:
 * the file's header first), each code load given to fn (name: NUL-free,
 * name_len bytes, at most max_name; time: the record's, which V8 and
 * perf's agents take from CLOCK_MONOTONIC, as the samples' is).  left: bytes of the file from off
 * to its end; a record that ends past it is not taken (being written).
 * Returns the bytes taken, whole records (past len when a record is
 * longer than buf: its name is in buf, its code skipped), or -1 for a
 * file that is not a jitdump of this machine's byte order, or a record
 * shorter than its header (the rest of the file cannot be found).
 */
long jitdump_parse(const unsigned char *buf, size_t len, uint64_t off, uint64_t left,
		   size_t max_name,
		   void (*fn)(void *arg, uint64_t addr, uint64_t size, uint64_t time,
			      const char *name, size_t name_len),
		   void *arg);

#endif
