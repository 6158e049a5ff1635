/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel-generation selection for memcg_statctl.
 *
 * Every version test of the module lives in this one block; the rest of the
 * code tests only the MCS_GEN_* and HAVE_* macros below. The build picks the
 * generation from the headers; init confirms it from the running kernel's
 * symbols (a hook whose symbol is absent is reported as "missing").
 */
#ifndef MCS_COMPAT_H
#define MCS_COMPAT_H

#include <linux/version.h>

/* Generation bits, for the `gens` field of hook table rows. */
#define MCS_ON_61		0x1
#define MCS_ON_612		0x2
#define MCS_ON_7X		0x4

#if LINUX_VERSION_CODE >= KERNEL_VERSION(7, 0, 0)
#define MCS_GEN_7X		1	/* css_rstat_flush, multi-memcg stock */
#define MCS_GEN_NAME		"7.x"
#define MCS_GEN_BIT		MCS_ON_7X
#elif LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
#define MCS_GEN_612		1	/* per-memcg threshold, global choke point */
#define MCS_GEN_NAME		"6.12"
#define MCS_GEN_BIT		MCS_ON_612
#elif LINUX_VERSION_CODE >= KERNEL_VERSION(6, 1, 0)
#define MCS_GEN_61		1	/* global threshold, inlined gate */
#define MCS_GEN_NAME		"6.1"
#define MCS_GEN_BIT		MCS_ON_61
#else
#error "memcg_statctl supports Linux 6.1 and later"
#endif

/* The flush threshold is one global counter on 6.1, per memcg later. */
#ifdef MCS_GEN_61
#define MCS_FLUSH_MODEL		"global"
#else
#define MCS_FLUSH_MODEL		"per-memcg"
#endif

/* 7.x caches several memcgs per cpu in the charge stock. */
#ifdef MCS_GEN_7X
#define MCS_STOCK_MODEL		"multi"
#else
#define MCS_STOCK_MODEL		"single"
#endif

/* The unbound system workqueue (renamed system_dfl_wq in 7.x). */
#ifdef MCS_GEN_7X
#define MCS_UNBOUND_WQ		system_dfl_wq
#else
#define MCS_UNBOUND_WQ		system_unbound_wq
#endif

/* Argument @n (0-based) of a function, at its ftrace entry. */
#include <linux/ftrace.h>
#include <linux/ptrace.h>
#ifdef MCS_GEN_61
/* x86 6.1: struct ftrace_regs wraps pt_regs, argument registers saved. */
#define mcs_fregs_arg(fregs, n) \
	regs_get_kernel_argument(&(fregs)->regs, (n))
#define mcs_fregs_set_ip(fregs, ip)	ftrace_instruction_pointer_set(fregs, ip)
#else
#define mcs_fregs_arg(fregs, n)	ftrace_regs_get_argument((fregs), (n))
#define mcs_fregs_set_ip(fregs, ip) \
	ftrace_regs_set_instruction_pointer(fregs, ip)
#endif

#endif /* MCS_COMPAT_H */
