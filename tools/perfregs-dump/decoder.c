// SPDX-License-Identifier: GPL-2.0
/*
 * The decoder as a whole, its top layer: the only file that knows what
 * every module keeps in a struct decoder.
 */
#include <pthread.h>
#include "types.h"
#include "images.h"
#include "vdso.h"
#include "symbols.h"
#include "usyms.h"
#include "aspace.h"
#include "unwind.h"
#include "folded.h"
#include "rec-read.h"
#include "learnt.h"
#include "diag.h"
#include "decoder.h"

/*
 * Everything the modules made for d, each freed by its own module.  Files
 * are closed in the order they always were: the vDSO memfds, then the
 * unwinders' Dwfls, then the Dwfls per file (usyms_free()) and the
 * deleted files held open (symbols_free()).
 */
void decoder_free(struct decoder *d)
{
	images_free(&d->m);
	spaces_free(&d->m);
	blobs_free(&d->m);
	unwind_free(d);
	usyms_free(&d->m);
	symbols_free(&d->m);
	folded_free(d);
	rec_info_free(&d->info);
	learnt_free(&d->m);
	diag_free(&d->m);
	if (d->m.live)	/* the learner has stopped: nobody holds it */
		pthread_mutex_destroy(&d->m.learn_lock);
}
