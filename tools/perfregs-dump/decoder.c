// SPDX-License-Identifier: GPL-2.0
/*
 * The session as a whole (struct decoder): its end, the one place that
 * knows what each part keeps in it.
 */
#include <pthread.h>
#include "types.h"
#include "machine.h"
#include "unwind.h"
#include "folded.h"
#include "rec-read.h"
#include "decoder.h"

/*
 * Everything the session made: its unwinders (their Dwfls first), its
 * stacks, the recording's facts, then the machine.
 */
void decoder_free(struct decoder *d)
{
	unwind_free(d);
	folded_free(d);
	rec_info_free(&d->info);
	machine_free(&d->m);
}
