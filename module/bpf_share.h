/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MCS_BPF_SHARE_H
#define MCS_BPF_SHARE_H

#include "hook.h"

/*
 * Sharing hooked functions with BPF trampolines (fentry, fexit, fmod_ret).
 * A function has one direct-call slot: while a counting site holds it, a
 * BPF trampoline's registration fails with -EBUSY. So the module redirects
 * the kernel's BPF trampoline link and unlink functions to wrappers: before
 * a link, the site of the traced function moves to an ftrace_ops (which
 * shares); after an unlink, yielded sites take their direct trampoline
 * again where the slot is free. docs/tracers.md says why this way.
 */
extern struct mcs_hook_table mcs_bpf_hooks;

/**
 * mcs_bpf_share_state() - whether BPF trampolines share hooked functions
 *
 * Return: "on", or "missing" when this kernel lacks what it needs (then a
 * BPF program attaches only where no site holds the direct slot).
 */
const char *mcs_bpf_share_state(void);

/**
 * mcs_bpf_share_init() - resolve and attach the link and unlink wrappers
 *
 * Before any counting site registers. A kernel without them is no error.
 *
 * Return: 0, or -ENOMEM.
 */
int mcs_bpf_share_init(void);

/**
 * mcs_bpf_share_exit() - detach the wrappers, wait for the calls inside
 *
 * After every counting site is gone.
 */
void mcs_bpf_share_exit(void);

#endif /* MCS_BPF_SHARE_H */
