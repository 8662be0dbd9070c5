/* SPDX-License-Identifier: GPL-2.0 */
/* perfregs-dump: shared declarations. */
#ifndef PERFREGS_DUMP_H
#define PERFREGS_DUMP_H

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
	EXIT_DATA = 4,		/* malformed records were met (decoded the rest) */
};

/* Register layouts a sample can be decoded with. */
enum layout {
	LAYOUT_NONE,
	LAYOUT_X86_64,
	LAYOUT_I386,
	LAYOUT_X32,
};

/* What the ELF header of a task's image says. */
struct elf_facts {
	bool known;
	unsigned char elfclass;	/* ELFCLASS32 / ELFCLASS64 */
	uint16_t machine;	/* EM_386 / EM_X86_64 */
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
	const char *event_name;
};

/* elfabi.c */
int elf_facts_of_file(const char *path, struct elf_facts *f);
const struct elf_facts *elf_facts_of_task(pid_t pid, const char *comm);
struct decoded decide_layout(uint32_t kernel_abi, const struct elf_facts *f);

/* regs_x86.c */
const char *reg_name(enum layout layout, int reg);
bool reg_in_layout(enum layout layout, int reg);

/* output.c */
void out_sample(FILE *fp, const struct opts *o,
		const struct perfregs_rec_sample *s);
void out_lost(FILE *fp, const struct opts *o,
	      const struct perfregs_rec_lost *l, int cpu);
void out_summary(FILE *fp, const struct opts *o, uint64_t samples,
		 const uint64_t *lost, uint64_t produced);
const char *lost_cause_name(int cause);

#endif
