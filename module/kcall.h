/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MCS_KCALL_H
#define MCS_KCALL_H

#include <linux/compiler.h>

/*
 * IBT-safe calls into kernel functions that are not exported.
 *
 * With X86_KERNEL_IBT the kernel seals (poisons the ENDBR of) every
 * function it never calls indirectly, such as kallsyms_lookup_name() and
 * cgroup_rstat_flush(). An indirect call into one raises #CP.
 *
 * So we call a stub of our own, directly. An IPMODIFY ftrace ops on the
 * stubs (one for all of them) sets the saved ip to the kernel function.
 * ftrace leaves with a RET, which IBT does not check, so the kernel
 * function runs as if tail-called and returns its result to the stub's
 * caller. Until the ops is attached the stub's body runs and returns 0,
 * "not available" to every caller.
 *
 * A stub needs a real call and its own fentry: `static __noipa noinline`
 * (no inlining, no assumed return value), not notrace.
 */
struct mcs_kcall {
	const char *name;	/* for messages */
	void *stub;		/* the module function called directly */
	unsigned long addr;	/* the kernel function it enters */
	unsigned int slot;	/* kcall.c's, while attached */
	bool attached;
};

/**
 * mcs_kcall_attach() - send calls of @kc's stub to @addr
 * @kc: the stub; attaching it twice is a no-op
 * @addr: the kernel function
 *
 * Context: process context; takes ftrace's mutex.
 * Return: 0, or the ftrace error (logged).
 */
int mcs_kcall_attach(struct mcs_kcall *kc, unsigned long addr);

/**
 * mcs_kcall_detach() - let calls of @kc's stub run its own body again
 * @kc: the stub; a no-op when not attached
 *
 * Context: process context; takes ftrace's mutex.
 */
void mcs_kcall_detach(struct mcs_kcall *kc);

/**
 * mcs_kcall_exit() - make sure no stub is routed any more
 *
 * Every user detaches its stubs on its way out; this warns if one did not,
 * and unregisters the shared ops, before the module's code goes.
 *
 * Context: process context; takes ftrace's mutex.
 */
void mcs_kcall_exit(void);

#endif /* MCS_KCALL_H */
