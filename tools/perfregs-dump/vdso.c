// SPDX-License-Identifier: GPL-2.0
/*
 * vDSO images.  A task's [vdso] is no file: the kernel maps an ELF
 * image it carries, one per ABI (64-bit, i386, x32), the same for every
 * task of that ABI on one boot.  i386 tasks enter every system call
 * through __kernel_vsyscall in it and clock_gettime() runs there, so
 * without it such samples get no name and unwinding stops.
 *
 * The image is read from the task's memory when the side-band reports
 * the mapping (process_vm_readv(): its text pages are ordinary pages),
 * identified by its build-id, kept in a memfd that libdw and the
 * unwinder open like a file, and written once into a recording, so a
 * recording names vDSO frames on any machine.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <elfutils/libdwelf.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>
#include "types.h"
#include "learnt.h"
#include "vdso.h"

static const struct blob *blob_find(struct machine *mach, const uint8_t *id, uint8_t len)
{
	const struct blob *b;

	/* acquire: pairs with the release in blob_add() */
	for (b = __atomic_load_n(&mach->blobs, __ATOMIC_ACQUIRE); b; b = b->next)
		if (len && b->build_id_len == len && !memcmp(b->build_id, id, len))
			return b;
	return NULL;
}

/* Validate and keep an image; the same image twice is kept once. */
const struct blob *blob_add(struct machine *mach, const void *data, size_t size)
{
	const unsigned char *e = data;
	const struct blob *old;
	struct blob *b;
	const void *id;
	char *copy;
	ssize_t n = -1;
	Elf *elf;

	if (mach->nblobs >= BLOBS_MAX || size < sizeof(Elf32_Ehdr) || size > BLOB_MAX ||
	    memcmp(e, ELFMAG, SELFMAG) ||
	    (e[EI_CLASS] != ELFCLASS32 && e[EI_CLASS] != ELFCLASS64) ||
	    e[EI_DATA] != ELFDATA2LSB)
		return NULL;
	b = calloc(1, sizeof(*b));
	copy = malloc(size);	/* libelf may want to write to it */
	if (!b || !copy)
		goto fail;
	memcpy(copy, data, size);
	elf_version(EV_CURRENT);
	elf = elf_memory(copy, size);
	if (elf && elf_kind(elf) == ELF_K_ELF) {
		GElf_Ehdr eh;

		if (gelf_getehdr(elf, &eh))
			b->machine = eh.e_machine;
		n = dwelf_elf_gnu_build_id(elf, &id);
	}
	if (n > 0 && n <= 20) {
		memcpy(b->build_id, id, n);
		b->build_id_len = (uint8_t)n;
	}
	elf_end(elf);
	free(copy);
	if (!b->build_id_len || (b->machine != EM_386 && b->machine != EM_X86_64))
		goto fail;
	old = blob_find(mach, b->build_id, b->build_id_len);
	if (old) {
		free(b);
		return old;
	}
	b->elfclass = e[EI_CLASS];
	b->size = size;
	b->fd = memfd_create("perfregs-vdso", MFD_CLOEXEC);
	if (b->fd < 0)
		goto fail;
	if (write(b->fd, data, size) != (ssize_t)size) {
		close(b->fd);
		goto fail;
	}
	snprintf(b->path, sizeof(b->path), "/proc/self/fd/%d", b->fd);
	learnt_blob(mach, b, data);
	b->next = mach->blobs;
	mach->nblobs++;
	/* release: whole before a lock-free blob_for() on another thread sees it */
	__atomic_store_n(&mach->blobs, b, __ATOMIC_RELEASE);
	return b;
fail:
	free(b);
	return NULL;
}

/*
 * The image a [vdso] mapping holds, by its build-id.  None when it could
 * not be read (the task was gone): the images of the ABIs differ, and
 * one of the same size is not the same image (the tool's own 64-bit one
 * named i386 samples wrongly).
 */
const struct blob *blob_for(struct machine *mach, const struct mapping *m)
{
	return blob_find(mach, m->build_id, m->build_id_len);
}

/* The image mapped at [start, end) of a live task. */
const struct blob *vdso_read(struct machine *mach, uint32_t pid, uint64_t start,
			     uint64_t end)
{
	const struct blob *b = NULL;
	struct iovec local, remote;
	void *buf;

	if (end <= start || end - start > BLOB_MAX)
		return NULL;
	buf = malloc(end - start);
	if (!buf)
		return NULL;
	local.iov_base = buf;
	local.iov_len = end - start;
	remote.iov_base = (void *)(uintptr_t)start;
	remote.iov_len = end - start;
	if (process_vm_readv((pid_t)pid, &local, 1, &remote, 1, 0) ==
	    (ssize_t)(end - start))
		b = blob_add(mach, buf, end - start);
	free(buf);
	return b;
}

void blobs_free(struct machine *mach)
{
	struct blob *b;

	while ((b = mach->blobs)) {
		mach->blobs = b->next;
		close(b->fd);
		free(b);
	}
}
