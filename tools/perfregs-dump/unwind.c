// SPDX-License-Identifier: GPL-2.0
/*
 * DWARF CFI unwinding of a user stack from a sample: the sampled user
 * registers (mapped to the DWARF numbering of the sample's ABI) start
 * the unwind, the stack snapshot in the sample serves the stack reads,
 * the task's mapped files serve the rest, and libdw walks the CFI.
 *
 * The register file is chosen per sample, not per image: libdw picks
 * its backend from the ELF handed to dwfl_attach_state(), and we hand it
 * a synthetic ELF header of the sample's layout, so a mixed-mode sample
 * (a 64-bit image running 32-bit code) unwinds with the i386 registers
 * and an x32 one with the x86-64 registers.
 */
#include <elf.h>
#include <elfutils/libdwfl.h>
#include <dwarf.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include "types.h"
#include "images.h"
#include "maps.h"
#include "files.h"
#include "debuginfo.h"
#include "dso.h"
#include "aspace.h"
#include "jitmap.h"
#include "unwind.h"
#include "cfi.h"

/*
 * A synthetic ELF header, only for libdw to pick the backend.  Made once
 * per layout, whichever decoding thread asks first; libdw only reads it.
 */
static Elf *abi_elf(enum layout layout)
{
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	static Elf *cache[4];
	static union {
		Elf64_Ehdr e64;
		Elf32_Ehdr e32;
	} hdr[4];
	unsigned char *id;
	Elf *elf;

	pthread_mutex_lock(&lock);
	if (cache[layout])
		goto out;
	elf_version(EV_CURRENT);
	if (layout == LAYOUT_X86_64) {
		Elf64_Ehdr *e = &hdr[layout].e64;

		id = e->e_ident;
		id[EI_CLASS] = ELFCLASS64;
		e->e_machine = EM_X86_64;
		e->e_version = EV_CURRENT;
		e->e_ehsize = sizeof(*e);
		e->e_type = ET_EXEC;
	} else {
		Elf32_Ehdr *e = &hdr[layout].e32;

		id = e->e_ident;
		id[EI_CLASS] = ELFCLASS32;
		e->e_machine = layout == LAYOUT_X32 ? EM_X86_64 : EM_386;
		e->e_version = EV_CURRENT;
		e->e_ehsize = sizeof(*e);
		e->e_type = ET_EXEC;
	}
	memcpy(id, ELFMAG, SELFMAG);
	id[EI_DATA] = ELFDATA2LSB;
	id[EI_VERSION] = EV_CURRENT;
	cache[layout] = elf_memory((char *)&hdr[layout], sizeof(hdr[layout]));
out:
	elf = cache[layout];
	pthread_mutex_unlock(&lock);
	return elf;
}

static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	struct unwind_ctx *c = arg;

	if (*thread_argp)
		return 0;
	*thread_argp = arg;
	return c->s->pid ? (pid_t)c->s->pid : 1;
}

static bool set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	struct unwind_ctx *c = arg;
	bool is32 = c->layout == LAYOUT_I386;
	const int *map = is32 ? dwarf32 : dwarf64;
	int i, n = is32 ? 9 : 17;
	Dwarf_Word regs[17];

	for (i = 0; i < n; i++) {
		uint64_t v = c->regs[map[i]];

		regs[i] = is32 ? (uint32_t)v : v;
	}
	return dwfl_thread_state_registers(thread, 0, n, regs);
}

static const Dwfl_Thread_Callbacks thread_cbs = {
	.next_thread = next_thread,
	.memory_read = unwind_memory_read,
	.set_initial_registers = set_initial_registers,
};

static int frame_cb(Dwfl_Frame *state, void *arg)
{
	struct unwind_ctx *c = arg;
	Dwarf_Addr pc;
	bool activation;

	if (!dwfl_frame_pc(state, &pc, &activation))
		return DWARF_CB_ABORT;
	if (c->n == c->max)
		return DWARF_CB_ABORT;
	if (c->called) {	/* vdso32_caller()'s: a return address */
		activation = false;
		c->called = false;
	}
	c->frames[c->n].ip = pc;
	/* a return address points after the call: look up the call */
	c->frames[c->n].lookup = activation || !pc ? pc : pc - 1;
	c->n++;
	return DWARF_CB_OK;
}

/*
 * The caller of an i386 vDSO function.  The i386 vDSO has CFI only for
 * __kernel_vsyscall and the signal trampolines: its C functions
 * (__vdso_clock_gettime64 and the others) have none, so libdw stops at
 * them, and a -m32 clock_gettime() loop had two thirds of its samples
 * there (measured: 1134 of 1748 on 6.1).  They keep a frame pointer:
 * "push %ebp; mov %esp,%ebp" near the start (after a get_pc_thunk
 * call), "pop %ebp; ret" or "leave; ret" at the end.  Where the IP is
 * says where the return address lies: before the push at [esp], right
 * after it at [esp+4], at the ret at [esp] (ebp is the caller's again),
 * else at [ebp+4] with the caller's ebp at [ebp].
 */
bool unwind_vdso32_caller(struct unwind_ctx *c, Dwfl *dwfl)
{
	uint32_t ip = (uint32_t)c->regs[PERFREGS_REG_IP];
	uint32_t sp = (uint32_t)c->regs[PERFREGS_REG_SP];
	uint32_t bp = (uint32_t)c->regs[PERFREGS_REG_BP];
	const struct mapping *m = NULL;
	uint32_t ra, csp, cbp, push = 0;
	unsigned char code[24], at;
	Dwfl_Module *mod;
	GElf_Sym sym;
	GElf_Off off;
	GElf_Addr start;
	Dwarf_Word w;
	unsigned int i, j;
	int fd;

	for (i = 0; c->tm && i < c->tm->n; i++)
		if (ip >= c->tm->m[i].start && ip < c->tm->m[i].end)
			m = &c->tm->m[i];
	if (!m || strcmp(m->path, "[vdso]") || !m->local)
		return false;
	mod = dwfl_addrmodule(dwfl, ip);
	if (!mod || !dwfl_module_addrinfo(mod, ip, &off, &sym, NULL, NULL, NULL))
		return false;
	start = ip - off;
	if (start > ip || ip - start > 0x10000)
		return false;
	fd = open(m->local, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	i = pread(fd, code, sizeof(code), start - m->start + m->pgoff) == sizeof(code) &&
	    pread(fd, &at, 1, ip - m->start + m->pgoff) == 1;
	close(fd);
	if (!i)
		return false;
	for (i = 0; i + 3 <= sizeof(code); i++)
		if (code[i] == 0x55 && code[i + 1] == 0x89 && code[i + 2] == 0xe5)
			break;
	if (i + 3 > sizeof(code))
		return false;	/* no frame pointer: do not guess */
	/*
	 * Nothing may be pushed before %ebp, or the slots above it are not
	 * what this assumes (__kernel_vsyscall pushes ecx and edx first; it
	 * has CFI anyway): the push comes first, or after a get_pc_thunk
	 * call and the add of the GOT offset (to eax, or with 0x81 to
	 * another register); all of it after an endbr32 on kernels built
	 * with IBT (6.12: f3 0f 1e fb).
	 */
	j = code[0] == 0xf3 && code[1] == 0x0f && code[2] == 0x1e && code[3] == 0xfb ? 4 : 0;
	if (!(i == j || (i == j + 10 && code[j] == 0xe8 && code[j + 5] == 0x05) ||
	      (i == j + 11 && code[j] == 0xe8 && code[j + 5] == 0x81 &&
	       (code[j + 6] & 0xf8) == 0xc0)))
		return false;
	push = (uint32_t)start + i;
	if (ip <= push || at == 0xc3) {
		csp = sp + 4;
		cbp = bp;
		if (!unwind_memory_read(dwfl, sp, &w, c))
			return false;
		ra = (uint32_t)w;
	} else if (ip == push + 1) {
		csp = sp + 8;
		if (!unwind_memory_read(dwfl, sp, &w, c))
			return false;
		cbp = (uint32_t)w;
		if (!unwind_memory_read(dwfl, sp + 4, &w, c))
			return false;
		ra = (uint32_t)w;
	} else {
		csp = bp + 8;
		if (!unwind_memory_read(dwfl, bp, &w, c))
			return false;
		cbp = (uint32_t)w;
		if (!unwind_memory_read(dwfl, bp + 4, &w, c))
			return false;
		ra = (uint32_t)w;
	}
	if (!ra || csp <= sp)
		return false;
	/* a return address goes back into code the task has mapped */
	for (i = 0; i < c->tm->n; i++)
		if (ra >= c->tm->m[i].start && ra < c->tm->m[i].end)
			break;
	if (i == c->tm->n)
		return false;
	c->regs[PERFREGS_REG_IP] = ra;
	c->regs[PERFREGS_REG_SP] = csp;
	c->regs[PERFREGS_REG_BP] = cbp;
	return true;
}

static Dwfl_Callbacks dwfl_cbs = {	/* debuginfo_path: see files.c */
	.find_elf = debuginfo_find_elf,
	.find_debuginfo = debuginfo_find,
};
/* dwfl_cbs.debuginfo_path is set by whichever decoding thread begins a Dwfl */
static pthread_mutex_t cbs_lock = PTHREAD_MUTEX_INITIALIZER;

#define UNWINDERS_MAX	16

/*
 * The files the unwinders may hold open together: half the descriptors
 * the process may have.  16 unwinders of 7 files each under ulimit -n
 * 128 (the host test's 300 versions, once the tool linked 7 libraries)
 * left no descriptor for the eighth file of some: those samples lost
 * their frames.  Each decoding thread (--threads) has its share of them,
 * and the shared unwinders one more (unwinder_files_max()).
 */
unsigned int unwind_files_max(void)
{
	static unsigned int files;	/* any thread may be the first: the same value */
	unsigned int max = __atomic_load_n(&files, __ATOMIC_RELAXED);
	struct rlimit rl;

	if (!max) {
		max = 512;
		if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur != RLIM_INFINITY &&
		    rl.rlim_cur / 2 < max)
			max = rl.rlim_cur / 2 > UNWIND_FILES_MIN ? (unsigned int)(rl.rlim_cur / 2) :
								   UNWIND_FILES_MIN;
		__atomic_store_n(&files, max, __ATOMIC_RELAXED);
	}
	return max;
}

/*
 * A thread's share: with --threads N, N + 1 shares, one per worker and
 * one for the shared unwinders (shared_files_max()); pool_start() starts
 * no more threads than have one.
 */
static unsigned int unwinder_files_max(const struct session *d)
{
	unsigned int max = unwind_files_max();
	unsigned int share = d->threads > 1 ? max / (d->threads + 1) : max;

	return share > UNWIND_FILES_MIN ? share : UNWIND_FILES_MIN;
}

/* What the workers' shares leave of the files, for the shared unwinders. */
static unsigned int shared_files_max(const struct session *d)
{
	unsigned int max = unwind_files_max(), share = unwinder_files_max(d);

	return max >= (d->threads + 1) * share ? max - d->threads * share : share;
}

/*
 * The unwinders of the tasks that have more modules than a worker's
 * share of the files, of all the workers, used under shared_lock: a
 * worker that made its own for such a task held all its files, each of
 * the others too, and 32 threads of a process of 40 libraries were past
 * ulimit -n 1024: samples lost their frames, unlike with --threads 1.
 */
static pthread_mutex_t shared_lock = PTHREAD_MUTEX_INITIALIZER;

static void unwinders_free(struct unwinder *u)
{
	struct unwinder *next;

	for (; u; u = next) {
		next = u->next;
		if (u->dwfl)
			dwfl_end(u->dwfl);
		free(u->mods);
		free(u);
	}
}

/* The unwinder of list *head for (tm, layout), its files within files_max. */
static struct unwinder *unwinder_for(struct session *d, struct unwinder **head,
				     struct task_maps *tm, enum layout layout,
				     unsigned int files_max)
{
	unsigned int i, files = 0;
	struct unwinder *u, **up;

	for (up = head, i = 0; (u = *up); up = &u->next, i++) {
		if (u->tm == tm && u->layout == layout) {
			*up = u->next;	/* to the front: most recently used first */
			u->next = *head;
			*head = u;
			return u;
		}
		/*
		 * Each holds an open file per module: one per address-space
		 * version made the decoder run out of file descriptors (300
		 * versions of 10 files: 3000 fds, and names lost once the
		 * limit was reached).  Past UNWINDERS_MAX, or past the files
		 * they may hold with the new one's, the least recently used
		 * go.  The list holds no more than that, so none of them is
		 * one that was asked for: the search is over.
		 */
		files += u->tm->n;
		if (i + 1 > UNWINDERS_MAX || files + tm->n > files_max) {
			*up = NULL;
			unwinders_free(u);
			break;
		}
	}
	u = calloc(1, sizeof(*u));
	if (!u)
		return NULL;
	u->tm = tm;
	u->layout = layout;
	pthread_mutex_lock(&cbs_lock);
	dwfl_cbs.debuginfo_path = dwfl_debuginfo_path(&d->m);
	u->dwfl = debuginfo_dwfl_begin(&dwfl_cbs);
	pthread_mutex_unlock(&cbs_lock);
	if (u->dwfl) {
		dwfl_report_begin(u->dwfl);
		for (i = 0; i < tm->n; i++) {
			Dwfl_Module *mod;
			void **ud;

			mod = report_elf(u->dwfl, tm->m[i].path, mapping_file(&d->m, &tm->m[i]),
					 mapping_base(&d->m, &tm->m[i]));
			/* for fast_unwind(): the first mapping that reported it */
			if (mod && dwfl_module_info(mod, &ud, NULL, NULL, NULL, NULL, NULL,
						    NULL) && !*ud)
				*ud = &tm->m[i];
		}
		dwfl_report_end(u->dwfl, NULL, NULL);
		u->attached = dwfl_attach_state(u->dwfl, abi_elf(layout),
						tm->pid ? (pid_t)tm->pid : 1,
						&thread_cbs, &u->ctx);
	}
	u->next = *head;
	*head = u;
	return u;
}

/* What thread t made here: its unwinders, its CFI rows and its frames. */
void unwind_thread_free(struct dthread *t)
{
	unwinders_free(t->unwinders);
	t->unwinders = NULL;
	free(t->frames);
	t->frames = NULL;
	cfi_rules_free(t);
	unwind_memory_free(t);
}

/* The shared unwinders (unwind_sample()): the workers are done. */
void unwind_shared_free(struct session *d)
{
	unwinders_free(d->shared_unwinders);
	d->shared_unwinders = NULL;
}

void unwind_free(struct session *d)
{
	unwind_thread_free(&d->self);
	unwind_shared_free(d);
}

/* Thread t's frames, SAMPLE_FRAMES_MAX of them; NULL without memory. */
static void name_frames(struct session *d, const struct perfregs_rec_sample *s,
			const struct task_maps *tm, struct frame *frames, unsigned int from,
			unsigned int n);

struct frame *unwind_frames(struct dthread *t)
{
	if (!t->frames)
		t->frames = malloc(SAMPLE_FRAMES_MAX * sizeof(*t->frames));
	return t->frames;
}

/*
 * The frames unwound from the stack by CFI, their ip and lookup only
 * (name_frames() names them); the sample's maps into *tm.  How many.
 */
static unsigned int unwind_raw(struct session *d, struct dthread *t,
			       const struct perfregs_rec_sample *s, enum layout layout,
			       const unsigned char *stack, uint64_t stack_len,
			       struct frame *frames, unsigned int max,
			       const struct task_maps **tm)
{
	const uint64_t *u = (const uint64_t *)s->regs +
			    prf_popcount(s->iregs_mask);
	struct unwind_ctx c = {
		.d = d, .t = t, .s = s, .layout = layout, .stack = stack,
		.stack_len = stack_len, .frames = frames, .max = max,
	};
	unsigned int k = 0;
	struct unwinder *uw;
	bool shared;
	Dwfl *dwfl;
	int reg;

	if (layout == LAYOUT_NONE || !s->uregs_mask)
		return 0;
	for (reg = 0; reg < PERFREGS_REG_MAX; reg++)
		if (s->uregs_mask & (1ULL << reg))
			c.regs[reg] = u[k++];
	if (!(s->uregs_mask & (1ULL << PERFREGS_REG_IP)) ||
	    !(s->uregs_mask & (1ULL << PERFREGS_REG_SP)))
		return 0;
	c.sp = layout == LAYOUT_I386 ? (uint32_t)c.regs[PERFREGS_REG_SP] :
				       c.regs[PERFREGS_REG_SP];
	c.tm = *tm = maps_for_sample(&d->m, s);
	if (!c.tm)
		return 0;
	/* more modules than this thread's share: the shared unwinders' */
	shared = d->threads > 1 && c.tm->n > unwinder_files_max(d);
	if (shared) {
		pthread_mutex_lock(&shared_lock);
		uw = unwinder_for(d, &d->shared_unwinders, (struct task_maps *)c.tm, layout,
				  shared_files_max(d));
	} else {
		uw = unwinder_for(d, &t->unwinders, (struct task_maps *)c.tm, layout,
				  unwinder_files_max(d));
	}
	if (!uw || !uw->attached) {
		if (shared)
			pthread_mutex_unlock(&shared_lock);
		return 0;
	}
	uw->ctx = c;
	dwfl = uw->dwfl;
	if (fast_path_wanted() && fast_unwind(d, t, uw))
		goto unwound;
	uw->ctx = c;
	dwfl_getthread_frames(dwfl, c.tm->pid ? (pid_t)c.tm->pid : 1, frame_cb, &uw->ctx);
	if (layout == LAYOUT_I386 && uw->ctx.n == 1 && uw->ctx.n < max &&
	    unwind_vdso32_caller(&uw->ctx, dwfl)) {
		/* on from the caller, with the vDSO frame kept */
		uw->ctx.called = true;
		dwfl_getthread_frames(dwfl, c.tm->pid ? (pid_t)c.tm->pid : 1, frame_cb,
				      &uw->ctx);
		uw->ctx.called = false;
	}
unwound:
	c.n = uw->ctx.n;
	if (shared)
		pthread_mutex_unlock(&shared_lock);
	return c.n;
}

int unwind_sample(struct session *d, struct dthread *t,
		  const struct perfregs_rec_sample *s, enum layout layout,
		  const unsigned char *stack, uint64_t stack_len, struct frame *frames,
		  unsigned int max)
{
	const struct task_maps *tm = NULL;
	unsigned int n = unwind_raw(d, t, s, layout, stack, stack_len, frames, max, &tm);

	if (n)
		name_frames(d, s, tm, frames, 0, n);
	return (int)n;
}

/*
 * frames[from..n) named, each by the mapping of tm its lookup address is
 * in (the symbols every process that maps the file shares), or by the
 * perf map of its JIT code (jitmap.c).
 */
static void name_frames(struct session *d, const struct perfregs_rec_sample *s,
			const struct task_maps *tm, struct frame *frames, unsigned int from,
			unsigned int n)
{
	unsigned int i;

	for (i = from; i < n; i++) {
		unsigned int j;
		size_t len;

		frames[i].sym[0] = frames[i].dso[0] = 0;
		frames[i].demangled = false;
		frames[i].map = NULL;
		for (j = 0; j < tm->n; j++) {
			struct mapping *m = &tm->m[j];

			if (frames[i].lookup < m->start || frames[i].lookup >= m->end)
				continue;
			/* the symbols shared by every process that maps the file */
			frames[i].map = m;
			frames[i].demangled = mapping_symbol(&d->m, m, frames[i].lookup,
							     frames[i].ip, 0, frames[i].sym,
							     sizeof(frames[i].sym)) == 1;
			/*
			 * the module's name: the path the task mapped, cut as
			 * snprintf() did (9% of -f folded of xz's samples);
			 * also when its file is not there to name the symbol,
			 * as perf names such a frame by its file
			 */
			len = strnlen(m->path, sizeof(frames[i].dso) - 1);
			memcpy(frames[i].dso, m->path, len);
			frames[i].dso[len] = 0;
			break;
		}
		if (j == tm->n) {	/* in no file: JIT code, its perf map's (jitmap.c) */
			const char *dso = NULL;

			if (!jitmap_symbol(&d->m, tm->pid, s->time, frames[i].lookup, frames[i].ip,
					   frames[i].sym, sizeof(frames[i].sym), &dso) && dso)
				snprintf(frames[i].dso, sizeof(frames[i].dso), "%s", dso);
		}
	}
}

/*
 * The leaf's frames unwound by CFI before the user call chain takes
 * over: an i386 system call goes through two frames without a frame
 * pointer of their own (the vDSO's __kernel_vsyscall and libc's
 * wrapper) before its caller's.
 */
#define LEAF_CFI_FRAMES	4

/*
 * Where the CFI frames f[1..n) meet the chain's entries 1..: the first
 * CFI frame i whose return address the chain also has, at *j; 0: none.
 */
static unsigned int chain_meets(const struct frame *f, unsigned int n,
				const struct sample_kchain *uc, unsigned int *j)
{
	unsigned int i, k;

	for (i = 1; i < n; i++)
		for (k = 1; k < uc->nr && k <= LEAF_CFI_FRAMES; k++)
			if (f[i].ip == uc->ips[k]) {
				*j = k;
				return i;
			}
	return 0;
}

/*
 * The frames of a sample's user call chain (PERFREGS_SF_UCHAIN): its
 * IP, then the return addresses the frame pointers led the kernel to.
 * A leaf that keeps no frame pointer (libc's system call wrappers), or
 * a sample in a prologue or epilogue, leaves the frame pointer at its
 * caller's frame, so the chain's second entry is the caller's caller:
 * with a stack, the leaf's frames are unwound first by their CFI, up to
 * where they meet the chain (or, if they never do, the leaf's caller is
 * kept when the chain lacks it), and the chain goes on from there.
 * (perf record -g of main > ra > rb > read(): every kernel-mode sample's
 * user chain lacked rb.)
 */
static int unwind_fp_chain(struct session *d, struct dthread *t,
			   const struct perfregs_rec_sample *s, enum layout layout,
			   const struct sample_stack *st, struct frame *frames, unsigned int max)
{
	const struct sample_kchain *uc = &st->uchain;
	const struct task_maps *tm = NULL;
	unsigned int i, j = 1, n = 0;

	if (layout == LAYOUT_NONE || !max)
		return 0;
	if (!uc->nr)	/* not walked (NESTED): the stack's CFI alone, if any */
		return st->data ? unwind_sample(d, t, s, layout, st->data, st->copied, frames,
						max) : 0;
	if (st->data && max > LEAF_CFI_FRAMES) {
		/* named once cut, with the chain's frames: each looked up once */
		n = unwind_raw(d, t, s, layout, st->data, st->copied, frames, LEAF_CFI_FRAMES,
			       &tm);
		i = chain_meets(frames, n, uc, &j);
		if (i)
			n = i;		/* the CFI's frames up to the chain's */
		else if (n >= 2 && uc->nr >= 2 && frames[1].ip != uc->ips[1])
			n = 2;		/* the leaf's caller, which the chain lacks */
		else if (n)
			n = 1;
	}
	if (!n)
		frames[n++] = (struct frame){ .ip = uc->ips[0], .lookup = uc->ips[0] };
	for (i = j; i < uc->nr && n < max; i++)
		frames[n++] = (struct frame){ .ip = uc->ips[i],
					      /* a return address: look up the call */
					      .lookup = uc->ips[i] ? uc->ips[i] - 1 : 0 };
	if (!tm)
		tm = maps_for_sample(&d->m, s);
	if (tm)
		name_frames(d, s, tm, frames, 0, n);
	else
		for (i = 0; i < n; i++)
			frames[i].sym[0] = frames[i].dso[0] = 0;
	return (int)n;
}

int unwind_user(struct session *d, struct dthread *t, const struct perfregs_rec_sample *s,
		enum layout layout, const struct sample_stack *st, struct frame *frames,
		unsigned int max)
{
	if (!frames || !d->o.callgraph)
		return 0;
	if (st->uchain.ips)
		return unwind_fp_chain(d, t, s, layout, st, frames, max);
	if (st->data)
		return unwind_sample(d, t, s, layout, st->data, st->copied, frames, max);
	return 0;
}
