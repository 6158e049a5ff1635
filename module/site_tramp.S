/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Direct-call trampolines of the counting sites (site.c). ftrace patches
 * a hooked function's fentry call to call one of these directly (the
 * contract is that of samples/ftrace/ftrace-direct-multi.c). A call costs
 * a few instructions: no ftrace_ops dispatch, no C call.
 *
 * We are entered by a direct call from the fentry site, or by a RET from
 * ftrace_regs_caller when other ftrace users share the function. The
 * stack is the same either way:
 *   (%rsp)   return address into the hooked function, after its fentry call
 *   8(%rsp)  the hooked function's return address, the caller (parent ip)
 * The function's prologue has not run. Its arguments in %rdi, %rsi, %rdx,
 * %rcx, %r8, %r9 must be kept, and %rax too. %r10 and %r11 are free
 * (ftrace_caller does not save them around its C callbacks either).
 *
 * Each site N has one trampoline per variant (site_abi.h):
 *   mcs_site_walk_N   walks the site's attached rows. The rows are sorted
 *                     by the start of their caller range, so a caller
 *                     below a row's range ends the walk. A caller at or
 *                     below the highest return trampoline of another
 *                     tracer (kretprobe, graph tracer) goes to C, which
 *                     recovers the true caller (caller.h). The kernel's
 *                     own callers, in mm/, lie far above those.
 *   mcs_site_headwalk_N
 *                     counts the first row, which takes every caller and
 *                     only counts, and walks the rows after it. A site
 *                     that counts every call and some by caller
 *                     (try_charge_memcg on 6.1 and 6.12) saves that
 *                     row's compares.
 *   mcs_site_count_N, mcs_site_int_N, mcs_site_long_N, mcs_site_ulong_N
 *                     one attached row that takes every caller: no walk.
 *                     An attribution row, which calls C, is always walked.
 * Per-cpu addresses come from the rows (alloc_percpu pointers), so nothing
 * here depends on the kernel's per-cpu layout.
 */
#include <linux/linkage.h>
#include <asm/nospec-branch.h>

#include "compat.h"
#include "site_abi.h"

/*
 * ftrace calls the trampolines indirectly, so each needs an ENDBR under
 * IBT. SYM_START never adds one (SYM_FUNC_START did until 6.15), so this
 * is the only one. It is empty without CONFIG_X86_KERNEL_IBT.
 */
.macro MCS_TRAMP_ENTRY name
SYM_START(\name, SYM_L_GLOBAL, SYM_A_ALIGN)
	ENDBR
	CALL_DEPTH_ACCOUNT
.endm

/* The size of the update (argument 2, in %rdx) as row kind \kind has it. */
.macro MCS_AMOUNT kind, reg
.if \kind == MCS_KIND_UPDATE_INT
	movslq	%edx, \reg
.else
	movq	%rdx, \reg
.endif
.if \kind != MCS_KIND_UPDATE_ULONG
	testq	\reg, \reg
	jns	.Lpositive_\@
	negq	\reg
.Lpositive_\@:
.endif
.endm

/*
 * Jump to \label when argument 1 (%esi), a stat item, is one the kernel
 * keeps in bytes or KiB and counts in pages (stat_unit.h): one bit test
 * for every other item.
 */
.macro MCS_IF_SUBPAGE label
	cmpl	$MCS_STAT_BITS, %esi
	jae	.Lpages_\@
	btl	%esi, mcs_stat_subpage(%rip)
	jc	\label
.Lpages_\@:
.endm

/* Save and restore what the hooked function still needs around a C call. */
.macro MCS_SAVE_ARGS
	pushq	%rdi
	pushq	%rsi
	pushq	%rdx
	pushq	%rcx
	pushq	%r8
	pushq	%r9
	pushq	%rax
	pushq	%r11
.endm

.macro MCS_RESTORE_ARGS
	popq	%r11
	popq	%rax
	popq	%r9
	popq	%r8
	popq	%rcx
	popq	%rdx
	popq	%rsi
	popq	%rdi
.endm

/* update_flush_every is set: C decides whether this update queues a flush. */
.macro MCS_UPDATE_TICK
	MCS_SAVE_ARGS
	call	mcs_flush_update_tick
	MCS_RESTORE_ARGS
.endm

/*
 * After MCS_SAVE_ARGS: %rax = mcs_stat_amount_kind(argument 1, argument 2,
 * \kind), the size of a sub-page item's update as the kernel counts it.
 */
.macro MCS_SUBPAGE_CALL kind
	movl	%esi, %edi
	movq	%rdx, %rsi
	movq	\kind, %rdx
	call	mcs_stat_amount_kind
.endm

/*
 * The caller (%r10) may be a return trampoline: call
 * mcs_site_recover(\n, slot, argument 0, argument 1, argument 2). The slot
 * is 8(%rsp) at entry, 72(%rsp) once eight registers are saved.
 */
.macro MCS_RECOVER n
	MCS_SAVE_ARGS
	movq	%rdx, %r8
	movq	%rsi, %rcx
	movq	%rdi, %rdx
	movl	$\n, %edi
	leaq	72(%rsp), %rsi
	call	mcs_site_recover
	MCS_RESTORE_ARGS
.endm

/*
 * The walk over the rows from %r11 (not NULL), the parent ip in %r10.
 * Expanded once per trampoline, so that each function's jumps stay inside
 * it; its numeric labels are local to the expansion's function.
 */
.macro MCS_WALK_ROWS n
1:	cmpq	MCS_ROW_START(%r11), %r10
	jb	9f		/* rows go by caller start: none later matches */
	cmpq	MCS_ROW_END(%r11), %r10
	jae	2f
	movq	MCS_ROW_PCPU(%r11), %r10
	incq	%gs:MCS_PCPU_HITS(%r10)
	cmpq	$MCS_KIND_COUNT, MCS_ROW_KIND(%r11)
	jne	3f
7:	movq	8(%rsp), %r10
2:	movq	MCS_ROW_NEXT(%r11), %r11
	testq	%r11, %r11
	jnz	1b
9:	cmpq	mcs_hijack_max(%rip), %r10	/* maybe a return trampoline */
	jbe	8f
	RET
8:	MCS_RECOVER \n
	RET

3:	cmpq	$MCS_KIND_ATTR, MCS_ROW_KIND(%r11)
	jae	11f
	pushq	%rax
	cmpq	$MCS_KIND_UPDATE_ULONG, MCS_ROW_KIND(%r11)
	je	5f
	MCS_IF_SUBPAGE 10f
	cmpq	$MCS_KIND_UPDATE_INT, MCS_ROW_KIND(%r11)
	jne	4f
	MCS_AMOUNT MCS_KIND_UPDATE_INT, %rax
	jmp	6f
4:	MCS_AMOUNT MCS_KIND_UPDATE_LONG, %rax
	jmp	6f
5:	MCS_AMOUNT MCS_KIND_UPDATE_ULONG, %rax
6:	addq	%rax, %gs:MCS_PCPU_AMOUNT(%r10)
	popq	%rax
	cmpl	$0, mcs_update_every(%rip)
	je	7b
	MCS_UPDATE_TICK
	jmp	7b

	/* into the slot of the saved %rax, which 6: adds; %r10 is lost */
10:	MCS_SAVE_ARGS
	MCS_SUBPAGE_CALL MCS_ROW_KIND(%r11)
	movq	%rax, 8(%rsp)
	MCS_RESTORE_ARGS
	movq	MCS_ROW_PCPU(%r11), %r10
	jmp	6b

	/* mcs_attr_event(kind, argument 0, argument 1); %r10 is lost */
11:	MCS_SAVE_ARGS
	movq	%rsi, %rdx
	movq	%rdi, %rsi
	movq	MCS_ROW_KIND(%r11), %rdi
	call	mcs_attr_event
	MCS_RESTORE_ARGS
	jmp	7b
.endm

.macro MCS_SITE_WALK n
MCS_TRAMP_ENTRY mcs_site_walk_\n
	movq	mcs_site_heads + 8 * \n(%rip), %r11
	movq	8(%rsp), %r10			/* parent ip */
	MCS_WALK_ROWS \n
SYM_FUNC_END(mcs_site_walk_\n)
.endm

/* The rest may be empty for a moment while rows are detached. */
.macro MCS_SITE_HEADWALK n
MCS_TRAMP_ENTRY mcs_site_headwalk_\n
	movq	mcs_site_single + 8 * \n(%rip), %r10
	incq	%gs:MCS_PCPU_HITS(%r10)
	movq	mcs_site_rest + 8 * \n(%rip), %r11
	movq	8(%rsp), %r10			/* parent ip */
	testq	%r11, %r11
	jz	9f
	MCS_WALK_ROWS \n
SYM_FUNC_END(mcs_site_headwalk_\n)
.endm

.macro MCS_SITE_COUNT n
MCS_TRAMP_ENTRY mcs_site_count_\n
	movq	mcs_site_single + 8 * \n(%rip), %r10
	incq	%gs:MCS_PCPU_HITS(%r10)
	RET
SYM_FUNC_END(mcs_site_count_\n)
.endm

.macro MCS_SITE_UPDATE name, kind, n
MCS_TRAMP_ENTRY mcs_site_\name\()_\n
	movq	mcs_site_single + 8 * \n(%rip), %r10
	incq	%gs:MCS_PCPU_HITS(%r10)
.if \kind != MCS_KIND_UPDATE_ULONG
	MCS_IF_SUBPAGE 2f
.endif
	MCS_AMOUNT \kind, %r11
1:	addq	%r11, %gs:MCS_PCPU_AMOUNT(%r10)
	cmpl	$0, mcs_update_every(%rip)
	jne	3f
	RET
3:	MCS_UPDATE_TICK
	RET
.if \kind != MCS_KIND_UPDATE_ULONG
	/* into the slot of the saved %r11, which 1: adds; %r10 is lost */
2:	MCS_SAVE_ARGS
	MCS_SUBPAGE_CALL $\kind
	movq	%rax, (%rsp)
	MCS_RESTORE_ARGS
	movq	mcs_site_single + 8 * \n(%rip), %r10
	jmp	1b
.endif
SYM_FUNC_END(mcs_site_\name\()_\n)
.endm

#define MCS_SITE_INDEXES 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15

	.text
.irp n, MCS_SITE_INDEXES
	MCS_SITE_WALK \n
	MCS_SITE_HEADWALK \n
	MCS_SITE_COUNT \n
	MCS_SITE_UPDATE int, MCS_KIND_UPDATE_INT, \n
	MCS_SITE_UPDATE long, MCS_KIND_UPDATE_LONG, \n
	MCS_SITE_UPDATE ulong, MCS_KIND_UPDATE_ULONG, \n
.endr

/* mcs_site_tramps[variant][site], in the order of site_abi.h's variants. */
	.section .rodata, "a"
	.balign 8
SYM_DATA_START(mcs_site_tramps)
.irp v, walk, headwalk, count, int, long, ulong
.irp n, MCS_SITE_INDEXES
	.quad	mcs_site_\v\()_\n
.endr
.endr
SYM_DATA_END(mcs_site_tramps)
