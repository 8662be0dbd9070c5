/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What pprof.c (a recording into pprof's profile) and pprof-tab.c (its
 * tables) share, and no one else: the tables, each bounded, and the ids
 * of their entries.
 */
#ifndef PERFREGS_DUMP_PPROF_INT_H
#define PERFREGS_DUMP_PPROF_INT_H

#include <stdint.h>
#include <zlib.h>
#include "types.h"
#include "tool.h"
#include "outfile.h"

#define TABLE_MAX	(1U << 20)	/* mappings, functions, locations, samples */
#define STRINGS_MAX	(4U << 20)	/* their names, files, build-ids, comms */

enum { T_STR, T_MAP, T_FUNC, T_LOC, T_SAMPLE, T_NR };


/*
 * Entries in the order they came, and a hash set of them.  A mapping's,
 * function's, location's id is its index + 1; a string's is its index.
 */
struct tab {
	void *v;
	uint64_t *hash;		/* each entry's */
	size_t size;		/* of an entry */
	uint32_t n, cap;
	uint32_t *slot;		/* open addressing: entry index + 1, 0 free */
	uint32_t nslots;	/* a power of two, at least twice n */
};

struct pp_str {
	char *s;
	size_t len;
};

struct pp_map {
	uint64_t start, limit, offset;
	uint32_t file, build_id;	/* strings */
	uint8_t id[20], id_len;		/* the build-id, part of the key */
	uint32_t nlocs, nfunc, nfile, nline;	/* its locations, and with what */
};

struct pp_func {
	uint32_t name, system, file;	/* strings: as shown, as the file has it */
};

struct pp_loc {
	uint64_t address;
	uint32_t map, func;		/* ids, 0 for none */
	int64_t line;
	/*
	 * the functions inlined there (--inline), innermost first, before
	 * func: nx lines at p->xlines[xat]
	 */
	uint32_t nx, xat;
};

/* A line of a location before its last: a function inlined there. */
struct pp_xline {
	uint32_t func;
	int64_t line;
};

struct pp_sample {
	uint32_t pid, tid, comm, abi;	/* comm, abi: strings, 0 for none */
	uint32_t n;			/* location ids, at ids[at] */
	size_t at;
	uint64_t count;
};

/* The keys the hash sets are searched with. */
struct str_key {
	const char *s;
	size_t len;
};

struct map_key {
	uint64_t start, limit, offset;
	const char *file;
	const uint8_t *id;
	uint8_t id_len;
};

struct loc_key {
	uint32_t map;
	uint64_t address;
};

struct sample_key {
	uint32_t pid, tid, comm, abi, n;
	const uint32_t *ids;
};

struct pprof {
	struct tool tool;		/* what the session hands over */
	struct session *d;
	gzFile gz;
	struct out_file of;		/* what gz writes to */
	struct tab t[T_NR];
	uint32_t *ids;			/* the samples' location ids */
	size_t nids, capids;
	struct pp_xline *xlines;	/* the locations' inlined lines, at most TABLE_MAX */
	uint32_t nxlines, capxlines;
	int why;			/* the table that was full, T_NR: memory */
	uint64_t dropped[T_NR + 1];	/* samples left out, by why */
	bool clock;			/* cpu-clock, task-clock: cpu/nanoseconds */
	uint64_t ns;			/* what a sample stands for, if clock */
	uint64_t period;
	uint32_t kmap;			/* [kernel.kallsyms]'s id, once needed */
	uint64_t first, last;		/* the samples' times */
	uint32_t s_samples, s_count, s_cpu, s_ns, s_pid, s_tid, s_comm, s_abi;
};

extern const char *const tab_names[T_NR];
extern const uint32_t tab_max[T_NR];

const char *str(const struct pprof *p, uint32_t id);
int64_t str_id(struct pprof *p, const char *s, size_t len);
int64_t user_map(struct pprof *p, const struct mapping *m);
int64_t kernel_map(struct pprof *p);
int64_t loc_id(struct pprof *p, uint32_t map, uint64_t address, const char *sym,
	       bool demangled, struct mapping *m);
int sample_add(struct pprof *p, const struct sample_key *key);

#endif
