// SPDX-License-Identifier: GPL-2.0
/*
 * A sample's sections checked against its size, in their order: the
 * registers, the SIMD section, the kernel call chain, the user stack,
 * the user call chain, and the tail of a newer module's sections,
 * skipped.
 */
#include <string.h>
#include "types.h"
#include "out-simd.h"
#include "sections.h"

/*
 * The sample flags this reader knows, those of the sections it parses
 * among them.  From ABI minor 2 on, a sample whose flags hold a bit not
 * known here may be longer than the sections known here: later sections
 * come after the stack, and are skipped (sample_fits()).
 */
#define SF_KNOWN	((PERFREGS_SF_UCHAIN << 1) - 1)
#define KCHAIN_KNOWN	(PERFREGS_KCHAIN_TRUNCATED | PERFREGS_KCHAIN_UNRELIABLE | \
			 PERFREGS_KCHAIN_NESTED)
#define UCHAIN_KNOWN	(PERFREGS_UCHAIN_TRUNCATED | PERFREGS_UCHAIN_FAULT | \
			 PERFREGS_UCHAIN_BAD_FRAME | PERFREGS_UCHAIN_NESTED)

/*
 * The call chain section at p (kernel or user: one shape), of at most
 * avail bytes: within them, and no longer than max, the most the kernel
 * makes one?  Into *kc (the status bits of known; the others are a
 * newer module's, ignored), its size into *len.
 */
static bool chain_fits(const unsigned char *p, size_t avail, uint32_t max, uint32_t known,
		       struct sample_kchain *kc, size_t *len)
{
	struct perfregs_rec_kchain h;

	if (avail < sizeof(h))
		return false;
	memcpy(&h, p, sizeof(h));
	if (h.nr > max || (avail - sizeof(h)) / 8 < h.nr)
		return false;
	kc->ips = (const uint64_t *)(p + sizeof(h));
	kc->nr = h.nr;
	kc->status = h.status & known;
	*len = sizeof(h) + 8 * (size_t)h.nr;
	return true;
}

/*
 * The sections of s before its stack, in their order (registers, SIMD,
 * kernel call chain), within size bytes: where they lie into st, the
 * bytes they take into *need.
 */
static bool sample_head(const struct perfregs_rec_sample *s, size_t size,
			struct sample_stack *st, size_t *need)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t len;

	/* the FS and GS base are user registers only */
	if ((s->iregs_mask & ~PERFREGS_MASK_64) ||
	    (s->uregs_mask & ~(PERFREGS_MASK_64 | PERFREGS_MASK_BASES)))
		return false;
	*need = sizeof(*s) + 8 * (prf_popcount(s->iregs_mask) + prf_popcount(s->uregs_mask));
	if (size < *need)
		return false;
	if (s->flags & PERFREGS_SF_SIMD) {
		if (!simd_fits(p + *need, size - *need, s->abi, &st->simd, &len))
			return false;
		*need += len;
	}
	if (s->flags & PERFREGS_SF_KCHAIN) {
		if (!chain_fits(p + *need, size - *need, PERFREGS_MAX_KCHAIN, KCHAIN_KNOWN,
				&st->kchain, &len))
			return false;
		*need += len;
	}
	return true;
}

/*
 * Is a sample of size bytes (its header's, read once by the caller) what
 * its masks and flags say, to the byte?  Its sections into *st.  Longer
 * only when its flags hold a bit this reader does not know (ABI minor
 * 2's rule): what follows the sections known here is a newer module's,
 * skipped, in whole 8-byte words.
 */
bool sample_fits(const struct perfregs_rec_sample *s, size_t size,
			struct sample_stack *st)
{
	const unsigned char *p = (const unsigned char *)s;
	uint64_t stack_len;
	size_t need;

	memset(st, 0, sizeof(*st));
	if (size < sizeof(*s) || !sample_head(s, size, st, &need))
		return false;
	if (s->flags & PERFREGS_SF_STACK) {
		if (size < need + 16)
			return false;
		memcpy(&stack_len, p + need, sizeof(stack_len));
		if (stack_len > PERFREGS_MAX_STACK_BYTES || stack_len % 8 ||
		    size < need + 16 + stack_len)
			return false;
		st->data = p + need + 8;
		st->size = stack_len;
		memcpy(&st->copied, st->data + stack_len, sizeof(st->copied));
		if (st->copied > stack_len)
			return false;
		need += 16 + stack_len;
	}
	if (s->flags & PERFREGS_SF_UCHAIN) {
		size_t len;

		if (!chain_fits(p + need, size - need, PERFREGS_MAX_UCHAIN, UCHAIN_KNOWN,
				&st->uchain, &len))
			return false;
		need += len;
	}
	return size == need ||
	       (size > need && (s->flags & ~SF_KNOWN) && (size - need) % 8 == 0);
}

bool sample_kchain_of(const struct perfregs_rec_sample *s, size_t avail,
		      struct sample_kchain *kc)
{
	struct sample_stack st;
	size_t need;

	memset(&st, 0, sizeof(st));
	*kc = st.kchain;
	if (avail < sizeof(*s) || !(s->flags & PERFREGS_SF_KCHAIN) ||
	    !sample_head(s, avail, &st, &need))
		return false;
	*kc = st.kchain;
	return true;
}
