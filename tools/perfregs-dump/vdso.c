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
#include <dwarf.h>
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

/*
 * An image's CFI is the recording's, and libdw runs it: into a frame
 * that it grows to the highest register a rule names (8 bytes each, up
 * to register 2^28), and copies for each DW_CFA_remember_state.  One
 * ULEB128 naming register 268428962 in a recording's .eh_frame was a
 * realloc() of 2 GiB for every unwound sample in the vDSO
 * (fuzz_recording).  So an image is kept only if no CFI entry libdw can
 * reach names register CFI_REGS_MAX or above, or remembers states
 * deeper than CFI_STATES_MAX: every offset of each .eh_frame is tried
 * as an entry (the .eh_frame_hdr table may point libdw at any), its
 * program decoded as libdw's execute_cfi() decodes it, to where libdw
 * stops.  An image must have an .eh_frame (else libdw takes the bytes
 * after the one PT_GNU_EH_FRAME names, to the end of the image), of at
 * most CFI_BYTES_MAX; DWARF sections (.debug_frame is CFI too) and
 * compressed ones (which libdw inflates, up to 1 GiB from 1 MiB) are
 * refused whole: a vDSO has none.
 */
#define CFI_REGS_MAX	256		/* the x86 ABIs number fewer than 150 */
#define CFI_STATES_MAX	16
#define CFI_BYTES_MAX	(64 << 10)	/* a vDSO's is some 300 bytes */
#define CFI_STEPS_MAX	(1 << 22)	/* instructions decoded, all entries */

struct cfi_check {
	const unsigned char *ident;
	Elf_Data *data;
	unsigned long steps;
};

/* libdw's get_uleb128(): UINT64_MAX when it does not end in 10 bytes */
static uint64_t cfi_uleb(const uint8_t **p, const uint8_t *end)
{
	uint64_t v = 0;
	unsigned int i;

	for (i = 0; i < 10 && *p < end; i++) {
		uint8_t b = *(*p)++;

		if (i < 9)
			v |= (uint64_t)(b & 0x7f) << (7 * i);
		else if (b & 0x7e)
			v = UINT64_MAX;
		else
			v |= (uint64_t)b << 63;
		if (!(b & 0x80))
			return v;
	}
	return UINT64_MAX;
}

/* The bytes libdw's read_encoded_value() takes for enc at p; 0: it fails. */
static size_t cfi_value_size(uint8_t enc, const uint8_t *p, const uint8_t *end)
{
	const uint8_t *q = p;

	switch (enc & 0x0f) {
	case DW_EH_PE_udata2:
	case DW_EH_PE_sdata2:
		return 2;
	case DW_EH_PE_udata4:
	case DW_EH_PE_sdata4:
		return 4;
	case DW_EH_PE_udata8:
	case DW_EH_PE_sdata8:
		return 8;
	case DW_EH_PE_uleb128:
	case DW_EH_PE_sleb128:
		if (p >= end)
			return 0;
		cfi_uleb(&q, end);
		return (size_t)(q - p);
	}
	return 0;
}

/*
 * A CIE's encoding of FDE addresses and whether its FDEs have sized
 * augmentation data, as libdw's intern_new_cie() reads them; false,
 * and DW_EH_PE_omit, for what this is not sure of (no vDSO has it).
 */
static bool cfi_cie_layout(const Dwarf_CIE *cie, const uint8_t *end, unsigned int addr,
			   uint8_t *enc, bool *sized)
{
	const uint8_t *d = cie->augmentation_data;
	const char *a;

	*enc = DW_EH_PE_absptr;
	*sized = false;
	for (a = cie->augmentation; *a; a++) {
		switch (*a) {
		case 'z':
			*sized = true;
			continue;
		case 'S':
			continue;
		case 'L':
		case 'R':
			if (!*sized || !d || d >= end)
				goto unsure;
			if (*a == 'R')
				*enc = *d;
			d++;
			continue;
		case 'P':
			goto unsure;
		default:
			if (*sized)
				continue;
		}
		break;
	}
	if ((*enc & 0x70) == DW_EH_PE_aligned)
		goto unsure;
	if ((*enc & 0x0f) == DW_EH_PE_absptr)
		*enc |= addr == 4 ? DW_EH_PE_udata4 : DW_EH_PE_udata8;
	return true;
unsure:
	*enc = DW_EH_PE_omit;
	return false;
}

/*
 * Whether the program [p, end) of a CIE or FDE is within the bounds, as
 * far as libdw runs it; false also past CFI_STEPS_MAX in all.
 */
static bool cfi_program_ok(struct cfi_check *c, const uint8_t *p, const uint8_t *end,
			   uint8_t enc)
{
	unsigned int depth = 0;
	uint64_t reg, n;
	size_t k;

	while (p < end) {
		uint8_t op = *p++;

		if (++c->steps > CFI_STEPS_MAX)
			return false;
		reg = 0;
		if (op >= 0x40) {			/* advance_loc, offset, restore */
			if ((op & 0xc0) == DW_CFA_offset)
				cfi_uleb(&p, end);
			continue;
		}
		switch (op) {
		case DW_CFA_nop:
		case DW_CFA_GNU_window_save:		/* registers 8 to 31 */
			continue;
		case DW_CFA_set_loc:
			if (enc == DW_EH_PE_omit)
				return false;	/* its size is not known */
			k = cfi_value_size(enc, p, (const uint8_t *)c->data->d_buf +
					   c->data->d_size);
			if (!k || (size_t)(end - p) < k)
				return true;	/* libdw stops there too */
			p += k;
			continue;
		case DW_CFA_advance_loc1:
			if (p >= end)
				return true;
			p++;
			continue;
		case DW_CFA_advance_loc2:
		case DW_CFA_advance_loc4:
		case DW_CFA_MIPS_advance_loc8:
			k = op == DW_CFA_advance_loc2 ? 2 : op == DW_CFA_advance_loc4 ? 4 : 8;
			if ((size_t)(end - p) < k)
				return true;
			p += k;
			continue;
		case DW_CFA_offset_extended:
		case DW_CFA_register:
		case DW_CFA_offset_extended_sf:
		case DW_CFA_val_offset:
		case DW_CFA_val_offset_sf:
		case DW_CFA_GNU_negative_offset_extended:
			reg = cfi_uleb(&p, end);
			cfi_uleb(&p, end);
			break;
		case DW_CFA_restore_extended:
		case DW_CFA_undefined:
		case DW_CFA_same_value:
			reg = cfi_uleb(&p, end);
			break;
		case DW_CFA_expression:
		case DW_CFA_val_expression:
			reg = cfi_uleb(&p, end);
			/* fall through */
		case DW_CFA_def_cfa_expression:
			n = cfi_uleb(&p, end);
			if (n > (uint64_t)(end - p))
				return true;
			p += n;
			break;
		case DW_CFA_remember_state:
			if (++depth > CFI_STATES_MAX)
				return false;
			continue;
		case DW_CFA_restore_state:
			if (!depth--)
				return true;	/* libdw's error: it stops */
			continue;
		case DW_CFA_def_cfa:
		case DW_CFA_def_cfa_sf:
			cfi_uleb(&p, end);
			/* fall through */
		case DW_CFA_def_cfa_register:
		case DW_CFA_def_cfa_offset:
		case DW_CFA_def_cfa_offset_sf:
		case DW_CFA_GNU_args_size:
			cfi_uleb(&p, end);
			continue;
		default:
			return true;		/* libdw's error: it stops */
		}
		/* libdw refuses 2^28 registers and more, past the end too */
		if (reg >= CFI_REGS_MAX && reg < INT32_MAX)
			return false;
	}
	return true;
}

/* The entry at off of an .eh_frame, if it is one: its program */
static bool cfi_entry_ok(struct cfi_check *c, Dwarf_Off off)
{
	const uint8_t *end = (const uint8_t *)c->data->d_buf + c->data->d_size, *p;
	unsigned int addr = c->ident[EI_CLASS] == ELFCLASS32 ? 4 : 8;
	Dwarf_CFI_Entry e, ce;
	Dwarf_Off next;
	uint8_t enc;
	bool sized;
	size_t k;

	if (dwarf_next_cfi(c->ident, c->data, true, off, &next, &e))
		return true;
	if (dwarf_cfi_cie_p(&e)) {
		cfi_cie_layout(&e.cie, end, addr, &enc, &sized);
		return cfi_program_ok(c, e.cie.initial_instructions,
				      e.cie.initial_instructions_end, enc);
	}
	/* an FDE: libdw runs it after its CIE's program, and not without one */
	if (dwarf_next_cfi(c->ident, c->data, true, e.fde.CIE_pointer, &next, &ce) ||
	    !dwarf_cfi_cie_p(&ce))
		return true;
	if (!cfi_cie_layout(&ce.cie, end, addr, &enc, &sized))
		return false;
	p = e.fde.start;	/* initial location, address range */
	k = cfi_value_size(enc, p, end);
	if (!k || (size_t)(e.fde.end - p) < k)
		return true;
	p += k;
	k = cfi_value_size(enc & 0x0f, p, end);
	if (!k || (size_t)(e.fde.end - p) < k)
		return true;
	p += k;
	if (sized) {
		if (p >= e.fde.end)
			return true;
		k = cfi_uleb(&p, e.fde.end);
		if (k > (size_t)(e.fde.end - p))
			return true;
		p += k;
	}
	return cfi_program_ok(c, p, e.fde.end, enc);
}

static bool image_cfi_ok(Elf *elf)
{
	struct cfi_check c = { .ident = (const unsigned char *)elf_getident(elf, NULL) };
	Elf_Scn *scn = NULL;
	size_t shstrndx, off;
	bool eh = false;

	if (!c.ident || elf_getshdrstrndx(elf, &shstrndx) || !shstrndx)
		return false;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(elf, shstrndx, sh.sh_name)))
			continue;	/* neither libdw nor libdwfl sees it */
		if ((sh.sh_flags & SHF_COMPRESSED) || !strncmp(name, ".debug", 6) ||
		    !strncmp(name, ".zdebug", 7) || !strncmp(name, ".gnu.debuglto", 13) ||
		    !strcmp(name, ".gnu_debugdata"))
			return false;
		if (strcmp(name, ".eh_frame") || sh.sh_type == SHT_NOBITS)
			continue;
		c.data = elf_rawdata(scn, NULL);
		if (!c.data || !c.data->d_buf)
			continue;
		if (c.data->d_size > CFI_BYTES_MAX)
			return false;
		for (off = 0; off < c.data->d_size; off++)
			if (!cfi_entry_ok(&c, off))
				return false;
		eh = true;
	}
	return eh;
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
		if (image_cfi_ok(elf))
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
