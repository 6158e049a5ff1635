// SPDX-License-Identifier: GPL-2.0
/*
 * A test peer for oracle_test: an IPMODIFY ftrace_ops on the function named
 * by `func`, as a livepatch or a kprobe with a post_handler registers one.
 * Its callback changes nothing. ftrace lets an IPMODIFY ops and a direct
 * trampoline share a function only when the direct ops' ops_func agrees;
 * memcg_statctl's counting sites do, so this loads (and counts) whether
 * memcg_statctl is loaded before or after it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ftrace.h>
#include <linux/kprobes.h>
#include <linux/module.h>

static char *func = "try_charge_memcg";
module_param(func, charp, 0444);
MODULE_PARM_DESC(func, "The kernel function to share (default try_charge_memcg)");

static unsigned long calls;
module_param(calls, ulong, 0444);
MODULE_PARM_DESC(calls, "Calls seen (read-only)");

static void notrace mcs_peer_cb(unsigned long ip, unsigned long parent_ip,
				struct ftrace_ops *op,
				struct ftrace_regs *fregs)
{
	WRITE_ONCE(calls, READ_ONCE(calls) + 1);
}

static struct ftrace_ops mcs_peer_ops = {
	.func = mcs_peer_cb,
	.flags = FTRACE_OPS_FL_IPMODIFY | FTRACE_OPS_FL_SAVE_REGS |
		 FTRACE_OPS_FL_RECURSION,
};

/* kallsyms_lookup_name() is not exported: ask a kprobe for the address. */
static unsigned long mcs_peer_addr(const char *name)
{
	struct kprobe kp = { .symbol_name = name };
	unsigned long addr;

	if (register_kprobe(&kp))
		return 0;
	addr = (unsigned long)kp.addr;
	unregister_kprobe(&kp);
	return addr;
}

static int __init mcs_peer_init(void)
{
	unsigned long addr = mcs_peer_addr(func);
	int ret;

	if (!addr)
		return -ENOENT;
	ret = ftrace_set_filter_ip(&mcs_peer_ops, addr, 0, 0);
	if (ret)
		return ret;
	ret = register_ftrace_function(&mcs_peer_ops);
	if (ret) {
		ftrace_free_filter(&mcs_peer_ops);
		pr_err("IPMODIFY ops on %s: %d\n", func, ret);
		return ret;
	}
	pr_info("IPMODIFY ops on %s\n", func);
	return 0;
}

static void __exit mcs_peer_exit(void)
{
	unregister_ftrace_function(&mcs_peer_ops);
	ftrace_free_filter(&mcs_peer_ops);
}

module_init(mcs_peer_init);
module_exit(mcs_peer_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("memcg_statctl selftest: an IPMODIFY ftrace user");
