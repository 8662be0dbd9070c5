/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perfregs: call chains walked at sample time, the kernel's (chain.c)
 * and the user's through its frame pointers (uchain.c).
 */
#ifndef PERFREGS_CHAIN_H
#define PERFREGS_CHAIN_H

#include <linux/types.h>
#include <linux/perfregs.h>

struct pt_regs;
struct prf_handle;

int prf_chain_init(void);
void prf_chain_exit(void);

/*
 * One sample's call chains: prf_chain_take() takes a per-CPU slot of its
 * own for them (none when samples nest deeper than the slots: both
 * chains then say NESTED), prf_kchain_walk() and prf_uchain_walk() walk
 * into it, prf_kchain_write() and prf_uchain_write() copy the sections
 * (prf_chain_size() bytes each) into the ring, prf_chain_put() gives
 * the slot back; put must follow every take, innermost first (the slots
 * nest as the samples do).
 */
struct prf_chain {
	u64 *slot;		/* NULL: none taken */
	u32 knr;		/* kernel entries, at slot[0] */
	u32 kstatus;		/* PERFREGS_KCHAIN_* */
	u32 unr;		/* user entries, at slot[PERFREGS_MAX_KCHAIN] */
	u32 ustatus;		/* PERFREGS_UCHAIN_* */
	bool slot_held;
};

void prf_chain_take(struct prf_chain *c);
void prf_chain_put(struct prf_chain *c);
void prf_kchain_walk(struct prf_chain *c, struct pt_regs *regs, u32 max);
void prf_uchain_walk(struct prf_chain *c, struct pt_regs *uregs, bool is32,
		     u32 max);
void prf_kchain_write(struct prf_handle *h, const struct prf_chain *c);
void prf_uchain_write(struct prf_handle *h, const struct prf_chain *c);

/* Bytes of a chain section (kernel or user) of @nr entries. */
static inline u32 prf_chain_size(u32 nr)
{
	BUILD_BUG_ON(sizeof(struct perfregs_rec_kchain) !=
		     sizeof(struct perfregs_rec_uchain));
	return sizeof(struct perfregs_rec_kchain) + 8 * nr;
}

#endif /* PERFREGS_CHAIN_H */
