// SPDX-License-Identifier: GPL-2.0
/*
 * elf_peek(), the learner's pread()-only ELF reader, against libelf on
 * every file named: the same ELF-or-not verdict, class, machine, GNU
 * build-id, and for a static non-PIE executable its executable segments; where the program headers hold none, file_build_id()'s
 * libelf fallback must find libelf's.
 * With --maps: maps_line() against sscanf() on every line of the
 * /proc/PID/maps files named.  Prints one line per disagreement and a
 * count; exits 1 on any.
 *
 * With --exec-maps PROG ARG: the executable mappings of a static non-PIE
 * PROG, running, against those derived from its file.
 *
 * With --must-peek FILE: elf_peek() itself (no libelf fallback) must find
 * FILE's build-id, and not call it fixed.
 *
 * usage: elfpeek FILE...  |  elfpeek --maps MAPS...  |  elfpeek --exec-maps PROG ARG
 *        |  elfpeek --must-peek FILE
 */
#include <fcntl.h>
#include <inttypes.h>
#include <gelf.h>
#include <libelf.h>
#include <elfutils/libdwelf.h>
#include <stdio.h>
#include <string.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/wait.h>
#include "../tools/perfregs-dump/types.h"
#include "../tools/perfregs-dump/images.h"
#include "../tools/perfregs-dump/maps.h"
#include "../tools/perfregs-dump/files.h"

/* Fixed addresses (ET_EXEC, no PT_INTERP): the executable PT_LOADs, paged */
static void oracle_fixed(Elf *elf, const GElf_Ehdr *eh, struct elf_facts *f)
{
	bool interp = false, over = false;
	GElf_Phdr ph;
	size_t i, n;

	if (elf_getphdrnum(elf, &n))
		return;
	for (i = 0; i < n && gelf_getphdr(elf, (int)i, &ph); i++) {
		if (ph.p_type == PT_INTERP)
			interp = true;
		if (ph.p_type != PT_LOAD || !(ph.p_flags & PF_X))
			continue;
		if (f->nexec == 4 || !ph.p_filesz) {
			over = true;
			continue;
		}
		f->exec[f->nexec].start = ph.p_vaddr / 4096 * 4096;
		f->exec[f->nexec].end = (ph.p_vaddr + ph.p_filesz + 4095) / 4096 * 4096;
		f->exec[f->nexec].pgoff = ph.p_offset / 4096 * 4096;
		f->nexec++;
	}
	f->fixed = eh->e_type == ET_EXEC && !interp && !over && i == n && n <= 128 &&
		   f->nexec;
	if (!f->fixed)
		f->nexec = 0;
}

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
		oracle_fixed(elf, &eh, f);
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

/*
 * --exec-maps PROG ARG: run PROG ARG and compare the executable mappings
 * of its image in /proc/PID/maps with those elf_peek() derives for a
 * static non-PIE file (what the learner uses instead of reading maps).
 */
static int check_exec_maps(const char *prog, const char *arg)
{
	char path[64], line[4096], *real = realpath(prog, NULL);
	unsigned int seen = 0, bad = 0, i;
	struct elf_facts f;
	uint8_t id[20], len;
	pid_t pid;
	FILE *fp;

	if (!real || elf_peek(real, &f, id, &len) || !f.fixed) {
		printf("# %s: not a static non-PIE ELF file\n", prog);
		return 1;
	}
	pid = fork();
	if (pid == 0) {
		execl(real, real, arg, (char *)NULL);
		_exit(127);
	}
	usleep(200000);
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	fp = fopen(path, "r");
	while (fp && fgets(line, sizeof(line), fp)) {
		uint64_t start, end, pgoff, inode;
		char perms[8];
		uint32_t dev;
		int pos;

		line[strcspn(line, "\n")] = 0;
		if (maps_line(line, &start, &end, perms, &pgoff, &dev, &inode, &pos) ||
		    perms[2] != 'x' || strcmp(line + pos, real))
			continue;
		for (i = 0; i < f.nexec; i++)
			if (f.exec[i].start == start && f.exec[i].end == end &&
			    f.exec[i].pgoff == pgoff)
				break;
		if (i == f.nexec) {
			printf("# %s: no segment from the file for %s\n", prog, line);
			bad++;
		}
		seen++;
	}
	if (fp)
		fclose(fp);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	printf("# %s: %u executable mappings, %u segments from the file, %u differ\n",
	       prog, seen, f.nexec, bad);
	free(real);
	return bad || seen != f.nexec ? 1 : 0;
}

int main(int argc, char **argv)
{
	unsigned int files = 0, elfs = 0, ids = 0, fallback = 0, fixed = 0, bad = 0;
	int i;

	if (argc > 1 && !strcmp(argv[1], "--maps"))
		return check_maps(argc - 2, argv + 2);
	if (argc == 4 && !strcmp(argv[1], "--exec-maps"))
		return check_exec_maps(argv[2], argv[3]);
	if (argc == 3 && !strcmp(argv[1], "--must-peek")) {
		/* the build-id from the program headers alone, as libelf's */
		struct elf_facts a, b;
		uint8_t ida[20], idb[20], la, lb;

		elf_version(EV_CURRENT);
		if (elf_peek(argv[2], &a, ida, &la) || oracle(argv[2], &b, idb, &lb) ||
		    !la || la != lb || memcmp(ida, idb, la) || a.fixed) {
			printf("# %s: elf_peek build-id %u bytes, libelf %u, fixed %d\n",
			       argv[2], la, lb, a.fixed);
			return 1;
		}
		printf("# %s: build-id found after the executable segments\n", argv[2]);
		return 0;
	}

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
		fixed += a.fixed;
		if (a.fixed != b.fixed || a.nexec != b.nexec ||
		    memcmp(a.exec, b.exec, a.nexec * sizeof(a.exec[0]))) {
			printf("# %s: fixed %d with %u segments, libelf: fixed %d with %u\n",
			       argv[i], a.fixed, a.nexec, b.fixed, b.nexec);
			bad++;
		}
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
	printf("# %u files, %u ELF (%u static non-PIE), %u build-ids (%u only in a "
	       "section), %u disagreements\n", files, elfs, fixed, ids, fallback, bad);
	return bad ? 1 : 0;
}
