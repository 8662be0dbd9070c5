/* SPDX-License-Identifier: GPL-2.0 */
/*
 * session.c: a decoding session (struct session, types.h): a recording
 * delivered to a tool, the reader's items in the recording's order, what
 * each says done to the machine (its processes, maps, files, symbols),
 * the samples checked and counted, and with --threads the worker pool
 * that prints them; what was learnt live handed on; the session's end.
 */
#ifndef PERFREGS_DUMP_SESSION_H
#define PERFREGS_DUMP_SESSION_H

#include "types.h"
#include "tool.h"

struct rec_input;


/* The session's end: what it made, then its machine (session_free()). */
void session_free(struct session *d);

/*
 * Deliver the items of in, its header read, to tool t with what d knows.
 * 0, or -EBADMSG with the records before the first malformed item
 * delivered, or -EIO, or (session_decode()) -EPROTO for a file that is
 * no recording, or -EINTR when *d->stop was set (at a record: those
 * before it delivered); err says which.  *produced: what the end item
 * says the kernel produced.
 */
int session_read(struct session *d, struct tool *t, struct rec_input *in,
		 uint64_t *produced, char *err, size_t errlen);
/* The same for the recording at path (rec_open(), session_read()). */
int session_decode(const char *path, struct session *d, struct tool *t,
		   uint64_t *produced, char *err, size_t errlen);
/* The same from buf, which nobody else may write while it is read. */
int session_decode_buf(const unsigned char *buf, size_t size, struct session *d,
		       struct tool *t, uint64_t *produced, char *err, size_t errlen);

/*
 * What d learnt since the last call (learnt.c: live, what the learner
 * thread, the side-band and the decoding found), handed to t in the
 * order it was learnt: the recorder writes it before the samples that
 * follow.  From the one thread that writes the samples.
 */
void session_forward_learnt(struct session *d, struct tool *t);

/*
 * The tool that prints each record as the decoder's options say (text,
 * JSON, folded stacks): script's, report's and -i's; with --threads its
 * samples are printed by the pool's threads.
 */
struct printer {
	struct tool tool;
	struct session *d;
};
void printer_init(struct printer *p, struct session *d);
/* rec_decode(): session_decode() with a printer, the tests' shortcut */
int rec_decode(const char *path, struct session *d, uint64_t *produced,
	       char *err, size_t errlen);
int rec_decode_buf(const unsigned char *buf, size_t size, struct session *d,
		   uint64_t *produced, char *err, size_t errlen);

#endif
