// SPDX-License-Identifier: GPL-2.0
/*
 * The file a mapping is read from, here: its recorded path (under
 * --symfs), checked by its build-id, or the file its build-id names; a
 * deleted file, or a file of a task in another mount namespace, kept
 * open while the task that mapped it lives; where
 * libdw looks for debug files; and the lock around what libdw caches
 * of the files (symbols_lock()).
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
#include "diag.h"
#include "debuginfo.h"
#include "files.h"

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
 * and the Dwfl and symbol table of its file, dso.c), any decoding
 * thread may be the first to ask for (--threads, pool.c): it is learnt
 * under resolve_lock, published by a release store, and read without the
 * lock once there.  The Dwfls of dso.c are only used under it (unwind.c
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
	if (mach->symfs && !mach->symfs_missed && m->path[0] == '/') {
		/* once: the frames keep the recorded name (unwind.c), not a symbol */
		mach->symfs_missed = true;
		diag(mach, "--symfs %s: files the recording names are not under it, nor "
		     "found by build-id (the first: %s%s): their frames are named by "
		     "the recorded file only", mach->symfs, m->path,
		     m->build_id_len ? "" : ", which has no build-id to look for");
	}
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

/* Is process pid in a mount namespace other than ours (a container, say)? */
static struct stat own_mounts;	/* ours, once (own_mounts_read()): st_ino 0 if unknown */
static pthread_once_t own_mounts_once = PTHREAD_ONCE_INIT;

static void own_mounts_read(void)
{
	if (stat("/proc/self/ns/mnt", &own_mounts))
		own_mounts.st_ino = 0;
}

static bool foreign_mounts(uint32_t pid)
{
	struct stat a;
	char path[48];

	pthread_once(&own_mounts_once, own_mounts_read);
	snprintf(path, sizeof(path), "/proc/%u/ns/mnt", pid);
	if (!own_mounts.st_ino || stat(path, &a))
		return false;
	return a.st_ino != own_mounts.st_ino || a.st_dev != own_mounts.st_dev;
}

/*
 * The file a code mapping of a live task holds, when its name does not
 * say it here: a file deleted since (its name ends in " (deleted)": a
 * program or library upgraded while it runs), or any file of a task in
 * another mount namespace (a container, a chroot's bind mounts), whose
 * paths name other files here, or none.  /proc/PID/map_files/START-END
 * opens the very file (for root), which is kept open, as
 * "/proc/self/fd/N", for as long as the machine lives.  A file of
 * another namespace that cannot be held so is not read at all (""):
 * its path here names another file, and "/proc/PID/root/PATH" would
 * follow the task's absolute symbolic links in our root (a second
 * reader's find: a host file read as the task's).  NULL for a file
 * whose name says it here, or a deleted one that cannot be held.
 *
 * One file is held once, however many processes map it: after an
 * upgrade of libc every process maps the deleted one, and 64 of them
 * used up every slot.  One process holds at most HELD_PID_MAX of them
 * as the first to map them: any process can name a file "x (deleted)"
 * and map many, and would take the slots of the others.
 */
char *held_file(struct machine *mach, uint32_t pid, uint64_t start, uint64_t end,
		const char *name)
{
	size_t len = strlen(name);
	bool deleted = len > 10 && !strcmp(name + len - 10, " (deleted)"), foreign;
	unsigned int i, mine = 0;
	char path[96];
	struct stat st;
	char *p;
	int fd;

	if (!mach->live || name[0] != '/')
		return NULL;
	foreign = !deleted && foreign_mounts(pid);
	if (!deleted && !foreign)
		return NULL;
	snprintf(path, sizeof(path), "/proc/%u/map_files/%" PRIx64 "-%" PRIx64,
		 pid, start, end);
	fd = open_regular(path);
	if (fd < 0)
		goto by_root;
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
by_root:
	return foreign ? str_intern("", NULL) : NULL;
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
		debuginfo_local_path(mach->debuginfo_path, mach->symfs);
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


/* The deleted files held open, the debug path, the debuginfod server. */
void files_free(struct machine *mach)
{
	debuginfo_server_end(mach);
	while (mach->nheld)
		close(mach->held[--mach->nheld].fd);
	debuginfo_local_path(NULL, NULL);
	free(mach->debuginfo_path);
	mach->debuginfo_path = NULL;
}
