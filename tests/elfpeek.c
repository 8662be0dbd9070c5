// SPDX-License-Identifier: GPL-2.0
/*
 * elf_peek(), the learner's pread()-only ELF reader, against libelf on
 * every file named: the same ELF-or-not verdict, class, machine and GNU
 * build-id; where the program headers hold none, file_build_id()'s
 * libelf fallback must find libelf's.
 * With --maps: maps_line() against sscanf() on every line of the
 * /proc/PID/maps files named.  Prints one line per disagreement and a
 * count; exits 1 on any.
 *
 * usage: elfpeek FILE...  |  elfpeek --maps MAPS...
 */
#include <fcntl.h>
#include <inttypes.h>
#include <gelf.h>
#include <libelf.h>
#include <elfutils/libdwelf.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "../tools/perfregs-dump/dump.h"

/* libelf's answers */
static int oracle(const char *path, struct elf_facts *f, uint8_t *id,
		  uint8_t *len)
{
	const void *p;
	GElf_Ehdr eh;
	ssize_t n;
	Elf *elf;
	int fd, ret = -1;

	memset(f, 0, sizeof(*f));
	*len = 0;
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && elf_kind(elf) == ELF_K_ELF && gelf_getehdr(elf, &eh) &&
	    eh.e_ident[EI_DATA] == ELFDATA2LSB) {
		f->known = true;
		f->elfclass = eh.e_ident[EI_CLASS];
		f->machine = eh.e_machine;
		ret = 0;
		n = dwelf_elf_gnu_build_id(elf, &p);
		if (n > 0 && n <= 20) {
			memcpy(id, p, n);
			*len = (uint8_t)n;
		}
	}
	elf_end(elf);
	close(fd);
	return ret;
}

/* maps_line() against sscanf() on every line of the maps files named */
static int check_maps(int argc, char **argv)
{
	unsigned int lines = 0, paths = 0, bad = 0;
	char line[4096];
	int i;

	for (i = 0; i < argc; i++) {
		FILE *fp = fopen(argv[i], "r");

		while (fp && fgets(line, sizeof(line), fp)) {
			uint64_t a[4], b[4];
			char pa[8], pb[8];
			int posa = 0, posb = 0, ra, rb;
			uint32_t dev;

			ra = maps_line(line, &a[0], &a[1], pa, &a[2], &dev, &a[3], &posa);
			unsigned int major, minor;

			rb = sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %x:%x %"
				    SCNu64 " %n", &b[0], &b[1], pb, &b[2], &major, &minor,
				    &b[3], &posb) < 7 || !posb ? -1 : 0;
			lines++;
			if (ra != rb || (!ra && (memcmp(a, b, sizeof(a)) || strcmp(pa, pb) ||
						 posa != posb || dev != ((minor & 0xff) | (major << 8) |
						 ((minor & ~0xffU) << 12))))) {
				printf("# %s: maps_line %d, sscanf %d: %s", argv[i], ra, rb, line);
				bad++;
			}
			paths += !ra && line[posa] == '/';
		}
		if (fp)
			fclose(fp);
	}
	printf("# %u maps lines (%u with a path), %u disagreements\n", lines, paths, bad);
	return bad || !lines ? 1 : 0;
}

int main(int argc, char **argv)
{
	unsigned int files = 0, elfs = 0, ids = 0, fallback = 0, bad = 0;
	int i;

	if (argc > 1 && !strcmp(argv[1], "--maps"))
		return check_maps(argc - 2, argv + 2);

	elf_version(EV_CURRENT);
	for (i = 1; i < argc; i++) {
		struct elf_facts a, b;
		uint8_t ida[20], idb[20], la, lb;
		int ra = elf_peek(argv[i], &a, ida, &la);
		int rb = oracle(argv[i], &b, idb, &lb);

		files++;
		if (ra != rb || a.known != b.known || a.elfclass != b.elfclass ||
		    a.machine != b.machine) {
			printf("# %s: elf_peek %d class %u machine %u, libelf %d class %u machine %u\n",
			       argv[i], ra, a.elfclass, a.machine, rb, b.elfclass, b.machine);
			bad++;
			continue;
		}
		elfs += !ra;
		/* a build-id only in a section is file_build_id()'s fallback */
		if (la && (la != lb || memcmp(ida, idb, la))) {
			printf("# %s: build-ids differ (%u and %u bytes)\n", argv[i], la, lb);
			bad++;
		}
		/* with it, the answer must be libelf's */
		if (!la && lb) {
			fallback++;
			if (file_build_id(argv[i], ida, &la) || la != lb ||
			    memcmp(ida, idb, la)) {
				printf("# %s: file_build_id() misses libelf's build-id\n",
				       argv[i]);
				bad++;
			}
		}
		ids += la != 0;
	}
	printf("# %u files, %u ELF, %u build-ids (%u only in a section), %u disagreements\n",
	       files, elfs, ids, fallback, bad);
	return bad ? 1 : 0;
}
