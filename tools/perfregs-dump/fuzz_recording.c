// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the recording reader must reject or decode any input
 * without a crash, a leak or undefined behaviour, and so must convert
 * --to pprof's tables of what it decodes (a quarter of the inputs, to
 * /dev/null).  Symbols and unwinding stay off so that paths inside the
 * input never reach the file system.  Half of the others are printed by
 * two worker threads (--threads 2, pool.c).
 */
#include <stdio.h>
#include <string.h>
#include "types.h"
#include "recording.h"
#include "folded.h"
#include "flame.h"
#include "pprof.h"
#include "pool.h"
#include "decoder.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	static FILE *null;
	struct perfregs_config cfg;
	struct pprof *pp = NULL;
	struct decoder d;
	uint64_t produced;
	char err[256];

	if (!null)
		null = fopen("/dev/null", "w");
	memset(&d, 0, sizeof(d));
	d.out = null;
	d.o.format = size % 3 == 2 ? FMT_FOLDED : size % 3 ? FMT_JSON : FMT_TEXT;
	d.o.event_name = "fuzz";
	if (size % 4 == 3) {
		prf_config_default(&cfg);
		cfg.event = size % 8 == 7 ? PERFREGS_EV_CYCLES : PERFREGS_EV_CPU_CLOCK;
		pp = pprof_begin(&d, &cfg, "/dev/null", err, sizeof(err));
	} else if (size % 2) {
		d.pool = pool_start(&d, 2);
	}
	rec_decode_buf(data, size, &d, &produced, err, sizeof(err));
	pool_end(&d);
	if (pp) {
		pprof_write(pp, err, sizeof(err));
		pprof_free(pp);
	} else if (d.o.format == FMT_FOLDED) {
		flame_print(&d, null);	/* its names are the input's bytes */
		folded_print(&d, null);
	}
	decoder_free(&d);
	return 0;
}
