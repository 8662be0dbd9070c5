// SPDX-License-Identifier: GPL-2.0
/*
 * The unwinder's fast path: the CFI rows libdw gives, derived once per
 * file and address and kept per decoding thread, walked without
 * libdwfl, with the psABI's defaults where libdw 0.188's are wrong;
 * anything else falls back to libdwfl (unwind.c).
 */
#include <elf.h>
#include <elfutils/libdwfl.h>
#include <dwarf.h>
#include <gelf.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include "types.h"
#include "images.h"
#include "files.h"
#include "dso.h"
#include "cfi.h"

/* DWARF register number -> perfregs, for each ABI's register file */
const int dwarf64[17] = {
	PERFREGS_REG_AX, PERFREGS_REG_DX, PERFREGS_REG_CX, PERFREGS_REG_BX,
	PERFREGS_REG_SI, PERFREGS_REG_DI, PERFREGS_REG_BP, PERFREGS_REG_SP,
	PERFREGS_REG_R8, PERFREGS_REG_R9, PERFREGS_REG_R10, PERFREGS_REG_R11,
	PERFREGS_REG_R12, PERFREGS_REG_R13, PERFREGS_REG_R14, PERFREGS_REG_R15,
	PERFREGS_REG_IP,
};
const int dwarf32[9] = {
	PERFREGS_REG_AX, PERFREGS_REG_CX, PERFREGS_REG_DX, PERFREGS_REG_BX,
	PERFREGS_REG_SP, PERFREGS_REG_BP, PERFREGS_REG_SI, PERFREGS_REG_DI,
	PERFREGS_REG_IP,
};

/*
 * A descriptor to read path's words with: the thread's last one if it
 * is path's, else path opened (and the last closed); -1 if it cannot be
 * opened or is no ELF file.  Only from an ELF file: a name a recording
 * gives, or one a sampled user swapped for a symlink after mapping it,
 * may be any file root can read, and the words read come out as frame
 * addresses.  Kept open a thread: an open, a pread of the magic and a
 * close for each word were 71154 openat() calls and 0.33 s of system
 * time of the 0.55 s report took over 40000 made-up stacks over xz
 * (bench/report), whose frames often read past the stack.
 */
static int memory_fd(struct dthread *t, const char *path)
{
	char magic[SELFMAG];
	int fd;

	if (!path)
		return -1;
	if (t->mem_path && !strcmp(t->mem_path, path))
		return t->mem_fd;
	unwind_memory_free(t);
	fd = open_regular(path);
	if (fd >= 0 && (pread(fd, magic, SELFMAG, 0) != SELFMAG ||
			memcmp(magic, ELFMAG, SELFMAG))) {
		close(fd);
		fd = -1;
	}
	t->mem_path = strdup(path);
	if (!t->mem_path && fd >= 0) {
		close(fd);
		return -1;	/* not kept: no memory for its name */
	}
	t->mem_fd = fd;
	return fd;
}

void unwind_memory_free(struct dthread *t)
{
	if (t->mem_path && t->mem_fd >= 0)
		close(t->mem_fd);
	free(t->mem_path);
	t->mem_path = NULL;
	t->mem_fd = -1;
}

/* A word of the task's memory: the stack snapshot, else a mapped file. */
bool unwind_memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	struct unwind_ctx *c = arg;
	size_t w = c->layout == LAYOUT_X86_64 ? 8 : 4;
	uint64_t v = 0;
	unsigned int i;

	if (stack_word(c, addr, w, result))
		return true;
	for (i = 0; c->tm && i < c->tm->n; i++) {
		const struct mapping *m = &c->tm->m[i];
		int fd;

		/* not addr + w > end: it wraps for addr within w of 2^64 */
		if (addr < m->start || addr >= m->end || m->end - addr < w)
			continue;
		fd = memory_fd(c->t, mapping_file(&c->d->m, (struct mapping *)m));
		if (fd < 0 || pread(fd, &v, w, addr - m->start + m->pgoff) != (ssize_t)w)
			return false;
		*result = v;
		return true;
	}
	return false;
}

/*
 * The fast path.  With libdwfl alone, 32326 samples of Debian's xz with
 * 8 KiB stacks (bench/run, "unwind throughput") took 0.75 s of CPU to
 * -f folded: libdw 34% (dwarf_cfi_addrframe() runs the FDE's CFI
 * program again for every frame), malloc and free 13% (a Dwfl_Frame per
 * frame, an expression stack per register), and zlib 19%: every Dwfl
 * (one per address space version, 41 for 4 runs of xz under sh) looks
 * for .debug_frame where .eh_frame has no FDE (ld.so's _start, in 3% of
 * the samples), and so inflates libc's and ld.so's compressed debug
 * files again.  With this path: 0.20 s, 21 samples left to libdwfl.
 *
 * So the rows of the CFI are taken from libdw once per (file, address)
 * and kept: the CFA as register + offset, each register undefined, the
 * same, at or at the value of CFA + offset, or another register's; a
 * sample whose frames all have such rows is walked here, with the same
 * arithmetic and the same memory_read() as libdwfl's frame_unwind.c.
 * Where there is no CFI at all (no module, or neither .eh_frame nor
 * .debug_frame has an FDE) it steps by the frame pointer as libdw's
 * backends do (fp_step()).  Any frame with anything else (a DWARF
 * expression, a signal frame, a .debug_frame FDE) gives the whole sample
 * to libdwfl, as does the i386 vDSO case of vdso32_caller().  The module of an address is the one the
 * sample's Dwfl has there, with its bias, so both paths see the same
 * files at the same places.  One rule differs on purpose: a register
 * an FDE gives no rule takes the psABI's default, not libdw's (see
 * psabi_same()).  PERFREGS_UNWIND=dwfl (a test hook, see the host
 * tests) unwinds every sample with libdwfl.
 */
/*
 * The modules and their CFI are the symbols' (mapping_dso()), shared
 * by the decoding threads, and libdw and libelf cache what they read of
 * a module without a lock of their own: every call into them here takes
 * the symbols' lock (symbols_lock()), the one dso.c reads the same
 * modules' tables under, and asks for the module under it (dso.c may
 * have closed it since, and opens it again).  Each thread keeps the
 * rows it derived (struct dthread), keyed by the file's entry, which
 * stays as long as the decoder, so once warm a thread takes the lock
 * only for a new address.
 */
enum { RULE_AT = 1, RULE_VAL, RULE_REG };	/* and undefined, the same */
enum { ROW_FREE, ROW_FAST, ROW_SLOW, ROW_NONE };

#define FAST_REGS	17		/* x86-64's and x32's; i386 has 9 */
#define CFA_OPS		9		/* the x86-64 PLT's expression */
#define CFI_ROWS_MIN	1024
#define CFI_ROWS_MAX	(1U << 16)	/* some 6 MB at most: then start over */

/*
 * A row, its first cache line what every frame reads: the rules but
 * "same" (a mask) and "undefined" (none) as a list.  With a flat array
 * of 17 rules the lookup of the row and the load of the rules missed
 * the cache in two lines: 24% of the fast path's time on xz's samples.
 */
struct cfi_row {
	const struct dso *file;	/* key: the file (dso.c) */
	uint64_t pc;			/* key: the address in the file */
	uint8_t nregs;			/* key: 17 or 9 */
	uint8_t state;			/* ROW_*; NONE: no FDE there */
	uint8_t ra;			/* the return address column */
	uint8_t cfa_reg;
	int32_t cfa_off;
	uint32_t same;			/* the registers whose rule is "same" */
	uint8_t ra_undef;		/* the return address is undefined */
	uint8_t nrules;			/* the other rules: */
	uint8_t reg[FAST_REGS];		/* of this register */
	uint8_t kind[FAST_REGS];	/* RULE_AT, RULE_VAL or RULE_REG */
	uint8_t cfa_nops;		/* else a CFA expression of so many ops: */
	int32_t off[FAST_REGS];		/* CFA offset, or RULE_REG's register */
	uint8_t cfa_op[CFA_OPS];	/* DW_OP_*, of cfa_expr_op() */
	int32_t cfa_num[CFA_OPS];	/* their operands */
};

struct cfi_rules {
	struct cfi_row *row;
	unsigned int cap, used;
};

static bool fits32(Dwarf_Word v)
{
	return (int64_t)v == (int32_t)v;
}

/*
 * The ops of a CFA expression that the fast path evaluates, as libdwfl's
 * expr_eval() does: those of the x86-64 PLT's, "rsp + 8, and 8 more past
 * the PLT entry's push" (breg7 8; breg16 0; lit15; and; lit11; ge; lit3;
 * shl; plus), which 21 of xz's 32326 samples had, each of them unwound
 * by libdwfl again in its own Dwfl, which read libc's DWARF for it.
 */
static bool cfa_expr_op(const Dwarf_Op *op, unsigned int nregs)
{
	switch (op->atom) {
	case DW_OP_lit0 ... DW_OP_lit31:
	case DW_OP_and:
	case DW_OP_plus:
	case DW_OP_ge:
	case DW_OP_shl:
		return true;
	case DW_OP_breg0 ... DW_OP_breg31:
		return (unsigned int)(op->atom - DW_OP_breg0) < nregs && fits32(op->number);
	default:
		return false;
	}
}

/* The CFA of a row's expression; false where libdwfl's evaluation fails. */
static bool cfa_expr_eval(const struct cfi_row *r, const uint64_t *regs, uint32_t set,
			  uint64_t *cfa)
{
	uint64_t st[CFA_OPS], a, b;
	unsigned int i, n = 0;

	for (i = 0; i < r->cfa_nops; i++) {
		uint8_t op = r->cfa_op[i];

		if (op >= DW_OP_lit0 && op <= DW_OP_lit31) {
			st[n++] = op - DW_OP_lit0;
			continue;
		}
		if (op >= DW_OP_breg0 && op <= DW_OP_breg31) {
			if (!(set & (1U << (op - DW_OP_breg0))))
				return false;
			st[n++] = regs[op - DW_OP_breg0] + (uint64_t)(int64_t)r->cfa_num[i];
			continue;
		}
		if (n < 2)
			return false;
		b = st[--n];
		a = st[--n];
		switch (op) {
		case DW_OP_and:
			a &= b;
			break;
		case DW_OP_plus:
			a += b;
			break;
		case DW_OP_ge:
			a = (int64_t)a >= (int64_t)b;
			break;
		default:	/* DW_OP_shl */
			if (b >= 64)
				return false;	/* undefined in C: libdwfl's call */
			a <<= b;
			break;
		}
		st[n++] = a;
	}
	if (!n)
		return false;
	*cfa = st[n - 1];
	return true;
}

/* PERFREGS_UNWIND=dwfl, a test hook: every sample by libdwfl.  Read once. */
static int unwind_path;		/* 1: the fast path first, -1: libdwfl only */
static bool libdw_rules;	/* libdw's x86-64 defaults as they are, a test hook */
static pthread_once_t unwind_path_once = PTHREAD_ONCE_INIT;

/*
 * The x86-64 psABI's rule for a register an FDE gives none: rbx, rbp and
 * r12-r15 are callee-saved (the caller's value is still there), the
 * others are not known.  libdw's x86-64 backend (elfutils 0.188,
 * Debian 12's; backends/x86_64_cfi.c) says "same value" for DWARF
 * register 0 where it means 3: rax comes out "same" and rbx
 * "undefined".  So a frame that has not saved rbx (a leaf, or any
 * function at its first instruction) loses the caller's rbx, and a
 * caller whose CFA is rbx-based cannot be unwound: glibc's
 * _dl_runtime_resolve_xsave (CFA rbx+32, after its stack alignment)
 * calling _dl_fixup, caught at _dl_fixup+0 in test_dump's pre-exec
 * samples, stopped after 2 frames where the call came from main.  The
 * fast path takes the psABI's rule for those two: no compiler emits an
 * explicit DW_CFA_undefined for rbx, nor DW_CFA_same_value for rax,
 * which libdw's answer cannot tell apart from its default.  libdwfl's
 * own walk (samples the fast path gives it) keeps libdw's defaults.
 * PERFREGS_UNWIND=libdw-rules keeps them here too, so that the host
 * tests compare the fast path's arithmetic with libdwfl's exactly.
 */
static bool psabi_same(unsigned int nregs, unsigned int reg, bool same)
{
	if (nregs != 17 || libdw_rules)
		return same;
	if (reg == 3)		/* rbx */
		return true;
	if (reg == 0)		/* rax */
		return false;
	return same;
}

/* The row of cfi at pc, as libdw gives it, if the fast path takes it. */
static void row_derive(struct cfi_row *r, Dwarf_CFI *cfi, uint64_t pc)
{
	Dwarf_Frame *fr;
	Dwarf_Op mem[3], *ops;
	size_t nops, j;
	bool signal;
	int ra;
	unsigned int i;

	r->state = ROW_NONE;
	r->cfa_nops = 0;
	if (dwarf_cfi_addrframe(cfi, pc, &fr))
		return;		/* libdwfl tries .debug_frame, then frame pointers */
	r->state = ROW_SLOW;
	ra = dwarf_frame_info(fr, NULL, NULL, &signal);
	if (ra < 0 || ra >= r->nregs || signal)
		goto out;
	if (dwarf_frame_cfa(fr, &ops, &nops) || !nops)
		goto out;
	if (nops == 1 && ops[0].atom == DW_OP_bregx) {
		if (ops[0].number >= r->nregs || !fits32(ops[0].number2))
			goto out;
		r->cfa_reg = (uint8_t)ops[0].number;
		r->cfa_off = (int32_t)ops[0].number2;
	} else {
		if (nops > CFA_OPS)
			goto out;
		for (j = 0; j < nops; j++) {
			if (!cfa_expr_op(&ops[j], r->nregs))
				goto out;
			r->cfa_op[j] = ops[j].atom;
			r->cfa_num[j] = (int32_t)ops[j].number;
		}
		r->cfa_nops = (uint8_t)nops;
	}
	r->same = 0;
	r->nrules = 0;
	r->ra_undef = 0;
	for (i = 0; i < r->nregs; i++) {
		unsigned int k = r->nrules;

		if (dwarf_frame_register(fr, (int)i, mem, &ops, &nops))
			goto out;
		if (!nops && (ops == mem || !ops) && (int)i != ra) {
			/* undefined (ops == mem) or the same (!ops) */
			if (psabi_same(r->nregs, i, !ops))
				r->same |= 1U << i;
			continue;
		}
		if (!nops) {	/* the return address: undefined, or the same */
			if (ops == mem)
				r->ra_undef = 1;
			else
				r->same |= 1U << i;
			continue;
		}
		r->reg[k] = (uint8_t)i;
		if (nops && ops[0].atom == DW_OP_call_frame_cfa) {
			Dwarf_Word off = 0;

			j = 1;
			if (j < nops && ops[j].atom == DW_OP_plus_uconst)
				off = ops[j++].number;
			r->kind[k] = RULE_AT;
			if (j < nops && ops[j].atom == DW_OP_stack_value) {
				r->kind[k] = RULE_VAL;
				j++;
			}
			if (j != nops || !fits32(off))
				goto out;
			r->off[k] = (int32_t)off;
		} else if (nops == 1 && ops[0].atom == DW_OP_regx && ops[0].number < r->nregs) {
			r->kind[k] = RULE_REG;
			r->off[k] = (int32_t)ops[0].number;
		} else {
			goto out;	/* an expression */
		}
		r->nrules++;
	}
	r->ra = (uint8_t)ra;
	r->state = ROW_FAST;
out:
	free(fr);
}

static unsigned int row_hash(const struct dso *file, uint64_t pc, unsigned int nregs)
{
	uint64_t h = (pc ^ (uintptr_t)file * 31 ^ nregs) * 0x9e3779b97f4a7c15ULL;

	return (unsigned int)(h >> 32);
}

static bool rows_grow(struct cfi_rules *t)
{
	unsigned int cap = t->cap ? t->cap * 2 : CFI_ROWS_MIN, i;
	struct cfi_row *row;

	if (t->cap >= CFI_ROWS_MAX) {	/* full: start over */
		memset(t->row, 0, t->cap * sizeof(*t->row));
		t->used = 0;
		return true;
	}
	row = calloc(cap, sizeof(*row));
	if (!row)
		return false;
	for (i = 0; i < t->cap; i++) {
		const struct cfi_row *r = &t->row[i];
		unsigned int h;

		if (r->state == ROW_FREE)
			continue;
		for (h = row_hash(r->file, r->pc, r->nregs) & (cap - 1); row[h].state;
		     h = (h + 1) & (cap - 1))
			;
		row[h] = *r;
	}
	free(t->row);
	t->row = row;
	t->cap = cap;
	return true;
}

/*
 * The row at pc of the .eh_frame of file for nregs registers, if the
 * fast path takes it; else NULL, with *none set when the file has no
 * row there at all (or no .eh_frame).
 */
static const struct cfi_row *row_for(struct session *d, struct dthread *th,
				     struct dso *file, uint64_t pc,
				     unsigned int nregs, bool *none)
{
	struct cfi_rules *t = th->cfi_rules;
	Dwfl_Module *mod;
	Dwarf_CFI *cfi;
	struct cfi_row *r;
	unsigned int h;
	Dwarf_Addr b;

	/* without memory for the row: not "no row", libdwfl's sample */
	*none = false;
	if (!t) {
		t = th->cfi_rules = calloc(1, sizeof(*t));
		if (!t)
			return NULL;
	}
	if ((t->used + 1) * 4 > t->cap * 3 && !rows_grow(t))
		return NULL;
	for (h = row_hash(file, pc, nregs) & (t->cap - 1);; h = (h + 1) & (t->cap - 1)) {
		r = &t->row[h];
		if (r->state == ROW_FREE)
			break;
		if (r->pc == pc && r->file == file && r->nregs == nregs)
			goto found;
	}
	r->file = file;
	r->pc = pc;
	r->nregs = (uint8_t)nregs;
	symbols_lock();
	mod = dso_module_locked(&d->m, file);
	cfi = mod ? dwfl_module_eh_cfi(mod, &b) : NULL;
	if (cfi)
		row_derive(r, cfi, pc);
	else if (mod)
		r->state = ROW_NONE;	/* no .eh_frame */
	symbols_unlock();
	if (!mod)
		return NULL;	/* no longer there to read: libdwfl's sample */
	t->used++;
found:
	*none = r->state == ROW_NONE;
	return r->state == ROW_FAST ? r : NULL;
}

/* Has elf a section that libdw would take for .debug_frame? */
static bool has_debug_frame(Elf *elf)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	size_t shstrndx;

	if (!elf || elf_getshdrstrndx(elf, &shstrndx))
		return true;	/* what cannot be looked into may have one */
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name = gelf_getshdr(scn, &sh) ?
				   elf_strptr(elf, shstrndx, sh.sh_name) : NULL;

		if (name && strstr(name, "debug_frame"))
			return true;
	}
	return false;
}

/*
 * dwfl_module_dwarf_cfi() of the shared module mod, without its cost
 * where it must come out NULL.  It reads the DWARF of the file, or of
 * its separate debug file, whole, inflating every compressed section,
 * only to look for .debug_frame, which Debian's files do not have: that
 * was 13% of decoding xz's samples once the rest took the fast path
 * (libc's debug file has 4 MB of compressed sections).  Neither file
 * having a section of that name says as much.  The debug file is the one
 * libdwfl found for the symbol table (a stripped file's is in its debug
 * file); while it has found none, it is asked.
 */
static Dwarf_CFI *debug_frame_cfi(Dwfl_Module *mod)
{
	const char *debug = NULL;
	bool maybe = true;
	Dwarf_Addr b;
	Elf *elf = dwfl_module_getelf(mod, &b);

	if (elf && !has_debug_frame(elf)) {
		dwfl_module_getsymtab(mod);	/* as symbols.c does */
		dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, NULL, &debug);
		if (debug) {
			int fd = open_regular(debug);
			Elf *de = fd >= 0 ? elf_begin(fd, ELF_C_READ_MMAP, NULL) : NULL;

			maybe = has_debug_frame(de);
			elf_end(de);
			if (fd >= 0)
				close(fd);
		}
	}
	return maybe ? dwfl_module_dwarf_cfi(mod, &b) : NULL;
}

static int fast_mod_cb(Dwfl_Module *mod, void **ud, const char *name, Dwarf_Addr start,
		       void *arg)
{
	struct unwinder *u = arg;
	struct fast_mod *fm, *p;
	Dwarf_Addr lo, hi, bias;

	(void)name;
	(void)start;
	if (!dwfl_module_info(mod, NULL, &lo, &hi, NULL, NULL, NULL, NULL))
		return DWARF_CB_OK;
	p = realloc(u->mods, (u->nmods + 1) * sizeof(*u->mods));
	if (!p) {
		u->fast_ok = false;
		return DWARF_CB_ABORT;
	}
	u->mods = p;
	fm = &u->mods[u->nmods++];
	memset(fm, 0, sizeof(*fm));
	fm->lo = lo;
	fm->hi = hi;
	/* no ELF: libdwfl has no CFI for it either, it is libdwfl's */
	fm->m = dwfl_module_getelf(mod, &bias) ? *ud : NULL;
	fm->bias = bias;
	return DWARF_CB_OK;
}

static int fast_mod_cmp(const void *a, const void *b)
{
	const struct fast_mod *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/*
 * The Dwfl's modules, sorted: an address in one of them is in that one
 * for dwfl_addrmodule() too, as long as none overlap (else none of this
 * Dwfl's samples take the fast path).
 */
static bool fast_mods(struct unwinder *u)
{
	unsigned int i;

	if (u->mods_known)
		return u->fast_ok;
	u->mods_known = true;
	u->fast_ok = true;
	if (dwfl_getmodules(u->dwfl, fast_mod_cb, u, 0) != 0)
		u->fast_ok = false;
	if (u->nmods)	/* no module: mods is NULL, which qsort() may not have */
		qsort(u->mods, u->nmods, sizeof(*u->mods), fast_mod_cmp);
	for (i = 0; i < u->nmods; i++)
		if (u->mods[i].lo >= u->mods[i].hi ||
		    (i + 1 < u->nmods && u->mods[i].hi > u->mods[i + 1].lo))
			u->fast_ok = false;
	return u->fast_ok;
}

static struct fast_mod *fast_mod_at(struct unwinder *u, uint64_t addr)
{
	unsigned int lo = 0, hi = u->nmods;
	struct fast_mod *fm;

	if (u->last < u->nmods && addr >= u->mods[u->last].lo && addr < u->mods[u->last].hi)
		return &u->mods[u->last];
	while (lo < hi) {
		unsigned int mid = (lo + hi) / 2;

		fm = &u->mods[mid];
		if (addr < fm->lo) {
			hi = mid;
		} else if (addr >= fm->hi) {
			lo = mid + 1;
		} else {
			u->last = mid;
			return fm;
		}
	}
	return NULL;
}

/*
 * A frame without CFI, as the x86-64 and i386 backends of libdw step
 * over it (ebl_unwind()): by the frame pointer, with their checks.  The
 * caller has the stack and frame pointers only.  False: the outermost.
 */
static bool fp_step(struct unwinder *u, bool is32, uint64_t mask, uint64_t *regs,
		    uint32_t *set, uint64_t *pc)
{
	struct unwind_ctx *c = &u->ctx;
	Dwarf_Word w, fp, sp, ret, prev;

	if (is32) {		/* esp 4, ebp 5 */
		if ((*set & 0x30) != 0x30)
			return false;
		sp = regs[4];
		fp = regs[5];
		if (!fp || !sp || fp < sp)
			return false;
		if (!unwind_memory_read(u->dwfl, fp + 4, &ret, c) || !ret)
			return false;
		sp = fp + 8;
		if (!unwind_memory_read(u->dwfl, fp, &fp, c) || !fp || sp >= fp)
			return false;
		regs[4] = sp & mask;
		regs[5] = fp & mask;
		*set = 0x30;
	} else {		/* rbp 6, rsp 7 */
		if (!(*set & 0x40) || !regs[6])
			return false;
		fp = regs[6];
		sp = *set & 0x80 ? regs[7] : 0;
		prev = unwind_memory_read(u->dwfl, fp, &w, c) ? w : 0;
		if (!unwind_memory_read(u->dwfl, fp + 8, &ret, c))
			return false;
		fp += 16;
		if (sp >= fp)
			return false;	/* the stack did not grow: no frame */
		regs[6] = prev & mask;
		regs[7] = fp & mask;
		*set = 0xc0;
	}
	*pc = ret;
	return true;
}

/*
 * Unwind u->ctx's sample as libdwfl would, from the rows of row_for();
 * false: a frame needs libdwfl, which unwinds the whole sample again.
 */
bool fast_unwind(struct session *d, struct dthread *th, struct unwinder *u)
{
	struct unwind_ctx *c = &u->ctx;
	bool is32 = c->layout == LAYOUT_I386;
	const int *map = is32 ? dwarf32 : dwarf64;
	unsigned int nregs = is32 ? 9 : 17, i, k;
	/* libdwfl keeps 32 bits of a register of an ELFCLASS32 backend */
	uint64_t mask = c->layout == LAYOUT_X86_64 ? UINT64_MAX : UINT32_MAX;
	size_t ws = c->layout == LAYOUT_X86_64 ? 8 : 4;	/* as memory_read() */
	uint64_t bank[2][FAST_REGS], *regs = bank[0], *next = bank[1], *swap, pc;
	uint32_t set, nset;

	if (!fast_mods(u))
		return false;
	for (i = 0; i < nregs; i++)
		regs[i] = c->regs[map[i]] & mask;
	set = (1U << nregs) - 1;
	pc = regs[nregs - 1];	/* the ABI's return address column: the IP */
	for (k = 0;; k++) {
		/* a caller's PC is a return address: its call is before it */
		uint64_t look = k ? pc - 1 : pc, cfa = 0;
		const struct cfi_row *r;
		struct fast_mod *fm;
		bool cfa_ok, none;

		r = NULL;
		fm = fast_mod_at(u, look);
		if (fm) {
			if (!fm->known) {
				fm->shared = fm->m ? mapping_dso(&d->m, fm->m) : NULL;
				fm->known = true;
			}
			if (!fm->shared)
				return false;
			r = row_for(d, th, fm->shared, look - fm->bias, nregs, &none);
			if (!r && !none)
				return false;	/* a row the fast path does not take */
			if (!r && !fm->dw_known) {
				Dwfl_Module *mod;

				symbols_lock();
				mod = dso_module_locked(&d->m, fm->shared);
				fm->dw = mod && debug_frame_cfi(mod);
				symbols_unlock();
				fm->dw_known = true;
			}
			if (!r && fm->dw)
				return false;	/* .debug_frame: libdwfl's */
		}
		if (c->n == c->max)
			break;
		c->frames[c->n].ip = pc;
		c->frames[c->n].lookup = !k || !pc ? pc : pc - 1;
		c->n++;

		if (!r) {	/* no CFI here: libdwfl's frame pointer fallback */
			if (!fp_step(u, is32, mask, regs, &set, &pc))
				break;
			continue;
		}
		if (r->cfa_nops) {
			cfa_ok = cfa_expr_eval(r, regs, set, &cfa);
		} else {
			cfa_ok = set & (1U << r->cfa_reg);
			if (cfa_ok)
				cfa = regs[r->cfa_reg] + (uint64_t)(int64_t)r->cfa_off;
		}
		/* "same" for all, a mask for those whose rule it is */
		memcpy(next, regs, FAST_REGS * sizeof(*regs));
		nset = r->same & set;
		for (i = 0; i < r->nrules; i++) {
			unsigned int reg = r->reg[i];
			uint64_t v, at = cfa + (uint64_t)(int64_t)r->off[i];
			Dwarf_Word w;

			switch (r->kind[i]) {
			case RULE_AT:
				if (!cfa_ok || (!stack_word(c, at, ws, &w) &&
						!unwind_memory_read(u->dwfl, at, &w, c)))
					continue;
				v = w;
				break;
			case RULE_VAL:
				if (!cfa_ok)
					continue;
				v = at;
				break;
			default:	/* RULE_REG */
				if (!(set & (1U << r->off[i])))
					continue;
				v = regs[r->off[i]];
				break;
			}
			next[reg] = v & mask;
			nset |= 1U << reg;
		}
		/* an undefined return address, or none, or 0: the outermost */
		if (r->ra_undef || !(nset & (1U << r->ra)) || !next[r->ra])
			break;
		pc = next[r->ra];
		swap = regs;
		regs = next;
		next = swap;
		set = nset;
	}
	/* an i386 sample left in the vDSO: libdwfl's, for vdso32_caller() */
	return !(is32 && c->n == 1);
}

static void unwind_path_read(void)
{
	const char *e = getenv("PERFREGS_UNWIND");

	unwind_path = e && !strcmp(e, "dwfl") ? -1 : 1;
	libdw_rules = e && !strcmp(e, "libdw-rules");
}

/* Is the fast path asked for (not PERFREGS_UNWIND=dwfl)?  Any thread. */
bool fast_path_wanted(void)
{
	pthread_once(&unwind_path_once, unwind_path_read);
	return unwind_path > 0;
}

void cfi_rules_free(struct dthread *t)
{
	if (t->cfi_rules)
		free(t->cfi_rules->row);
	free(t->cfi_rules);
	t->cfi_rules = NULL;
}
