/* SPDX-License-Identifier: GPL-2.0 */
/* images.c: ELF files, and the images of the samples by (dev, ino). */
#ifndef PERFREGS_DUMP_IMAGES_H
#define PERFREGS_DUMP_IMAGES_H

#include "types.h"

/* What register layout a sample gets (decide_layout()). */
struct decoded {
	enum layout layout;
	bool mixed;		/* a 64-bit image running 32-bit code */
	const char *abi_name;	/* "x86_64", "i386", "x32", "none" */
};

int open_regular(const char *path);
struct Dwfl;
struct Dwfl_Module;
struct Dwfl_Module *report_elf(struct Dwfl *dwfl, const char *name, const char *path,
			       uint64_t base);
struct Dwfl_Module *report_elf_fd(struct Dwfl *dwfl, const char *name, const char *path,
				  int fd, uint64_t base);
int elf_facts_of_file(const char *path, struct elf_facts *f);
int elf_peek(const char *path, struct elf_facts *f, uint8_t *id, uint8_t *len);
int elf_peek_fd(int fd, struct elf_facts *f, uint8_t *id, uint8_t *len);
uint64_t now_ns(void);
struct image *image_find(struct machine *mach, uint32_t dev, uint64_t ino);
struct image *image_add(struct machine *mach, uint32_t dev, uint64_t ino,
			const struct elf_facts *f, const char *path);
const struct image *image_learn(struct machine *mach,
				const struct perfregs_rec_sample *s);
void image_prelearn(struct machine *mach, const char *command);
struct decoded decide_layout(uint32_t kernel_abi, const struct elf_facts *f);
bool retry_due(struct machine *mach, enum retry_kind kind, uint32_t pid, uint64_t ino);
bool retry_failed(struct machine *mach, enum retry_kind kind, uint32_t pid, uint64_t ino,
		  bool final);
void images_free(struct machine *mach);

#endif
