/* SPDX-License-Identifier: GPL-2.0 */
/* plt.c: a file's PLT entries, named "function@plt" from its relocations. */
#ifndef PERFREGS_DUMP_PLT_H
#define PERFREGS_DUMP_PLT_H

#include <stddef.h>
#include <stdint.h>

/*
 * The budget of one file (a file is anyone's): at most PLT_SYMS_MAX
 * entries, a name cut at PLT_NAME_MAX bytes, PLT_NAMES_BYTES of names
 * in all; past it the file's other entries get no name of their own.
 */
#define PLT_SYMS_MAX	65536
#define PLT_NAME_MAX	1023
#define PLT_NAMES_BYTES	(4u << 20)

struct plt_sym {
	uint64_t start, size;	/* the file's own (link-time) addresses */
	const char *name;	/* in the set's names */
};

struct plt_syms {
	struct plt_sym *s;
	size_t n;
	char *names;
	size_t names_len, names_cap;
};

struct Elf;
size_t plt_symbols(struct Elf *elf, struct plt_syms *out);
void plt_syms_free(struct plt_syms *p);

#endif
