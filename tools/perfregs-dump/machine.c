// SPDX-License-Identifier: GPL-2.0
/*
 * What is known of the sampled machine (struct machine, types.h) as a
 * whole: its parts, from the top down, and their end.
 *
 *   machine   the processes and files seen, the kernel's symbols
 *   proc      a process's address space over time, a version per
 *             side-band event (aspace.c; the threads of a process share
 *             it), or as /proc/PID/maps showed it (maps.c)
 *   maps      a version: the executable mappings (struct task_maps),
 *             each a map of part of a file (struct mapping) at an address
 *   dso       a file by identity, build-id else device and inode, with
 *             its symbols (dso.c) and CFI rows (cfi.c); where it is read
 *             from here (files.c); an executable's ELF facts (images.c);
 *             a vDSO image (vdso.c)
 *   ksyms     the kernel's symbols (ksyms.c)
 *   jitmap    JIT code's names from perf maps (jitmap.c)
 */
#include <pthread.h>
#include "images.h"
#include "vdso.h"
#include "dso.h"
#include "inline.h"
#include "aspace.h"
#include "maps.h"
#include "files.h"
#include "ksyms.h"
#include "jitmap.h"
#include "learnt.h"
#include "diag.h"
#include "machine.h"

/*
 * Everything its parts made, each freed by its own part: the vDSO
 * memfds, the Dwfls per file, then the deleted files held open.
 */
void machine_free(struct machine *mach)
{
	images_free(mach);
	spaces_free(mach);
	blobs_free(mach);
	inlines_free(mach);
	dsos_free(mach);
	maps_free(mach);
	ksyms_free(mach);
	jitmap_free(mach);
	files_free(mach);
	learnt_free(mach);
	diag_free(mach);
	if (mach->live)	/* the learner has stopped: nobody holds it */
		pthread_mutex_destroy(&mach->learn_lock);
}
