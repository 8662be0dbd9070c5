/* SPDX-License-Identifier: GPL-2.0 */
/* outfile.c: the files perfregs-dump writes, made and opened safely. */
#ifndef PERFREGS_DUMP_OUTFILE_H
#define PERFREGS_DUMP_OUTFILE_H

#include <stddef.h>

struct stat;

/*
 * path's directory, opened (-1 with err said if it cannot be), and in
 * *base path's last name, which every file of path is taken relative
 * to: a directory on the way swapped meanwhile changes nothing after.
 */
int out_dir(const char *path, const char **base, char *err, size_t errlen);
/*
 * Open what base names in dirfd, a FIFO or a device, or a symlink to
 * one (st: what base is, not followed; to: what it leads to, or st),
 * to write to it, if nobody else could have put it there to read what
 * is written (out_check() in outfile.c).  The descriptor, or -1 with
 * err said.
 */
int out_write_to(int dirfd, const char *path, const char *base, const struct stat *st,
		 const struct stat *to, char *err, size_t errlen);

#endif
