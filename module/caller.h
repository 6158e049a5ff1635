/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MCS_CALLER_H
#define MCS_CALLER_H

#include <linux/types.h>

/*
 * The caller of a hooked function, when another tracer has replaced its
 * return address on the stack with a return trampoline of its own:
 * a kretprobe or an fprobe exit handler (rethook's trampoline) or the
 * function-graph tracer (return_to_handler). Our direct trampolines read
 * the caller from that stack slot; ftrace callbacks get the true caller
 * from ftrace and need none of this.
 */

/*
 * The highest of the return trampolines: the walk trampolines (site_tramp.S)
 * send a caller at or below it to mcs_site_recover(), one compare on their
 * way out. 0 while there is none.
 */
extern unsigned long mcs_hijack_max;

/* @addr is the return trampoline of a tracer this kernel has. */
bool mcs_caller_hijacked(unsigned long addr);

/**
 * mcs_caller_recover() - the true caller behind a hijacked return address
 * @slot: the stack slot of the hooked function's return address
 *
 * Return: the caller, or 0 when no tracer knows it.
 */
unsigned long mcs_caller_recover(unsigned long *slot);

/* Resolve the trampolines and the kernel's lookups (at load). */
int mcs_caller_init(void);
void mcs_caller_exit(void);

#endif /* MCS_CALLER_H */
