/* SPDX-License-Identifier: GPL-2.0 */
/* outfile.c: the files perfregs-dump writes, made and opened safely. */
#ifndef PERFREGS_DUMP_OUTFILE_H
#define PERFREGS_DUMP_OUTFILE_H

#include <stdbool.h>
#include <stddef.h>

struct stat;

/*
 * The mode every file is made with: what was sampled (registers, stack
 * bytes, kernel addresses) is its maker's alone, whatever the umask;
 * perf record makes perf.data 0600 too.
 */
#define OUT_MODE	0600

/*
 * path's directory, opened (-1 with err said if it cannot be), and in
 * *base path's last name, which every file of path is taken relative
 * to: a directory on the way swapped meanwhile changes nothing after.
 */
int out_dir(const char *path, const char **base, char *err, size_t errlen);
/*
 * Open what base names in dirfd, a FIFO or a device, or a symlink (st:
 * what base is, not followed; to: what it leads to, or st), to write to
 * it as it is, if nobody else could have put it there to read what is
 * written (out_check() in outfile.c).  The descriptor, or -1 with err
 * said.
 */
int out_write_to(int dirfd, const char *path, const char *base, const struct stat *st,
		 const struct stat *to, char *err, size_t errlen);

/*
 * An output that is made whole from scratch (convert's perf.data and
 * profile, --flamegraph's SVG): out_create() opens it, out_commit() ends
 * it once written and closed.  What path names now decides how:
 *  - nothing, a regular file, or a symlink to nothing: a new file,
 *    OUT_MODE, is made beside it under a name of its own (tmp:
 *    .NAME.XXXXXXXX, with O_CREAT | O_EXCL | O_NOFOLLOW, so that nothing
 *    planted there is opened), and out_commit() renames it to path's
 *    name: an earlier output is replaced once the new one is whole (a
 *    hard link to it keeps what it was), a failed write leaves it as it
 *    was;
 *  - a FIFO or a device, or a symlink to one or to a regular file
 *    (/dev/stdout): written to, as out_write_to() allows, a file
 *    truncated first, as fopen("w") does; not a FIFO if rewrites (the
 *    output is written at its start again once done: perf.data);
 *  - a directory, or a symlink to one: EISDIR.
 * out_create() returns the descriptor, or -1 with err said; out_commit()
 * with keep renames (0, or -1 with err said), else removes what was
 * written; once called, of holds nothing.  of->dirfd is -1 when it
 * holds nothing.
 */
struct out_file {
	int dirfd;		/* path's directory, or -1 */
	const char *path;	/* as given, for messages */
	const char *base;	/* path's last name, in dirfd */
	char *tmp;		/* the new file's name until out_commit(); NULL: path's */
};

int out_create(struct out_file *of, const char *path, bool rewrites, char *err,
	       size_t errlen);
int out_commit(struct out_file *of, bool keep, char *err, size_t errlen);

#endif
