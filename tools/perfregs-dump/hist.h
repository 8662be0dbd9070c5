/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hist.c: report's table: the samples summed by the sort keys (comm,
 * pid, tid, dso, sym, abi, cpu), self and children, with the call
 * chains under each entry, printed as perf report --stdio prints its
 * table, or as JSON.
 */
#ifndef PERFREGS_DUMP_HIST_H
#define PERFREGS_DUMP_HIST_H

#include <stdbool.h>
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
 * size (docs/security.md): entries, and bytes of entries, chain nodes
 * and names together.  A sample past it is counted, not kept.
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

#endif
