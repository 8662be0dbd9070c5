// SPDX-License-Identifier: GPL-2.0
/*
 * pltnames: the PLT entries plt.c names in each FILE, one line each,
 * "ADDR SIZE NAME" (the file's addresses, hex), after a line "# FILE N".
 * tests/host/11-unwind.sh holds them against objdump's labels of every
 * library and program here, and runs it (with AddressSanitizer) on
 * hostile files: counts and names within plt.h's budget.
 *
 * usage: pltnames FILE...
 */
#include <fcntl.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdio.h>
#include <unistd.h>
#include "../tools/perfregs-dump/plt.h"

int main(int argc, char **argv)
{
	int i, ret = 0;

	elf_version(EV_CURRENT);
	for (i = 1; i < argc; i++) {
		int fd = open(argv[i], O_RDONLY);
		Elf *elf = fd < 0 ? NULL : elf_begin(fd, ELF_C_READ_MMAP, NULL);
		struct plt_syms p;
		size_t j;

		if (!elf) {
			ret = 1;
			fprintf(stderr, "%s: cannot read\n", argv[i]);
			if (fd >= 0)
				close(fd);
			continue;
		}
		plt_symbols(elf, &p);
		printf("# %s %zu\n", argv[i], p.n);
		for (j = 0; j < p.n; j++)
			printf("%" PRIx64 " %" PRIx64 " %s\n", p.s[j].start, p.s[j].size,
			       p.s[j].name);
		plt_syms_free(&p);
		elf_end(elf);
		close(fd);
	}
	return ret;
}
