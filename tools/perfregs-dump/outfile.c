// SPDX-License-Identifier: GPL-2.0
/*
 * The files perfregs-dump writes: a recording (record -o), and what is
 * made of one.  They hold what was sampled, raw process memory among
 * it, so that nobody else may read them.
 */
#define _GNU_SOURCE	/* asprintf */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/random.h>
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

/* FILE's new file, beside it under a name of its own: of->tmp.  fd, or -1. */
static int out_tmp(struct out_file *of, char *err, size_t errlen)
{
	int fd = -1, i;

	/* someone else's names there are not ours: another try, a few times */
	for (i = 0; i < 64; i++) {
		uint32_t r;

		if (getrandom(&r, sizeof(r), GRND_NONBLOCK) != sizeof(r))
			r = (uint32_t)getpid() * 2654435761U + (uint32_t)i;
		free(of->tmp);
		if (asprintf(&of->tmp, ".%s.%08x", of->base, r) < 0) {
			of->tmp = NULL;
			errno = ENOMEM;
			break;
		}
		fd = openat(of->dirfd, of->tmp,
			    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC,
			    OUT_MODE);
		if (fd >= 0 || errno != EEXIST)
			break;
	}
	if (fd < 0) {
		snprintf(err, errlen, "cannot write %s: making a new file beside it: %s",
			 of->path, strerror(errno));
		free(of->tmp);
		of->tmp = NULL;
	}
	return fd;
}

/*
 * "-": the standard output, as perf takes -o -: a copy of it, written
 * from where it stands.  What is written again at its start once done
 * (perf.data) wants a file there (> FILE), truncated as fopen("w") does.
 */
static int out_stdout(struct out_file *of, bool rewrites, char *err, size_t errlen)
{
	struct stat st;
	int fd;

	of->dirfd = -1;
	if (fstat(STDOUT_FILENO, &st)) {
		snprintf(err, errlen, "cannot write the standard output: %s", strerror(errno));
		return -1;
	}
	/*
	 * Written again at its start: a file appended to (>>), or with its
	 * offset past its start, would lose what it held and be no perf.data
	 */
	if (rewrites && S_ISREG(st.st_mode) &&
	    ((fcntl(STDOUT_FILENO, F_GETFL) & O_APPEND) ||
	     lseek(STDOUT_FILENO, 0, SEEK_CUR) != 0)) {
		snprintf(err, errlen, "cannot write perf.data to the standard output: it is "
			 "appended to, or not at its start (-o - > FILE, not >>)");
		return -1;
	}
	if (rewrites && !S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "cannot write perf.data to the standard output: it is "
			 "written again at its start once done, so it wants a file there "
			 "(-o - > FILE), not a pipe or a terminal");
		return -1;
	}
	fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
	if (fd < 0 || (rewrites && ftruncate(fd, 0))) {
		snprintf(err, errlen, "cannot write the standard output: %s", strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

int out_create(struct out_file *of, const char *path, bool rewrites, char *err,
	       size_t errlen)
{
	struct stat st, to;
	int fd;

	of->path = path;
	of->tmp = NULL;
	if (!strcmp(path, "-"))
		return out_stdout(of, rewrites, err, errlen);
	of->dirfd = out_dir(path, &of->base, err, errlen);
	if (of->dirfd < 0)
		return -1;
	if (!fstatat(of->dirfd, of->base, &st, AT_SYMLINK_NOFOLLOW)) {
		to = st;
		if (S_ISLNK(st.st_mode) && fstatat(of->dirfd, of->base, &to, 0))
			to = st;	/* it leads nowhere: replaced, as a file */
		if (S_ISDIR(to.st_mode)) {
			errno = EISDIR;
			goto fail_errno;
		}
		if (!S_ISREG(st.st_mode) && !S_ISLNK(to.st_mode)) {
			if (rewrites && S_ISFIFO(to.st_mode)) {
				snprintf(err, errlen, "cannot write %s: it is a FIFO, and this "
					 "output is written again at its start once done: "
					 "name a file", path);
				goto fail;
			}
			fd = out_write_to(of->dirfd, path, of->base, &st, &to, err, errlen);
			if (fd < 0)
				goto fail;
			/* through a symlink to a file (/dev/stdout > FILE): as fopen("w") */
			if (S_ISREG(to.st_mode) && ftruncate(fd, 0)) {
				close(fd);
				goto fail_errno;
			}
			return fd;
		}
	} else if (errno != ENOENT) {
		goto fail_errno;
	}
	fd = out_tmp(of, err, errlen);
	if (fd < 0)
		goto fail;
	return fd;

fail_errno:
	snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
fail:
	close(of->dirfd);
	of->dirfd = -1;
	return -1;
}

int out_commit(struct out_file *of, bool keep, char *err, size_t errlen)
{
	int ret = 0;

	if (of->dirfd < 0)
		return 0;
	if (of->tmp && keep && renameat(of->dirfd, of->tmp, of->dirfd, of->base)) {
		snprintf(err, errlen, "cannot write %s: putting the new file in its "
			 "place: %s", of->path, strerror(errno));
		ret = -1;
	}
	if (of->tmp && (!keep || ret))
		unlinkat(of->dirfd, of->tmp, 0);
	free(of->tmp);
	of->tmp = NULL;
	close(of->dirfd);
	of->dirfd = -1;
	return ret;
}
