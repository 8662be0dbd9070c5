// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the recording reader must reject or decode any input
 * without a crash, a leak or undefined behaviour, and so must convert
 * --to pprof's tables of what it decodes (a quarter of the inputs, to
 * /dev/null).  Half of the others are printed by two worker threads
 * (--threads 2, pool.c).  Half of all inputs (those of 4k and 4k + 1
 * bytes: a whole recording, as the seeds, by one thread, and by two)
 * have symbols and --call-graph dwarf, under a --symfs that does not
 * exist, so that the paths inside the input never reach the file
 * system: they unwind through the vDSO images the input holds (memfds;
 * mkunwind makes a seed with one), and the fast path (CFI rows,
 * stack_word(), the frame pointer steps) and libdwfl see the input's
 * registers and stacks.  (A build-id in it may name a file under
 * /usr/lib/debug/.build-id, which is read.)  No debuginfod server is
 * ever asked: the decoder asks none without --debuginfod (debuginfo.c),
 * and $DEBUGINFOD_URLS is taken out of the environment before the
 * first input, so that llvm-symbolizer, which libFuzzer starts to name
 * the functions an input reaches first, asks none either.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "types.h"
#include "session.h"
#include "folded.h"
#include "flame.h"
#include "pprof.h"
#include "pool.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	unsetenv("DEBUGINFOD_URLS");
	return 0;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	static FILE *null;
	struct perfregs_config cfg;
	struct pprof *pp = NULL;
	struct session d;
	uint64_t produced;
	char err[256];

	if (!null)
		null = fopen("/dev/null", "w");
	memset(&d, 0, sizeof(d));
	d.out = null;
	d.o.format = size % 3 == 2 ? FMT_FOLDED : size % 3 ? FMT_JSON : FMT_TEXT;
	d.o.event_name = "fuzz";
	if (!(size & 2)) {
		d.o.symbols = true;
		d.o.callgraph = true;
		d.o.symfs = "/nonexistent/perfregs-fuzz";
		d.m.symfs = d.o.symfs;
	}
	if (size % 4 == 3) {
		prf_config_default(&cfg);
		cfg.event = size % 8 == 7 ? PERFREGS_EV_CYCLES : PERFREGS_EV_CPU_CLOCK;
		pp = pprof_begin(&d, &cfg, "/dev/null", err, sizeof(err));
	} else if (size % 2) {
		d.pool = pool_start(&d, 2);
	}
	if (pp)
		session_decode_buf(data, size, &d, pprof_tool(pp), &produced, err, sizeof(err));
	else
		rec_decode_buf(data, size, &d, &produced, err, sizeof(err));
	pool_end(&d);
	if (pp) {
		pprof_write(pp, err, sizeof(err));
		pprof_free(pp);
	} else if (d.o.format == FMT_FOLDED) {
		flame_print(&d, null);	/* its names are the input's bytes */
		folded_print(&d, null);
	}
	session_free(&d);
	return 0;
}
