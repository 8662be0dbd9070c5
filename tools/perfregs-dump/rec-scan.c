// SPDX-License-Identifier: GPL-2.0
/*
 * A second look at a recording's items before the reader reads them in
 * turn: the JIT maps a recording holds at its end (ITEM_JITMAP), for the
 * samples before them.  Item headers only, a window at a time; the
 * items of the type asked for read whole and parsed as the reader
 * parses them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "rec-format.h"
#include "rec-read.h"
#include "rec-scan.h"

#define SCAN_WINDOW	65536

struct scan {
	struct rec_where w;
	unsigned char win[SCAN_WINDOW];
	uint64_t win_off;
	size_t win_len;
};

static bool scan_pread(const struct rec_where *w, uint64_t off, void *buf, size_t n)
{
	size_t done = 0;

	while (done < n) {
		ssize_t r = pread(w->fd, (char *)buf + done, n - done, (off_t)(w->at + off + done));

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return false;
		done += (size_t)r;
	}
	return true;
}

/* n bytes at off (within the recording's size): copied into buf. */
static bool scan_read(struct scan *sc, uint64_t off, void *buf, size_t n)
{
	size_t want;

	if (sc->w.mem) {
		memcpy(buf, sc->w.mem + off, n);
		return true;
	}
	if (n > SCAN_WINDOW)
		return scan_pread(&sc->w, off, buf, n);
	if (off < sc->win_off || off + n > sc->win_off + sc->win_len) {
		want = sc->w.size - off < SCAN_WINDOW ? (size_t)(sc->w.size - off) : SCAN_WINDOW;
		sc->win_len = 0;
		if (want < n || !scan_pread(&sc->w, off, sc->win, want))
			return false;
		sc->win_off = off;
		sc->win_len = want;
	}
	memcpy(buf, sc->win + (off - sc->win_off), n);
	return true;
}

bool rec_scan(const struct rec_input *in, uint32_t type,
	      void (*fn)(void *arg, const struct rec_item *it), void *arg)
{
	struct scan *sc = calloc(1, sizeof(*sc));
	bool whole = false;
	char err[128];
	uint64_t off;

	if (!sc)
		return false;
	if (!rec_input_where(in, &sc->w)) {
		free(sc);
		return false;
	}
	for (off = sc->w.first; sc->w.size - off >= sizeof(struct item) && off < sc->w.size;) {
		struct rec_item it = { .type = type, .off = off };
		unsigned char *body;
		struct item h;

		if (!scan_read(sc, off, &h, sizeof(h)) || h.size < sizeof(h) || h.size % 8 ||
		    h.size > sc->w.size - off)
			break;
		if (h.type == ITEM_END) {
			whole = true;
			break;
		}
		if (h.type == type && type == ITEM_JITMAP) {
			if (h.size > item_max(type) || !(body = malloc(h.size)))
				break;
			if (!scan_read(sc, off, body, h.size)) {
				free(body);
				break;
			}
			it.size = h.size;
			if (!rec_item_jitmap(&it, body + sizeof(h), h.size - sizeof(h), err,
					     sizeof(err)))
				fn(arg, &it);
			free(body);
		}
		off += h.size;
	}
	/* a recording cut short was looked through to its last item too */
	whole |= off == sc->w.size;
	free(sc);
	return whole;
}
