// SPDX-License-Identifier: GPL-2.0
/*
 * Caller recovery after return hijacking (caller.h).
 *
 * rethook keeps, per task, the return addresses it replaced, keyed by the
 * address of the stack slot (rethook_find_ret_addr()); the graph tracer
 * keeps its own return stack (ftrace_graph_ret_addr()). Neither is
 * exported: both are reached through kcall stubs. Tracers may stack, so
 * the lookup repeats until the address is no trampoline.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/llist.h>
#include <linux/minmax.h>
#include <linux/sched.h>

#include "caller.h"
#include "kcall.h"
#include "ksym.h"

/* 1: no such trampoline in this kernel; no caller has that address. */
static unsigned long mcs_hijack_fgraph = 1;
static unsigned long mcs_hijack_rethook = 1;
unsigned long mcs_hijack_max;

/* At most this many tracers stacked on one call. */
#define MCS_HIJACK_DEPTH	8

static __noipa noinline unsigned long
mcs_call_graph_ret_addr(struct task_struct *task, int *idx, unsigned long ret,
			unsigned long *retp)
{
	return 0;
}

static __noipa noinline unsigned long
mcs_call_rethook_ret_addr(struct task_struct *tsk, unsigned long frame,
			  struct llist_node **cur)
{
	return 0;
}

static struct mcs_kcall mcs_kc_graph = {
	.name = "ftrace_graph_ret_addr",
	.stub = mcs_call_graph_ret_addr,
};

static struct mcs_kcall mcs_kc_rethook = {
	.name = "rethook_find_ret_addr",
	.stub = mcs_call_rethook_ret_addr,
};

bool notrace mcs_caller_hijacked(unsigned long addr)
{
	return addr == mcs_hijack_fgraph || addr == mcs_hijack_rethook;
}

unsigned long notrace mcs_caller_recover(unsigned long *slot)
{
	unsigned long ret = READ_ONCE(*slot), prev;
	struct llist_node *cur = NULL;
	int i, idx = 0;

	for (i = 0; i < MCS_HIJACK_DEPTH; i++) {
		prev = ret;
		if (ret == mcs_hijack_fgraph)
			ret = mcs_call_graph_ret_addr(current, &idx, ret, slot);
		else if (ret == mcs_hijack_rethook)
			ret = mcs_call_rethook_ret_addr(current,
							(unsigned long)slot,
							&cur);
		else
			return ret;
		/* The stub's 0 (not attached), or the tracer does not know. */
		if (!ret || ret == prev)
			return 0;
	}
	return 0;
}

/* One tracer's trampoline and lookup; absent from this kernel is fine. */
static int mcs_caller_resolve(const char *tramp, unsigned long *where,
			      struct mcs_kcall *kc)
{
	unsigned long t = mcs_ksym(tramp), lookup = mcs_ksym(kc->name);
	int ret;

	if (!mcs_ksym_in_text(t) || !mcs_ksym_in_text(lookup)) {
		pr_info("no %s in this kernel: its return hijacks need no recovery\n",
			tramp);
		return 0;
	}
	ret = mcs_kcall_attach(kc, lookup);
	if (ret)
		return ret;
	WRITE_ONCE(*where, t);
	return 0;
}

int mcs_caller_init(void)
{
	int ret;

	ret = mcs_caller_resolve("return_to_handler", &mcs_hijack_fgraph,
				 &mcs_kc_graph);
	if (ret)
		return ret;
	ret = mcs_caller_resolve("arch_rethook_trampoline",
				 &mcs_hijack_rethook, &mcs_kc_rethook);
	if (ret) {
		mcs_caller_exit();
		return ret;
	}
	WRITE_ONCE(mcs_hijack_max, max(mcs_hijack_fgraph, mcs_hijack_rethook));
	return 0;
}

void mcs_caller_exit(void)
{
	WRITE_ONCE(mcs_hijack_max, 0);
	WRITE_ONCE(mcs_hijack_fgraph, 1);
	WRITE_ONCE(mcs_hijack_rethook, 1);
	mcs_kcall_detach(&mcs_kc_rethook);
	mcs_kcall_detach(&mcs_kc_graph);
}
