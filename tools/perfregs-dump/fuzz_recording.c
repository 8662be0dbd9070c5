// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the recording reader must reject or decode any input
 * without a crash, a leak or undefined behaviour.  Symbols stay off so
 * that paths inside the input never reach the file system.
 */
#include <stdio.h>
#include <string.h>
#include "types.h"
#include "recording.h"
#include "folded.h"
#include "flame.h"
#include "decoder.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	static FILE *null;
	struct decoder d;
	uint64_t produced;
	char err[256];

	if (!null)
		null = fopen("/dev/null", "w");
	memset(&d, 0, sizeof(d));
	d.out = null;
	d.o.format = size % 3 == 2 ? FMT_FOLDED : size % 3 ? FMT_JSON : FMT_TEXT;
	d.o.event_name = "fuzz";
	rec_decode_buf(data, size, &d, &produced, err, sizeof(err));
	if (d.o.format == FMT_FOLDED) {
		flame_print(&d, null);	/* its names are the input's bytes */
		folded_print(&d, null);
	}
	decoder_free(&d);
	return 0;
}
