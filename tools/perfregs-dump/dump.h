/* SPDX-License-Identifier: GPL-2.0 */
/* perfregs-dump: shared declarations. */
#ifndef PERFREGS_DUMP_H
#define PERFREGS_DUMP_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include "../lib/libperfregs.h"

/* Exit codes (documented in docs/perfregs-dump.1). */
enum {
	EXIT_OK = 0,
	EXIT_USAGE = 1,		/* bad command line */
	EXIT_SETUP = 2,		/* device, module or configuration refused */
	EXIT_COMMAND = 3,	/* COMMAND could not be started */
	EXIT_DATA = 4,		/* malformed records or recording (decoded the rest) */
	EXIT_IO = 5,		/* an output or input file could not be used */
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
	struct dwfl_entry *syms;	/* its symbol table, once opened */
	uint64_t base;		/* where its first PT_LOAD is, once known */
	uint64_t first;		/* its own address, UINT64_MAX if not found */
	bool base_known;
};

/*
 * The executable mappings of a task: of one task image, keyed by (pid,
 * image ino), when learnt from /proc/PID/maps; or one version of a
 * process's address space (struct space), valid from time t0 on until
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
 * A process's address space as the side-band events built it (perf's
 * MMAP2, COMM exec, FORK): its versions, newest first.  A version is
 * never changed once published; a change publishes a new one.
 */
struct space {
	uint32_t pid;
	struct task_maps *newest;
	struct task_maps *first;	/* before any event: unknown or empty */
	struct sb_entry *log;		/* its events, in time order */
	struct task_maps **vers;	/* the version after each event */
	size_t n, cap;
	struct task_maps *retired;	/* versions replaced after a late event */
	bool full;			/* given up: see space_give_up() */
	uint64_t last_fork;		/* the latest fork of a child of it */
	struct space *next;
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
#define BLOBS_MAX	16	/* one per ABI and boot: a recording has 3 at most */

/* What happened to a process, as the side-band reports it. */
enum sb_kind { SB_MMAP = 1, SB_EXEC, SB_FORK, SB_EXIT, SB_LOST };

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
};

struct decoded {
	enum layout layout;
	bool mixed;		/* a 64-bit image running 32-bit code */
	const char *abi_name;	/* "x86_64", "i386", "x32", "none" */
};

enum out_format { FMT_TEXT, FMT_JSON };

struct opts {
	enum out_format format;
	bool quiet;
	int verbose;
	bool summary;
	bool symbols;
	bool callgraph;		/* --call-graph dwarf: unwind each sample */
	const char *symfs;	/* --symfs: look for files under this root */
	const char *event_name;
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

/* What a decoder knows: images, task maps, kernel symbols. */
struct decoder {
	struct opts o;
	FILE *out;
	bool live;			/* may look at /proc */
	struct image *images[256];
	struct task_maps *maps[256];
	struct space *spaces[256];	/* by pid, from side-band events */
	struct blob *blobs;		/* vDSO images */
	unsigned int nblobs;
	size_t space_maps;		/* mapping copies in versions (aspace.c) */
	uint64_t sb_lost;		/* side-band events the kernel dropped */
	int held_fds[64];		/* deleted files kept open (deleted_file()) */
	unsigned int nheld;
	/* the decoding thread's caches (symbols.c, unwind.c) */
	struct dwfl_entry *dwfl_cache;	/* a Dwfl and symbol table per file */
	struct unwinder *unwinders;	/* an attached Dwfl per address space */
	char *debuginfo_path;		/* where libdw finds debug files */
	bool sideband;			/* side-band events are coming */
	struct ksym *ksyms;		/* sorted by start */
	size_t nksyms, ksyms_cap;
	struct { uint64_t start, end; } ksym_seen[64];	/* ksym_learn() */
	char *ksyms_blob;		/* /proc/kallsyms, names point into it */
	bool ksyms_loaded;
	/*
	 * Live: the learner thread and the decoding thread both learn
	 * images and maps; learn_lock serializes the learning (and the
	 * retries).  Lookups take no lock: entries are published whole
	 * with a release store and never change or go away until
	 * decoder_free(), after the learner has stopped.
	 */
	pthread_mutex_t learn_lock;
	struct retry retries[RETRY_SLOTS];
	uint64_t samples;
	uint64_t lost[PERFREGS_LOST_MAX];
	uint64_t bad_records;
	char event_name[64];		/* a recording's event, o.event_name */
	/* set by the live side when a new image/maps/ksym was learnt */
	void (*learnt_image)(void *arg, const struct image *im);
	void (*learnt_maps)(void *arg, const struct task_maps *tm);
	void (*learnt_ksym)(void *arg, const struct ksym *k);
	void (*learnt_sb)(void *arg, const struct sb_event *ev);
	void (*learnt_blob)(void *arg, const struct blob *b, const void *data);
	void *learnt_arg;
	/* every well-formed record, before it is printed (convert) */
	void (*record_hook)(void *arg, int cpu, const struct perfregs_rec_header *rec);
};

/* images.c */
int open_regular(const char *path);
struct Dwfl;
struct Dwfl_Module;
struct Dwfl_Module *report_elf(struct Dwfl *dwfl, const char *name, const char *path,
			       uint64_t base);
int elf_facts_of_file(const char *path, struct elf_facts *f);
int elf_peek(const char *path, struct elf_facts *f, uint8_t *id, uint8_t *len);
int elf_peek_fd(int fd, struct elf_facts *f, uint8_t *id, uint8_t *len);
uint64_t now_ns(void);
struct image *image_find(struct decoder *d, uint32_t dev, uint64_t ino);
struct image *image_add(struct decoder *d, uint32_t dev, uint64_t ino,
			const struct elf_facts *f, const char *path);
const struct image *image_learn(struct decoder *d,
				const struct perfregs_rec_sample *s);
void image_prelearn(struct decoder *d, const char *command);
struct decoded decide_layout(uint32_t kernel_abi, const struct elf_facts *f);
bool retry_due(struct decoder *d, enum retry_kind kind, uint32_t pid, uint64_t ino);
bool retry_failed(struct decoder *d, enum retry_kind kind, uint32_t pid, uint64_t ino,
		  bool final);
void images_free(struct decoder *d);

/* symbols.c */
struct task_maps *maps_find(struct decoder *d, uint32_t pid, uint64_t ino);
struct task_maps *maps_add(struct decoder *d, uint32_t pid, uint64_t ino,
			   struct mapping *m, unsigned int n);
void maps_learn(struct decoder *d, const struct perfregs_rec_sample *s);
int maps_line(const char *line, uint64_t *start, uint64_t *end, char perms[8],
	      uint64_t *pgoff, uint32_t *dev, uint64_t *inode, int *pos);
int file_build_id(const char *path, uint8_t *id, uint8_t *len);
const char *mapping_file(struct decoder *d, struct mapping *m);
char **dwfl_debuginfo_path(struct decoder *d);
char *deleted_file(struct decoder *d, uint32_t pid, uint64_t start, uint64_t end,
		   const char *name);
/*
 * The address of the first PT_LOAD of m's file as the task mapped it,
 * the base libdwfl's dwfl_report_elf() takes (add_p_vaddr false).
 */
uint64_t mapping_base(struct decoder *d, struct mapping *m);
int mapping_symbol(struct decoder *d, struct mapping *m, uint64_t lookup,
		   uint64_t show, char *buf, size_t len);
int kernel_symbol(struct decoder *d, uint64_t ip, char *buf, size_t len);
void ksym_add(struct decoder *d, uint64_t start, uint64_t end, const char *name);
void ksym_learn(struct decoder *d, uint64_t ip);
void ksyms_load(struct decoder *d);
const struct ksym *ksym_find(struct decoder *d, uint64_t ip);
void symbols_free(struct decoder *d);

/* aspace.c: address spaces from side-band events */
void space_event(struct decoder *d, const struct sb_event *ev);
void space_begin(struct decoder *d, uint32_t pid);
void space_seed(struct decoder *d, uint32_t pid);
void mapping_identify(struct decoder *d, struct sb_event *ev);
const struct task_maps *space_at(struct decoder *d, uint32_t pid, uint64_t time);
struct task_maps *maps_for_sample(struct decoder *d,
				  const struct perfregs_rec_sample *s);
int user_symbol(struct decoder *d, const struct perfregs_rec_sample *s,
		uint64_t ip, char *buf, size_t len);
bool space_tracked(struct decoder *d, uint32_t pid);
void spaces_free(struct decoder *d);

/* vdso.c: vDSO images */
const struct blob *blob_add(struct decoder *d, const void *data, size_t size);
const struct blob *blob_for(struct decoder *d, const struct mapping *m);
const struct blob *vdso_read(struct decoder *d, uint32_t pid, uint64_t start,
			     uint64_t end);
void blobs_free(struct decoder *d);

/* sideband.c: perf's side-band events of the sampled tasks, live */
struct sideband;
struct sideband *sb_open(int pid, bool inherit, char *err, size_t errlen);
int sb_drain(struct sideband *sb, struct decoder *d);
uint64_t sb_lost(const struct sideband *sb);
int sb_fds(const struct sideband *sb, int *fds, int max);
void sb_close(struct sideband *sb);

/* unwind.c */
struct frame {
	uint64_t ip;		/* as found (a return address for callers) */
	uint64_t lookup;	/* the address whose symbol names the frame */
	char sym[256];
	char dso[256];
};
int unwind_sample(struct decoder *d, const struct perfregs_rec_sample *s,
		  enum layout layout, const unsigned char *stack,
		  uint64_t stack_len, struct frame *frames, unsigned int max);
void unwind_free(struct decoder *d);

/* regs_x86.c */
const char *const *reg_names(enum layout layout, int *count);

/* output.c */
void decode_record(struct decoder *d, int cpu,
		   const struct perfregs_rec_header *rec, size_t avail);
void out_summary(struct decoder *d, FILE *fp, enum out_format fmt,
		 uint64_t produced);
const char *lost_cause_name(int cause);

/* recording.c: the self-describing file of -o / -i */
struct recorder;
struct recorder *rec_create(const char *path, const struct perfregs_config *cfg,
			    const char *event_name);
int rec_sample(struct recorder *r, int cpu, const struct perfregs_rec_header *h);
int rec_records(struct recorder *r, int cpu, const void *a, size_t alen,
		const void *b, size_t blen);
void rec_image(void *arg, const struct image *im);
void rec_maps(void *arg, const struct task_maps *tm);
void rec_ksym(void *arg, const struct ksym *k);
void rec_sb(void *arg, const struct sb_event *ev);
void rec_blob(void *arg, const struct blob *b, const void *data);
int rec_close(struct recorder *r, uint64_t produced, const uint64_t *lost);
int rec_decode(const char *path, struct decoder *d, uint64_t *produced,
	       char *err, size_t errlen);
int rec_decode_buf(const unsigned char *buf, size_t size, struct decoder *d,
		   uint64_t *produced, char *err, size_t errlen);
int rec_config(const char *path, struct perfregs_config *cfg, char *err,
	       size_t errlen);

/* decoder.c: the decoder as a whole */
void decoder_free(struct decoder *d);

/* perfdata.c */
int perfdata_convert(const char *in, const char *out, struct decoder *d,
		     char *err, size_t errlen);

#endif
