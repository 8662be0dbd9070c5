/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rec-write.c: the writer of recordings (record -o FILE, the tests'
 * generators): items as the session hands them over, whole, from any
 * thread.
 */
#ifndef PERFREGS_DUMP_REC_WRITE_H
#define PERFREGS_DUMP_REC_WRITE_H

#include "types.h"

struct recorder;
struct stat;

/* The command line a recording notes (arg=), as typed. */
void rec_cmdline(int argc, char *const *argv);
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
void rec_jitmap(void *arg, uint32_t pid, uint32_t nspid, const char *text, size_t len);
/* The recorder as a tool of the session: what it hands over, written. */
struct tool *rec_tool(struct recorder *r);
int rec_discard(struct recorder *r, struct stat *st);
int rec_close(struct recorder *r, uint64_t produced, const uint64_t *lost);

#endif
