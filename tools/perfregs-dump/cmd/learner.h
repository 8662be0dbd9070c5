/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A live run's learner thread: it learns the images and maps of the
 * tasks the rings' samples name while those tasks still exist.
 */
#ifndef PERFREGS_DUMP_CMD_LEARNER_H
#define PERFREGS_DUMP_CMD_LEARNER_H

#include <pthread.h>
#include <semaphore.h>
#include "../types.h"

/* The last task a CPU's samples named, once its image and maps were known. */
struct learnt {
	bool known;
	uint32_t pid, dev;
	uint64_t ino;
};
#define LEARNT_CPUS	1024	/* CPUs above: no memo */

struct learner {
	struct session *d;
	struct prf_reader *r;
	int filter_tid;			/* -t: only its samples */
	struct learnt memo[LEARNT_CPUS];
	pthread_t thread;
	bool running;
	int stop;			/* atomic: set to stop the learner */
	int wake;			/* eventfd: wakes the learner to stop */
	sem_t ready;			/* the learner has set itself up */
};

/*
 * Learn the image and maps of a sample's task, unless the previous
 * sample of its CPU was of the same task and both were known then: one
 * compare instead of two hash lookups for a CPU that stays on a task.
 */
static inline bool learnt_already(const struct learnt *memo, int cpu,
				   const struct perfregs_rec_sample *s)
{
	const struct learnt *m;

	if (cpu < 0 || cpu >= LEARNT_CPUS)
		return false;
	m = &memo[cpu];
	return m->known && m->pid == s->pid && m->ino == s->image_ino &&
	       m->dev == s->image_dev;
}

void learn_task(struct session *d, struct learnt *memo, int cpu,
		const struct perfregs_rec_sample *s);
void learner_start(struct learner *l);
void learner_stop(struct learner *l);

#endif
