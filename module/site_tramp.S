/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Direct-call trampolines of the counting sites (site.c), one per site:
 * ftrace patches the fentry call of a hooked function to call
 * mcs_site_tramp_N directly when the site registered a direct ops
 * (samples/ftrace/ftrace-direct-multi.c shows the contract). The cost of a
 * call is a few instructions: no ftrace_ops dispatch, no C call.
 *
 * At entry (a direct call from the fentry site, or a RET from
 * ftrace_regs_caller when the function is shared with other ftrace users;
 * the stack is the same either way):
 *   (%rsp)   return address into the hooked function, after its fentry call
 *   8(%rsp)  the hooked function's return address: the caller ("parent ip")
 * The function's own prologue has not run: its arguments are live in
 * %rdi, %rsi, %rdx, %rcx, %r8, %r9 and must be kept, as must %rax; %r10
 * and %r11 are free (ftrace_caller does not save them around its C
 * callbacks either).
 *
 * Each trampoline walks its site's list of attached rows (site_abi.h):
 * compare the caller range, `incq %gs:` into the row's per-cpu hits and
 * counter; an update row also adds its amount. Per-cpu addresses come
 * from the rows (alloc_percpu pointers), so nothing here depends on how
 * the kernel lays out its per-cpu areas.
 */
#include <linux/linkage.h>
#include <asm/nospec-branch.h>

#include "compat.h"
#include "site_abi.h"

.macro MCS_SITE_TRAMP n
SYM_FUNC_START(mcs_site_tramp_\n)
	MCS_TRAMP_ENDBR
	CALL_DEPTH_ACCOUNT
	movq	mcs_site_heads + 8 * \n(%rip), %r11
1:	movq	8(%rsp), %r10			/* parent ip */
	cmpq	MCS_ROW_START(%r11), %r10
	jb	2f
	cmpq	MCS_ROW_END(%r11), %r10
	jae	2f
	movq	MCS_ROW_HITS(%r11), %r10
	incq	%gs:(%r10)
	movq	MCS_ROW_COUNTER(%r11), %r10
	incq	%gs:(%r10)
	cmpq	$MCS_KIND_COUNT, MCS_ROW_KIND(%r11)
	jne	3f
2:	movq	MCS_ROW_NEXT(%r11), %r11
	testq	%r11, %r11
	jnz	1b
	RET

	/* An update row: the size of the update is argument 2, in %rdx. */
3:	pushq	%rax
	movq	%rdx, %rax
	cmpq	$MCS_KIND_UPDATE_ULONG, MCS_ROW_KIND(%r11)
	je	5f
	cmpq	$MCS_KIND_UPDATE_LONG, MCS_ROW_KIND(%r11)
	je	4f
	movslq	%edx, %rax
4:	movq	%rax, %r10			/* |%rax| */
	sarq	$63, %r10
	xorq	%r10, %rax
	subq	%r10, %rax
5:	movq	MCS_ROW_AMOUNT(%r11), %r10
	addq	%rax, %gs:(%r10)
	popq	%rax
	cmpl	$0, mcs_update_every(%rip)
	je	2b
	/* update_flush_every: C decides whether this update queues a flush */
	pushq	%rdi
	pushq	%rsi
	pushq	%rdx
	pushq	%rcx
	pushq	%r8
	pushq	%r9
	pushq	%rax
	pushq	%r11
	call	mcs_flush_update_tick
	popq	%r11
	popq	%rax
	popq	%r9
	popq	%r8
	popq	%rcx
	popq	%rdx
	popq	%rsi
	popq	%rdi
	jmp	2b
SYM_FUNC_END(mcs_site_tramp_\n)
.endm

	.text
.irp n, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15
	MCS_SITE_TRAMP \n
.endr

/* The trampolines' addresses, by site index (MCS_SITES_MAX of them). */
	.section .rodata, "a"
	.balign 8
SYM_DATA_START(mcs_site_tramps)
.irp n, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15
	.quad	mcs_site_tramp_\n
.endr
SYM_DATA_END(mcs_site_tramps)
