// SPDX-License-Identifier: GPL-2.0
/*
 * Which register layout a sample gets: the kernel's per-sample ABI (from
 * the user CS) tells 32- from 64-bit code; only the ELF header of the
 * task's image tells x32 (ELFCLASS32 + EM_X86_64) from x86-64, and a
 * 64-bit image with kernel ABI 32 is a mixed-mode task.
 */
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "dump.h"

int elf_facts_of_file(const char *path, struct elf_facts *f)
{
	GElf_Ehdr eh;
	Elf *elf;
	int fd, ret = -1;

	memset(f, 0, sizeof(*f));
	if (elf_version(EV_CURRENT) == EV_NONE)
		return -1;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (elf && elf_kind(elf) == ELF_K_ELF && gelf_getehdr(elf, &eh)) {
		f->known = true;
		f->elfclass = eh.e_ident[EI_CLASS];
		f->machine = eh.e_machine;
		ret = 0;
	}
	elf_end(elf);
	close(fd);
	return ret;
}

/*
 * Per-task cache, keyed by (pid, comm): an exec changes comm in the
 * common case, so samples before and after it get their own image.
 */
struct task_entry {
	pid_t pid;
	char comm[16];
	struct elf_facts facts;
	struct task_entry *next;
};

#define TASK_HASH 1024
static struct task_entry *task_hash[TASK_HASH];

const struct elf_facts *elf_facts_of_task(pid_t pid, const char *comm)
{
	struct task_entry *e, **bucket = &task_hash[(unsigned int)pid % TASK_HASH];
	char path[64];

	for (e = *bucket; e; e = e->next)
		if (e->pid == pid && !strncmp(e->comm, comm, sizeof(e->comm)))
			return &e->facts;
	e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	e->pid = pid;
	memcpy(e->comm, comm, sizeof(e->comm));
	if (pid > 0) {
		snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
		elf_facts_of_file(path, &e->facts);
	}
	e->next = *bucket;
	*bucket = e;
	return &e->facts;
}

struct decoded decide_layout(uint32_t kernel_abi, const struct elf_facts *f)
{
	struct decoded d = { LAYOUT_NONE, false, "none" };
	bool elf64 = f && f->known && f->elfclass == ELFCLASS64;
	bool x32 = f && f->known && f->elfclass == ELFCLASS32 &&
		   f->machine == EM_X86_64;

	switch (kernel_abi) {
	case PERFREGS_ABI_32:
		d.layout = LAYOUT_I386;
		d.abi_name = "i386";
		d.mixed = elf64;
		break;
	case PERFREGS_ABI_64:
		d.layout = x32 ? LAYOUT_X32 : LAYOUT_X86_64;
		d.abi_name = x32 ? "x32" : "x86_64";
		break;
	default:
		break;
	}
	return d;
}
