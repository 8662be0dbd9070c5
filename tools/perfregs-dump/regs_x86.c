// SPDX-License-Identifier: GPL-2.0
/* Register names of the three x86 user ABIs, by perfregs register id. */
#include "types.h"
#include "regs_x86.h"

static const char *const names64[PERFREGS_REG_MAX] = {
	"rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp", "rsp",
	"rip", "rflags", "cs", "ss", "ds", "es", "fs", "gs",
	"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15",
};

static const char *const names32[PERFREGS_REG_R8] = {
	"eax", "ebx", "ecx", "edx", "esi", "edi", "ebp", "esp",
	"eip", "eflags", "cs", "ss", "ds", "es", "fs", "gs",
};

/* The name table of a layout (count entries), or NULL if it has none. */
const char *const *reg_names(enum layout layout, int *count)
{
	switch (layout) {
	case LAYOUT_X86_64:
	case LAYOUT_X32:
		*count = PERFREGS_REG_MAX;
		return names64;
	case LAYOUT_I386:
		*count = PERFREGS_REG_R8;
		return names32;
	default:
		*count = 0;
		return NULL;
	}
}
