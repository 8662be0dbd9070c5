/* SPDX-License-Identifier: GPL-2.0 */
/* perfregs: kernel call chains, walked at sample time (kchain.c). */
#ifndef PERFREGS_KCHAIN_H
#define PERFREGS_KCHAIN_H

#include <linux/types.h>
#include <linux/perfregs.h>

struct pt_regs;
struct prf_handle;

int prf_kchain_init(void);
void prf_kchain_exit(void);

/*
 * One sample's kernel call chain: prf_kchain_take() walks it from @regs
 * (the registers the interrupt, or the perf core, handed over) into a
 * per-CPU slot of its own, at most @max entries; the section then takes
 * prf_kchain_size() bytes.  prf_kchain_write() copies it into the ring,
 * prf_kchain_put() gives the slot back; put must follow every take,
 * innermost first (the slots nest as the samples do).
 */
struct prf_kchain {
	u64 *ips;		/* the slot's entries, NULL: none taken */
	u32 nr;
	u32 status;		/* PERFREGS_KCHAIN_* */
	bool slot_held;
};

void prf_kchain_take(struct prf_kchain *kc, struct pt_regs *regs, u32 max);
void prf_kchain_write(struct prf_handle *h, const struct prf_kchain *kc);
void prf_kchain_put(struct prf_kchain *kc);

/* Bytes of the section of a chain of @nr entries. */
static inline u32 prf_kchain_size(u32 nr)
{
	return sizeof(struct perfregs_rec_kchain) + 8 * nr;
}

#endif /* PERFREGS_KCHAIN_H */
