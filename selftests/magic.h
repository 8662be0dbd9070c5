/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Magic register values for the perfregs workloads and selftests.
 *
 * The workloads (magic.c, mixed.c) spin in a tight loop holding these
 * values in registers; a test samples the workload's user registers and
 * checks them one by one against this table.  Usable from C built -m64,
 * -m32 and -mx32 (only integer constants, no types).
 *
 * 64-bit values (x86_64 and x32 builds: rbx, rbp, r12-r15):
 *   upper half = ASCII 'M' + register name ("Mrbx" = 0x4d726278),
 *   lower half = 0xc0de00NN, NN = the register's x86_64 DWARF number.
 * They are non-canonical addresses (bits 63..47 not all equal), so they
 * cannot be pointers, and the two halves differ, so truncation to 32 bits,
 * or a swap of the halves, shows.
 *
 * 32-bit values (i386 build and the mixed-mode workload: ebx, esi, edi,
 * ebp): 0xeXc0de0N, X = b (ebx), 5 (esi), d (edi), f (ebp: frame), N = the
 * register's i386 DWARF number.  None equals the lower half of a 64-bit one.
 */
#ifndef PERFREGS_SELFTESTS_MAGIC_H
#define PERFREGS_SELFTESTS_MAGIC_H

#define MAGIC64_RBX	0x4d726278c0de0003ULL	/* "Mrbx", DWARF 3 */
#define MAGIC64_RBP	0x4d726270c0de0006ULL	/* "Mrbp", DWARF 6 */
#define MAGIC64_R12	0x4d723132c0de000cULL	/* "Mr12", DWARF 12 */
#define MAGIC64_R13	0x4d723133c0de000dULL	/* "Mr13", DWARF 13 */
#define MAGIC64_R14	0x4d723134c0de000eULL	/* "Mr14", DWARF 14 */
#define MAGIC64_R15	0x4d723135c0de000fULL	/* "Mr15", DWARF 15 */

#define MAGIC32_EBX	0xebc0de03U		/* DWARF 3 */
#define MAGIC32_ESI	0xe5c0de06U		/* DWARF 6 */
#define MAGIC32_EDI	0xedc0de07U		/* DWARF 7 */
#define MAGIC32_EBP	0xefc0de05U		/* DWARF 5 */

#endif /* PERFREGS_SELFTESTS_MAGIC_H */

/*
 * The extended magic values of xmagic.c (x86_64 and i386 builds) and of
 * mixed.c's 32-bit side: vector registers, selectors and bases.
 *
 * xmm n (n = 0..15, 0..7 for 32-bit code): low quadword "Mxmm" c0de 00nn,
 * high quadword "XMMh" c0de 00nn; the upper half of ymm n: bits 128-191
 * "Mymm" c0de 00nn, bits 192-255 "YMMh" c0de 00nn.
 */
#define MAGIC_XMM_LO(n)	(0x4d786d6dc0de0000ULL | (n))
#define MAGIC_XMM_HI(n)	(0x584d4d68c0de0000ULL | (n))
#define MAGIC_YMM_LO(n)	(0x4d796d6dc0de0000ULL | (n))
#define MAGIC_YMM_HI(n)	(0x594d4d68c0de0000ULL | (n))

/*
 * Bases and selectors.  x86_64: the FS and GS base set with arch_prctl()
 * ("Mfsbas", "Mgsbas": canonical user addresses, never dereferenced),
 * ds and es loaded with flat data segments of the task's LDT.  i386: ds
 * and es likewise, fs with an LDT data segment whose base is
 * MAGIC32_FS_BASE ("Mfsb"); gs stays glibc's TLS segment.
 */
#define MAGIC64_FS_BASE	0x00004d6673626173ULL
#define MAGIC64_GS_BASE	0x00004d6773626173ULL
#define MAGIC32_FS_BASE	0x4d667362U
#define MAGIC_LDT_ES	0	/* LDT entries: flat, base 0 */
#define MAGIC_LDT_DS	1
#define MAGIC_LDT_FS	2	/* base MAGIC32_FS_BASE */
/* a selector of LDT entry n at privilege level 3 */
#define MAGIC_LDT_SEL(n)	((n) << 3 | 4 | 3)
