/* SPDX-License-Identifier: GPL-2.0 */
/*
 * learnt.c: what the decoder learnt that someone hands on, in the order
 * it was learnt: live, the images, maps, kernel symbols, side-band
 * events and vDSOs that go into the recording before the samples that
 * need them.  Learning queues them (nothing below the session calls
 * up); the session hands them to a tool (session_forward_learnt()).
 */
#ifndef PERFREGS_DUMP_LEARNT_H
#define PERFREGS_DUMP_LEARNT_H

#include "types.h"

/* Learning queues from here on (learnt_free() lets go of the queue). */
void learnt_init(struct decoder *d);
/*
 * Each queues, when learnt_init() was called: before the thing is
 * published, so that whoever finds it and hands the queue on before
 * writing a sample that needs it finds it queued.
 */
void learnt_image(struct decoder *d, const struct image *im);
void learnt_maps(struct decoder *d, const struct task_maps *tm);
void learnt_ksym(struct decoder *d, const struct ksym *k);
void learnt_sb(struct decoder *d, const struct sb_event *ev);
void learnt_blob(struct decoder *d, const struct blob *b, const void *data);
/* Is anyone handing on what is learnt? */
bool learnt_on(const struct decoder *d);
/* What was queued, oldest first, taken out of the queue: the caller's. */
struct learnt_item *learnt_take(struct decoder *d);
void learnt_items_free(struct learnt_item *it);
void learnt_free(struct decoder *d);

#endif
