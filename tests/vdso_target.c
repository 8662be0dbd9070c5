// SPDX-License-Identifier: GPL-2.0
/*
 * vdso_target: print the address of SYM in this process's vDSO (found
 * through its own section headers: the vDSO image carries them), then
 * wait for a line on stdin.  Built -m32 for the host tests: an i386
 * process's vDSO differs from the 64-bit tool's.
 *
 * usage: vdso_target SYM
 */
#include <elf.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#if UINTPTR_MAX == 0xffffffffu
typedef Elf32_Ehdr Ehdr;
typedef Elf32_Shdr Shdr;
typedef Elf32_Sym Sym;
#else
typedef Elf64_Ehdr Ehdr;
typedef Elf64_Shdr Shdr;
typedef Elf64_Sym Sym;
#endif

int main(int argc, char **argv)
{
	const char *base = (const char *)getauxval(AT_SYSINFO_EHDR);
	const Ehdr *e = (const Ehdr *)base;
	const Shdr *sh;
	char c;
	int i;

	if (argc != 2 || !base)
		return 2;
	sh = (const Shdr *)(base + e->e_shoff);
	for (i = 0; i < e->e_shnum; i++) {
		const Sym *s = (const Sym *)(base + sh[i].sh_offset);
		const char *str = base + sh[sh[i].sh_link].sh_offset;
		unsigned int j;

		if (sh[i].sh_type != SHT_DYNSYM)
			continue;
		for (j = 0; j < sh[i].sh_size / sizeof(*s); j++) {
			if (strcmp(str + s[j].st_name, argv[1]))
				continue;
			printf("%#lx\n", (unsigned long)(uintptr_t)(base + s[j].st_value));
			fflush(stdout);
			return read(0, &c, 1) < 0;
		}
	}
	return 1;
}
