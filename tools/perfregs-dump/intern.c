// SPDX-License-Identifier: GPL-2.0
/*
 * Interned strings: one reference-counted copy of each path a mapping
 * names (and of the file it was found as here), whatever holds it.
 * Every version of an address space (aspace.c) holds a copy of each of
 * its mappings, and each copy held a copy of its path: one exec and
 * 1400 mappings of 4000-byte paths, a 5.7 MB recording, were 980000
 * copies of 4 KB, 3.9 GB (tests/mkbomb.c paths).  Now a copy of a
 * mapping costs its struct and a reference.
 *
 * The table is the process's, under its own lock: the reading thread
 * makes and copies mappings while the workers of --threads, and the
 * learner thread live, find their files (symbols.c) and intern those
 * names.  A reference is taken without the lock by whoever holds one
 * already (the count cannot reach 0 meanwhile); it is given back under
 * the lock, so that a lookup never finds a copy being freed.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "intern.h"

struct istr {
	struct istr *next;	/* in its bucket */
	uint64_t hash;
	size_t len;
	unsigned long refs;
	char s[];
};

static pthread_mutex_t intern_lock = PTHREAD_MUTEX_INITIALIZER;
static struct istr **buckets;
static size_t nbuckets, count;

static struct istr *istr_of(const char *s)
{
	return (struct istr *)(s - offsetof(struct istr, s));
}

/* FNV-1a: paths are short, and this runs once per new mapping */
static uint64_t str_hash(const char *s, size_t len)
{
	uint64_t h = 1469598103934665603ULL;
	size_t i;

	for (i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
	return h;
}

/* Twice the buckets once there are more strings than buckets. */
static void grow(void)
{
	size_t n = nbuckets ? nbuckets * 2 : 1024, i;
	struct istr **b = calloc(n, sizeof(*b)), *e, *next;

	if (!b)
		return;		/* longer chains, still right */
	for (i = 0; i < nbuckets; i++) {
		for (e = buckets[i]; e; e = next) {
			next = e->next;
			e->next = b[e->hash & (n - 1)];
			b[e->hash & (n - 1)] = e;
		}
	}
	free(buckets);
	buckets = b;
	nbuckets = n;
}

char *str_intern(const char *s, size_t *added)
{
	size_t len = strlen(s);
	uint64_t h = str_hash(s, len);
	struct istr *e = NULL;

	if (added)
		*added = 0;
	pthread_mutex_lock(&intern_lock);
	if (count >= nbuckets)
		grow();
	if (!nbuckets)
		goto out;
	for (e = buckets[h & (nbuckets - 1)]; e; e = e->next) {
		if (e->hash == h && e->len == len && !memcmp(e->s, s, len)) {
			__atomic_add_fetch(&e->refs, 1, __ATOMIC_RELAXED);
			goto out;
		}
	}
	e = malloc(sizeof(*e) + len + 1);
	if (!e)
		goto out;
	e->hash = h;
	e->len = len;
	e->refs = 1;
	memcpy(e->s, s, len + 1);
	e->next = buckets[h & (nbuckets - 1)];
	buckets[h & (nbuckets - 1)] = e;
	count++;
	if (added)
		*added = sizeof(*e) + len + 1;
out:
	pthread_mutex_unlock(&intern_lock);
	return e ? e->s : NULL;
}

char *str_ref(const char *s)
{
	if (s)
		__atomic_add_fetch(&istr_of(s)->refs, 1, __ATOMIC_RELAXED);
	return (char *)s;
}

void str_put(const char *s)
{
	struct istr *e, **pe;

	if (!s)
		return;
	e = istr_of(s);
	pthread_mutex_lock(&intern_lock);
	if (!__atomic_sub_fetch(&e->refs, 1, __ATOMIC_RELAXED)) {
		for (pe = &buckets[e->hash & (nbuckets - 1)]; *pe != e; pe = &(*pe)->next)
			;
		*pe = e->next;
		free(e);
		if (!--count) {		/* all given back: the table goes too */
			free(buckets);
			buckets = NULL;
			nbuckets = 0;
		}
	}
	pthread_mutex_unlock(&intern_lock);
}
