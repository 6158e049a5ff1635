/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MCS_CALLER_H
#define MCS_CALLER_H

#include <linux/types.h>

/*
 * The caller of a hooked function whose return address another tracer
 * replaced with its return trampoline: rethook's (kretprobe, fprobe exit
 * handler) or the graph tracer's (return_to_handler). Only our direct
 * trampolines need this; they read the caller from the stack. ftrace
 * callbacks get the true caller from ftrace.
 */

/*
 * The highest return trampoline, 0 while there is none. The walk
 * trampolines send a caller at or below it to mcs_site_recover().
 */
extern unsigned long mcs_hijack_max;

/**
 * mcs_caller_hijacked() - whether @addr is a tracer's return trampoline
 * @addr: a return address read from the stack
 *
 * Context: any, including NMI.
 * Return: true when @addr is the return trampoline of a tracer this
 * kernel has.
 */
bool mcs_caller_hijacked(unsigned long addr);

/**
 * mcs_caller_recover() - the true caller behind a hijacked return address
 * @slot: the stack slot of the hooked function's return address
 *
 * Return: the caller, or 0 when no tracer knows it.
 */
unsigned long mcs_caller_recover(unsigned long *slot);

/**
 * mcs_caller_init() - resolve the return trampolines and the lookups
 *
 * Context: module load.
 * Return: 0, or a negative errno.
 */
int mcs_caller_init(void);

/**
 * mcs_caller_exit() - undo mcs_caller_init()
 *
 * Context: module unload.
 */
void mcs_caller_exit(void);

#endif /* MCS_CALLER_H */
