// SPDX-License-Identifier: GPL-2.0
/*
 * A live run's learner thread: it learns the images and maps of the
 * tasks the rings' samples name while those tasks still exist.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include "../images.h"
#include "../maps.h"
#include "../aspace.h"
#include "../util.h"
#include "../jitmap.h"
#include "learner.h"

void learn_task(struct session *d, struct learnt *memo, int cpu,
		       const struct perfregs_rec_sample *s)
{
	struct learnt *m = cpu >= 0 && cpu < LEARNT_CPUS ? &memo[cpu] : NULL;

	if (learnt_already(memo, cpu, s))
		return;
	/* where its perf map is, while it lives (jitmap.c), when JIT code names samples */
	if (d->o.symbols)
		jitmap_note(&d->m, s->pid);
	if (!image_learn(&d->m, s) && s->image_ino)
		return;		/* not known (yet): no memo */
	/* the side-band tells about a tracked process: no /proc for it */
	if (d->o.symbols && !space_tracked(&d->m, s->pid)) {
		maps_learn(&d->m, s);
		if (s->pid && !maps_find(&d->m, s->pid, s->image_ino))
			return;
	}
	if (m) {
		m->pid = s->pid;
		m->ino = s->image_ino;
		m->dev = s->image_dev;
		m->known = true;
	}
}

/* The learner's view of a record (see learner_main()). */
static int learn_record(void *arg, int cpu, const struct perfregs_rec_header *rec,
			size_t size)
{
	struct learner *l = arg;
	const struct perfregs_rec_sample *s = (const void *)rec;

	if (rec->type != PERFREGS_REC_SAMPLE || size < sizeof(*s))
		return 0;
	if (l->filter_tid > 0 && s->tid != (uint32_t)l->filter_tid)
		return 0;
	learn_task(l->d, l->memo, cpu, s);
	return 0;
}

/*
 * Decoding (symbols, unwinding) can fall behind the samples: on a slow
 * kernel the first symbol lookup in a new library took seconds.  The
 * tasks the samples name may be gone by the time their turn comes, and
 * with them /proc/PID/exe and maps.  So a learner thread looks at what
 * the rings hold, without consuming it, and learns about new tasks
 * while they still exist, whatever the decoding is doing.  It looks at
 * most every 20 ms, and only when the module reports a sample of a new
 * process or image (POLLPRI): a run of one long task wakes it once.
 * A module older than ABI minor 1 cannot report that: then it looks
 * every 20 ms.
 */
static bool learner_stopping(struct learner *l)
{
	return __atomic_load_n(&l->stop, __ATOMIC_RELAXED);
}

static void *learner_main(void *arg)
{
	struct learner *l = arg;
	const uint64_t gap = 20000000;	/* ns: at most one look per gap */
	struct pollfd pfd = { .fd = l->wake, .events = POLLIN };
	bool waits = prf_has_new_tasks(l->r);
	uint64_t last = 0, now;
	int ev;

	/*
	 * This thread's malloc arena, set up now, before COMMAND runs: at
	 * the first new task it cost the sampled task ~25k instructions.
	 */
	free(malloc(64));
	sem_post(&l->ready);

	while (!learner_stopping(l)) {
		if (waits) {
			ev = prf_wait_new_task(l->r, l->wake, -1);
			if (ev == -EINTR)
				continue;
			if (ev < 0 || (ev & PRF_WAIT_WOKEN))
				break;
			if (ev & (POLLHUP | POLLERR)) {
				/* stopped or the target is gone: a last look, then wait */
				prf_peek(l->r, learn_record, l);
				while (!learner_stopping(l) && poll(&pfd, 1, -1) < 0 &&
				       errno == EINTR)
					;
				break;
			}
		}
		now = now_ns();
		if (now - last < gap) {
			struct timespec rest = { 0, (long)(gap - (now - last)) };

			nanosleep(&rest, NULL);
			if (learner_stopping(l))
				break;
		}
		last = now_ns();
		prf_peek(l->r, learn_record, l);
	}
	return NULL;
}

void learner_start(struct learner *l)
{
	sigset_t all, old;

	l->wake = eventfd(0, EFD_CLOEXEC);
	if (l->wake < 0)
		return;	/* decoding still learns each task as its turn comes */
	/* signals (SIGINT, SIGTERM) stay with the main thread */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	sem_init(&l->ready, 0, 0);
	l->running = !pthread_create(&l->thread, NULL, learner_main, l);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	while (l->running && sem_wait(&l->ready) && errno == EINTR)
		;
	sem_destroy(&l->ready);
	if (!l->running) {
		close(l->wake);
		l->wake = -1;
	}
}

void learner_stop(struct learner *l)
{
	uint64_t one = 1;

	if (!l->running)
		return;
	__atomic_store_n(&l->stop, 1, __ATOMIC_RELAXED);
	if (write(l->wake, &one, sizeof(one)) != sizeof(one))
		perror("perfregs-dump: waking the learner");
	pthread_join(l->thread, NULL);
	close(l->wake);
	l->wake = -1;
	l->running = false;
}

