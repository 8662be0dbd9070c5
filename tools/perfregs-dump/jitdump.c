// SPDX-License-Identifier: GPL-2.0
/*
 * The code loads of a jitdump file: a header (magic "JiTD" in the
 * writer's byte order, version, its own size, ELF machine, pid, time,
 * flags), then records, each an id, its total size and a time before
 * its body.  A code load (id 0) holds pid, tid, vma, code address, code
 * size and index, then the function's name (NUL-terminated) and its
 * code.  Only loads name code here: moves (id 1) are not written by
 * V8, debug and unwinding info (2, 4) are left to perf inject; a close
 * (3) ends nothing here (a writer may start again).  The file is the
 * sampled program's: every size in it is checked against the bytes
 * there are, and a record shorter than its header stops the walk.
 */
#include <string.h>
#include "jitdump.h"

#define JITDUMP_MAGIC	0x4A695444u	/* "JiTD" read in the writer's order */
#define REC_HEADER	16		/* id, total_size, timestamp */
#define LOAD_FIXED	40		/* pid, tid, vma, code_addr, code_size, code_index */
#define JIT_CODE_LOAD	0

static uint32_t get32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static uint64_t get64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

long jitdump_parse(const unsigned char *buf, size_t len, uint64_t off, uint64_t left,
		   size_t max_name,
		   void (*fn)(void *arg, uint64_t addr, uint64_t size, uint64_t time,
			      const char *name, size_t name_len),
		   void *arg)
{
	uint64_t i = 0;

	if (off == 0) {
		uint32_t hsize;

		if (len < JITDUMP_HEADER_MIN)
			return 0;	/* not all there yet */
		hsize = get32(buf + 8);
		if (get32(buf) != JITDUMP_MAGIC || hsize < JITDUMP_HEADER_MIN ||
		    hsize > JITDUMP_HEADER_MAX)
			return -1;	/* another byte order, or not a jitdump */
		if (hsize > len)
			return 0;
		i = hsize;
	}
	while (i + REC_HEADER <= len) {
		const unsigned char *r = buf + i;
		uint32_t id = get32(r), size = get32(r + 4);

		if (size < REC_HEADER)
			return -1;	/* no way to the next record */
		if (size > left - i)
			break;		/* being written */
		if (id == JIT_CODE_LOAD && size > REC_HEADER + LOAD_FIXED) {
			const unsigned char *name = r + REC_HEADER + LOAD_FIXED, *nul;
			uint64_t avail = size - REC_HEADER - LOAD_FIXED, addr, csize;

			/*
			 * its fixed part past buf: read again from here (a load's
			 * header in the last bytes of a read read past its buffer)
			 */
			if (i + REC_HEADER + LOAD_FIXED > len)
				break;
			/* after pid, tid and vma (perf inject's ELF address too) */
			addr = get64(r + 32);
			csize = get64(r + 40);
			if (avail > len - (i + REC_HEADER + LOAD_FIXED)) {
				/* the record goes past buf: is its name in it? */
				avail = len - (i + REC_HEADER + LOAD_FIXED);
				if (avail <= max_name && i > 0)
					break;	/* read again from this record on */
			}
			if (avail > max_name + 1)
				avail = max_name + 1;
			nul = memchr(name, 0, avail);
			if (nul && nul > name && csize && addr + csize > addr)
				fn(arg, addr, csize, get64(r + 8), (const char *)name,
				   (size_t)(nul - name));
		}
		i += size;
	}
	return (long)i;
}
