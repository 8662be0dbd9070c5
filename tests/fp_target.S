/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A function whose CFI the host tests know exactly: from fp_body on,
 * the CFA is %rbp + 16, so an unwinder reads the return address at
 * [%rbp + 8] and the caller's %rbp at [%rbp].  A sample there with a
 * frame pointer outside its stack snapshot makes the unwinder read
 * both words from whatever file is mapped at %rbp.
 */
	.text
	.globl	fp_target
	.type	fp_target, @function
fp_target:
	.cfi_startproc
	pushq	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset %rbp, -16
	movq	%rsp, %rbp
	.cfi_def_cfa_register %rbp
	.globl	fp_body
fp_body:
	nop
	popq	%rbp
	.cfi_def_cfa %rsp, 8
	ret
	.cfi_endproc
	.size	fp_target, .-fp_target

	.globl	main
	.type	main, @function
main:
	.cfi_startproc
	subq	$8, %rsp
	.cfi_def_cfa_offset 16
	call	fp_target
	xorl	%eax, %eax
	addq	$8, %rsp
	.cfi_def_cfa_offset 8
	ret
	.cfi_endproc
	.size	main, .-main
	.section .note.GNU-stack,"",@progbits
