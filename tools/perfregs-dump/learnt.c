// SPDX-License-Identifier: GPL-2.0
/*
 * What the machine learnt that someone hands on (live: into the
 * recording), queued in the order it was learnt, from any thread.
 */
#include <stdlib.h>
#include <string.h>
#include "learnt.h"

void learnt_init(struct machine *mach)
{
	struct learnt_queue *q = &mach->learnt;

	pthread_mutex_init(&q->lock, NULL);
	q->head = NULL;
	q->tail = &q->head;
	q->on = true;
}

bool learnt_on(const struct machine *mach)
{
	return mach->learnt.on;
}

static void push(struct machine *mach, struct learnt_item *it)
{
	struct learnt_queue *q = &mach->learnt;

	it->next = NULL;
	pthread_mutex_lock(&q->lock);
	*q->tail = it;
	q->tail = &it->next;
	pthread_mutex_unlock(&q->lock);
}

static struct learnt_item *item(enum learnt_kind kind, const void *what)
{
	struct learnt_item *it = calloc(1, sizeof(*it));

	if (it) {
		it->kind = kind;
		it->what = what;
	}
	return it;
}

void learnt_image(struct machine *mach, const struct image *im)
{
	struct learnt_item *it;

	if (mach->learnt.on && (it = item(LEARNT_IMAGE, im)))
		push(mach, it);
}

void learnt_maps(struct machine *mach, const struct task_maps *tm)
{
	struct learnt_item *it;

	if (mach->learnt.on && (it = item(LEARNT_MAPS, tm)))
		push(mach, it);
}

void learnt_ksym(struct machine *mach, const struct ksym *k)
{
	struct learnt_item *it;

	if (mach->learnt.on && (it = item(LEARNT_KSYM, k)))
		push(mach, it);
}

/* The event and its strings, copied: the side-band's buffer moves on. */
void learnt_sb(struct machine *mach, const struct sb_event *ev)
{
	struct learnt_item *it;

	if (!mach->learnt.on || !(it = item(LEARNT_SB, NULL)))
		return;
	it->ev = *ev;
	it->ev.name = it->name = strdup(ev->name ? ev->name : "");
	it->ev.local = it->local = ev->local ? strdup(ev->local) : NULL;
	if (!it->name || (ev->local && !it->local)) {
		learnt_items_free(it);
		return;
	}
	push(mach, it);
}

/* The image's bytes, copied: the caller's buffer goes. */
void learnt_blob(struct machine *mach, const struct blob *b, const void *data)
{
	struct learnt_item *it;

	if (!mach->learnt.on || !(it = item(LEARNT_BLOB, b)))
		return;
	it->data = malloc(b->size);
	if (!it->data) {
		free(it);
		return;
	}
	memcpy(it->data, data, b->size);
	push(mach, it);
}

void learnt_jitmap(struct machine *mach, uint32_t pid, uint32_t nspid, char *text,
		   size_t len)
{
	struct learnt_item *it;

	if (!mach->learnt.on || !(it = item(LEARNT_JITMAP, NULL))) {
		free(text);
		return;
	}
	it->data = text;
	it->len = len;
	it->pid = pid;
	it->nspid = nspid;
	push(mach, it);
}

struct learnt_item *learnt_take(struct machine *mach)
{
	struct learnt_queue *q = &mach->learnt;
	struct learnt_item *it;

	if (!q->on)
		return NULL;
	pthread_mutex_lock(&q->lock);
	it = q->head;
	q->head = NULL;
	q->tail = &q->head;
	pthread_mutex_unlock(&q->lock);
	return it;
}

void learnt_items_free(struct learnt_item *it)
{
	while (it) {
		struct learnt_item *next = it->next;

		free(it->name);
		free(it->local);
		free(it->data);
		free(it);
		it = next;
	}
}

void learnt_free(struct machine *mach)
{
	if (!mach->learnt.on)
		return;
	learnt_items_free(learnt_take(mach));
	pthread_mutex_destroy(&mach->learnt.lock);
	mach->learnt.on = false;
}
