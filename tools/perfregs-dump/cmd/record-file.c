// SPDX-License-Identifier: GPL-2.0
/*
 * record -o FILE: the recording's file, made as perf record makes
 * perf.data (FILE.old kept, nothing planted followed), or -o - for the
 * standard output; and undone when sampling never started.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "../outfile.h"
#include "../rec-write.h"
#include "record-file.h"

void record_file_init(struct record_file *f)
{
	memset(f, 0, sizeof(*f));
	f->dirfd = -1;
}

/* What out_open() holds, let go of once -o's directory is no longer worked in. */
void record_file_release(struct record_file *f)
{
	if (f->dirfd >= 0)
		close(f->dirfd);
	f->dirfd = -1;
	free(f->old);
	f->old = NULL;
}

/*
 * -o -: the recording goes to the standard output, as perf record -o -
 * sends perf.data down a pipe.  The writer needs no seek (a header that
 * changes once it went out is said, rec_update_config()).  Not to a
 * terminal: a recording is no text.  Returns a descriptor of its own
 * (rec_close() closes it, not stdout), or -1 once it has said why.
 */
static int open_stdout(struct record_file *f)
{
	int fd;

	f->path = "the standard output";
	f->is_stdout = true;
	if (isatty(STDOUT_FILENO)) {
		fprintf(stderr, "perfregs-dump: -o - writes the recording to the standard "
			"output, a terminal here: send it to a file or a pipe "
			"(-o - | perfregs-dump report -i -), or give -o a FILE\n");
		return -1;
	}
	fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
	if (fd < 0)
		fprintf(stderr, "perfregs-dump: cannot write the standard output: %s\n",
			strerror(errno));
	return fd;
}

/*
 * -o FILE, as record makes it.  Every name is taken relative to FILE's
 * directory, opened once (a directory on the way swapped meanwhile
 * changes nothing after), and no symlink that may have been planted at
 * FILE or FILE.old is followed where something is made:
 *  - an existing regular FILE, or a symlink that leads to no device or
 *    FIFO (its target untouched, if any), is kept as FILE.old, as perf
 *    record keeps perf.data.old: renameat() moves the name, and takes
 *    FILE.old's place whatever is there, without following it;
 *  - FILE is then made with O_CREAT | O_EXCL | O_NOFOLLOW, mode OUT_MODE
 *    (0600: the recording holds raw process memory): a name that
 *    appeared meanwhile, a symlink above all, is an error, never opened;
 *  - a device or a FIFO, or a symlink to one, is written to, unless
 *    someone else may have put it there to read the recording (in /tmp:
 *    out_write_to()); one that is not what was checked once open
 *    (swapped meanwhile) is refused.
 * Returns the descriptor, or -1 once it has said why.
 */
static int open_file(struct record_file *f, const char *path)
{
	struct stat st, to;
	const char *base;
	char err[512];
	int fd;

	f->path = path;
	f->dirfd = out_dir(path, &base, err, sizeof(err));
	f->base = base;
	if (f->dirfd < 0) {
		fprintf(stderr, "perfregs-dump: %s\n", err);
		goto fail;
	}
	f->old = malloc(strlen(base) + 5);
	if (!f->old) {
		fprintf(stderr, "perfregs-dump: out of memory\n");
		goto fail;
	}
	sprintf(f->old, "%s.old", base);
	if (fstatat(f->dirfd, base, &st, AT_SYMLINK_NOFOLLOW)) {
		if (errno != ENOENT) {
			fprintf(stderr, "perfregs-dump: cannot write %s: %s\n", path,
				strerror(errno));
			goto fail;
		}
	} else if (S_ISDIR(st.st_mode)) {
		fprintf(stderr, "perfregs-dump: cannot write %s: %s\n", path, strerror(EISDIR));
		goto fail;
	} else if (!S_ISREG(st.st_mode) &&
		   (!S_ISLNK(st.st_mode) || (!fstatat(f->dirfd, base, &to, 0) &&
					     !S_ISREG(to.st_mode) && !S_ISDIR(to.st_mode)))) {
		/* a device or a FIFO, or a symlink to one: written to */
		fd = out_write_to(f->dirfd, path, base, &st, S_ISLNK(st.st_mode) ? &to : &st,
				  err, sizeof(err));
		if (fd < 0) {
			fprintf(stderr, "perfregs-dump: %s\n", err);
			goto fail;
		}
		return fd;
	} else if (renameat(f->dirfd, base, f->dirfd, f->old)) {
		fprintf(stderr, "perfregs-dump: cannot keep %s as %s.old: %s\n", path, path,
			strerror(errno));
		goto fail;
	} else {
		f->kept_old = true;
		f->old_st = st;	/* what FILE.old is, if it is still ours */
	}
	fd = openat(f->dirfd, base, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		    OUT_MODE);
	if (fd < 0) {
		fprintf(stderr, "perfregs-dump: cannot make %s: %s%s\n", path, strerror(errno),
			errno == EEXIST || errno == ELOOP ? " (it appeared meanwhile: "
			"another process at work in that directory?)" : "");
		if (f->kept_old)
			fprintf(stderr, "perfregs-dump: what was %s is %s.old\n", path, path);
		goto fail;
	}
	f->fresh = true;
	return fd;

fail:
	record_file_release(f);
	return -1;
}

int record_file_open(struct record_file *f, const char *path)
{
	return strcmp(path, "-") ? open_file(f, path) : open_stdout(f);
}

/*
 * Sampling never started: the recording begun has nothing in it.  Take
 * it away and put FILE.old back as FILE, so that a refused run loses no
 * earlier recording (perf record would leave an empty perf.data).
 */
void record_file_undo(struct record_file *f, struct recorder **rec)
{
	struct stat mine, now;
	bool known;

	if (!*rec)
		return;
	known = !rec_discard(*rec, &mine);
	*rec = NULL;
	/*
	 * Only the file this run made, still under its name in the directory
	 * it was made in; and FILE.old back only if it is still what FILE was.
	 */
	if (!f->fresh || !known ||
	    fstatat(f->dirfd, f->base, &now, AT_SYMLINK_NOFOLLOW) ||
	    !S_ISREG(now.st_mode) || now.st_dev != mine.st_dev || now.st_ino != mine.st_ino ||
	    unlinkat(f->dirfd, f->base, 0) || !f->kept_old)
		return;
	if (fstatat(f->dirfd, f->old, &now, AT_SYMLINK_NOFOLLOW) ||
	    now.st_dev != f->old_st.st_dev || now.st_ino != f->old_st.st_ino ||
	    renameat(f->dirfd, f->old, f->dirfd, f->base))
		fprintf(stderr, "perfregs-dump: cannot put %s.old back as %s\n", f->path,
			f->path);
}

