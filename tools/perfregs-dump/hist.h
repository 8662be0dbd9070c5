/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hist.c, hist-print.c: report's table: the samples summed by the sort
 * keys (comm, pid, tid, dso, sym, abi, cpu), self and children, with the
 * call chains under each entry (hist.c), printed as perf report --stdio
 * prints its table, or as JSON (hist-print.c).
 */
#ifndef PERFREGS_DUMP_HIST_H
#define PERFREGS_DUMP_HIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum hist_key { HK_COMM, HK_PID, HK_TID, HK_DSO, HK_SYM, HK_ABI, HK_CPU, HK_NR };
enum hist_cg { HCG_NONE, HCG_GRAPH, HCG_FLAT };

struct hist_opts {
	bool children;			/* --children: a sample counts for each frame's entry */
	enum hist_key keys[HK_NR];	/* --sort, in order */
	unsigned int nkeys;
	double percent_limit;		/* --percent-limit: entries below are left out */
	bool show_nr;			/* -n: the samples column */
	enum hist_cg cg;		/* -g: the call chains under each entry */
	double cg_threshold;		/* -g ...,PERCENT: branches below are left out */
	bool caller;			/* -g caller, -G: outermost frame first */
	unsigned int max_stack;		/* --max-stack: frames of a chain taken */
	uint64_t bytes_max;		/* the budget if lower than HIST_BYTES_MAX */
};

/* A frame of a sample, as the writers have it (resolve_frames()). */
struct hist_frame {
	const char *sym;		/* "name+0xoff", "name" or "" */
	const char *dso;		/* the file, or "" */
	uint64_t addr;			/* what names it */
	bool kernel;
	/*
	 * a function inlined at addr (--inline): "name (inlined)", as perf
	 * shows it, in chains and children; the sample's self is the
	 * first frame that is not one, as perf's is the symbol's
	 */
	bool inlined;
};

struct hist_sample {
	const char *comm;		/* at most 16 bytes of it are taken */
	uint32_t pid, tid, cpu;
	const char *abi;		/* a literal: "x86_64", "i386", "x32", "none" */
	uint64_t period;
	unsigned int n;			/* frames, leaf first; at least the IP */
	const struct hist_frame *f;
};

/* What report's header says of the recording. */
struct hist_header {
	const char *event;
	uint64_t lost;			/* samples the kernel could not write */
};

/*
 * The budget: what a recording can make the table hold, whatever its
 * size (docs/security.md): entries, and bytes of entries, chain nodes,
 * frames and names together.  A sample past it is counted, not kept.
 */
#define HIST_ENTRIES_MAX	(1U << 20)
#define HIST_BYTES_MAX		(128ULL << 20)

struct hist;
struct hist *hist_new(const struct hist_opts *o);
/*
 * 0, or -ENOMEM when the sample did not fit: left out (hist_dropped())
 * or in the table without all of its chain (hist_cut()).
 */
int hist_add(struct hist *h, const struct hist_sample *s);
uint64_t hist_dropped(const struct hist *h);
uint64_t hist_cut(const struct hist *h);
/* Print the table as --no-children would (the entries' self alone). */
void hist_no_children(struct hist *h);
/* Print no chains under the entries. */
void hist_no_chains(struct hist *h);
uint64_t hist_samples(const struct hist *h);
void hist_print(struct hist *h, FILE *fp, const struct hist_header *hd);
void hist_print_json(struct hist *h, FILE *fp, const struct hist_header *hd);
void hist_free(struct hist *h);

/*
 * The table inside, for hist.c, which fills it, and hist-print.c, which
 * prints it; nothing else looks in.
 */

/* A call-chain node: a frame under its parent, and the period through it. */
struct node {
	const char *name, *dso;		/* interned: struct name's */
	uint64_t period, samples;
	struct node *kids, *next;	/* children, siblings */
};

struct entry {
	char comm[17];			/* as shown (text_safe()) */
	uint32_t pid, tid, cpu;
	const char *abi;
	const char *dso;		/* as shown, interned: "libc.so.6" */
	char *sym;			/* as shown: "[.] main" */
	const char *name;		/* the frame's, interned: what sym is made of */
	bool kernel;
	uint64_t self, nself, children, nchildren;
	uint64_t stamp;			/* the last sample that counted it */
	struct node root;		/* its chains */
	uint64_t hash;
	struct entry *next;		/* in its bucket */
};

/* The names of chain nodes, each once. */
struct name {
	uint64_t hash;
	struct name *next;
	char s[];
};

/*
 * A frame as the table shows it (its function and file), made once for
 * each distinct frame of the recording: found by the frame's symbol
 * (its offset cut off) and file as the resolver gave them, raw.
 */
struct iframe {
	const char *name, *dso;		/* interned (name_of()): as shown */
	uint64_t hash;
	uint64_t addr;			/* the key when there is no symbol */
	struct iframe *next;
	size_t symlen, dsolen;
	bool kernel, inlined;
	char raw[];			/* the symbol (cut), then the file */
};

#define BUCKETS	(1U << 16)
#define NAME_MAX_LEN	300		/* a frame's name as shown, at most */

struct hist {
	struct hist_opts o;
	struct entry **bucket;		/* BUCKETS */
	struct entry **all;		/* in the order they came */
	size_t n, cap;
	struct name **names;		/* BUCKETS */
	struct iframe **frames;		/* BUCKETS */
	uint64_t bytes;			/* of HIST_BYTES_MAX */
	uint64_t total, samples, dropped, cut, stamp;
	/*
	 * The frames of the sample being added, as shown: each a pointer
	 * to its struct iframe, so that entries and chain nodes are found
	 * by pointers, not names.  Names made for each entry a sample adds
	 * to and each node of its chains again were 63% of report
	 * --children on xz's real run; names made once a sample, then
	 * hashed and compared as strings for each entry and node, 59% of
	 * it (callgrind, 758 M instructions).
	 */
	const struct iframe **fr;
	size_t fr_cap;
	char comm[17];			/* the sample's, as shown */
	uint64_t shash;			/* of its sort keys that are not the frame's */
	bool by_dso, by_sym;		/* sorted by them */
};

#endif
