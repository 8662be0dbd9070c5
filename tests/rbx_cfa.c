/*
 * A caller whose CFA is rbx-based, as glibc's _dl_runtime_resolve_xsave
 * (push rbx; mov rsp, rbx; align rsp; call _dl_fixup), calling a leaf
 * that never saves rbx and spins: wherever a snapshot stops it, the
 * leaf's row has no rule for rbx, and only the psABI's "rbx is
 * callee-saved" finds the caller's CFA.  Prints main's address, then
 * calls them; the host tests snapshot it (mksnap) and unwind it.
 */
#include <stdio.h>

void rbx_caller(void);

__asm__(".text\n"
	".globl rbx_leaf\n"
	".type rbx_leaf, @function\n"
	"rbx_leaf:\n"
	"	.cfi_startproc\n"
	"1:	pause\n"
	"	jmp 1b\n"
	"	.cfi_endproc\n"
	".size rbx_leaf, .-rbx_leaf\n"
	".globl rbx_caller\n"
	".type rbx_caller, @function\n"
	"rbx_caller:\n"
	"	.cfi_startproc\n"
	"	push %rbx\n"
	"	.cfi_def_cfa_offset 16\n"
	"	.cfi_offset %rbx, -16\n"
	"	mov %rsp, %rbx\n"
	"	.cfi_def_cfa_register %rbx\n"
	"	and $-64, %rsp\n"
	"	sub $512, %rsp\n"
	"	call rbx_leaf\n"
	"	mov %rbx, %rsp\n"
	"	.cfi_def_cfa_register %rsp\n"
	"	pop %rbx\n"
	"	.cfi_def_cfa_offset 8\n"
	"	ret\n"
	"	.cfi_endproc\n"
	".size rbx_caller, .-rbx_caller\n");

int main(void)
{
	printf("main %p\n", (void *)main);
	fflush(stdout);
	rbx_caller();
	return 0;
}
