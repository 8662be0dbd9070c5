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

	.globl	main
	.type	main, @function
main:
	.cfi_startproc
	pushq	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset %rbp, -16
	movq	%rsp, %rbp
	.cfi_def_cfa_register %rbp
	nop
	call	big_f0
	popq	%rbp
	.cfi_def_cfa %rsp, 8
	ret
	.cfi_endproc
	.size	main, .-main

	.globl	big_f0
	.type	big_f0, @function
big_f0:
	.cfi_startproc
	pushq	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset %rbp, -16
	movq	%rsp, %rbp
	.cfi_def_cfa_register %rbp
	nop
	call	big_f1
	popq	%rbp
	.cfi_def_cfa %rsp, 8
	ret
	.cfi_endproc
	.size	big_f0, .-big_f0

	.globl	big_f1
	.type	big_f1, @function
big_f1:
	.cfi_startproc
	pushq	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset %rbp, -16
	movq	%rsp, %rbp
	.cfi_def_cfa_register %rbp
	nop
	call	big_f2
	popq	%rbp
	.cfi_def_cfa %rsp, 8
	ret
	.cfi_endproc
	.size	big_f1, .-big_f1

	.globl	big_f2
	.type	big_f2, @function
big_f2:
	.cfi_startproc
	pushq	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset %rbp, -16
	movq	%rsp, %rbp
	.cfi_def_cfa_register %rbp
	nop
	call	big_f3
	popq	%rbp
	.cfi_def_cfa %rsp, 8
	ret
	.cfi_endproc
	.size	big_f2, .-big_f2

	.globl	big_f3
	.type	big_f3, @function
big_f3:
	.cfi_startproc
	pushq	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset %rbp, -16
	movq	%rsp, %rbp
	.cfi_def_cfa_register %rbp
	nop
	call	big_f4
	popq	%rbp
	.cfi_def_cfa %rsp, 8
	ret
	.cfi_endproc
	.size	big_f3, .-big_f3

	.globl	big_f4
	.type	big_f4, @function
big_f4:
	.cfi_startproc
	pushq	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset %rbp, -16
	movq	%rsp, %rbp
	.cfi_def_cfa_register %rbp
	nop
	call	big_f5
	popq	%rbp
	.cfi_def_cfa %rsp, 8
	ret
	.cfi_endproc
	.size	big_f4, .-big_f4

	.globl	big_f5
	.type	big_f5, @function
big_f5:
	.cfi_startproc
	pushq	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset %rbp, -16
	movq	%rsp, %rbp
	.cfi_def_cfa_register %rbp
	nop
	call	big_f6
	popq	%rbp
	.cfi_def_cfa %rsp, 8
	ret
	.cfi_endproc
	.size	big_f5, .-big_f5

	.globl	big_f6
	.type	big_f6, @function
big_f6:
	.cfi_startproc
	pushq	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset %rbp, -16
	movq	%rsp, %rbp
	.cfi_def_cfa_register %rbp
	nop
	call	big_f7
	popq	%rbp
	.cfi_def_cfa %rsp, 8
	ret
	.cfi_endproc
	.size	big_f6, .-big_f6

	.globl	big_f7
	.type	big_f7, @function
big_f7:
	.cfi_startproc
	pushq	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset %rbp, -16
	movq	%rsp, %rbp
	.cfi_def_cfa_register %rbp
	nop
	popq	%rbp
	.cfi_def_cfa %rsp, 8
	ret
	.cfi_endproc
	.size	big_f7, .-big_f7

	.section	.note.GNU-stack,"",@progbits
