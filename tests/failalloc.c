// SPDX-License-Identifier: GPL-2.0
/*
 * failalloc.so: an LD_PRELOAD library that fails one kind of allocation,
 * for host tests of paths that only run out of memory: PERFREGS_FAIL is
 *
 *   calloc:N:SIZE  every calloc(N, SIZE)
 *   realloc:SIZE   the first realloc() to SIZE bytes of a block a thread
 *                  other than the main one has (a worker of --threads)
 *   realloc:SIZE:new  the same of a new block: realloc(NULL, SIZE)
 *   aligned_alloc:worker  the first aligned_alloc() of a thread other
 *                  than the main one
 *   strdup:STRING  every strdup() of STRING
 *   malloc:SIZE    every malloc(SIZE)
 *
 * Each returns NULL with errno ENOMEM; everything else is glibc's.
 * Not for sanitizer builds: they have their own allocator.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void *__libc_calloc(size_t n, size_t size);
void *__libc_realloc(void *p, size_t size);
void *__libc_malloc(size_t size);
void *__libc_memalign(size_t align, size_t size);

static const char *fail(const char *kind)
{
	const char *e = getenv("PERFREGS_FAIL");
	size_t len = strlen(kind);

	return e && !strncmp(e, kind, len) && e[len] == ':' ? e + len + 1 : NULL;
}

void *calloc(size_t n, size_t size)
{
	const char *f = fail("calloc");
	char *end;

	if (f && strtoull(f, &end, 0) == n && *end == ':' && strtoull(end + 1, NULL, 0) == size) {
		errno = ENOMEM;
		return NULL;
	}
	return __libc_calloc(n, size);
}

void *realloc(void *p, size_t size)
{
	static int failed;
	const char *f = fail("realloc");
	char *end;

	if (f && strtoull(f, &end, 0) == size && (strcmp(end, ":new") ? p != NULL : !p) &&
	    gettid() != getpid() && !__atomic_exchange_n(&failed, 1, __ATOMIC_RELAXED)) {
		errno = ENOMEM;
		return NULL;
	}
	return __libc_realloc(p, size);
}

void *aligned_alloc(size_t align, size_t size)
{
	static int failed;
	const char *f = fail("aligned_alloc");

	if (f && !strcmp(f, "worker") && gettid() != getpid() &&
	    !__atomic_exchange_n(&failed, 1, __ATOMIC_RELAXED)) {
		errno = ENOMEM;
		return NULL;
	}
	return __libc_memalign(align, size);
}

void *malloc(size_t size)
{
	const char *f = fail("malloc");

	if (f && strtoull(f, NULL, 0) == size) {
		errno = ENOMEM;
		return NULL;
	}
	return __libc_malloc(size);
}

char *strdup(const char *s)
{
	const char *f = fail("strdup");
	size_t len = strlen(s) + 1;
	char *p;

	if (f && !strcmp(f, s)) {
		errno = ENOMEM;
		return NULL;
	}
	p = __libc_malloc(len);
	return p ? memcpy(p, s, len) : NULL;
}
