/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A recording's format on disk: what the writer (rec-write.c) and the
 * reader (rec-read.c) of record -o FILE / -i FILE agree on.  Recordings
 * are self-describing, so that a recording decodes exactly as live mode
 * would, on any machine.
 *
 * Layout (little-endian, every item 8-byte aligned):
 *
 *   struct rec_file_header	magic "PRFREC\0\0", format version, the ABI
 *				version of the module the records came
 *				from, page size, the session config (of
 *				PERFREGS_CONFIG_SIZE_VER2 in format 4,
 *				VER1 in format 3, VER0 before: the header
 *				ends with the config, REC_HEADER_*)
 *   items, each { u32 type; u32 size (this header included) } + body:
 *     ITEM_INFO   key=value\0 text: kernel release, machine, tool, event;
 *                 version, nrcpus=CONF,ONLINE, host, cpudesc, cpuid, mem_kb,
 *                 kernel_build_id=HEX, kernel_text=0xADDR (_text, when
 *                 kallsyms shows it), arg= for each word of the command
 *                 line, in order (for convert's perf.data header)
 *     ITEM_IMAGE  an executable (dev, ino): ELF class/machine, path
 *     ITEM_MAPS   a task image's executable mappings, for symbols
 *     ITEM_KSYM   a kernel symbol some sample hit
 *     ITEM_KREC   { u32 cpu; u32 zero; } + one or more records from the
 *                 kernel, back to back, all of that CPU (format 1: one)
 *     ITEM_END    produced and lost counters: the file is complete
 *     ITEM_SB     a side-band event: a mapping made, an exec, a fork, an
 *                 exit (struct item_sb + name), time-stamped like the
 *                 samples; the address spaces are rebuilt from these.
 *                 Also the tool's own SB_BEGIN: COMMAND's process is
 *                 tracked from here on, before its exec (readers that
 *                 do not know the kind skip it)
 *     ITEM_BLOB   an ELF image that is no file (a vDSO), once per build-id:
 *                 struct item_blob + the image, padded
 *     ITEM_JITMAP a process's perf map (/tmp/perf-NSPID.map) as jitmap.c
 *                 took it: struct item_jitmap + "START SIZE NAME\n" lines
 *                 (a jitdump's code loads after a first line "#jitdump
 *                 PATH", which a reader before them skips as a bad line),
 *                 padded.  Written at the end of a recording, before the
 *                 end item, with the lines written until then: a reader
 *                 of a file (not a pipe) reads these first (session.c), so
 *                 that a line written after a sample still names it
 *
 * Everything a sample's decoding needs (its image, maps, side-band
 * events, kernel symbol) is written before the sample, but JIT maps.  A reader skips
 * items of a type it does not know, unread.  The reader checks every size
 * against the file and against the most a writer makes of its type
 * (item_max()), and stops at the first malformed item with its offset.
 */
#ifndef PERFREGS_DUMP_REC_FORMAT_H
#define PERFREGS_DUMP_REC_FORMAT_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include "types.h"

#define REC_MAGIC	"PRFREC\0\0"
/*
 * 2: several records per ITEM_KREC; 3: simd_mask; 4: kchain_max (and,
 * since ABI minor 3, uchain_max where reserved1 was: a reader of format
 * 4 before it skips the user chains as a newer module's section).  A
 * writer writes format 4 only for a session with call chains,
 * else format 3 (rec_create()): a recording without them stays readable
 * by the tools before them.
 */
#define REC_VERSION	4
#define REC_VERSION_MIN	1

enum {
	ITEM_INFO = 1, ITEM_IMAGE, ITEM_MAPS, ITEM_KSYM, ITEM_KREC, ITEM_END, ITEM_SB,
	ITEM_BLOB, ITEM_JITMAP,
};

/*
 * The largest item of each known type a writer makes, its header and
 * padding included.  The reader refuses a larger one before it reads a
 * byte of it: the sizes are anyone's who wrote the file, and a sparse
 * file claiming a 4 GiB item was 4 GiB of the reader's memory.
 *   INFO   under 4 KiB of facts, and the command line: this writer keeps
 *          REC_INFO_ARGS bytes of it, older ones all of it, and execve()
 *          takes at most 6 MiB of strings and pointers (3/4 of _STK_LIM):
 *          an arg= costs 4 bytes more than its string, its pointer 8
 *   IMAGE  a path of at most PATH_MAX (readlink(), realpath())
 *   MAPS   MAPS_MAX mappings (symbols.c), 56 bytes and a path of a
 *          /proc/PID/maps line (shorter than 4096 bytes) each
 *   KSYM   a name from /proc/kallsyms, shorter than KSYM_NAME_LEN (512)
 *   KREC   a ring's unread records, written straight from it: at most
 *          PERFREGS_MAX_DATA_PAGES of x86-64's 4 KiB pages; or the
 *          records of one CPU gathered in the buffer (REC_BUF_SIZE)
 *   END    the counters, of PERFREGS_LOST_SLOTS causes at most
 *   SB     struct item_sb and a perf MMAP2 file name (PATH_MAX at most;
 *          the kernel's d_path() buffer) or a comm
 *   BLOB   an image of BLOB_MAX bytes at most
 *   JITMAP struct item_jitmap and JITMAP_FILE_MAX bytes of lines (types.h)
 * Items of a type this tool does not know are gone past unbuffered,
 * whatever their size.
 */
#define KSYM_NAME_LEN	512
#define ITEM_ALIGN(n)	(((uint64_t)(n) + 7) & ~7ULL)
#define INFO_MAX	(8ULL << 20)
#define IMAGE_MAX	ITEM_ALIGN(8 + 16 + PATH_MAX)
#define MAPS_ITEM_MAX	(8 + 16 + (uint64_t)MAPS_MAX * (56 + 4096))
#define KSYM_MAX	ITEM_ALIGN(8 + 16 + KSYM_NAME_LEN)
#define KREC_MAX	(8 + 8 + (uint64_t)PERFREGS_MAX_DATA_PAGES * 4096)
#define END_MAX		(8 + 8 + 8 * PERFREGS_LOST_SLOTS)
#define SB_MAX		ITEM_ALIGN(8 + 72 + PATH_MAX)
#define BLOB_ITEM_MAX	(8 + 8 + (uint64_t)BLOB_MAX)
#define JITMAP_ITEM_MAX	ITEM_ALIGN(8 + 16 + (uint64_t)JITMAP_FILE_MAX)

/* The most a writer puts in an item of type; 0 for a type not known. */
static inline uint64_t item_max(uint32_t type)
{
	switch (type) {
	case ITEM_INFO:
		return INFO_MAX;
	case ITEM_IMAGE:
		return IMAGE_MAX;
	case ITEM_MAPS:
		return MAPS_ITEM_MAX;
	case ITEM_KSYM:
		return KSYM_MAX;
	case ITEM_KREC:
		return KREC_MAX;
	case ITEM_END:
		return END_MAX;
	case ITEM_SB:
		return SB_MAX;
	case ITEM_BLOB:
		return BLOB_ITEM_MAX;
	case ITEM_JITMAP:
		return JITMAP_ITEM_MAX;
	}
	return 0;
}

struct rec_file_header {
	char magic[8];
	uint32_t header_size;	/* sizeof(struct rec_file_header) */
	uint32_t version;	/* REC_VERSION */
	uint32_t abi_major, abi_minor;
	uint32_t page_size;
	uint32_t flags;		/* REC_F_*; 0 before they were (it was reserved) */
	struct perfregs_config cfg;
};

/*
 * The recording holds ITEM_JITMAP items (at its end): a reader looks for
 * them before the samples (rec-scan.c).  Without it no second pass over
 * the file: that pass over every recording, JIT maps or not, cost 6% of
 * -f folded's instructions and read the file twice.  Set by the writer
 * when it writes the first one (not through a pipe: no way back to the
 * header there; its maps then name only the samples after them).
 */
#define REC_F_JITMAPS	1u

/*
 * The header's size on disk: it ends with the session's config, as long
 * as the config of its format (struct rec_file_header has the longest a
 * reader knows, its tail zero when the file's is shorter).  Formats 1
 * and 2 end before simd_mask, format 3 before kchain_max, format 4
 * after uchain_max.  Not sizeof(struct rec_file_header): that grows with
 * the uapi's config, the format must not.
 */
#define REC_HEADER_VER0	(offsetof(struct rec_file_header, cfg) + PERFREGS_CONFIG_SIZE_VER0)
#define REC_HEADER_VER1	(offsetof(struct rec_file_header, cfg) + PERFREGS_CONFIG_SIZE_VER1)
#define REC_HEADER_VER2	(offsetof(struct rec_file_header, cfg) + PERFREGS_CONFIG_SIZE_VER2)
_Static_assert(sizeof(struct rec_file_header) >= REC_HEADER_VER2,
	       "a header of format 4 fits in struct rec_file_header");

struct item {
	uint32_t type;
	uint32_t size;
};

struct item_image {
	uint64_t ino;
	uint32_t dev;
	uint8_t known, elfclass;
	uint16_t machine;
	/* path\0, padded */
};

struct item_maps {
	uint32_t pid;
	uint32_t n;
	uint64_t ino;
	/* n x { u64 start, end, pgoff; u32 path_len (with \0); u32 zero; path } */
};

struct item_ksym {
	uint64_t start, end;
	/* name\0, padded */
};

struct item_sb {
	uint32_t kind;		/* enum sb_kind */
	uint32_t pid;
	uint32_t ppid;		/* SB_FORK */
	uint32_t prot;		/* SB_MMAP */
	uint64_t time;
	uint64_t start, end, pgoff;	/* SB_MMAP */
	uint32_t build_id_len;	/* at most 20 */
	uint8_t build_id[20];
	/* name\0 (SB_MMAP: path, SB_EXEC: comm), padded */
};

struct item_blob {
	uint32_t kind;		/* 1: a vDSO */
	uint32_t size;		/* of the image that follows */
};

struct item_jitmap {
	uint32_t pid;		/* as the samples name the process */
	uint32_t nspid;		/* its pid in its own namespace: the map's name */
	uint32_t len;		/* bytes of lines that follow */
	uint32_t zero;
};

struct item_end {
	uint64_t produced;
	uint64_t lost[PERFREGS_LOST_MAX];
};

#endif
