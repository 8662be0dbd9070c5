// SPDX-License-Identifier: GPL-2.0
/*
 * mkunwind: a recording of made-up stacks over real code, for comparing
 * the unwinder's fast path with libdwfl (PERFREGS_UNWIND=dwfl) frame
 * for frame.  Each TASK is ABI:FILE[:FILE]...: a process (pid 100,
 * 200, ...) with the executable PT_LOADs of each FILE mapped, PIEs and
 * libraries at bases of their own, and an image of the first FILE's ELF
 * class; ABI is 64, 32, x32 (kernel ABI 64 and an ELFCLASS32 image) or
 * mixed (kernel ABI 32 and an ELFCLASS64 image).  N user-mode samples
 * in turn, from a PRNG seeded with SEED: the IP anywhere in the mapped
 * code (or, now and then, outside it), the registers and a stack of 64
 * to 2048 bytes of words that are return addresses into the code,
 * pointers into the stack, small numbers or noise; now and then a stack
 * cut short (copied less than its size), and a 32-bit one that ends
 * past 4 GiB (a CFA there is kept to 32 bits in registers).  Most chains are
 * nonsense; what matters is that both unwinders make the same of them.
 * A FILE "vdso" is mkunwind's own vDSO, mapped as [vdso] and recorded
 * whole (an image item): a recording that names no file of the machine
 * (the fuzzer's seed).
 *
 * usage: mkunwind FILE SEED N TASK...
 */
#include <elfutils/libdwelf.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/auxv.h>
#include "../tools/perfregs-dump/types.h"
#include "../tools/perfregs-dump/rec-write.h"
#include "../tools/perfregs-dump/session.h"

#define R(x) (1ULL << PERFREGS_REG_##x)
#define GEN_MAPS	64
#define STACK_MAX	2048

static uint64_t rnd_state;

static uint64_t rnd(void)	/* xorshift64* */
{
	rnd_state ^= rnd_state >> 12;
	rnd_state ^= rnd_state << 25;
	rnd_state ^= rnd_state >> 27;
	return rnd_state * 0x2545f4914f6cdd1dULL;
}

struct task {
	uint32_t pid;
	uint64_t ino;
	bool is32;		/* 4-byte words: i386, x32, mixed */
	uint32_t abi;		/* the kernel's: PERFREGS_ABI_* */
	struct mapping m[GEN_MAPS];
	unsigned int n;
};

/*
 * This process's vDSO, whole (to the end of its section headers), and
 * recorded as an image item once.
 */
static Elf *vdso_elf(struct recorder *r)
{
	static Elf *elf;
	const unsigned char *p = (const void *)getauxval(AT_SYSINFO_EHDR);
	struct blob b = { 0 };
	Elf64_Ehdr eh;

	if (elf || !p)
		return elf;
	memcpy(&eh, p, sizeof(eh));
	b.size = eh.e_shoff + (uint64_t)eh.e_shnum * eh.e_shentsize;
	rec_blob(r, &b, p);
	return elf = elf_memory((char *)p, b.size);
}

/* FILE's executable PT_LOADs at base (ET_EXEC: where they say). */
static int map_file(struct task *t, struct recorder *r, const char *path, uint64_t base,
		    uint8_t *class)
{
	bool vdso = !strcmp(path, "vdso");
	const void *id;
	GElf_Ehdr eh;
	GElf_Phdr ph;
	size_t i, n, first = t->n;
	ssize_t idlen;
	Elf *elf;
	int fd = vdso ? -1 : open(path, O_RDONLY);

	if (fd < 0 && !vdso)
		return -1;
	elf = vdso ? vdso_elf(r) : elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || !gelf_getehdr(elf, &eh) || elf_getphdrnum(elf, &n)) {
		fprintf(stderr, "mkunwind: %s: not ELF\n", path);
		return -1;
	}
	*class = eh.e_ident[EI_CLASS];
	if (eh.e_type == ET_EXEC)
		base = 0;
	for (i = 0; i < n && t->n < GEN_MAPS; i++) {
		struct mapping *m = &t->m[t->n];

		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_LOAD || !(ph.p_flags & PF_X))
			continue;
		m->start = base + (ph.p_vaddr & ~0xfffULL);
		m->end = base + ((ph.p_vaddr + ph.p_filesz + 0xfff) & ~0xfffULL);
		m->pgoff = ph.p_offset & ~0xfffULL;
		m->path = strdup(vdso ? "[vdso]" : path);
		t->n++;
	}
	/* the image of a [vdso] mapping is the recorded one of its build-id */
	idlen = vdso ? dwelf_elf_gnu_build_id(elf, &id) : 0;
	for (i = first; idlen > 0 && idlen <= 20 && i < t->n; i++) {
		memcpy(t->m[i].build_id, id, idlen);
		t->m[i].build_id_len = (uint8_t)idlen;
	}
	if (!vdso) {
		elf_end(elf);
		close(fd);
	}
	return 0;
}

static uint64_t code_addr(const struct task *t)
{
	const struct mapping *m = &t->m[rnd() % t->n];

	return m->start + rnd() % (m->end - m->start);
}

int main(int argc, char **argv)
{
	uint64_t lostv[PERFREGS_LOST_MAX] = { 0 };
	static uint64_t buf[(1024 + STACK_MAX) / 8];
	static struct task tasks[16];
	unsigned int ntasks = 0, i, j;
	struct perfregs_config cfg;
	struct recorder *r;
	long n, k;

	if (argc < 5 || argc - 4 > 16) {
		fprintf(stderr, "usage: mkunwind FILE SEED N ABI:FILE[:FILE]...\n");
		return 2;
	}
	rnd_state = strtoull(argv[2], NULL, 0) * 2 + 1;
	n = atol(argv[3]);
	elf_version(EV_CURRENT);
	prf_config_default(&cfg);
	cfg.stack_bytes = STACK_MAX;
	r = rec_create(argv[1], &cfg, "cpu-clock");
	if (!r) {
		perror(argv[1]);
		return 1;
	}
	for (i = 4; i < (unsigned int)argc; i++) {
		struct task *t = &tasks[ntasks];
		char *spec = strdup(argv[i]), *abi = strtok(spec, ":"), *f;
		struct image im = { .dev = 0x801 };
		uint8_t class = 0, first = 0;

		t->pid = 100 * (ntasks + 1);
		t->ino = 5000 + ntasks;
		t->is32 = strcmp(abi, "64");
		t->abi = !strcmp(abi, "32") || !strcmp(abi, "mixed") ? PERFREGS_ABI_32 :
								      PERFREGS_ABI_64;
		for (j = 0; (f = strtok(NULL, ":")); j++) {
			uint64_t base = t->is32 ? 0x56000000ULL + 0x1000000ULL * j :
						  0x555555554000ULL + 0x10000000ULL * j;

			if (map_file(t, r, f, base, &class))
				return 1;
			if (!j) {
				first = class;
				im.path = strcmp(f, "vdso") ? f : "[vdso]";
				im.facts.machine = strcmp(abi, "32") ? 62 /* EM_X86_64 */ :
								      3 /* EM_386 */;
			}
		}
		if (!t->n) {
			fprintf(stderr, "mkunwind: %s: no code mapped\n", argv[i]);
			return 1;
		}
		im.ino = t->ino;
		im.facts.known = true;
		im.facts.elfclass = first;
		rec_image(r, &im);
		{
			struct task_maps tm = { .pid = t->pid, .ino = t->ino, .m = t->m, .n = t->n };

			rec_maps(r, &tm);
		}
		ntasks++;
	}
	for (k = 0; k < n; k++) {
		struct perfregs_rec_sample *s = (void *)buf;
		const struct task *t = &tasks[k % ntasks];
		uint64_t w = t->is32 ? 4 : 8, *v, sp, size, copied, x;
		uint64_t sp_top = t->is32 ? 0xffd00000ULL : 0x7ffd00000000ULL;
		unsigned char *st;

		memset(s, 0, sizeof(*s));
		s->header.type = PERFREGS_REC_SAMPLE;
		s->time = 1000000ULL + 1000ULL * k;
		s->pid = t->pid;
		s->tid = t->pid;
		s->flags = PERFREGS_SF_CTX_IRQ | PERFREGS_SF_UREGS_DIRECT | PERFREGS_SF_STACK;
		s->abi = t->abi;
		snprintf(s->comm, sizeof(s->comm), "unw%u", t->pid / 100);
		s->image_ino = t->ino;
		s->image_dev = 0x801;
		size = 64 + 8 * (rnd() % ((STACK_MAX - 64) / 8 + 1));
		copied = rnd() % 8 ? size : 8 * (rnd() % (size / 8 + 1));
		sp = sp_top - 8 * (rnd() % 4096);
		if (t->is32 && !(rnd() % 8))	/* a stack that crosses 4 GiB */
			sp = 0x100000000ULL - 8 * (1 + rnd() % (size / 8));
		s->iregs_mask = R(IP) | R(FLAGS);
		s->uregs_mask = R(AX) | R(BX) | R(CX) | R(DX) | R(SI) | R(DI) | R(BP) | R(SP) |
				R(IP);
		if (!t->is32 || t->abi == PERFREGS_ABI_64)
			s->uregs_mask |= R(R8) | R(R9) | R(R10) | R(R11) | R(R12) | R(R13) |
					 R(R14) | R(R15);
		v = (uint64_t *)s->regs;
		x = rnd() % 16 ? code_addr(t) : rnd() & (t->is32 ? 0xffffffffULL : ~0ULL);
		*v++ = x;
		*v++ = 0x246;
		for (j = 0; j < PERFREGS_REG_MAX; j++) {
			uint64_t val;

			if (!(s->uregs_mask & (1ULL << j)))
				continue;
			switch (rnd() % 4) {
			case 0:
				val = sp + w * (rnd() % (size / w + 8));
				break;
			case 1:
				val = code_addr(t);
				break;
			case 2:
				val = rnd() % 64;
				break;
			default:
				val = rnd();
			}
			if (j == PERFREGS_REG_IP)
				val = x;
			if (j == PERFREGS_REG_SP)
				val = sp;
			if (t->is32)
				val &= 0xffffffffULL;
			*v++ = val;
		}
		*v++ = size;
		st = (unsigned char *)v;
		for (j = 0; j < size; j += w) {
			uint64_t val;

			switch (rnd() % 10) {
			case 0: case 1: case 2: case 3:
				val = code_addr(t);
				break;
			case 4: case 5: case 6:
				val = sp + j + w * (1 + rnd() % 64);
				break;
			case 7: case 8:
				val = rnd() % 256;
				break;
			default:
				val = rnd();
			}
			memcpy(st + j, &val, w);
		}
		v += size / 8;
		*v++ = copied;
		s->header.size = (char *)v - (char *)s;
		if (rec_sample(r, 0, &s->header)) {
			perror(argv[1]);
			return 1;
		}
	}
	if (rec_close(r, n, lostv)) {
		perror(argv[1]);
		return 1;
	}
	return 0;
}
