/* SPDX-License-Identifier: GPL-2.0 */
/* recording.c: the self-describing file of -o / -i. */
#ifndef PERFREGS_DUMP_RECORDING_H
#define PERFREGS_DUMP_RECORDING_H

#include "types.h"

struct recorder;
void rec_cmdline(int argc, char *const *argv);
void rec_info_free(struct decoder *d);
struct recorder *rec_create(const char *path, const struct perfregs_config *cfg,
			    const char *event_name);
/* The same to fd, opened for writing by the caller: the recorder's now */
struct recorder *rec_create_fd(int fd, const char *path, const struct perfregs_config *cfg,
			       const char *event_name);
int rec_sample(struct recorder *r, int cpu, const struct perfregs_rec_header *h);
int rec_update_config(struct recorder *r, const struct perfregs_config *cfg);
int rec_update_abi(struct recorder *r, uint32_t major, uint32_t minor);
int rec_records(struct recorder *r, int cpu, const void *a, size_t alen,
		const void *b, size_t blen);
void rec_image(void *arg, const struct image *im);
void rec_maps(void *arg, const struct task_maps *tm);
void rec_ksym(void *arg, const struct ksym *k);
void rec_sb(void *arg, const struct sb_event *ev);
void rec_blob(void *arg, const struct blob *b, const void *data);
struct stat;
int rec_discard(struct recorder *r, struct stat *st);
int rec_close(struct recorder *r, uint64_t produced, const uint64_t *lost);
/*
 * Decode the recording at path, read into memory of our own as it goes
 * (never mapped: the file is anyone's who can write it, and may change
 * or shrink while it is read).  0, or -EBADMSG with the records before
 * the first malformed item decoded, or -EIO; err says which.
 */
int rec_decode(const char *path, struct decoder *d, uint64_t *produced,
	       char *err, size_t errlen);
/* The same from buf, which nobody else may write while it is decoded. */
int rec_decode_buf(const unsigned char *buf, size_t size, struct decoder *d,
		   uint64_t *produced, char *err, size_t errlen);
/*
 * The same in two steps, each byte read once, so that a pipe or a FIFO
 * can be the recording: rec_open() reads and checks the header (PATH
 * "-" is the standard input) and gives its session configuration in
 * *cfg (if not NULL), rec_read() decodes the rest.  The errors are
 * rec_decode()'s.  rec_input_free() closes what rec_open() opened.
 */
struct rec_input;
int rec_open(const char *path, struct rec_input **in, struct perfregs_config *cfg,
	     char *err, size_t errlen);
int rec_read(struct rec_input *in, struct decoder *d, uint64_t *produced,
	     char *err, size_t errlen);
void rec_input_free(struct rec_input *in);
/* The ABI minor of the module its records came from, as its header says. */
uint32_t rec_input_abi_minor(const struct rec_input *in);

#endif
