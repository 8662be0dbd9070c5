// SPDX-License-Identifier: GPL-2.0
/*
 * A file's PLT entries, named "function@plt" from its relocations, as
 * perf names them (tools/perf/util/symbol-elf.c): no symbol table has
 * them, and the nearest symbol before them is _init, of no size.
 *
 * x86-64, x32 and i386, as the GNU linker and lld lay them out:
 *   - .plt, lazy binding: a header (PLT0, named ".plt"), then an entry
 *     per relocation of .rela.plt (.rel.plt on i386), in the order of
 *     their GOT slots (a relocation's r_offset: libc's IRELATIVE ones
 *     come last in .rela.plt, yet their slots and entries first); 16
 *     bytes each, or 8, by sh_entsize or else the alignment (i386's
 *     sh_entsize is 4, lld's 0); no header when the entries fill it;
 *   - .plt.sec (-fcf-protection, IBT): the entries the code calls are
 *     there, in the same order, and the whole .plt is ".plt";
 *   - .plt.got: an entry per function whose GOT slot is bound at load
 *     (a function called and whose address is taken, __cxa_finalize):
 *     its jmp names the slot, whose GLOB_DAT relocation in .rela.dyn
 *     names the function.  x86-64 jumps through %rip, i386 through %ebx
 *     (the GOT: .got.plt, or .got without one) or an absolute address.
 * An IRELATIVE entry (no symbol: an IFUNC of the file itself) is named
 * after the IFUNC symbol of .dynsym at its addend (perf's choice among
 * aliases: not weak, global, fewer leading underscores, longer), else
 * "offset_0x...@plt" of its file offset, as perf.  Relocations that
 * link no symbol table (a static program's IFUNCs) name nothing, as perf.
 *
 * Everything here is the file's, and hostile: libelf's getters bound
 * every index and string to its section, a slot's count to both its
 * sections' sizes, and the whole to plt.h's budget.
 */
#include <endian.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "plt.h"

struct rel {
	uint64_t slot;		/* r_offset: the GOT slot */
	uint32_t sym;
	uint32_t type;
	int64_t addend;
};

/* the sections this needs, found by name */
struct plt_scns {
	Elf_Scn *plt, *sec, *plt_got, *rel_plt, *rel_dyn;
	GElf_Shdr plt_sh, sec_sh, plt_got_sh, rel_plt_sh, rel_dyn_sh, gotp_sh;
	bool gotp;		/* gotp_sh: .got.plt, else .got (i386's %ebx) */
	GElf_Ehdr eh;
};

static void find_scns(Elf *elf, struct plt_scns *c)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Shdr sh;
	bool seen_got_plt = false;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *n;

		if (!gelf_getshdr(scn, &sh))
			continue;
		n = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!n)
			continue;
		if (!strcmp(n, ".plt"))
			c->plt = scn, c->plt_sh = sh;
		else if (!strcmp(n, ".plt.sec"))
			c->sec = scn, c->sec_sh = sh;
		else if (!strcmp(n, ".plt.got"))
			c->plt_got = scn, c->plt_got_sh = sh;
		else if (!strcmp(n, ".rela.plt") || !strcmp(n, ".rel.plt"))
			c->rel_plt = scn, c->rel_plt_sh = sh;
		else if (!strcmp(n, ".rela.dyn") || !strcmp(n, ".rel.dyn"))
			c->rel_dyn = scn, c->rel_dyn_sh = sh;
		else if (!strcmp(n, ".got.plt"))
			c->gotp = seen_got_plt = true, c->gotp_sh = sh;
		else if (!strcmp(n, ".got") && !seen_got_plt)
			c->gotp = true, c->gotp_sh = sh;
	}
}

/* An x86 PLT section's entry size: 8 or 16, else as it is aligned (perf's). */
static uint64_t entry_size(const GElf_Shdr *sh)
{
	if (sh->sh_entsize == 8 || sh->sh_entsize == 16)
		return sh->sh_entsize;
	return sh->sh_addralign == 8 ? 8 : 16;
}

/* A section's addresses do not wrap. */
static bool scn_ok(const GElf_Shdr *sh)
{
	return sh->sh_addr + sh->sh_size >= sh->sh_addr;
}

static int rel_cmp(const void *a, const void *b)
{
	const struct rel *x = a, *y = b;

	return x->slot < y->slot ? -1 : x->slot > y->slot;
}

/*
 * The relocations of scn (REL or RELA) by slot, the first PLT_SYMS_MAX
 * (of those with a symbol only, when with_sym: .rela.dyn has mostly
 * RELATIVE ones, 77000 in libcapstone); the symbol table they index in
 * *symtab.  NULL when there are none.
 */
static struct rel *rels_read(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, bool with_sym,
			     Elf_Scn **symtab, size_t *n)
{
	bool rela = sh->sh_type == SHT_RELA;
	Elf_Data *d;
	struct rel *r;
	size_t i, cnt, sz;

	*n = 0;
	if (!scn || (sh->sh_type != SHT_RELA && sh->sh_type != SHT_REL) || !sh->sh_link)
		return NULL;	/* no symbol table: a static program's IFUNCs, as perf */
	*symtab = elf_getscn(elf, sh->sh_link);
	d = elf_getdata(scn, NULL);
	sz = gelf_fsize(elf, rela ? ELF_T_RELA : ELF_T_REL, 1, EV_CURRENT);
	if (!d || !sz || !*symtab)
		return NULL;
	cnt = d->d_size / sz;	/* all of them are read (the file's size) */
	r = cnt ? calloc(cnt < PLT_SYMS_MAX ? cnt : PLT_SYMS_MAX, sizeof(*r)) : NULL;
	for (i = 0; r && i < cnt && *n < PLT_SYMS_MAX; i++) {
		GElf_Rela a;
		GElf_Rel l;

		if (rela ? !gelf_getrela(d, i, &a) : !gelf_getrel(d, i, &l))
			break;
		if (!rela) {
			a.r_offset = l.r_offset;
			a.r_info = l.r_info;
			a.r_addend = 0;
		}
		r[*n].slot = a.r_offset;
		r[*n].type = GELF_R_TYPE(a.r_info);	/* gelf's, whatever the class */
		r[*n].sym = GELF_R_SYM(a.r_info);
		r[*n].addend = a.r_addend;
		if (!with_sym || r[*n].sym)
			(*n)++;
	}
	if (r)	/* stable enough: two relocations of one slot name one entry */
		qsort(r, *n, sizeof(*r), rel_cmp);
	return r;
}

/* An IFUNC symbol of the file, for IRELATIVE entries. */
struct ifunc {
	uint64_t addr;
	const char *name;
	unsigned char bind;
	size_t idx;
};

/* What one file's naming needs. */
struct plt_ctx {
	Elf *elf;
	bool x64;		/* EM_X86_64 (x32 too): jumps through %rip */
	bool c32;		/* ELFCLASS32: addresses of 32 bits */
	struct plt_syms *out;
	struct ifunc *ifuncs;	/* of the .plt's symbol table, once asked for */
	size_t n_ifuncs;
	bool ifuncs_read;
};

static size_t underscores(const char *s)
{
	size_t n = 0;

	while (s[n] == '_')
		n++;
	return n;
}

/* perf's choice among aliases: not weak, global, fewer _, longer; first */
static int ifunc_cmp(const void *a, const void *b)
{
	const struct ifunc *x = a, *y = b;
	size_t lx, ly;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if ((x->bind == STB_WEAK) != (y->bind == STB_WEAK))
		return x->bind == STB_WEAK ? 1 : -1;
	if ((x->bind == STB_GLOBAL) != (y->bind == STB_GLOBAL))
		return x->bind == STB_GLOBAL ? -1 : 1;
	if (underscores(x->name) != underscores(y->name))
		return underscores(x->name) < underscores(y->name) ? -1 : 1;
	lx = strlen(x->name);
	ly = strlen(y->name);
	if (lx != ly)
		return lx > ly ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* Symbol i of symtab and its name, NULL when there is none. */
static const char *sym_name(Elf *elf, Elf_Scn *symtab, size_t i, GElf_Sym *sym)
{
	Elf_Data *d = symtab ? elf_getdata(symtab, NULL) : NULL;
	GElf_Shdr sh;

	if (!d || !gelf_getshdr(symtab, &sh) || !gelf_getsym(d, i, sym))
		return NULL;
	return elf_strptr(elf, sh.sh_link, sym->st_name);
}

/* The IFUNC symbols of symtab, by address, the best alias first. */
static void ifuncs_read(struct plt_ctx *x, Elf_Scn *symtab)
{
	Elf_Data *d = symtab ? elf_getdata(symtab, NULL) : NULL;
	size_t i, cnt, sz = gelf_fsize(x->elf, ELF_T_SYM, 1, EV_CURRENT), cap = 0;

	x->ifuncs_read = true;
	if (!d || !sz || d->d_type != ELF_T_SYM)
		return;
	cnt = d->d_size / sz;
	for (i = 1; i < cnt && x->n_ifuncs < PLT_SYMS_MAX; i++) {
		const char *name;
		GElf_Sym sym;

		name = sym_name(x->elf, symtab, i, &sym);
		if (!name || !*name || GELF_ST_TYPE(sym.st_info) != STT_GNU_IFUNC ||
		    sym.st_shndx == SHN_UNDEF)
			continue;
		if (x->n_ifuncs == cap) {
			size_t c = cap ? 2 * cap : 64;
			struct ifunc *f = realloc(x->ifuncs, c * sizeof(*f));

			if (!f)
				break;
			x->ifuncs = f;
			cap = c;
		}
		x->ifuncs[x->n_ifuncs++] = (struct ifunc){ sym.st_value, name,
							   GELF_ST_BIND(sym.st_info), i };
	}
	if (x->n_ifuncs)
		qsort(x->ifuncs, x->n_ifuncs, sizeof(*x->ifuncs), ifunc_cmp);
}

/* The IFUNC at addr, NULL when there is none. */
static const char *ifunc_name(struct plt_ctx *x, Elf_Scn *symtab, uint64_t addr)
{
	size_t lo = 0, hi;

	if (!x->ifuncs_read)
		ifuncs_read(x, symtab);
	hi = x->n_ifuncs;
	while (lo < hi) {	/* the first at or above addr */
		size_t mid = lo + (hi - lo) / 2;

		if (x->ifuncs[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < x->n_ifuncs && x->ifuncs[lo].addr == addr ? x->ifuncs[lo].name : NULL;
}

/* One symbol more, name copied: false past the budget (plt.h). */
static bool add(struct plt_syms *p, uint64_t start, uint64_t size, const char *name)
{
	size_t len = strlen(name) + 1;

	if (p->n >= PLT_SYMS_MAX || len > PLT_NAMES_BYTES - p->names_len)
		return false;
	if (!(p->n & (p->n + 1)) || !p->s) {	/* 0, 1, 3, 7 ...: room for twice */
		struct plt_sym *s = realloc(p->s, 2 * (p->n + 1) * sizeof(*s));

		if (!s)
			return false;
		p->s = s;
	}
	if (p->names_len + len > p->names_cap) {
		size_t cap = p->names_cap ? p->names_cap : 1024;
		char *names;

		while (cap < p->names_len + len)
			cap *= 2;
		names = realloc(p->names, cap);
		if (!names)
			return false;
		p->names = names;
		p->names_cap = cap;
	}
	memcpy(p->names + p->names_len, name, len);
	p->s[p->n].start = start;
	p->s[p->n].size = size;
	p->s[p->n].name = NULL;	/* pointed at once the names move no more */
	p->n++;
	p->names_len += len;
	return true;
}

static bool is_irelative(const struct plt_ctx *x, uint32_t type)
{
	return x->x64 ? type == R_X86_64_IRELATIVE : type == R_386_IRELATIVE;
}

/* The entry at start of section sh (size bytes) for relocation r, or none. */
static bool name_entry(struct plt_ctx *x, uint64_t start, uint64_t size, const GElf_Shdr *sh,
		       const struct rel *r, Elf_Scn *symtab)
{
	char buf[PLT_NAME_MAX + 1];
	const char *n = NULL;
	GElf_Sym sym;

	if (r && r->sym)
		n = sym_name(x->elf, symtab, r->sym, &sym);
	if ((!n || !*n) && r && !r->sym && r->addend && is_irelative(x, r->type))
		n = ifunc_name(x, symtab, (uint64_t)r->addend);
	if (n && *n)
		snprintf(buf, sizeof(buf), "%.*s@plt", PLT_NAME_MAX - 4, n);
	else
		snprintf(buf, sizeof(buf), "offset_%#" PRIx64 "@plt",
			 sh->sh_offset + (start - sh->sh_addr));
	return add(x->out, start, size, buf);
}

/*
 * .plt (its header and lazy entries) or .plt.sec: an entry per
 * relocation of .rela.plt, in the order of their slots.
 */
static bool plt_entries(struct plt_ctx *x, const struct plt_scns *c)
{
	const GElf_Shdr *sh = &c->plt_sh;
	uint64_t esz = entry_size(sh), base = sh->sh_addr, avail, k;
	Elf_Scn *symtab = NULL;
	size_t nrel;
	struct rel *r = rels_read(x->elf, c->rel_plt, &c->rel_plt_sh, false, &symtab, &nrel);
	bool ok = true;

	if (!r)
		return true;
	if (c->sec && scn_ok(&c->sec_sh)) {	/* IBT: the header and lazy stubs */
		ok = add(x->out, sh->sh_addr, sh->sh_size, ".plt");
		sh = &c->sec_sh;
		esz = entry_size(sh);
		base = sh->sh_addr;
		avail = sh->sh_size / esz;
	} else if (nrel && nrel * esz == sh->sh_size) {	/* no header */
		avail = nrel;
	} else if (sh->sh_size >= esz) {
		ok = add(x->out, sh->sh_addr, esz, ".plt");
		base += esz;
		avail = sh->sh_size / esz - 1;
	} else {
		avail = 0;
	}
	for (k = 0; ok && k < nrel && k < avail; k++)
		ok = name_entry(x, base + k * esz, esz, sh, &r[k], symtab);
	free(r);
	return ok;
}

/*
 * The GOT slot the jmp of a .plt.got entry at addr goes through: past
 * endbr64 (endbr32) and bnd, "ff 25" disp32 (x86-64: from the next
 * instruction; i386: absolute) or "ff a3" disp32 (i386: from %ebx, the
 * GOT).  0: none.
 */
static uint64_t got_slot(const struct plt_ctx *x, const struct plt_scns *c,
			 const unsigned char *p, size_t len, uint64_t addr)
{
	static const unsigned char endbr[3] = { 0xf3, 0x0f, 0x1e };
	uint64_t slot;
	size_t n = 0;
	uint32_t d;

	if (len >= 4 && !memcmp(p, endbr, 3) && (p[3] == 0xfa || p[3] == 0xfb))
		n = 4;
	if (n < len && p[n] == 0xf2)
		n++;
	if (n + 6 > len || p[n] != 0xff)
		return 0;
	memcpy(&d, p + n + 2, 4);
	d = le32toh(d);
	if (p[n + 1] == 0x25)
		slot = x->x64 ? addr + n + 6 + (int64_t)(int32_t)d : d;
	else if (p[n + 1] == 0xa3 && !x->x64 && c->gotp)
		slot = c->gotp_sh.sh_addr + (int64_t)(int32_t)d;
	else
		return 0;
	return x->c32 ? slot & 0xffffffffu : slot;
}

/* .plt.got: each entry named from .rela.dyn's relocation of its slot. */
static bool plt_got_entries(struct plt_ctx *x, const struct plt_scns *c)
{
	const GElf_Shdr *sh = &c->plt_got_sh;
	Elf_Data *d = elf_getdata(c->plt_got, NULL);
	uint64_t esz = entry_size(sh), off;
	Elf_Scn *symtab = NULL;
	size_t n;
	struct rel *r, key, *hit;
	bool ok = true;

	if (!d || !d->d_buf || sh->sh_type != SHT_PROGBITS)
		return true;
	r = rels_read(x->elf, c->rel_dyn, &c->rel_dyn_sh, true, &symtab, &n);
	for (off = 0; ok && off + esz <= sh->sh_size && off + esz <= d->d_size; off += esz) {
		key.slot = got_slot(x, c, (const unsigned char *)d->d_buf + off, esz,
				    sh->sh_addr + off);
		hit = r && key.slot ? bsearch(&key, r, n, sizeof(*r), rel_cmp) : NULL;
		ok = name_entry(x, sh->sh_addr + off, esz, sh, hit, symtab);
	}
	free(r);
	return ok;
}

/*
 * The PLT entries of elf (its own file, not a debug file: those have the
 * sections without their contents), named, in out (none for another
 * machine than x86); how many.  Out of memory, fewer.
 */
size_t plt_symbols(Elf *elf, struct plt_syms *out)
{
	struct plt_scns c = { 0 };
	struct plt_ctx x = { .elf = elf, .out = out };
	char *s;
	size_t i;

	memset(out, 0, sizeof(*out));
	if (!gelf_getehdr(elf, &c.eh) ||
	    (c.eh.e_machine != EM_X86_64 && c.eh.e_machine != EM_386))
		return 0;
	x.x64 = c.eh.e_machine == EM_X86_64;
	x.c32 = gelf_getclass(elf) == ELFCLASS32;
	find_scns(elf, &c);
	if (c.plt && scn_ok(&c.plt_sh) && c.plt_sh.sh_type == SHT_PROGBITS)
		plt_entries(&x, &c);
	if (c.plt_got && scn_ok(&c.plt_got_sh))
		plt_got_entries(&x, &c);
	free(x.ifuncs);
	for (i = 0, s = out->names; i < out->n; i++, s += strlen(s) + 1)
		out->s[i].name = s;
	return out->n;
}

void plt_syms_free(struct plt_syms *p)
{
	free(p->s);
	free(p->names);
	memset(p, 0, sizeof(*p));
}
