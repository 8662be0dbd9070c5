// SPDX-License-Identifier: GPL-2.0
/*
 * mkbomb: recordings that are small on disk and were made to cost the
 * decoder much more than their size in memory or open files:
 *   paths  (bomb 2) one exec, then N executable mappings of LEN-byte
 *          paths, each a different path, none overlapping another:
 *          every new version of the address space holds every mapping
 *          made before it (N versions of up to N mappings); with LIB,
 *          the last of them is LIB's, whole (its name is not LEN bytes)
 *   bases  (bomb 3) N processes, each an exec and a mapping of the
 *          shared library LIB (of the LIBs in turn) at a start of its
 *          own (256 MiB apart, a library must be smaller), from file offset
 *          PGOFF (default 0: in a segment that is not executable), and
 *          a sample with 64 bytes of stack at its entry point (else in
 *          its first executable PT_LOAD; past the file's end, 0x10 into
 *          the mapping): a start the recording chooses for each mapping
 *          of one file
 * Then one sample in the last mapping (paths; at LIB's entry point, so
 * that it is named only if that mapping was kept).  Samples have IP, SP
 * and BP, for --call-graph dwarf.
 *
 * usage: mkbomb FILE paths N LEN [LIB]
 *        mkbomb FILE bases N LIB[:LIB]... [PGOFF]
 */
#include <elf.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "../tools/perfregs-dump/types.h"
#include "../tools/perfregs-dump/rec-write.h"

#define R(x) (1ULL << PERFREGS_REG_##x)
#define PATH_BYTES	4096
#define LIBS_MAX	4096

static void sample(struct recorder *r, uint32_t pid, uint64_t time, uint64_t ip)
{
	uint64_t buf[64] = { 0 };
	struct perfregs_rec_sample *s = (void *)buf;
	uint64_t *v = (uint64_t *)s->regs;

	s->header.type = PERFREGS_REC_SAMPLE;
	s->time = time;
	s->pid = s->tid = pid;
	s->flags = PERFREGS_SF_CTX_IRQ | PERFREGS_SF_UREGS_DIRECT | PERFREGS_SF_STACK;
	s->abi = PERFREGS_ABI_64;
	snprintf(s->comm, sizeof(s->comm), "bomb");
	s->image_ino = 1000;
	s->image_dev = 0x801;
	s->iregs_mask = R(IP);
	*v++ = ip;
	s->uregs_mask = R(BP) | R(SP) | R(IP);	/* in register order */
	*v++ = 0x7ffff800;	/* bp: in the stack */
	*v++ = 0x7ffff000;	/* sp */
	*v++ = ip;
	*v++ = 64;		/* stack: size, the bytes (zeros), copied */
	v += 64 / 8;
	*v++ = 64;
	s->header.size = (char *)v - (char *)s;
	rec_sample(r, 0, &s->header);
}

/*
 * Where in LIB a sample goes, as a file offset: its entry point if it
 * has one (libc.so.6 has), else 0x100 into its first executable
 * PT_LOAD; and the file's size.  (GNU ld: addresses are offsets.)
 */
static int lib_code(const char *lib, uint64_t *code, uint64_t *size)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	struct stat st;
	int fd = open(lib, O_RDONLY), i;

	if (fd < 0 || fstat(fd, &st) || pread(fd, &eh, sizeof(eh), 0) != sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != ELFCLASS64)
		return -1;
	*size = ((uint64_t)st.st_size + 4095) & ~4095ULL;
	for (i = 0; i < eh.e_phnum; i++) {
		if (pread(fd, &ph, sizeof(ph), eh.e_phoff + (uint64_t)i * sizeof(ph)) !=
		    sizeof(ph))
			break;
		if (ph.p_type == PT_LOAD && (ph.p_flags & PF_X)) {
			*code = eh.e_entry ? eh.e_entry : ph.p_offset + 0x100;
			close(fd);
			return 0;
		}
	}
	close(fd);
	return -1;
}

int main(int argc, char **argv)
{
	uint64_t lostv[PERFREGS_LOST_MAX] = { 0 }, pgoff = 0, ip;
	static uint64_t code[LIBS_MAX], size[LIBS_MAX];
	struct sb_event ev = { .kind = SB_EXEC, .pid = 42, .time = 1, .name = "bomb" };
	static char path[PATH_BYTES];
	static const char *lib[LIBS_MAX];
	struct perfregs_config cfg;
	struct recorder *r;
	long n, len = 0, i, nsamples = 0, nlibs = 0, j;
	char *tok;
	bool bases;

	if (argc < 5 || (strcmp(argv[2], "paths") && strcmp(argv[2], "bases")) ||
	    argc > 6)
		goto usage;
	bases = argv[2][0] == 'b';
	n = atol(argv[3]);
	if (bases) {
		for (tok = strtok(argv[4], ":"); tok && nlibs < LIBS_MAX; tok = strtok(NULL, ":")) {
			lib[nlibs] = tok;
			if (lib_code(tok, &code[nlibs], &size[nlibs]) || size[nlibs] >= 0x10000000) {
				fprintf(stderr, "mkbomb: %s: no 64-bit ELF file with code, "
					"under 256 MiB\n", tok);
				return 1;
			}
			nlibs++;
		}
		if (!nlibs)
			goto usage;
		if (argc == 6)
			pgoff = strtoull(argv[5], NULL, 0);
	} else {
		len = atol(argv[4]);
		if (len < 32 || len >= PATH_BYTES)
			goto usage;
		if (argc == 6 && lib_code(argv[5], &code[0], &size[0])) {
			fprintf(stderr, "mkbomb: %s: no 64-bit ELF file with code\n", argv[5]);
			return 1;
		}
	}
	prf_config_default(&cfg);
	r = rec_create(argv[1], &cfg, "cpu-clock");
	if (!r) {
		perror(argv[1]);
		return 1;
	}
	if (!bases)
		rec_sb(r, &ev);
	for (i = 0; i < n; i++) {
		ev.prot = PROT_READ | PROT_EXEC;
		if (bases) {
			ev.pid = 1000 + (uint32_t)i;
			ev.kind = SB_EXEC;
			ev.time = 10 * (uint64_t)i + 1;
			ev.name = "bomb";
			rec_sb(r, &ev);
			ev.kind = SB_MMAP;
			ev.time++;
			j = i % nlibs;
			ev.start = 0x7e0000000000ULL + (uint64_t)i * 0x10000000ULL;
			ev.end = ev.start + (pgoff < size[j] ? size[j] - pgoff : 0x1000);
			ev.pgoff = pgoff;
			ev.name = lib[j];
			rec_sb(r, &ev);
			ip = ev.start - pgoff + code[j];	/* else: in the mapping, past the file */
			sample(r, ev.pid, ev.time + 1, ip >= ev.start && ip < ev.end ? ip :
			       ev.start + 0x10);
			nsamples++;
			continue;
		}
		/* a path of its own, len bytes: "/bomb/NUMBER/aaa...a" */
		memset(path, 'a', len);
		path[len] = 0;
		snprintf(path, 18, "/bomb/%010u", (unsigned int)i);
		path[16] = '/';
		ev.kind = SB_MMAP;
		ev.time = 2 + (uint64_t)i;
		ev.start = 0x7f0000000000ULL + (uint64_t)i * 0x10000;
		ev.end = ev.start + 0x1000;
		ev.pgoff = 0;
		ev.name = path;
		if (i == n - 1 && argc == 6) {	/* LIB, past the others */
			ev.start = 0x7e0000000000ULL;
			ev.end = ev.start + size[0];
			ev.name = argv[5];
		}
		rec_sb(r, &ev);
	}
	if (!bases && n > 0) {
		sample(r, 42, 2 + (uint64_t)n, argc == 6 ? ev.start + code[0] : ev.start + 0x10);
		nsamples++;
	}
	return rec_close(r, nsamples, lostv) ? 1 : 0;
usage:
	fprintf(stderr, "usage: mkbomb FILE paths N LEN [LIB]\n"
		"       mkbomb FILE bases N LIB[:LIB]... [PGOFF]\n");
	return 2;
}
