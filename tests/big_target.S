/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The program of mkbig's recordings: main calls big_f0, which calls
 * big_f1, and so on to big_f7.  Every function keeps a frame pointer:
 * from 4 bytes in (after push and mov) the CFA is %rbp + 16, and the
 * return address into a function is 10 bytes in (after nop and call),
 * so mkbig writes stacks that an unwinder walks back to main.  Never
 * run: only its symbols and CFI are used.
 */
	.text

/* name: a function with a frame pointer that calls callee (if given) */
	.macro	framed name, callee
	.globl	\name
	.type	\name, @function
\name:
	.cfi_startproc
	pushq	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset %rbp, -16
	movq	%rsp, %rbp
	.cfi_def_cfa_register %rbp
	nop
	.ifnb	\callee
	call	\callee
	.endif
	popq	%rbp
	.cfi_def_cfa %rsp, 8
	ret
	.cfi_endproc
	.size	\name, .-\name
	.endm

	framed	main, big_f0
	framed	big_f0, big_f1
	framed	big_f1, big_f2
	framed	big_f2, big_f3
	framed	big_f3, big_f4
	framed	big_f4, big_f5
	framed	big_f5, big_f6
	framed	big_f6, big_f7
	framed	big_f7

	.section	.note.GNU-stack,"",@progbits
