// SPDX-License-Identifier: GPL-2.0
/*
 * Symbols.  User IPs: the task's executable mappings (learnt once per
 * task image from /proc/PID/maps, or read from a recording) give the
 * file and its load bias, and libdw (dwfl) names the function.  Kernel
 * IPs: /proc/kallsyms when readable, or the symbols a recording kept.
 */
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <limits.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <pthread.h>
#include <sys/stat.h>
#include "types.h"
#include "util.h"
#include "intern.h"
#include "images.h"
#include "vdso.h"
#include "learnt.h"
#include "symbols.h"

static unsigned int maps_hash(uint32_t pid, uint64_t ino)
{
	return (pid * 2654435761U + (unsigned int)ino) & 255;
}

struct task_maps *maps_find(struct machine *mach, uint32_t pid, uint64_t ino)
{
	struct task_maps *tm;

	/* acquire: pairs with the release in maps_add(), another thread's */
	for (tm = __atomic_load_n(&mach->maps[maps_hash(pid, ino)], __ATOMIC_ACQUIRE);
	     tm; tm = tm->next)
		if (tm->pid == pid && tm->ino == ino)
			return tm;
	return NULL;
}

/* As image_add_notify(): the recording gets the maps before any finder. */
static struct task_maps *maps_add_notify(struct machine *mach, uint32_t pid, uint64_t ino,
					 struct mapping *m, unsigned int n, bool notify)
{
	unsigned int h = maps_hash(pid, ino);
	struct task_maps *tm = calloc(1, sizeof(*tm));

	if (!tm)
		return NULL;
	tm->pid = pid;
	tm->ino = ino;
	tm->m = m;
	tm->n = n;
	tm->next = mach->maps[h];
	if (notify)
		learnt_maps(mach, tm);
	/* release: the entry is whole before a lock-free maps_find() sees it */
	__atomic_store_n(&mach->maps[h], tm, __ATOMIC_RELEASE);
	return tm;
}

struct task_maps *maps_add(struct machine *mach, uint32_t pid, uint64_t ino,
			   struct mapping *m, unsigned int n)
{
	return maps_add_notify(mach, pid, ino, m, n, false);
}

/*
 * The GNU build-id of an ELF file; 0 if it has one.  The PT_NOTE
 * segments first (cheap, see elf_peek()), then libelf, which also finds
 * a build-id only in a section (a separate debug file's, say).
 */
int file_build_id(const char *path, uint8_t *id, uint8_t *len)
{
	struct elf_facts f;
	const void *p;
	ssize_t n = -1;
	Elf *elf;
	int fd;

	if (elf_peek(path, &f, id, len))
		return -1;	/* not ELF */
	if (*len)
		return 0;
	elf_version(EV_CURRENT);
	fd = open_regular(path);
	if (fd < 0)
		return -1;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf)
		n = dwelf_elf_gnu_build_id(elf, &p);
	if (n > 0 && n <= 20) {
		memcpy(id, p, n);
		*len = (uint8_t)n;
	}
	elf_end(elf);
	close(fd);
	return *len ? 0 : -1;
}

static bool build_id_matches(const char *path, const struct mapping *m)
{
	uint8_t id[20], len;
	int fd = open_regular(path);

	if (fd < 0)
		return false;	/* not there, or not a regular file */
	close(fd);
	if (!m->build_id_len)
		return true;	/* nothing to compare with */
	return !file_build_id(path, id, &len) && len == m->build_id_len &&
	       !memcmp(id, m->build_id, len);
}

/*
 * May a recorded path be looked for under --symfs?  It is joined to the
 * root as it is, so only an absolute path without a ".." component
 * stays below it.  The kernel's paths have none: a recording that has
 * one was made so.
 */
static bool symfs_path_ok(const char *path)
{
	const char *p;

	if (path[0] != '/')
		return false;
	for (p = path; *p; p++)
		if (p[0] == '/' && p[1] == '.' && p[2] == '.' && (!p[3] || p[3] == '/'))
			return false;
	return true;
}

/*
 * What a mapping learns lazily of its file (local, base and first, syms,
 * and the Dwfl and symbol table of its file, usyms.c), any decoding
 * thread may be the first to ask for (--threads, pool.c): it is learnt
 * under resolve_lock, published by a release store, and read without the
 * lock once there.  The Dwfls of usyms.c are only used under it (unwind.c
 * takes it with symbols_lock() to read their modules' CFI).  New versions of a space, and
 * the copies of mappings they hold, are made by the reading thread while
 * the workers decode only when no sample being printed can see them
 * (space_event_later()); the copies read what was learnt under this
 * lock (mapping_copy()).  Other items wait for the workers (pool.c).
 */
static pthread_mutex_t resolve_lock = PTHREAD_MUTEX_INITIALIZER;

void symbols_lock(void)
{
	pthread_mutex_lock(&resolve_lock);
}

void symbols_unlock(void)
{
	pthread_mutex_unlock(&resolve_lock);
}

/*
 * The file to read for a mapping, here: the recorded path (under
 * --symfs if given) when its build-id matches, else the file named by
 * the build-id in $PERFREGS_BUILDID_DIR/HEX or
 * /usr/lib/debug/.build-id/XX/REST.debug, else the recorded path; with
 * --symfs, nothing outside the root but those by build-id ("": none).
 */
const char *mapping_file_locked(struct machine *mach, struct mapping *m)
{
	char hex[41], path[PATH_MAX], *local;
	const char *dir;
	unsigned int i;
	size_t len;
	int n;

	if (m->local)
		return m->local;
	if (!strcmp(m->path, "[vdso]")) {
		const struct blob *b = blob_for(mach, m);

		/* none: no file (a file "[vdso]" here is not it) */
		local = str_intern(b ? b->path : "", NULL);
		/* release: pairs with the acquire in mapping_file() */
		__atomic_store_n(&m->local, local, __ATOMIC_RELEASE);
		return local ? local : "";
	}
	dir = getenv("PERFREGS_BUILDID_DIR");
	for (i = 0; i < m->build_id_len; i++)
		sprintf(hex + 2 * i, "%02x", m->build_id[i]);
	hex[2 * m->build_id_len] = 0;
	n = snprintf(path, sizeof(path), "%s%s", mach->symfs ? mach->symfs : "", m->path);
	if ((!mach->symfs || (symfs_path_ok(m->path) && n < (int)sizeof(path))) &&
	    build_id_matches(path, m))
		goto found;
	/*
	 * A file deleted (or replaced) since it was mapped: its name, if the
	 * build-id says it is still the same file somewhere.
	 */
	len = strlen(m->path);
	if (m->build_id_len && len > 10 && !strcmp(m->path + len - 10, " (deleted)")) {
		n = snprintf(path, sizeof(path), "%s%.*s", mach->symfs ? mach->symfs : "",
			     (int)(len - 10), m->path);
		if ((!mach->symfs || symfs_path_ok(m->path)) && n < (int)sizeof(path) &&
		    build_id_matches(path, m))
			goto found;
	}
	if (m->build_id_len && dir) {
		snprintf(path, sizeof(path), "%s/%s", dir, hex);
		if (build_id_matches(path, m))
			goto found;
	}
	if (m->build_id_len) {
		snprintf(path, sizeof(path), "/usr/lib/debug/.build-id/%.2s/%s.debug",
			 hex, hex + 2);
		if (!access(path, R_OK))
			goto found;
	}
	/*
	 * Nothing matched.  The recorded path is still the best guess only
	 * when there is no build-id to say otherwise: a file that is not
	 * the one mapped (replaced, or swapped for a symlink by the user
	 * who mapped it) is not read.
	 */
	snprintf(path, sizeof(path), "%s", mach->symfs || m->build_id_len ? "" : m->path);
found:
	local = str_intern(path, NULL);	/* shared by the copies of m (aspace.c) */
	/* release: pairs with the acquire in mapping_file() */
	__atomic_store_n(&m->local, local, __ATOMIC_RELEASE);
	return local ? local : mach->symfs ? "" : m->path;
}

const char *mapping_file(struct machine *mach, struct mapping *m)
{
	/* acquire: pairs with the releases in mapping_file_locked() */
	const char *local = __atomic_load_n(&m->local, __ATOMIC_ACQUIRE);

	if (local)
		return local;
	pthread_mutex_lock(&resolve_lock);
	local = mapping_file_locked(mach, m);
	pthread_mutex_unlock(&resolve_lock);
	return local;
}

/*
 * A mapping of a live task whose file has been deleted (its name ends
 * in " (deleted)": a program or library upgraded while it runs):
 * /proc/PID/map_files/START-END still opens the file (for root), which
 * is kept open, as "/proc/self/fd/N", for as long as the machine lives.
 * NULL for any other name, or when that cannot be opened.
 *
 * One file is held once, however many processes map it: after an
 * upgrade of libc every process maps the deleted one, and 64 of them
 * used up every slot.  One process holds at most HELD_PID_MAX of them
 * as the first to map them: any process can name a file "x (deleted)"
 * and map many, and would take the slots of the others.
 */
char *deleted_file(struct machine *mach, uint32_t pid, uint64_t start, uint64_t end,
		   const char *name)
{
	size_t len = strlen(name);
	unsigned int i, mine = 0;
	struct stat st;
	char path[96];
	char *p;
	int fd;

	if (!mach->live || len <= 10 || strcmp(name + len - 10, " (deleted)"))
		return NULL;
	snprintf(path, sizeof(path), "/proc/%u/map_files/%" PRIx64 "-%" PRIx64,
		 pid, start, end);
	fd = open_regular(path);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st))
		goto fail_close;
	for (i = 0; i < mach->nheld; i++) {
		if (mach->held[i].dev == st.st_dev && mach->held[i].ino == st.st_ino) {
			close(fd);
			fd = mach->held[i].fd;
			goto named;
		}
		mine += mach->held[i].pid == pid;
	}
	if (mach->nheld == HELD_MAX || mine == HELD_PID_MAX)
		goto fail_close;
	mach->held[mach->nheld].fd = fd;
	mach->held[mach->nheld].pid = pid;
	mach->held[mach->nheld].dev = st.st_dev;
	mach->held[mach->nheld].ino = st.st_ino;
	mach->nheld++;
named:
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	p = str_intern(path, NULL);
	return p;	/* NULL: no name, the fd stays held */

fail_close:
	close(fd);
	return NULL;
}

static void maps_learn_locked(struct machine *mach, const struct perfregs_rec_sample *s);

/* A hex or decimal field of a maps line, and the separator after it. */
static const char *maps_num(const char *p, int base, char sep, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(p, &end, base);
	if (end == p || errno || *end != sep)
		return NULL;
	return end + 1;
}

/*
 * "start-end perms offset dev inode   path": the fields, and where the
 * path starts (pos).  By hand: sscanf() took ~10k instructions a line,
 * paid by the sampled task while the learner reads its maps.
 */
int maps_line(const char *line, uint64_t *start, uint64_t *end, char perms[8],
	      uint64_t *pgoff, uint32_t *dev, uint64_t *inode, int *pos)
{
	const char *p = line;
	uint64_t major, minor;
	int i;

	if (!(p = maps_num(p, 16, '-', start)) || !(p = maps_num(p, 16, ' ', end)))
		return -1;
	for (i = 0; i < 7 && *p && *p != ' '; i++)
		perms[i] = *p++;
	perms[i] = 0;
	if (i < 4 || *p++ != ' ' || !(p = maps_num(p, 16, ' ', pgoff)) ||
	    !(p = maps_num(p, 16, ':', &major)) || !(p = maps_num(p, 16, ' ', &minor)))
		return -1;
	/* as the kernel's new_encode_dev(), like the samples' image_dev */
	*dev = (uint32_t)((minor & 0xff) | (major << 8) | ((minor & ~0xffULL) << 12));
	*inode = strtoull(p, (char **)&p, 10);
	if (*p != ' ' && *p != '\n' && *p)
		return -1;
	while (*p == ' ' || *p == '\n')
		p++;
	*pos = (int)(p - line);
	return 0;
}

/* Learn the executable mappings of a live task, once per image. */
void maps_learn(struct machine *mach, const struct perfregs_rec_sample *s)
{
	if (!mach->live || !s->pid || maps_find(mach, s->pid, s->image_ino))
		return;
	pthread_mutex_lock(&mach->learn_lock);
	maps_learn_locked(mach, s);
	pthread_mutex_unlock(&mach->learn_lock);
}

/*
 * The executable mappings of a task running a static, non-PIE image, from
 * the image itself (struct elf_facts, fixed): what /proc/PID/maps would
 * show for it, without making the kernel format the maps while the task
 * waits for the CPU.  Files it maps executable itself are not seen
 * (dlopen() needs an interpreter).
 */
static bool maps_from_image(struct machine *mach, const struct perfregs_rec_sample *s)
{
	const struct image *im = image_find(mach, s->image_dev, s->image_ino);
	struct mapping *m;
	unsigned int i;

	if (!im || !im->facts.fixed || !im->path || im->path[0] != '/')
		return false;
	m = calloc(im->facts.nexec, sizeof(*m));
	if (!m)
		return false;
	for (i = 0; i < im->facts.nexec; i++) {
		m[i].start = im->facts.exec[i].start;
		m[i].end = im->facts.exec[i].end;
		m[i].pgoff = im->facts.exec[i].pgoff;
		m[i].path = str_intern(im->path, NULL);
		if (im->build_id_known) {
			memcpy(m[i].build_id, im->build_id, im->build_id_len);
			m[i].build_id_len = im->build_id_len;
		}
	}
	maps_add_notify(mach, s->pid, s->image_ino, m, im->facts.nexec, true);
	return true;
}

/* maps_learn() under learn_lock: the learner thread may learn too. */
static void maps_learn_locked(struct machine *mach, const struct perfregs_rec_sample *s)
{
	struct mapping *m = NULL;
	unsigned int n = 0, cap = 0, lines = 0, i;
	char path[64], line[4096];
	bool saw_image = false;
	FILE *fp;

	if (maps_find(mach, s->pid, s->image_ino) ||	/* learnt meanwhile */
	    !retry_due(mach, RETRY_MAPS, s->pid, s->image_ino) ||
	    maps_from_image(mach, s))
		return;
	snprintf(path, sizeof(path), "/proc/%u/maps", s->pid);
	fp = fopen(path, "r");
	if (!fp && errno != ENOENT && errno != ESRCH &&
	    !retry_failed(mach, RETRY_MAPS, s->pid, s->image_ino, false))
		return;		/* refused for a moment: a later sample retries */
	while (fp && fgets(line, sizeof(line), fp)) {
		uint64_t start, end, pgoff, inode;
		const struct image *im;
		uint32_t dev;
		char perms[8];
		int pos = 0;

		lines++;
		if (maps_line(line, &start, &end, perms, &pgoff, &dev, &inode, &pos))
			continue;
		if (perms[2] != 'x' || line[pos] != '/')
			continue;
		if (inode == s->image_ino)
			saw_image = true;	/* the image's code is mapped */
		if (n == MAPS_MAX)
			continue;	/* more than a recording's item holds */
		line[strcspn(line, "\n")] = 0;
		if (n == cap) {
			void *p = realloc(m, (cap = cap ? cap * 2 : 8) * sizeof(*m));

			if (!p)
				break;
			m = p;
		}
		memset(&m[n], 0, sizeof(m[n]));
		m[n].start = start;
		m[n].end = end;
		m[n].pgoff = pgoff;
		m[n].path = str_intern(line + pos, NULL);
		m[n].local = m[n].path ? deleted_file(mach, s->pid, start, end, m[n].path) : NULL;
		/* the image's build-id was read with its ELF header */
		if (inode == s->image_ino && dev == s->image_dev &&
		    (im = image_find(mach, s->image_dev, s->image_ino)) && im->build_id_known) {
			memcpy(m[n].build_id, im->build_id, im->build_id_len);
			m[n].build_id_len = im->build_id_len;
		} else {
			file_build_id(m[n].local ? m[n].local : m[n].path, m[n].build_id,
				      &m[n].build_id_len);
		}
		n++;
	}
	if (fp)
		fclose(fp);
	/*
	 * The task is there but its maps do not hold the sample's image's
	 * code.  If it still runs that image, its exec is being set up (the
	 * loader maps one segment after the other): ask again a little
	 * later.  If it runs another, the sample came before its exec:
	 * final.  (Empty maps are final: the task has exited and awaits
	 * its parent.)
	 */
	if (fp && lines && s->image_ino && !saw_image) {
		struct stat st;
		bool final;

		for (i = 0; i < n; i++) {
			str_put(m[i].path);
			str_put(m[i].local);
		}
		free(m);
		m = NULL;
		n = 0;	/* another image's maps are no answer for this one */
		snprintf(path, sizeof(path), "/proc/%u/exe", s->pid);
		final = stat(path, &st) || st.st_ino != s->image_ino;
		if (!retry_failed(mach, RETRY_MAPS, s->pid, s->image_ino, final))
			return;
	}
	/* remembered even when empty: the task may be gone already */
	maps_add_notify(mach, s->pid, s->image_ino, m, n, true);
}

/*
 * Where libdw looks for separate debug files: /usr/lib/debug (by
 * build-id, .build-id/XX/REST.debug, where -dbgsym packages put them),
 * under --symfs first.  Not libdw's default, which also opens NAME.debug
 * and .debug/NAME.debug beside the file, with a blocking open(): a FIFO
 * there, next to a file a recording names, hung the decoder.  "-": no
 * CRC check of .gnu_debuglink files (a build-id decides).
 */
char **dwfl_debuginfo_path_locked(struct machine *mach)
{
	char buf[PATH_MAX + 64];

	if (!mach->debuginfo_path) {
		if (mach->symfs && strlen(mach->symfs) < PATH_MAX)
			snprintf(buf, sizeof(buf), "-%s/usr/lib/debug:/usr/lib/debug",
				 mach->symfs);
		else
			snprintf(buf, sizeof(buf), "-/usr/lib/debug");
		mach->debuginfo_path = strdup(buf);
	}
	return &mach->debuginfo_path;
}

char **dwfl_debuginfo_path(struct machine *mach)
{
	char **path;

	pthread_mutex_lock(&resolve_lock);
	path = dwfl_debuginfo_path_locked(mach);
	pthread_mutex_unlock(&resolve_lock);
	return path;
}

/*
 * A mapping holds file offset pgoff at start.  Which segment that is
 * says where the file's first PT_LOAD went: with GNU ld a code segment's
 * virtual address equals its file offset and start - pgoff is right, but
 * lld puts the code a page past its offset (LOAD 0x770 at 0x1770), so
 * start - pgoff is a page too high and every symbol and CFI lookup is
 * off by a page.  The segment is the executable PT_LOAD that holds
 * file offset pgoff (only executable mappings are kept), else the
 * PT_LOAD that holds it (a mapping of the whole file from offset 0,
 * made executable): there a file at fixed addresses (ET_EXEC) is where
 * it says, whatever the start (libdwfl puts its module there), and
 * another at start - pgoff, as before.  An offset in no segment says
 * nothing of where the file is: *first_load is left alone, and the
 * mapping names nothing (usyms.c).  Taking start - pgoff for the base
 * of such a mapping too gave a recording a Dwfl for each start it
 * chose (tests/mkbomb.c bases).
 */
static uint64_t base_from_phdrs(const char *path, uint64_t start, uint64_t pgoff,
				uint64_t *first_load)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE), base = start - pgoff;
	uint64_t first = UINT64_MAX, bias = 0, any_bias = 0;
	bool found = false, any = false;
	size_t i, n;
	GElf_Ehdr eh;
	GElf_Phdr ph;
	Elf *elf;
	int fd;

	elf_version(EV_CURRENT);
	fd = open_regular(path);
	if (fd < 0)
		return base;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF || elf_getphdrnum(elf, &n) ||
	    !gelf_getehdr(elf, &eh))
		goto out;
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (first == UINT64_MAX)
			first = ph.p_vaddr & ~(ph.p_align ? ph.p_align - 1 : page - 1);
		/*
		 * The segment that holds pgoff, not only one that starts
		 * there: an mprotect() splits a text mapping, and the piece
		 * after the split starts inside its segment.
		 */
		if ((ph.p_offset & ~(page - 1)) > pgoff || pgoff >= ph.p_offset + ph.p_filesz)
			continue;
		if (!found && (ph.p_flags & PF_X)) {
			bias = start - ((ph.p_vaddr & ~(page - 1)) +
					(pgoff - (ph.p_offset & ~(page - 1))));
			found = true;
		} else if (!any) {
			any_bias = eh.e_type == ET_EXEC ? 0 : start - pgoff - first;
			any = true;
		}
	}
	if (!found && any) {
		bias = any_bias;
		found = true;
	}
	if (found && first != UINT64_MAX) {
		base = bias + first;
		*first_load = first;
	}
out:
	elf_end(elf);
	close(fd);
	return base;
}

static void mapping_base_locked(struct machine *mach, struct mapping *m)
{
	if (m->base_known)
		return;
	m->first = UINT64_MAX;
	m->base = base_from_phdrs(mapping_file_locked(mach, m), m->start, m->pgoff, &m->first);
	/* release: pairs with the acquire in mapping_base() */
	__atomic_store_n(&m->base_known, true, __ATOMIC_RELEASE);
}

uint64_t mapping_base(struct machine *mach, struct mapping *m)
{
	/* acquire: pairs with the release in mapping_base_locked() */
	if (!__atomic_load_n(&m->base_known, __ATOMIC_ACQUIRE)) {
		pthread_mutex_lock(&resolve_lock);
		mapping_base_locked(mach, m);
		pthread_mutex_unlock(&resolve_lock);
	}
	return m->base;
}

/*
 * The order of the kernel symbols: by start, then by end, then the one
 * added first last.  ksym_find() names an address by the last symbol of
 * this order that starts at or below it, if it ends above it: for the
 * symbols of a kernel, which do not overlap, the one that holds it (and
 * of kallsyms' aliases, which start together, the one not empty).  Of
 * a hostile recording's, overlapping or of equal starts, one and the
 * same whichever have been merged (ksyms_merge()) when it is asked:
 * with --threads N they are merged at other samples than with one.
 */
static int ksym_cmp(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->end != y->end)
		return x->end < y->end ? -1 : 1;
	return x->seq > y->seq ? -1 : x->seq < y->seq;
}

/*
 * A recording's kernel symbols come in any order (as samples first hit
 * them, or as a hostile file likes): ksym_add() appends them after the
 * sorted part, and they are merged into it (ksyms_due(), ksyms_merge())
 * once they are more than KSYM_TAIL_MIN and than the square root of the
 * sorted part, and else looked through one by one.  Inserting each in
 * place moved all the symbols above it: 400000 in descending order took
 * 47 s, now 0.08 s; all that come before the samples are sorted once,
 * and at worst (adds and finds in turn) it is n^1.5.  With --threads,
 * the same rule, applied by the reading thread (pool_record()).
 */
#define KSYM_TAIL_MIN	64

/*
 * Is the array full: would the next ksym_add() move it?  (--threads:
 * the workers read it, it moves only while they wait.)
 */
bool ksyms_full(const struct machine *mach)
{
	return mach->nksyms == mach->ksyms_cap;
}

void ksym_add(struct machine *mach, uint64_t start, uint64_t end, const char *name)
{
	struct ksym *k;
	char *copy;

	if (mach->nksyms == mach->ksyms_cap) {
		size_t cap = mach->ksyms_cap ? mach->ksyms_cap * 2 : 1024;
		void *p = cap <= UINT32_MAX ? realloc(mach->ksyms, cap * sizeof(*mach->ksyms)) : NULL;

		if (!p)
			return;
		mach->ksyms = p;
		mach->ksyms_cap = cap;
	}
	copy = strdup(name);
	if (!copy)
		return;		/* without a name, none: sym_offset() reads it */
	k = &mach->ksyms[mach->nksyms];
	k->start = start;
	k->end = end;
	k->name = copy;
	k->owned = true;
	k->recorded = true;
	k->seq = (uint32_t)mach->nksyms;	/* the order of the adds: ksym_cmp() */
	mach->nksyms++;
}

/* Are the symbols added since the last merge due to be merged? */
bool ksyms_due(const struct machine *mach)
{
	size_t tail = mach->nksyms - mach->ksyms_sorted;

	return tail > KSYM_TAIL_MIN && tail * tail > mach->ksyms_sorted;
}

/* The symbols added since the last merge, into the sorted part. */
static void ksyms_merge(struct machine *mach)
{
	size_t s = mach->ksyms_sorted, n = mach->nksyms, k = n - s, i = s, j = k, o = n;
	struct ksym *tail;

	qsort(mach->ksyms + s, k, sizeof(*mach->ksyms), ksym_cmp);
	tail = malloc(k * sizeof(*tail));
	if (!tail) {
		qsort(mach->ksyms, n, sizeof(*mach->ksyms), ksym_cmp);
		mach->ksyms_sorted = n;
		return;
	}
	memcpy(tail, mach->ksyms + s, k * sizeof(*tail));
	/* from the top: in ksym_cmp()'s order, no two of which are equal */
	while (j) {
		if (i && ksym_cmp(&mach->ksyms[i - 1], &tail[j - 1]) > 0)
			mach->ksyms[--o] = mach->ksyms[--i];
		else
			mach->ksyms[--o] = tail[--j];
	}
	free(tail);
	mach->ksyms_sorted = n;
}

/*
 * Text symbols of /proc/kallsyms; each ends where the next begins.  The
 * file has >100k lines: read it whole, name symbols in place, and sort
 * only if the kernel did not list them in order already.
 */
void ksyms_load(struct machine *mach)
{
	size_t len = 0, cap = 1 << 22, i;
	char *buf, *line, *next;
	bool sorted = true;
	FILE *fp;

	if (mach->ksyms_loaded || !mach->live)
		return;
	mach->ksyms_loaded = true;
	fp = fopen("/proc/kallsyms", "r");
	buf = malloc(cap);
	while (fp && buf) {
		size_t n = fread(buf + len, 1, cap - len - 1, fp);

		len += n;
		if (!n)
			break;
		if (len + 1 == cap) {
			char *p = realloc(buf, cap *= 2);

			if (!p)
				break;
			buf = p;
		}
	}
	if (fp)
		fclose(fp);
	if (!buf)
		return;
	buf[len] = 0;
	mach->ksyms_blob = buf;
	for (line = buf; line < buf + len; line = next) {
		char *end, *name, type;
		uint64_t addr;

		next = strchr(line, '\n');
		next = next ? next + 1 : buf + len;
		addr = strtoull(line, &end, 16);
		if (end[0] != ' ' || !end[1] || end[2] != ' ')
			continue;
		type = end[1];
		if (!addr || (type != 't' && type != 'T'))
			continue;
		name = end + 3;
		name[strcspn(name, " \t\n")] = 0;
		if (mach->nksyms == mach->ksyms_cap) {
			size_t c = mach->ksyms_cap ? mach->ksyms_cap * 2 : 65536;
			void *p = realloc(mach->ksyms, c * sizeof(*mach->ksyms));

			if (!p)
				break;
			mach->ksyms = p;
			mach->ksyms_cap = c;
		}
		if (mach->nksyms && addr < mach->ksyms[mach->nksyms - 1].start)
			sorted = false;
		mach->ksyms[mach->nksyms].start = addr;
		mach->ksyms[mach->nksyms].end = 0;
		mach->ksyms[mach->nksyms].recorded = false;
		mach->ksyms[mach->nksyms].name = name;
		mach->ksyms[mach->nksyms].owned = false;
		mach->ksyms[mach->nksyms].seq = (uint32_t)mach->nksyms;
		mach->nksyms++;
	}
	if (!sorted)
		qsort(mach->ksyms, mach->nksyms, sizeof(*mach->ksyms), ksym_cmp);
	for (i = 0; i + 1 < mach->nksyms; i++)
		mach->ksyms[i].end = mach->ksyms[i + 1].start;
	if (mach->nksyms)
		mach->ksyms[mach->nksyms - 1].end = mach->ksyms[mach->nksyms - 1].start + 4096;
	mach->ksyms_sorted = mach->nksyms;
}

/*
 * The symbols added since the last merge into the sorted part, if they
 * are due (ksyms_due()): with --threads, by the reading thread, while
 * no worker reads them (pool_record()).
 */
void ksyms_settle(struct machine *mach)
{
	if (ksyms_due(mach))
		ksyms_merge(mach);
}

/*
 * The symbol of ip among the first upto (ksym_cmp()), those a record
 * sees: all of them for the reading thread, for a worker those added
 * before its record.  It reads the sorted part and the symbols after it
 * up to upto, which nobody changes while it runs: the reading thread
 * appends past them, and moves or merges them only while the workers
 * wait (session.c, pool_record()).
 */
static const struct ksym *ksym_find_upto(struct machine *mach, uint64_t ip, size_t upto)
{
	size_t lo = 0, hi = mach->ksyms_sorted, i;
	const struct ksym *best = NULL;

	while (lo < hi) {	/* the first that starts above ip */
		size_t mid = (lo + hi) / 2;

		if (ip < mach->ksyms[mid].start)
			hi = mid;
		else
			lo = mid + 1;
	}
	if (lo)
		best = &mach->ksyms[lo - 1];
	for (i = mach->ksyms_sorted; i < upto; i++)
		if (mach->ksyms[i].start <= ip && (!best || ksym_cmp(&mach->ksyms[i], best) > 0))
			best = &mach->ksyms[i];
	return best && ip < best->end ? best : NULL;
}

const struct ksym *ksym_find(struct machine *mach, uint64_t ip)
{
	if (!mach->threaded)
		ksyms_settle(mach);
	return ksym_find_upto(mach, ip, mach->nksyms);
}

/*
 * Hand the symbol of a kernel IP to the recording, once.  A small cache
 * of symbols already handed on spares the binary search over ~100k
 * symbols (~200 instructions) for the functions samples keep hitting.
 */
void ksym_learn(struct machine *mach, uint64_t ip)
{
	unsigned int slot = (ip >> 4) % 64;
	struct ksym *k;

	if (ip >= mach->ksym_seen[slot].start && ip < mach->ksym_seen[slot].end)
		return;
	ksyms_load(mach);
	k = (struct ksym *)ksym_find(mach, ip);
	if (k && !k->recorded && learnt_on(mach)) {
		k->recorded = true;
		learnt_ksym(mach, k);
	}
	if (k && k->recorded) {
		mach->ksym_seen[slot].start = k->start;
		mach->ksym_seen[slot].end = k->end;
	}
}

int kernel_symbol(struct machine *mach, const struct dthread *t, uint64_t ip, char *buf,
		  size_t len)
{
	const struct ksym *k;

	ksyms_load(mach);
	/* a worker: of the symbols, those of its record (pool.c) */
	k = t->worker ? ksym_find_upto(mach, ip, t->nksyms) : ksym_find(mach, ip);
	if (!k)
		return -1;
	sym_offset(buf, len, k->name, ip - k->start);
	return 0;
}

/*
 * What this file made for d: the task maps from /proc, the deleted files
 * kept open, the kernel symbols.
 */
void symbols_free(struct machine *mach)
{
	unsigned int i, j;
	size_t k;

	for (i = 0; i < 256; i++) {
		while (mach->maps[i]) {
			struct task_maps *tm = mach->maps[i];

			mach->maps[i] = tm->next;
			for (j = 0; j < tm->n; j++) {
				str_put(tm->m[j].path);
				str_put(tm->m[j].local);
			}
			free(tm->m);
			free(tm);
		}
	}
	for (k = 0; k < mach->nksyms; k++)
		if (mach->ksyms[k].owned)
			free(mach->ksyms[k].name);
	free(mach->ksyms);
	free(mach->ksyms_blob);
	while (mach->nheld)
		close(mach->held[--mach->nheld].fd);
	free(mach->debuginfo_path);
	mach->debuginfo_path = NULL;
}
