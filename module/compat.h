/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel-generation selection for memcg_statctl.
 *
 * Every version test of the module lives here. The rest of the code tests
 * only MCS_GEN_61, MCS_GEN_612, MCS_GEN_7X and MCS_HAVE_DIRECT, and uses
 * the names below for what differs between generations.
 *
 * The build picks the generation from the headers. Init checks it against
 * the running kernel's symbols: a hook whose symbol is absent is "missing".
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
/*
 * Before 6.1 the flush choke points differ, and before 5.13 memcg stats are
 * not flushed through cgroup rstat at all: nothing to redirect. DKMS skips
 * such kernels already (BUILD_EXCLUSIVE_KERNEL in dkms.conf).
 */
#error "memcg_statctl needs Linux 6.1 or later (memcg stat flushing through cgroup rstat as of 6.1)"
#endif

/*
 * What every generation needs of the kernel's configuration (DKMS checks
 * the same list: BUILD_EXCLUSIVE_CONFIG in dkms.conf). Without these the
 * module would build and then find nothing to hook at load.
 */
#ifndef CONFIG_MEMCG
#error "memcg_statctl needs CONFIG_MEMCG: the memory controller it controls"
#endif
#ifndef CONFIG_DYNAMIC_FTRACE
#error "memcg_statctl needs CONFIG_DYNAMIC_FTRACE: every hook is an ftrace ops"
#endif
#ifndef CONFIG_KPROBES
#error "memcg_statctl needs CONFIG_KPROBES: it finds kallsyms_lookup_name() with one"
#endif
#ifndef CONFIG_KALLSYMS_ALL
#error "memcg_statctl needs CONFIG_KALLSYMS_ALL: the flush state is static data of memcontrol.c"
#endif

#ifdef __ASSEMBLY__
/*
 * For site_tramp.S. Call-depth accounting (the retbleed "stuff"
 * mitigation) exists from 6.2. A trampoline entered from an fentry site
 * accounts for that call itself, as ftrace's do.
 */
#ifdef MCS_GEN_61
.macro CALL_DEPTH_ACCOUNT
.endm
#endif
#else /* !__ASSEMBLY__ */

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

/* kallsyms_on_each_symbol()'s callback lost its module argument in 6.2. */
#ifdef MCS_GEN_61
#define MCS_KSYM_EACH_MOD	struct module *mod,
#else
#define MCS_KSYM_EACH_MOD
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

/*
 * The direct-call API: one trampoline for the functions in @ops' filter;
 * _modify switches trampolines without losing calls. 6.1 calls it _multi
 * (its plain register_ftrace_direct() is ip-based, one global ops for all
 * users). 6.12 took over the plain name, and frees the filter on request.
 */
#ifdef CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS
#ifdef MCS_GEN_61
#define mcs_direct_register(ops, addr)	register_ftrace_direct_multi(ops, addr)
#define mcs_direct_modify(ops, addr)	modify_ftrace_direct_multi(ops, addr)
/**
 * mcs_direct_unregister() - unregister a direct ops and free its filter
 * @ops: the ops
 * @addr: its trampoline
 *
 * Return: 0, or the ftrace error.
 */
static inline int mcs_direct_unregister(struct ftrace_ops *ops,
					unsigned long addr)
{
	int ret = unregister_ftrace_direct_multi(ops, addr);

	ftrace_free_filter(ops);
	return ret;
}
#else
#define mcs_direct_register(ops, addr)	register_ftrace_direct(ops, addr)
#define mcs_direct_modify(ops, addr)	modify_ftrace_direct(ops, addr)
#define mcs_direct_unregister(ops, addr) unregister_ftrace_direct(ops, addr, true)
#endif
#define MCS_HAVE_DIRECT		1
/* ftrace_ops_func_t gained the ip in question in 7.x. */
#ifdef MCS_GEN_7X
#define MCS_OPS_FUNC_IP		unsigned long ip,
#else
#define MCS_OPS_FUNC_IP
#endif
#else
#define mcs_direct_register(ops, addr)	(-EOPNOTSUPP)
#define mcs_direct_modify(ops, addr)	(-EOPNOTSUPP)
#define mcs_direct_unregister(ops, addr) (-EOPNOTSUPP)
#define MCS_HAVE_DIRECT		0
#endif

#endif /* __ASSEMBLY__ */

#endif /* MCS_COMPAT_H */
