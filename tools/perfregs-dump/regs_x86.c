// SPDX-License-Identifier: GPL-2.0
/* Register names of the three x86 user ABIs, by perfregs register id. */
#include "dump.h"

static const char *const names64[PERFREGS_REG_MAX] = {
	"rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp", "rsp",
	"rip", "rflags", "cs", "ss", "ds", "es", "fs", "gs",
	"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15",
};

static const char *const names32[PERFREGS_REG_R8] = {
	"eax", "ebx", "ecx", "edx", "esi", "edi", "ebp", "esp",
	"eip", "eflags", "cs", "ss", "ds", "es", "fs", "gs",
};

bool reg_in_layout(enum layout layout, int reg)
{
	switch (layout) {
	case LAYOUT_X86_64:
	case LAYOUT_X32:
		return reg >= 0 && reg < PERFREGS_REG_MAX;
	case LAYOUT_I386:
		return reg >= 0 && reg < PERFREGS_REG_R8;
	default:
		return false;
	}
}

const char *reg_name(enum layout layout, int reg)
{
	if (!reg_in_layout(layout, reg))
		return NULL;
	return layout == LAYOUT_I386 ? names32[reg] : names64[reg];
}
