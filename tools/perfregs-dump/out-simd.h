/* SPDX-License-Identifier: GPL-2.0 */
/* out-simd.c: a sample's SIMD section, checked, and written as text and JSON. */
#ifndef PERFREGS_DUMP_OUT_SIMD_H
#define PERFREGS_DUMP_OUT_SIMD_H

#include <stddef.h>
#include "types.h"

/*
 * The most a SIMD section takes in either format: JSON's 16 xmm, 16 ymm
 * and 32 zmm (each "name":"0x" and its digits), k0-k7, mxcsr.
 */
#define SIMD_TEXT_MAX	8192

/*
 * The SIMD section at p, of at most avail bytes, of a sample of ABI abi:
 * is it what its header says?  Where its components lie into *v, its
 * size into *len.
 */
bool simd_fits(const unsigned char *p, size_t avail, uint32_t abi,
	       struct sample_simd *v, size_t *len);
/* It (checked by simd_fits()) at p, at most SIMD_TEXT_MAX bytes; the end. */
char *out_simd(char *p, enum out_format fmt, const struct sample_simd *v);

#endif
