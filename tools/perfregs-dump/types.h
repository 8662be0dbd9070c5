/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perfregs-dump: the types its modules share: struct machine, struct
 * session and what they hold.  Layer 0 (docs/architecture.md).
 */
#ifndef PERFREGS_DUMP_TYPES_H
#define PERFREGS_DUMP_TYPES_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <signal.h>
#include <stdio.h>
#include "../lib/libperfregs.h"

/* Exit codes (documented in docs/perfregs-dump.1). */
enum {
	EXIT_OK = 0,
	EXIT_USAGE = 1,		/* bad command line */
	EXIT_SETUP = 2,		/* device, module or configuration refused */
	EXIT_COMMAND = 3,	/* COMMAND could not be started */
	EXIT_DATA = 4,		/* malformed records or recording (decoded the rest) */
	EXIT_IO = 5,		/* an output or input file could not be used */
	EXIT_INTERRUPTED = 6,	/* a decode stopped by SIGINT or SIGTERM (summed up) */
};

/* Register layouts a sample can be decoded with. */
enum layout {
	LAYOUT_NONE,
	LAYOUT_X86_64,
	LAYOUT_I386,
	LAYOUT_X32,
};

/* What the ELF header of an executable says. */
struct elf_facts {
	bool known;
	uint8_t elfclass;	/* ELFCLASS32 / ELFCLASS64 */
	uint16_t machine;	/* EM_386 / EM_X86_64 */
	/*
	 * An executable at fixed addresses with no interpreter (ET_EXEC,
	 * no PT_INTERP: static, not PIE): exec maps its PT_LOAD segments
	 * where they say, so the executable mappings it starts with are
	 * known from the file (elf_peek() with an id only).
	 */
	bool fixed;
	uint8_t nexec;
	struct { uint64_t start, end, pgoff; } exec[4];	/* bytes, page-aligned */
};

/*
 * A sample's SIMD section (PERFREGS_SF_SIMD, ABI minor 1), as
 * decode_record() checked it against the record's size: where each
 * component's bytes lie in the record, NULL for one it lacks.  A
 * section with no component says why the state is unknown.
 */
struct sample_simd {
	bool present;			/* the sample has a section */
	uint32_t components;		/* PERFREGS_SIMD_* found below */
	uint32_t nr_vec;		/* 16, or 8 for a 32-bit frame */
	uint32_t mxcsr;
	uint32_t unknown;		/* enum perfregs_simd_unknown */
	const unsigned char *xmm;	/* nr_vec x 16 bytes, little-endian */
	const unsigned char *ymmh;	/* nr_vec x 16: bits 128-255 of ymm n */
	const unsigned char *zmmh;	/* nr_vec x 32: bits 256-511 of zmm n */
	const unsigned char *zmm16;	/* 16 x 64: zmm16-31 whole (64-bit frames) */
	const unsigned char *k;		/* 8 x 8: k0-k7 */
};

/*
 * A sample's kernel call chain (PERFREGS_SF_KCHAIN, ABI minor 2), as
 * decode_record() checked it against the record's size: nr entries at
 * ips, in the record, the interrupted IP first, then return addresses,
 * innermost first.  nr 0: none (no section, or one the kernel left
 * empty: NESTED).  Its user call chain (PERFREGS_SF_UCHAIN, minor 3)
 * has the same shape: the user IP first; status PERFREGS_UCHAIN_*.
 */
struct sample_kchain {
	const uint64_t *ips;		/* in the record; NULL: no section */
	uint32_t nr;			/* PERFREGS_MAX_KCHAIN at most */
	uint32_t status;		/* PERFREGS_KCHAIN_* known to this tool */
};

/*
 * A sample's user stack, as decode_record() found it from the record's
 * size, read once: the output and the hooks take it from here, and read
 * none of the record's size fields again.  So are its SIMD section and
 * its kernel call chain, which lie before the stack, and its user call
 * chain, after it.
 */
struct sample_stack {
	const unsigned char *data;	/* in the record; NULL: it has none */
	uint64_t size;			/* bytes from the SP the record holds */
	uint64_t copied;		/* of which the kernel could copy */
	struct sample_simd simd;	/* the sample's SIMD state */
	struct sample_kchain kchain;	/* its kernel call chain */
	struct sample_kchain uchain;	/* its user call chain (after the stack) */
};

/* An executable, keyed by the (dev, ino) the kernel reports per sample. */
struct image {
	uint32_t dev;
	uint64_t ino;
	struct elf_facts facts;
	char *path;		/* may be NULL */
	bool build_id_known;	/* learnt live: build_id is the file's */
	uint8_t build_id_len;
	uint8_t build_id[20];
	struct image *next;
};

/* An executable mapping of a task, for symbols. */
struct mapping {
	uint64_t start, end, pgoff;
	char *path;		/* as the task mapped it */
	uint8_t build_id[20];	/* GNU build-id of the file, if any */
	uint8_t build_id_len;
	char *local;		/* the file to read here, once resolved */
	struct dso *syms;	/* its file's symbols, once found (dso.c) */
	uint64_t base;		/* where its first PT_LOAD is, once known */
	uint64_t first;		/* its own address, UINT64_MAX if not found */
	bool base_known;
};

/* The executable mappings of a task kept from /proc/PID/maps, at most */
#define MAPS_MAX	4096

/*
 * The executable mappings of a task: of one task image, keyed by (pid,
 * image ino), when learnt from /proc/PID/maps; or one version of a
 * process's address space (struct space, aspace.c), valid from t0 on until
 * the next version, when built from side-band events.
 */
struct task_maps {
	uint32_t pid;
	uint64_t ino;
	unsigned int n;
	struct mapping *m;	/* sorted by start, disjoint */
	struct task_maps *next;
	uint64_t t0;		/* a version: valid from here (CLOCK_MONOTONIC) */
	bool unknown;		/* a version whose mappings are not known */
	struct task_maps *older;	/* the version before */
	struct task_maps *retired;	/* replaced (aspace.c), freed at the end */
};

/*
 * An ELF image that is no file: a vDSO, read from a live task's memory
 * (or from the tool's own), kept in a memfd that path names.
 */
struct blob {
	uint8_t build_id[20];
	uint8_t build_id_len;
	uint8_t elfclass;
	uint16_t machine;
	uint64_t size;
	int fd;
	char path[40];		/* /proc/self/fd/N */
	struct blob *next;
};
#define BLOB_MAX	(1 << 20)	/* a vDSO is some 8 KiB */
/*
 * The budgets of jitmap.c (docs/perfregs-dump.1, JIT CODE): bytes of a map file
 * read (and of a recording's item of it), bytes of one line, entries of
 * one process, bytes kept (entries and names) across all processes, and
 * processes.  A line over its budget, with a size of 0, or with an end
 * past 2^64 is skipped; what goes over the others is left out, said once.
 */
#define JITMAP_FILE_MAX		(16U << 20)
#define JITMAP_LINE_MAX		4096
#define JITMAP_ENTRIES_MAX	(1U << 18)
#define JITMAP_TOTAL_MAX	(64ULL << 20)
#define JITMAP_PROCS_MAX	8192	/* a process has two: its map, its jitdump */
/* live: a map is read again for an address it does not name at most this often */
#define JITMAP_REREAD_NS	100000000ULL
/* live: map files kept open, so that a task's map stays readable after it exits */
#define JITMAP_FDS_MAX		32
/*
 * A jitdump (jitdump.c) holds its code too: bytes of one walked (its
 * names taken, its code gone past), and lines of /proc/PID/maps looked
 * at for it.
 */
#define JITDUMP_FILE_MAX	(256ULL << 20)
#define JITDUMP_MAPS_LINES	65536
/* live: a process's maps looked at again for its jitdump at most this often */
#define JITDUMP_REFIND_NS	1000000000ULL

#define BLOBS_MAX	16	/* one per ABI and boot: a recording has 3 at most */

/*
 * What happened to a process, as the side-band reports it; SB_BEGIN is
 * the tool's own: a process tracked from now on, before its exec
 * (space_begin()), so that a recording's reader tracks it from the same
 * place in the events as the live decoder did.
 */
enum sb_kind { SB_MMAP = 1, SB_EXEC, SB_FORK, SB_EXIT, SB_LOST, SB_BEGIN };

struct sb_event {
	uint32_t kind;		/* enum sb_kind */
	uint32_t pid;
	uint32_t ppid;		/* SB_FORK: the parent process */
	uint32_t prot;		/* SB_MMAP: PROT_* */
	uint64_t time;		/* CLOCK_MONOTONIC ns, as the samples' */
	uint64_t start, end, pgoff;	/* SB_MMAP; SB_LOST: start is the count */
	uint8_t build_id_len;	/* SB_MMAP: 0 when the kernel gave none */
	uint8_t build_id[20];
	const char *name;	/* SB_MMAP: the path; SB_EXEC: the comm */
	const char *local;	/* SB_MMAP, live: a deleted file, still open */
};

/* A kernel symbol: [start, end) named name. */
struct ksym {
	uint64_t start, end;
	char *name;
	bool owned;		/* name is ours to free (else in ksyms_blob) */
	bool recorded;		/* already written to the recording */
	uint32_t seq;		/* the order it was added in (symbols.c) */
};

enum out_format { FMT_TEXT, FMT_JSON, FMT_FOLDED };

/*
 * What the text output shows of a sample (-F/--fields, output.c), in
 * the order of the default line.  The fields up to F_SRCLINE share the
 * sample's first line; iregs and the rest are lines of their own.
 * F_DSO to F_SRCLINE (perf script's) are shown only when asked for.
 */
enum field {
	F_COMM, F_PID, F_TID, F_CPU, F_TIME, F_EVENT, F_IP, F_SYM, F_MODE,
	F_ABI, F_CONTEXT, F_UREGS_SOURCE, F_SKID,
	F_DSO, F_PERIOD, F_SYMOFF, F_SRCLINE,
	F_IREGS, F_UREGS, F_SIMD, F_STACK, F_CALLCHAIN,
	FIELD_MAX
};

/*
 * What a sample of a session made with cfg counts for, as perf.data's
 * period has it: the period of a fixed-period event; 1 for a frequency,
 * a breakpoint or the NMI, whose records carry none.
 */
static inline uint64_t config_period(const struct perfregs_config *cfg)
{
	return cfg->event == PERFREGS_EV_BREAKPOINT || cfg->event == PERFREGS_EV_NMI ||
	       (cfg->flags & PERFREGS_CF_FREQ) ? 1 : cfg->period;
}

/* Is field f in the default line (and in what +FIELD and -FIELD change)? */
static inline bool field_default(int f)
{
	return f < F_DSO || f > F_SRCLINE;
}

struct filter;

struct opts {
	enum out_format format;
	bool quiet;
	int verbose;
	bool summary;
	bool symbols;
	bool demangle;		/* --demangle (the default), --no-demangle */
	bool inlines;		/* --inline (the default), --no-inline: inlined frames */
	bool callgraph;		/* --call-graph dwarf: unwind each sample */
	const char *symfs;	/* --symfs: look for files under this root */
	const char *flamegraph;	/* --flamegraph: the stacks go to this SVG */
	const char *event_name;
	/* -F: enum field, each once, in order: the first line's, then the rest */
	uint8_t fields[FIELD_MAX];
	uint8_t nfields;		/* 0: the default, every field */
	uint8_t nline;			/* of them the first line's */
	/* --pid, --comms, --time ...: the samples kept (filter.c); NULL: all */
	const struct filter *filter;
};

/*
 * Lookups in /proc that found no answer for a (pid, image).  Around an
 * exec the answer can come a moment later (the new image's maps are
 * still being set up): such a lookup is tried again RETRY_GAP_NS apart
 * for at most RETRY_BUDGET_NS.  A task that is gone, or that runs
 * another image now (the sample was taken before its exec), is given
 * up at once.  Either way a given-up (pid, image) costs no more
 * lookups: on a slow kernel, a lookup per sample made decoding fall
 * seconds behind.
 */
#define RETRY_SLOTS	1024
#define RETRY_GAP_NS	50000000ULL
#define RETRY_BUDGET_NS	2000000000ULL
enum retry_kind { RETRY_IMAGE = 1, RETRY_MAPS };

struct retry {
	uint32_t kind, pid;
	uint64_t ino;
	uint64_t first_ns, next_ns;	/* CLOCK_MONOTONIC */
	bool given_up;
};

#define HELD_MAX	64	/* files held open (held_file()), all processes */
#define HELD_PID_MAX	8	/* of them first mapped by one process */

/* What a recording's ITEM_INFO says of where it was made (rec-read.c). */
#define REC_ARGS_MAX	4096
#define REC_ARG_MAX	4096	/* bytes of one */
struct rec_info {
	char release[65];		/* uname -r */
	char machine[65];		/* uname -m */
	unsigned int nrcpus_conf, nrcpus_online;
	uint8_t kbuild_id[20];		/* the kernel's build-id */
	uint8_t kbuild_id_len;
	uint64_t kernel_text;		/* _text, 0 if not known */
	char **args;			/* the recording's command line */
	unsigned int nargs;
	char version[32];		/* of the tool that made it */
	char host[65];
	char cpudesc[128];		/* "model name" */
	char cpuid[96];			/* vendor,family,model,stepping */
	uint64_t mem_kb;
	bool event_seen;		/* the first event= counts */
	struct perfregs_config cfg;	/* the file header's session */
	bool cfg_known;			/* a header was read */
	uint32_t abi_major, abi_minor;	/* of the module its records came from */
};

#define PERFREGS_TOOL_VERSION	"1.0"


/*
 * What the decoder learnt, queued for the session to hand on (learnt.c):
 * an image, maps, a kernel symbol or a vDSO it keeps until the end, or
 * a copy of a side-band event.
 */
enum learnt_kind {
	LEARNT_IMAGE = 1, LEARNT_MAPS, LEARNT_KSYM, LEARNT_SB, LEARNT_BLOB, LEARNT_JITMAP,
};

struct learnt_item {
	enum learnt_kind kind;
	const void *what;		/* image, task_maps, ksym, blob */
	struct sb_event ev;		/* LEARNT_SB, with name and local below */
	char *name, *local;
	void *data;			/* LEARNT_BLOB: the image's bytes; LEARNT_JITMAP: */
	size_t len;			/* a map's lines (jitmap.c), of len bytes, */
	uint32_t pid, nspid;		/* of process pid, nspid in its namespace */
	struct learnt_item *next;
};

struct learnt_queue {
	bool on;			/* learnt_init(): learning queues */
	pthread_mutex_t lock;
	struct learnt_item *head, **tail;
};

/* Messages for the command layer to print, once each (diag.c). */
#define DIAG_MAX	64
#define DIAG_LEN	256
struct diags {
	pthread_mutex_t lock;		/* PTHREAD_MUTEX_INITIALIZER's zeros */
	char *msg[DIAG_MAX];
	unsigned int n, printed, dropped;
};

/* A frame of an unwound user stack (unwind.c). */
struct frame {
	uint64_t ip;		/* as found (a return address for callers) */
	uint64_t lookup;	/* the address whose symbol names the frame */
	char sym[256];
	char dso[256];
	bool demangled;		/* sym is demangled (dso.h's SYM_RAW names it as its file does) */
	struct mapping *map;	/* the mapping it is in, NULL: none (JIT code) */
};

/*
 * What one decoding thread has of its own: the decoder's own thread has
 * d->self, each worker of --threads one of its own (pool.c).  libdwfl's
 * Dwfl is not thread-safe: each thread unwinds with its own.
 */
struct dthread {
	FILE *out;			/* where its samples go */
	struct unwinder *unwinders;	/* an attached Dwfl per address space */
	struct cfi_rules *cfi_rules;	/* CFI rows per file and address (unwind.c) */
	struct frame *frames;		/* unwind.c's, SAMPLE_FRAMES_MAX of them */
	bool stack_lines;		/* -f folded: each stack's cell to out (pool.c) */
	struct folded_cells *cells;	/* with stack_lines: its stacks (folded.c) */
	/*
	 * The file unwind_memory_read() read a word of last: its path, an
	 * open descriptor (-1: none, or no ELF file), one a thread.
	 */
	char *mem_path;
	int mem_fd;
	bool worker;			/* a worker of --threads: */
	size_t nksyms;			/* the kernel symbols its record sees */
};

/*
 * What is known of the machine the samples were taken on: its processes'
 * address spaces (from side-band events, or /proc), their executable
 * images and mapped files with their symbols, the vDSO images, the
 * kernel's symbols; what was learnt of them for the session to hand on,
 * and what there is to say.  Below the session: no field of it says
 * how samples are printed.
 */
struct machine {
	bool live;			/* may look at /proc */
	const char *symfs;		/* --symfs: look for files under this root */
	bool demangle;			/* name C++ and Rust functions demangled (dso.c) */
	bool inline_frames;		/* look for inlined functions, else lines only (inline.c) */
	bool symfs_missed;		/* a file was not under it: said (files.c) */
	bool threaded;			/* --threads' workers run (pool.c) */
	struct image *images[256];
	struct task_maps *maps[256];
	struct space *spaces[256];	/* by pid, from side-band events */
	struct space_link *orphans;	/* children of processes not yet known */
	unsigned int norphans;
	uint64_t rebuild_stamp;		/* children_rebuild()'s, per late event */
	struct blob *blobs;		/* vDSO images */
	struct jitmaps *jit;		/* JIT code's perf maps (jitmap.c) */
	unsigned int nblobs;
	size_t space_bytes;		/* of the versions of spaces (aspace.c) */
	size_t space_names;		/* of the names of their events */
	uint64_t sb_lost;		/* side-band events the kernel dropped */
	struct held {			/* files kept open (held_file()) */
		int fd;
		uint32_t pid;		/* the first process that mapped it */
		uint64_t dev, ino;
	} held[HELD_MAX];
	unsigned int nheld;
	/*
	 * The caches of dso.c, shared by the decoding threads (see
	 * mapping_file()).
	 */
	struct dsos *dsos;		/* files by identity, a Dwfl and symbols each */
	struct inlines *inlines;	/* inlined frames per file and address (inline.c) */
	char *debuginfo_path;		/* where libdw finds debug files */
	bool sideband;			/* side-band events are coming */
	struct ksym *ksyms;		/* [0, ksyms_sorted) by start, then as added */
	size_t nksyms, ksyms_cap, ksyms_sorted;
	struct { uint64_t start, end; } ksym_seen[64];	/* ksym_learn() */
	char *ksyms_blob;		/* /proc/kallsyms, names point into it */
	bool ksyms_loaded;
	/*
	 * Live: the learner thread and the decoding thread both learn
	 * images and maps; learn_lock serializes the learning (and the
	 * retries).  Lookups take no lock: entries are published whole
	 * with a release store and never change or go away until
	 * session_free(), after the learner has stopped.
	 */
	pthread_mutex_t learn_lock;
	struct retry retries[RETRY_SLOTS];
	/* what was learnt, for the session to hand on (learnt.c) */
	struct learnt_queue learnt;
	/* what the layers below the session have to say (diag.c) */
	struct diags diags;
};

/*
 * A decoding session: what the samples are printed as and where, the
 * machine they were taken on, the threads that print them, and what was
 * counted of them.
 */
struct session {
	struct opts o;
	FILE *out;
	/*
	 * The command's: a flag its SIGINT and SIGTERM handlers set, which
	 * stops the reading at the next record (session_read() -EINTR);
	 * and what it is told of how far the reading has come, at every
	 * item (size: the recording's bytes, UINT64_MAX for a pipe).
	 */
	volatile sig_atomic_t *stop;
	void (*progress)(struct session *d, uint64_t off, uint64_t size);
	uint64_t progress_t0, progress_next;	/* the command's, ns */
	uint64_t progress_elapsed;	/* ns the decode took, shown on a terminal; 0: not */
	bool progress_shown;
	struct machine m;		/* what is known of the machine */
	struct folded *folded;		/* -f folded: the stacks so far */
	uint64_t folded_dropped;	/* samples it has no room for */
	/* the decoder's own thread's caches (unwind.c) */
	struct dthread self;
	unsigned int threads;		/* that decode samples (--threads), 0: 1 */
	/* the workers' unwinders of tasks of more modules than a share (unwind.c) */
	struct unwinder *shared_unwinders;
	struct pool *pool;		/* their batches, while -i decodes (pool.c) */
	/* --threads' default: the workers start once the work is worth it */
	unsigned int pool_later;	/* threads to start then, 0: none */
	unsigned int pool_tick;		/* records decoded alone, mod 256 */
	uint64_t pool_t0;		/* this thread's CPU time at the start (ns) */
	uint64_t pool_size;		/* the recording's bytes, 0: not known */
	bool pool_clock_records;	/* test hook: 1 ms a record, not CPU time */
	uint64_t pool_after;		/* and how much more before they start */
	uint64_t pool_alone;		/* samples decoded alone before they did */
	uint64_t pool_waits;		/* pool_drain()s that waited for a batch */
	uint64_t samples;
	uint64_t filtered;		/* of them left out by o.filter */
	uint64_t lost[PERFREGS_LOST_MAX];
	uint64_t bad_records;
	char event_name[64];		/* a recording's event, o.event_name */
	struct rec_info info;		/* and the rest of its ITEM_INFO */
};

#endif
