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
#define _GNU_SOURCE	/* strchrnul */
#include <fcntl.h>
#include <elf.h>
#include <elfutils/libdwfl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <errno.h>
#include <pthread.h>
#include <time.h>
#include "types.h"
#include "learnt.h"
#include "images.h"

/* Little-endian fields of an ELF file (x86 ELF is little-endian). */
static uint64_t le(const uint8_t *p, unsigned int bytes)
{
	uint64_t v = 0;

	while (bytes--)
		v = v << 8 | p[bytes];
	return v;
}

/* The GNU build-id in a buffer of notes, aligned to align; 0 if found. */
static int note_build_id(const uint8_t *b, size_t n, size_t align,
			 uint8_t *id, uint8_t *len)
{
	size_t off = 0;

	while (n - off >= 12) {
		uint64_t namesz = le(b + off, 4), descsz = le(b + off + 4, 4);
		uint64_t type = le(b + off + 8, 4);
		uint64_t name = off + 12;
		uint64_t desc = name + ((namesz + align - 1) & ~(align - 1));
		uint64_t next = desc + ((descsz + align - 1) & ~(align - 1));

		if (desc > n || descsz > n - desc)
			break;
		if (type == NT_GNU_BUILD_ID && namesz == 4 &&
		    !memcmp(b + name, "GNU", 4) && descsz && descsz <= 20) {
			memcpy(id, b + desc, descsz);
			*len = (uint8_t)descsz;
			return 0;
		}
		if (next <= off || next > n)
			break;
		off = next;
	}
	return -1;
}

/*
 * An executable PT_LOAD segment, as exec maps it: the file-backed pages
 * [vaddr, vaddr + filesz) rounded out to pages, from the page of its
 * offset.  False when there are too many to keep.
 */
static bool exec_segment(struct elf_facts *f, const uint8_t *ph, bool is64)
{
	const uint64_t page = 4096;
	uint64_t off = is64 ? le(ph + 8, 8) : le(ph + 4, 4);
	uint64_t vaddr = is64 ? le(ph + 16, 8) : le(ph + 8, 4);
	uint64_t filesz = is64 ? le(ph + 32, 8) : le(ph + 16, 4);

	if (f->nexec >= sizeof(f->exec) / sizeof(f->exec[0]) || !filesz)
		return false;
	f->exec[f->nexec].start = vaddr & ~(page - 1);
	f->exec[f->nexec].end = (vaddr + filesz + page - 1) & ~(page - 1);
	f->exec[f->nexec].pgoff = off & ~(page - 1);
	f->nexec++;
	return true;
}

/*
 * The ELF header's facts and the GNU build-id (from the PT_NOTE
 * segments) of a file, mostly with one pread() of its first 4 KiB, which
 * usually holds the headers and the notes.  The learner runs this for
 * each new task's image and libraries while that task waits for the
 * CPU: no libelf (its first use alone cost ~180k instructions here), no
 * mmap.  id may be NULL.  Returns 0 if the file is ELF; *len is 0 when
 * no build-id was found this way.  elf_peek_fd() reads an open file.
 */
int elf_peek_fd(int fd, struct elf_facts *f, uint8_t *id, uint8_t *len)
{
	uint8_t head[4096], notes[4096];
	const uint8_t *eh = head, *ph, *nb;
	uint64_t phoff, phpos, off, size;
	unsigned int phentsize, phnum, i, phsize;
	bool is64, interp = false, over = false, id_done = false;
	ssize_t n, got;

	memset(f, 0, sizeof(*f));
	if (len)
		*len = 0;
	/* the header, and mostly the program headers and notes too */
	n = pread(fd, head, sizeof(head), 0);
	is64 = n >= EI_NIDENT && eh[EI_CLASS] == ELFCLASS64;
	if (n < (is64 ? 64 : 52) || memcmp(eh, ELFMAG, SELFMAG) ||
	    (eh[EI_CLASS] != ELFCLASS32 && eh[EI_CLASS] != ELFCLASS64) ||
	    eh[EI_DATA] != ELFDATA2LSB)
		return -1;
	f->known = true;
	f->elfclass = eh[EI_CLASS];
	f->machine = (uint16_t)le(eh + 18, 2);
	if (!id)
		return 0;
	phoff = is64 ? le(eh + 32, 8) : le(eh + 28, 4);
	phentsize = (unsigned int)le(eh + (is64 ? 54 : 42), 2);
	phnum = (unsigned int)le(eh + (is64 ? 56 : 44), 2);
	if (phentsize < (is64 ? 56U : 32U) || phnum == PN_XNUM)
		return 0;
	phsize = is64 ? 56 : 32;
	for (i = 0; i < phnum && i < 128; i++) {
		uint8_t one[56];
		uint64_t align;

		phpos = phoff + (uint64_t)i * phentsize;
		if (phpos <= (uint64_t)n && phsize <= (uint64_t)n - phpos)
			ph = head + phpos;
		else if (pread(fd, one, phsize, phpos) == phsize)
			ph = one;
		else
			break;	/* not all seen: not fixed */
		if (le(ph, 4) == PT_INTERP)
			interp = true;
		if (le(ph, 4) == PT_LOAD && (le(ph + (is64 ? 4 : 24), 4) & PF_X) &&
		    !exec_segment(f, ph, is64))
			over = true;	/* not fixed; the build-id is still sought */
		if (le(ph, 4) != PT_NOTE || id_done)
			continue;
		off = is64 ? le(ph + 8, 8) : le(ph + 4, 4);
		size = is64 ? le(ph + 32, 8) : le(ph + 16, 4);
		align = is64 ? le(ph + 48, 8) : le(ph + 28, 4);
		if (size > sizeof(notes))
			size = sizeof(notes);
		if (off <= (uint64_t)n && size <= (uint64_t)n - off) {
			nb = head + off;
			got = (ssize_t)size;
		} else {
			nb = notes;
			got = pread(fd, notes, size, off);
		}
		if (got > 0 && !note_build_id(nb, got, align == 8 ? 8 : 4, id, len))
			id_done = true;
	}
	f->fixed = le(eh + 16, 2) == ET_EXEC && !interp && !over && i == phnum &&
		   f->nexec;
	if (!f->fixed)
		f->nexec = 0;
	return 0;
}

/*
 * A file that a recording or a task names, open for reading, if it is a
 * regular file; else -1.  The name is the sampled system's, or anyone's
 * who wrote the recording: a FIFO would block the open, a device's open
 * can do anything (a watchdog starts, a tape rewinds), a directory reads
 * as nothing.  So the name is opened O_PATH, which opens no file, what
 * it opened is looked at, and only a regular file is opened for reading,
 * through /proc/self/fd: the same inode, whatever the name says by then.
 * Without /proc, opened O_NONBLOCK and looked at after.
 */
int open_regular(const char *path)
{
	struct stat st, st2;
	char self[32];
	int opath, fd;

	opath = open(path, O_PATH | O_CLOEXEC);
	if (opath < 0)
		return -1;
	if (fstat(opath, &st) || !S_ISREG(st.st_mode)) {
		close(opath);
		errno = EINVAL;
		return -1;
	}
	snprintf(self, sizeof(self), "/proc/self/fd/%d", opath);
	fd = open(self, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT)
		fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	close(opath);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st2) || !S_ISREG(st2.st_mode) || st2.st_dev != st.st_dev ||
	    st2.st_ino != st.st_ino) {
		close(fd);
		errno = EINVAL;
		return -1;
	}
	return fd;
}

/*
 * dwfl_report_elf() of path, opened by open_regular(): given fd -1,
 * libdwfl opens the path itself, and blocks on a FIFO.  It keeps the fd
 * when it returns a module.  When it returns NULL the fd is still ours,
 * unless libdwfl decompressed the file (it closed the fd then), which it
 * only tries on what libelf does not take for ELF: so only ELF goes in.
 */
struct Dwfl_Module *report_elf(struct Dwfl *dwfl, const char *name, const char *path,
			       uint64_t base)
{
	int fd = open_regular(path);

	return fd < 0 ? NULL : report_elf_fd(dwfl, name, path, fd, base);
}

/* The same of fd, a regular file open for reading: libdwfl's, or closed. */
struct Dwfl_Module *report_elf_fd(struct Dwfl *dwfl, const char *name, const char *path,
				  int fd, uint64_t base)
{
	unsigned char id[EI_NIDENT];
	Dwfl_Module *mod;

	if (pread(fd, id, sizeof(id), 0) != sizeof(id) || memcmp(id, ELFMAG, SELFMAG) ||
	    id[EI_CLASS] == ELFCLASSNONE || id[EI_CLASS] >= ELFCLASSNUM ||
	    id[EI_DATA] == ELFDATANONE || id[EI_DATA] >= ELFDATANUM ||
	    id[EI_VERSION] != EV_CURRENT) {
		close(fd);
		return NULL;
	}
	mod = dwfl_report_elf(dwfl, name, path, fd, base, false);
	if (!mod)
		close(fd);
	return mod;
}

int elf_peek(const char *path, struct elf_facts *f, uint8_t *id, uint8_t *len)
{
	int fd = open_regular(path), ret;

	if (fd < 0) {
		memset(f, 0, sizeof(*f));
		if (len)
			*len = 0;
		return -1;
	}
	ret = elf_peek_fd(fd, f, id, len);
	close(fd);
	return ret;
}

int elf_facts_of_file(const char *path, struct elf_facts *f)
{
	return elf_peek(path, f, NULL, NULL);
}

static unsigned int image_hash(uint32_t dev, uint64_t ino)
{
	return (unsigned int)((ino * 0x9e3779b97f4a7c15ULL + dev) >> 56);
}

struct image *image_find(struct machine *mach, uint32_t dev, uint64_t ino)
{
	struct image *im;

	/* acquire: pairs with the release in image_add(), another thread's */
	for (im = __atomic_load_n(&mach->images[image_hash(dev, ino)], __ATOMIC_ACQUIRE);
	     im; im = im->next)
		if (im->dev == dev && im->ino == ino)
			return im;
	return NULL;
}

/*
 * Add an image; with notify, queue it for the session to hand on (the
 * recording) before anyone can find it, so that the recording has the image before
 * any sample that a decoding thread writes after finding it.
 */
static struct image *image_add_notify(struct machine *mach, uint32_t dev, uint64_t ino,
				      const struct elf_facts *f, const char *path,
				      bool notify, const uint8_t *id, int id_len)
{
	unsigned int h = image_hash(dev, ino);
	struct image *im = calloc(1, sizeof(*im));

	if (!im)
		return NULL;
	im->dev = dev;
	im->ino = ino;
	if (f)
		im->facts = *f;
	if (id_len >= 0) {
		im->build_id_known = true;
		im->build_id_len = (uint8_t)id_len;
		memcpy(im->build_id, id, id_len);
	}
	im->path = path ? strdup(path) : NULL;
	im->next = mach->images[h];
	if (notify)
		learnt_image(mach, im);
	/* release: the entry is whole before a lock-free image_find() sees it */
	__atomic_store_n(&mach->images[h], im, __ATOMIC_RELEASE);
	return im;
}

struct image *image_add(struct machine *mach, uint32_t dev, uint64_t ino,
			const struct elf_facts *f, const char *path)
{
	return image_add_notify(mach, dev, ino, f, path, false, NULL, -1);
}

/* CLOCK_MONOTONIC in ns */
uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000ULL + t.tv_nsec;
}

static struct retry *retry_slot(struct machine *mach, enum retry_kind kind,
				uint32_t pid, uint64_t ino)
{
	return &mach->retries[(pid * 31 + ino * 7 + kind) % RETRY_SLOTS];
}

static bool retry_is(const struct retry *r, enum retry_kind kind, uint32_t pid,
		     uint64_t ino)
{
	return r->kind == kind && r->pid == pid && r->ino == ino;
}

/* May a lookup for (pid, ino) be made now? */
bool retry_due(struct machine *mach, enum retry_kind kind, uint32_t pid, uint64_t ino)
{
	struct retry *r = retry_slot(mach, kind, pid, ino);

	if (!retry_is(r, kind, pid, ino))
		return true;	/* never failed (or evicted: tries again) */
	return !r->given_up && now_ns() >= r->next_ns;
}

/*
 * A lookup for (pid, ino) found no answer; final: none will ever come.
 * Returns true if it is given up now (final, or out of time).
 */
bool retry_failed(struct machine *mach, enum retry_kind kind, uint32_t pid, uint64_t ino,
		  bool final)
{
	struct retry *r = retry_slot(mach, kind, pid, ino);
	uint64_t now = now_ns();

	if (!retry_is(r, kind, pid, ino)) {
		r->kind = kind;	/* a collision evicts the other key */
		r->pid = pid;
		r->ino = ino;
		r->first_ns = now;
		r->given_up = false;
	}
	r->next_ns = now + RETRY_GAP_NS;
	if (final || now - r->first_ns >= RETRY_BUDGET_NS)
		r->given_up = true;
	return r->given_up;
}

/*
 * The image of a sample: known already, or learnt now from the live task
 * (its /proc/PID/exe must still be the same inode).
 */
static struct image *image_learn_locked(struct machine *mach,
					const struct perfregs_rec_sample *s);

const struct image *image_learn(struct machine *mach,
				const struct perfregs_rec_sample *s)
{
	const struct image *im;

	if (!s->image_ino)
		return NULL;
	im = image_find(mach, s->image_dev, s->image_ino);
	if (im || !mach->live)
		return im;
	pthread_mutex_lock(&mach->learn_lock);
	im = image_learn_locked(mach, s);
	pthread_mutex_unlock(&mach->learn_lock);
	return im;
}

/* image_learn() under learn_lock: the learner thread may learn too. */
static struct image *image_learn_locked(struct machine *mach,
					const struct perfregs_rec_sample *s)
{
	struct elf_facts f = { 0 };
	char link[64], path[PATH_MAX];
	uint8_t id[20], id_len;
	struct image *im;
	struct stat st;
	ssize_t n;
	int ret, fd;

	im = image_find(mach, s->image_dev, s->image_ino);
	if (im)
		return im;	/* learnt while we waited for the lock */
	if (!retry_due(mach, RETRY_IMAGE, s->pid, s->image_ino))
		return NULL;
	path[0] = 0;
	snprintf(link, sizeof(link), "/proc/%u/exe", s->pid);
	/* one open for the inode, the header and the build-id */
	fd = open(link, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st)) {
		/* gone: final; refused for a moment: a later sample retries */
		ret = errno;
		if (fd >= 0)
			close(fd);
		retry_failed(mach, RETRY_IMAGE, s->pid, s->image_ino,
			     ret == ENOENT || ret == ESRCH);
		return NULL;
	}
	ret = st.st_ino == s->image_ino ? elf_peek_fd(fd, &f, id, &id_len) : 0;
	close(fd);
	if (st.st_ino != s->image_ino) {
		/*
		 * The task runs another image now: the sample was taken
		 * before its exec.  Nothing is cached for the image, which
		 * other tasks may still run; only this task is given up.
		 */
		retry_failed(mach, RETRY_IMAGE, s->pid, s->image_ino, true);
		return NULL;
	}
	if (ret) {
		retry_failed(mach, RETRY_IMAGE, s->pid, s->image_ino, false);
		return NULL;
	}
	n = readlink(link, path, sizeof(path) - 1);
	path[n > 0 ? n : 0] = 0;
	return image_add_notify(mach, s->image_dev, s->image_ino, &f,
				path[0] ? path : NULL, true, id, id_len);
}

/*
 * The image COMMAND will run, learnt before it starts: the file execvp()
 * will find.  Its samples then find their image known, and the learner
 * does not open and read it while COMMAND runs (~65k instructions taken
 * from it).  Keyed by device and inode as the samples are: if the file
 * is replaced meanwhile, or is a script, the samples name another inode
 * and the learner learns that one as usual.
 */
void image_prelearn(struct machine *mach, const char *command)
{
	char path[PATH_MAX], *real;
	const char *dirs, *end;
	struct elf_facts f;
	uint8_t id[20], id_len;
	struct stat st;
	size_t dlen;

	if (strchr(command, '/')) {
		snprintf(path, sizeof(path), "%s", command);
	} else {
		dirs = getenv("PATH");
		if (!dirs)
			dirs = "/bin:/usr/bin";
		for (path[0] = 0; *dirs; dirs = *end ? end + 1 : end) {
			end = strchrnul(dirs, ':');
			dlen = (size_t)(end - dirs);
			snprintf(path, sizeof(path), "%.*s/%s", (int)dlen,
				 dlen ? dirs : ".", command);
			if (!access(path, X_OK))
				break;
			path[0] = 0;
		}
	}
	if (!path[0] || stat(path, &st) || !S_ISREG(st.st_mode) ||
	    elf_peek(path, &f, id, &id_len))
		return;
	real = realpath(path, NULL);
	pthread_mutex_lock(&mach->learn_lock);
	if (!image_find(mach, (uint32_t)st.st_dev, st.st_ino))
		image_add_notify(mach, (uint32_t)st.st_dev, st.st_ino, &f,
				 real ? real : path, true, id, id_len);
	pthread_mutex_unlock(&mach->learn_lock);
	free(real);
}

struct decoded decide_layout(uint32_t kernel_abi, const struct elf_facts *f)
{
	struct decoded dl = { LAYOUT_NONE, false, "none" };
	bool elf64 = f && f->known && f->elfclass == ELFCLASS64;
	bool x32 = f && f->known && f->elfclass == ELFCLASS32 &&
		   f->machine == EM_X86_64;

	switch (kernel_abi) {
	case PERFREGS_ABI_32:
		dl.layout = LAYOUT_I386;
		dl.abi_name = "i386";
		dl.mixed = elf64;
		break;
	case PERFREGS_ABI_64:
		dl.layout = x32 ? LAYOUT_X32 : LAYOUT_X86_64;
		dl.abi_name = x32 ? "x32" : "x86_64";
		break;
	default:
		break;
	}
	return dl;
}

void images_free(struct machine *mach)
{
	unsigned int i;

	for (i = 0; i < 256; i++) {
		while (mach->images[i]) {
			struct image *im = mach->images[i];

			mach->images[i] = im->next;
			free(im->path);
			free(im);
		}
	}
}
