// SPDX-License-Identifier: GPL-2.0
/*
 * Which register layout a sample gets: the kernel's per-sample ABI (from
 * the user CS) tells 32- from 64-bit code; only the ELF header of the
 * task's image tells x32 (ELFCLASS32 + EM_X86_64) from x86-64, and a
 * 64-bit image with kernel ABI 32 is a mixed-mode task.
 *
 * Images are keyed by the (dev, ino) the kernel puts in every sample and
 * learnt once, while the task lives, from /proc/PID/exe.
 */
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <errno.h>
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

static unsigned int image_hash(uint32_t dev, uint64_t ino)
{
	return (unsigned int)((ino * 0x9e3779b97f4a7c15ULL + dev) >> 56);
}

struct image *image_find(struct decoder *d, uint32_t dev, uint64_t ino)
{
	struct image *im;

	for (im = d->images[image_hash(dev, ino)]; im; im = im->next)
		if (im->dev == dev && im->ino == ino)
			return im;
	return NULL;
}

struct image *image_add(struct decoder *d, uint32_t dev, uint64_t ino,
			const struct elf_facts *f, const char *path)
{
	unsigned int h = image_hash(dev, ino);
	struct image *im = calloc(1, sizeof(*im));

	if (!im)
		return NULL;
	im->dev = dev;
	im->ino = ino;
	if (f)
		im->facts = *f;
	im->path = path ? strdup(path) : NULL;
	im->next = d->images[h];
	d->images[h] = im;
	return im;
}

/*
 * The image of a sample: known already, or learnt now from the live task
 * (its /proc/PID/exe must still be the same inode).
 */
const struct image *image_learn(struct decoder *d,
				const struct perfregs_rec_sample *s)
{
	struct elf_facts f = { 0 };
	char link[64], path[PATH_MAX];
	struct image *im;
	struct stat st;
	ssize_t n;
	int ret;

	if (!s->image_ino)
		return NULL;
	im = image_find(d, s->image_dev, s->image_ino);
	if (im || !d->live)
		return im;
	path[0] = 0;
	snprintf(link, sizeof(link), "/proc/%u/exe", s->pid);
	ret = stat(link, &st);
	if (ret == 0 && st.st_ino == s->image_ino) {
		if (elf_facts_of_file(link, &f))
			return NULL;	/* try again with the next sample */
		n = readlink(link, path, sizeof(path) - 1);
		path[n > 0 ? n : 0] = 0;
	} else if (ret == 0 || (errno != ENOENT && errno != ESRCH)) {
		/*
		 * The task is there but runs another image now (the sample
		 * was taken around an exec), or /proc refused us for a moment:
		 * not a final answer, another sample may tell.
		 */
		return NULL;
	}
	im = image_add(d, s->image_dev, s->image_ino, &f, path[0] ? path : NULL);
	if (im && d->learnt_image)
		d->learnt_image(d->learnt_arg, im);
	return im;
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
