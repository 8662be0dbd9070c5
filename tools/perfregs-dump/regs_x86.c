// SPDX-License-Identifier: GPL-2.0
/*
 * Register names of the three x86 user ABIs, by perfregs register id:
 * perf's numbering, then perfregs' own past it (the FS and GS base, ABI
 * minor 1), named alike in every ABI.
 */
#include "types.h"
#include "regs_x86.h"

static const char *const names64[PERFREGS_REG_EXT_MAX] = {
	"rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp", "rsp",
	"rip", "rflags", "cs", "ss", "ds", "es", "fs", "gs",
	"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15",
	[PERFREGS_REG_FS_BASE] = "fs_base", [PERFREGS_REG_GS_BASE] = "gs_base",
};

/* r8-r15 are no registers of a 32-bit frame: NULL */
static const char *const names32[PERFREGS_REG_EXT_MAX] = {
	"eax", "ebx", "ecx", "edx", "esi", "edi", "ebp", "esp",
	"eip", "eflags", "cs", "ss", "ds", "es", "fs", "gs",
	[PERFREGS_REG_FS_BASE] = "fs_base", [PERFREGS_REG_GS_BASE] = "gs_base",
};

/*
 * The name table of a layout (count entries, NULL for a register the
 * layout has not), or NULL if it has none.
 */
const char *const *reg_names(enum layout layout, int *count)
{
	switch (layout) {
	case LAYOUT_X86_64:
	case LAYOUT_X32:
		*count = PERFREGS_REG_EXT_MAX;
		return names64;
	case LAYOUT_I386:
		*count = PERFREGS_REG_EXT_MAX;
		return names32;
	default:
		*count = 0;
		return NULL;
	}
}

/* The FS and GS base: an address of the task's, 64 bits in every ABI. */
bool reg_is_base(int reg)
{
	return reg == PERFREGS_REG_FS_BASE || reg == PERFREGS_REG_GS_BASE;
}
