/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MCS_KCALL_H
#define MCS_KCALL_H

#include <linux/compiler.h>
#include <linux/ftrace.h>

/*
 * IBT-safe calls into kernel functions that are not exported.
 *
 * With X86_KERNEL_IBT the kernel seals (poisons the ENDBR of) every function
 * it never calls indirectly: kallsyms_lookup_name(), cgroup_rstat_flush()
 * and the like. An indirect call from the module into one of them raises #CP
 * on a CPU that enforces IBT. So the module never calls such a function
 * through a pointer: it calls a stub of its own, directly, and an ftrace
 * ops on the stub (FTRACE_OPS_FL_IPMODIFY) changes the saved instruction
 * pointer to the kernel function. ftrace leaves its trampoline with a RET,
 * which IBT does not check, so the kernel function runs as if the stub had
 * tail-called it, and returns straight to the stub's caller with its result.
 * Until the ops is attached the stub's own body runs: it returns 0, which
 * every caller treats as "not available".
 *
 * A stub must be a real call with its own fentry: declare it
 * `static __noipa noinline` (noipa keeps the compiler from inlining it or
 * from assuming its return value) and not notrace.
 */
struct mcs_kcall {
	const char *name;	/* for messages */
	void *stub;		/* the module function called directly */
	unsigned long addr;	/* the kernel function it enters */
	struct ftrace_ops ops;
	bool attached;
};

/* Send calls of kc->stub to @addr. */
int mcs_kcall_attach(struct mcs_kcall *kc, unsigned long addr);
void mcs_kcall_detach(struct mcs_kcall *kc);

#endif /* MCS_KCALL_H */
