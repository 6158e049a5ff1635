// SPDX-License-Identifier: GPL-2.0
/* IBT-safe calls into unexported kernel functions: see kcall.h. */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/string.h>

#include "compat.h"
#include "kcall.h"
#include "unregister.h"

static void notrace mcs_kcall_cb(unsigned long ip, unsigned long parent_ip,
				 struct ftrace_ops *op,
				 struct ftrace_regs *fregs)
{
	struct mcs_kcall *kc = container_of(op, struct mcs_kcall, ops);

	mcs_fregs_set_ip(fregs, kc->addr);
}

int mcs_kcall_attach(struct mcs_kcall *kc, unsigned long addr)
{
	int ret;

	if (kc->attached)
		return 0;
	memset(&kc->ops, 0, sizeof(kc->ops));
	kc->addr = addr;
	kc->ops.func = mcs_kcall_cb;
	/*
	 * PERMANENT, as livepatch does: with it registered, the kernel
	 * refuses kernel.ftrace_enabled=0, which would turn every stub into
	 * its empty body and every hook off while `hooks` says attached.
	 */
	kc->ops.flags = FTRACE_OPS_FL_IPMODIFY | FTRACE_OPS_FL_RECURSION |
			FTRACE_OPS_FL_PERMANENT;
	ret = ftrace_set_filter_ip(&kc->ops, (unsigned long)kc->stub, 0, 0);
	if (!ret) {
		ret = register_ftrace_function(&kc->ops);
		if (ret)
			ftrace_free_filter(&kc->ops);
	}
	if (ret) {
		pr_err("cannot route calls to %s: %d%s\n", kc->name, ret,
		       ret == -EBUSY ? " (is sysctl kernel.ftrace_enabled 0?)" : "");
		return ret;
	}
	kc->attached = true;
	return 0;
}

void mcs_kcall_detach(struct mcs_kcall *kc)
{
	if (!kc->attached)
		return;
	mcs_unregister_check(unregister_ftrace_function(&kc->ops), kc->name);
	ftrace_free_filter(&kc->ops);
	kc->attached = false;
}
