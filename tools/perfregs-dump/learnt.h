/* SPDX-License-Identifier: GPL-2.0 */
/*
 * learnt.c: what the machine learnt that someone hands on, in the order
 * it was learnt: live, the images, maps, kernel symbols, side-band
 * events and vDSOs that go into the recording before the samples that
 * need them.  Learning queues them (nothing below the session calls
 * up); the session hands them to a tool (session_forward_learnt()).
 */
#ifndef PERFREGS_DUMP_LEARNT_H
#define PERFREGS_DUMP_LEARNT_H

#include "types.h"

/* Learning queues from here on (learnt_free() lets go of the queue). */
void learnt_init(struct machine *mach);
/*
 * Each queues, when learnt_init() was called: before the thing is
 * published, so that whoever finds it and hands the queue on before
 * writing a sample that needs it finds it queued.
 */
void learnt_image(struct machine *mach, const struct image *im);
void learnt_maps(struct machine *mach, const struct task_maps *tm);
void learnt_ksym(struct machine *mach, const struct ksym *k);
void learnt_sb(struct machine *mach, const struct sb_event *ev);
void learnt_blob(struct machine *mach, const struct blob *b, const void *data);
/* A JIT map's lines, text (malloc()ed, len bytes): the queue's now, freed if off. */
void learnt_jitmap(struct machine *mach, uint32_t pid, uint32_t nspid, char *text,
		   size_t len);
/* Is anyone handing on what is learnt? */
bool learnt_on(const struct machine *mach);
/* What was queued, oldest first, taken out of the queue: the caller's. */
struct learnt_item *learnt_take(struct machine *mach);
void learnt_items_free(struct learnt_item *it);
void learnt_free(struct machine *mach);

#endif
