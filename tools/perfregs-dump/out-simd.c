// SPDX-License-Identifier: GPL-2.0
/*
 * A sample's SIMD section (ABI minor 1): checked against the record it
 * lies in, and written as text and JSON, each register by its ABI's name.
 */
#include <inttypes.h>
#include <string.h>
#include "types.h"
#include "util.h"
#include "out-put.h"
#include "out-simd.h"

/*
 * The SIMD section at p, of at most avail bytes, of a sample of ABI abi:
 * is it what its header says, to the byte?  Where its components lie
 * into *v, its size into *len.  Its vectors are 16 (8 for a 32-bit
 * frame, as the ABI says), a known state has components and an unknown
 * one none, and its size is what they take: more only for components
 * of a newer module, which come after those known here and are left
 * out.
 */
bool simd_fits(const unsigned char *p, size_t avail, uint32_t abi,
	       struct sample_simd *v, size_t *len)
{
	struct perfregs_rec_simd h;
	size_t need = sizeof(h);

	if (avail < sizeof(h))
		return false;
	memcpy(&h, p, sizeof(h));
	if (h.size < sizeof(h) || h.size % 8 || h.size > avail ||
	    h.nr_vec != (abi == PERFREGS_ABI_64 ? 16U : abi == PERFREGS_ABI_32 ? 8U : 0U) ||
	    !h.components != !!h.unknown)
		return false;
	v->present = true;
	v->components = h.components & PERFREGS_SIMD_ALL;
	v->nr_vec = h.nr_vec;
	v->mxcsr = h.mxcsr;
	v->unknown = h.unknown;
	/* at most 24 + 16 * (16 + 16 + 32) + 16 * 64 + 64 bytes: no overflow */
	if (h.components & PERFREGS_SIMD_XMM) {
		v->xmm = p + need;
		need += 16 * h.nr_vec;
	}
	if (h.components & PERFREGS_SIMD_YMM) {
		v->ymmh = p + need;
		need += 16 * h.nr_vec;
	}
	if (h.components & PERFREGS_SIMD_ZMM) {
		v->zmmh = p + need;
		need += 32 * h.nr_vec;
		if (h.nr_vec == 16) {
			v->zmm16 = p + need;
			need += 16 * 64;
		}
	}
	if (h.components & PERFREGS_SIMD_OPMASK) {
		v->k = p + need;
		need += 8 * 8;
	}
	*len = h.size;
	return h.components & ~PERFREGS_SIMD_ALL ? need <= h.size : need == h.size;
}

/*
 * Is a sample of size bytes (its header's, read once by the caller) what
 * its masks and flags say, to the byte?  Its stack and its SIMD section
 * into *st.
 */
/* enum perfregs_simd_unknown, as the output names it */
static const char *const simd_unknown_names[] = {
	[PERFREGS_SIMD_UNKNOWN_SAVED] = "saved",
	[PERFREGS_SIMD_UNKNOWN_IRQS_OFF] = "irqs_off",
	[PERFREGS_SIMD_UNKNOWN_GUEST] = "guest",
	[PERFREGS_SIMD_UNKNOWN_NESTED] = "nested",
	[PERFREGS_SIMD_UNKNOWN_FPREGS_LOCKED] = "fpregs_locked",
};

/* A SIMD section being written (out_simd()). */
struct simd_out {
	char *p;
	enum out_format fmt;
	int shown;		/* items written */
	int col;		/* text: items on this line so far */
	int per_line;		/* text: items a line */
};

/* A text line of its own for what follows, per_line items wide. */
static void simd_line(struct simd_out *o, int per_line)
{
	if (o->fmt == FMT_JSON)
		return;
	o->p = put_lit(o->p, "\n         ");
	o->col = 0;
	o->per_line = per_line;
}

/*
 * The start of one register: its name (prefix, then n unless it is
 * negative, then suffix) and "0x", as JSON's "name":"0x or the text's
 * " %-6s 0x" on a line of per_line of them; the caller writes its digits
 * after, then simd_end().
 */
static char *simd_begin(struct simd_out *o, const char *prefix, int n, const char *suffix)
{
	char *p, *name;

	if (o->fmt == FMT_JSON) {
		p = o->p;
		if (o->shown)
			*p++ = ',';
		*p++ = '"';
	} else {
		if (o->col == o->per_line)
			simd_line(o, o->per_line);
		p = o->p;
		memcpy(p, "       ", 7);	/* names have at most 6 characters */
		p++;
	}
	name = p;
	p = put_str(p, prefix);
	if (n >= 0)
		p = put_dec(p, (uint64_t)n, 0, ' ', false);
	p = put_str(p, suffix);
	if (o->fmt == FMT_JSON)
		return put_lit(p, "\":\"0x");
	if (p < name + 6)
		p = name + 6;
	return put_lit(p, " 0x");
}

static void simd_end(struct simd_out *o, char *p)
{
	if (o->fmt == FMT_JSON)
		*p++ = '"';
	o->p = p;
	o->shown++;
	o->col++;
}

/*
 * A vector register: the bytes of its parts, most significant part
 * first, each little-endian (nparts of len[] bytes), most significant
 * digit first, every digit written.
 */
static void simd_vec(struct simd_out *o, const char *prefix, int n, const char *suffix,
		     const unsigned char *const *part, const unsigned int *len, int nparts)
{
	char *p = simd_begin(o, prefix, n, suffix);
	int i, j;

	for (i = 0; i < nparts; i++)
		for (j = (int)len[i] - 1; j >= 0; j--) {
			memcpy(p, hex_pairs[part[i][j]], 2);
			p += 2;
		}
	simd_end(o, p);
}

/* mxcsr, k0-k7: as the registers print, minimal in JSON, width digits in text. */
static void simd_scalar(struct simd_out *o, const char *prefix, int n, uint64_t v,
			int width)
{
	char *p = simd_begin(o, prefix, n, "");

	simd_end(o, put_hex(p, v, o->fmt == FMT_JSON ? 0 : width));
}

/*
 * A sample's SIMD section (checked by simd_fits()) at p, at most
 * SIMD_TEXT_MAX bytes: JSON's "simd" object, or the text's lines.  Each
 * vector register whole where the section has all of it (ymm n: the
 * upper half and xmm n; zmm n below 16: its upper half, ymm's and xmm
 * n), else the part it has (ymm0h, zmm0h: the upper halves, as gdb names
 * them); the text shows only the widest whole register of each number.
 * An unknown state: why.
 */
char *out_simd(char *p, enum out_format fmt, const struct sample_simd *v)
{
	struct simd_out o = { .p = p, .fmt = fmt };
	bool x = v->xmm, yw = v->ymmh && x, zw = v->zmmh && yw, text = fmt != FMT_JSON;
	const unsigned char *part[3];
	unsigned int n, len[3];

	if (fmt == FMT_JSON)
		o.p = put_lit(o.p, ",\"simd\":{");
	else
		o.p = put_lit(o.p, "\n    simd:");
	if (!v->components && v->unknown) {
		const char *why = v->unknown < sizeof(simd_unknown_names) /
					       sizeof(simd_unknown_names[0]) ?
				  simd_unknown_names[v->unknown] : NULL;

		o.p = put_str(o.p, text ? " unknown (" : "\"unknown\":\"");
		if (why)
			o.p = put_str(o.p, why);
		else
			o.p = put_dec(put_lit(o.p, "reason "), v->unknown, 0, ' ', false);
		*o.p++ = text ? ')' : '"';
		if (!text)
			*o.p++ = '}';
		return o.p;
	}
	o.per_line = 1;
	if (x)
		simd_scalar(&o, "mxcsr", -1, v->mxcsr, 8);
	if (x && !(text && yw)) {
		simd_line(&o, 2);
		for (n = 0; n < v->nr_vec; n++) {
			part[0] = v->xmm + 16 * n;
			len[0] = 16;
			simd_vec(&o, "xmm", (int)n, "", part, len, 1);
		}
	}
	if (v->ymmh && !(text && zw)) {
		simd_line(&o, yw ? 1 : 2);
		for (n = 0; n < v->nr_vec; n++) {
			part[0] = v->ymmh + 16 * n;
			part[1] = yw ? v->xmm + 16 * n : NULL;
			len[0] = len[1] = 16;
			simd_vec(&o, "ymm", (int)n, yw ? "" : "h", part, len, yw ? 2 : 1);
		}
	}
	if (v->zmmh) {
		simd_line(&o, 1);
		for (n = 0; n < v->nr_vec; n++) {
			part[0] = v->zmmh + 32 * n;
			part[1] = zw ? v->ymmh + 16 * n : NULL;
			part[2] = zw ? v->xmm + 16 * n : NULL;
			len[0] = 32;
			len[1] = len[2] = 16;
			simd_vec(&o, "zmm", (int)n, zw ? "" : "h", part, len, zw ? 3 : 1);
		}
		for (n = 0; v->zmm16 && n < 16; n++) {
			part[0] = v->zmm16 + 64 * n;
			len[0] = 64;
			simd_vec(&o, "zmm", 16 + (int)n, "", part, len, 1);
		}
	}
	if (v->k) {
		simd_line(&o, 4);
		for (n = 0; n < 8; n++) {
			uint64_t k;

			memcpy(&k, v->k + 8 * n, 8);
			simd_scalar(&o, "k", (int)n, k, 16);
		}
	}
	if (!text)
		*o.p++ = '}';
	return o.p;
}

/*
 * Text output goes to terminals: a comm, a symbol or a path comes from
 * the sampled system or a recording, anyone's, and each of its controls
 * (an ESC that starts a sequence, a CR that rewrites the line, a C1 CSI
 * as UTF-8 or as a byte of no UTF-8: safetext.c) is shown as one '?',
 * in place.  Its new length.  JSON escapes them, -f folded makes them '_'.
 */
