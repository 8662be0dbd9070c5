// SPDX-License-Identifier: GPL-2.0
/*
 * The files perfregs-dump writes: a recording (record -o), and what is
 * made of one.  They hold what was sampled, raw process memory among
 * it, so that nobody else may read them.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "outfile.h"

int out_dir(const char *path, const char **base, char *err, size_t errlen)
{
	const char *slash = strrchr(path, '/'), *b = slash ? slash + 1 : path;
	char *dir;
	int fd;

	*base = b;
	if (!*b || !strcmp(b, ".") || !strcmp(b, "..")) {
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(EISDIR));
		return -1;
	}
	dir = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
	if (!dir) {
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(ENOMEM));
		return -1;
	}
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		snprintf(err, errlen, "cannot write %s: its directory %s: %s", path, dir,
			 strerror(errno));
	free(dir);
	return fd;
}

/*
 * st, a FIFO, a device or a symlink that path names in dirfd, is about
 * to be written to as it is: opened without O_CREAT.  In a directory
 * that others may write to and that is sticky (/tmp, /dev/shm), one
 * that is neither ours nor the directory owner's was put there by
 * someone else, who may read what goes into it: a FIFO of theirs hands
 * them the recording (user stacks, registers, kernel addresses), a
 * symlink of theirs sends it where they chose.  Refused, whatever the
 * sysctls say: the kernel's own check of this (may_create_in_sticky())
 * is fs.protected_fifos, 0 unless the distribution sets it (1 covers
 * world-writable directories only), is made only for an open with
 * O_CREAT, and never for a device; a symlink is fs.protected_symlinks'.
 * This is the rule of protected_fifos=2 and protected_symlinks, for
 * devices too.  A symlink of ours or of the directory's owner is
 * followed: whoever made it chose where it leads.  0, or -1 with err
 * said.
 */
static int out_check(int dirfd, const char *path, const struct stat *st, char *err,
		     size_t errlen)
{
	struct stat dir;

	if (fstat(dirfd, &dir)) {
		snprintf(err, errlen, "cannot write %s: its directory: %s", path,
			 strerror(errno));
		return -1;
	}
	if (!(dir.st_mode & S_ISVTX) || !(dir.st_mode & (S_IWGRP | S_IWOTH)) ||
	    st->st_uid == geteuid() || st->st_uid == dir.st_uid)
		return 0;
	snprintf(err, errlen, "refusing to write %s: it is %s of uid %u, in a sticky "
		 "directory that others may write to, and whoever made it there could "
		 "read what goes into it; remove it, or write to a new name or in a "
		 "directory of your own", path,
		 S_ISLNK(st->st_mode) ? "a symlink" : S_ISFIFO(st->st_mode) ? "a FIFO" :
		 S_ISSOCK(st->st_mode) ? "a socket" : "a device", (unsigned int)st->st_uid);
	return -1;
}

int out_write_to(int dirfd, const char *path, const char *base, const struct stat *st,
		 const struct stat *to, char *err, size_t errlen)
{
	struct stat now;
	int fd;

	if (out_check(dirfd, path, st, err, errlen))
		return -1;
	fd = openat(dirfd, base, O_WRONLY | O_NOCTTY | O_CLOEXEC);
	if (fd >= 0 && (fstat(fd, &now) || now.st_dev != to->st_dev ||
			now.st_ino != to->st_ino)) {
		close(fd);
		fd = -1;
		errno = EEXIST;	/* swapped meanwhile: not what was checked */
	}
	if (fd < 0)
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
	return fd;
}
