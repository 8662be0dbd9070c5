// SPDX-License-Identifier: GPL-2.0
/*
 * A task's executable mappings, as /proc/PID/maps shows them (learnt
 * once per task image) or a recording kept them, and where a mapping's
 * file has its first PT_LOAD (its base, libdwfl's reporting address).
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
#include "learnt.h"
#include "files.h"
#include "maps.h"

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
		m[n].local = m[n].path ? held_file(mach, s->pid, start, end, m[n].path) : NULL;
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
 * mapping names nothing (dso.c).  Taking start - pgoff for the base
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
		symbols_lock();
		mapping_base_locked(mach, m);
		symbols_unlock();
	}
	return m->base;
}


/* The task maps learnt from /proc, and their mappings' paths. */
void maps_free(struct machine *mach)
{
	unsigned int i, j;

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
}
