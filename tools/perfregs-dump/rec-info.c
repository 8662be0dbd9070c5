// SPDX-License-Identifier: GPL-2.0
/*
 * What a recording says of itself (its ITEM_INFO): the samples' event,
 * the kernel and machine it was made on, its command line; each value
 * checked, for the file is anyone's.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rec-read.h"

/* value is 1 to max - 1 printable ASCII characters, no space: into dst */
static bool info_word(char *dst, size_t max, const char *value, size_t n)
{
	size_t i;

	for (i = 0; i < n && value[i] > ' ' && value[i] < 0x7f; i++)
		;
	if (i != n || !n || n >= max)
		return false;
	memcpy(dst, value, n);
	dst[n] = 0;
	return true;
}

/* value is printable ASCII, spaces too, shorter than max: into dst */
static void info_text_value(char *dst, size_t max, const char *value, size_t n)
{
	size_t i;

	for (i = 0; i < n && value[i] >= ' ' && value[i] < 0x7f; i++)
		;
	if (i == n && n < max) {
		memcpy(dst, value, n);
		dst[n] = 0;
	}
}

/*
 * A word of the recording's command line.  Its bytes go into perf.data's
 * CMDLINE, which perf prints to terminals: control bytes become '?',
 * and a word is at most REC_ARG_MAX bytes.
 */
static void info_arg(struct rec_info *in, const char *value, size_t n)
{
	char **args, *a;
	size_t i;

	if (in->nargs >= REC_ARGS_MAX || n > REC_ARG_MAX)
		return;
	args = realloc(in->args, (in->nargs + 1) * sizeof(*args));
	if (!args)
		return;
	in->args = args;
	a = malloc(n + 1);
	if (!a)
		return;
	for (i = 0; i < n; i++)
		a[i] = (unsigned char)value[i] < ' ' || value[i] == 0x7f ? '?' : value[i];
	a[n] = 0;
	in->args[in->nargs++] = a;
}

/*
 * The strings of an ITEM_INFO in [p, end) into *in: the samples' event
 * name into event_name (a
 * name of 1 to 63 printable ASCII characters, no space; anything else,
 * or none, is "unknown", and is not printed), and what convert puts in
 * perf.data's header.  The file is anyone's: a value that does not
 * parse is left out, the first of a key counts, args are at most
 * REC_ARGS_MAX (the item's size bounds their bytes).
 */
void rec_info_parse(struct rec_info *in, char *event_name, size_t event_len,
		    const char *p, const char *end)
{
	size_t n;

	for (; p < end; p += n + 1) {
		const char *v;
		size_t vn;

		n = strnlen(p, end - p);
		if (n == (size_t)(end - p))
			break;		/* no NUL: no string */
		v = memchr(p, '=', n);
		if (!v)
			continue;
		v++;
		vn = n - (size_t)(v - p);
		if (!strncmp(p, "event=", 6) && !in->event_seen) {
			in->event_seen = true;
			if (!info_word(event_name, event_len, v, vn))
				event_name[0] = 0;
		} else if (!strncmp(p, "kernel=", 7) && !in->release[0]) {
			info_word(in->release, sizeof(in->release), v, vn);
		} else if (!strncmp(p, "machine=", 8) && !in->machine[0]) {
			info_word(in->machine, sizeof(in->machine), v, vn);
		} else if (!strncmp(p, "nrcpus=", 7) && !in->nrcpus_conf) {
			unsigned int c, o;
			char tail;

			if (vn < 24 && sscanf(v, "%u,%u%c", &c, &o, &tail) == 2 &&
			    c && o && o <= c && c <= 1U << 16) {
				in->nrcpus_conf = c;
				in->nrcpus_online = o;
			}
		} else if (!strncmp(p, "kernel_build_id=", 16) && !in->kbuild_id_len) {
			unsigned int i, x;

			for (i = 0; vn % 2 == 0 && vn <= 40 && i < vn / 2; i++) {
				if (!isxdigit((unsigned char)v[2 * i]) ||
				    !isxdigit((unsigned char)v[2 * i + 1]) ||
				    sscanf(v + 2 * i, "%2x", &x) != 1)
					break;
				in->kbuild_id[i] = (uint8_t)x;
			}
			if (vn && i == vn / 2)
				in->kbuild_id_len = (uint8_t)i;
		} else if (!strncmp(p, "kernel_text=", 12) && !in->kernel_text) {
			char *e;
			uint64_t t;

			errno = 0;
			t = strtoull(v, &e, 16);
			if (!errno && e == v + vn && vn > 2 && v[0] == '0' && v[1] == 'x' &&
			    t >= 0xffff800000000000ULL && t < 0xffffffffff000000ULL)
				in->kernel_text = t;
		} else if (!strncmp(p, "arg=", 4)) {
			info_arg(in, v, vn);
		} else if (!strncmp(p, "version=", 8) && !in->version[0]) {
			info_word(in->version, sizeof(in->version), v, vn);
		} else if (!strncmp(p, "host=", 5) && !in->host[0]) {
			info_word(in->host, sizeof(in->host), v, vn);
		} else if (!strncmp(p, "cpuid=", 6) && !in->cpuid[0]) {
			info_word(in->cpuid, sizeof(in->cpuid), v, vn);
		} else if (!strncmp(p, "cpudesc=", 8) && !in->cpudesc[0]) {
			info_text_value(in->cpudesc, sizeof(in->cpudesc), v, vn);
		} else if (!strncmp(p, "mem_kb=", 7) && !in->mem_kb) {
			char *e;

			errno = 0;
			in->mem_kb = strtoull(v, &e, 10);
			if (errno || e != v + vn || !isdigit((unsigned char)v[0]))
				in->mem_kb = 0;
		}
	}
	if (!event_name[0])
		snprintf(event_name, event_len, "unknown");
}

void rec_info_free(struct rec_info *in)
{
	unsigned int i;

	for (i = 0; i < in->nargs; i++)
		free(in->args[i]);
	free(in->args);
	memset(in, 0, sizeof(*in));
}
