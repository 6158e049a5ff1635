// SPDX-License-Identifier: GPL-2.0
/*
 * memcg_statctl: runtime control of memcg stat flushing and per-cpu stock
 * accounting on a stock kernel. See README.md and module/ABI.md.
 *
 * Init is a ladder: each step is undone, in reverse order, by the label
 * below it; exit runs the same unwinding from the top.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/memcontrol.h>
#include <linux/module.h>
#include <linux/utsname.h>

#include "attribution.h"
#include "bpf_share.h"
#include "caller.h"
#include "clones.h"
#include "compat.h"
#include "debugfs.h"
#include "flush.h"
#include "kcall.h"
#include "ksym.h"
#include "staleness.h"
#include "stat_unit.h"
#include "stock.h"
#include "version.h"

/* Every hook table, for the one pass that looks for compiler clones. */
static struct mcs_hook_table *mcs_tables[] = {
	&mcs_backend_hooks, &mcs_update_hooks, &mcs_stock_hooks,
	&mcs_attr_hooks,
};

static int __init mcs_init(void)
{
	int ret;

	/*
	 * cgroup_disable=memory: nothing to control, and counters stuck at 0
	 * would read like an idle machine. Refuse before hooking anything.
	 */
	if (mem_cgroup_disabled()) {
		pr_err("not loaded: the memory controller is disabled (cgroup_disable=memory); nothing to control\n");
		return -ENODEV;
	}

	mcs_stat_unit_init();	/* before any update row can attach */
	ret = mcs_ksym_init();
	if (ret)
		goto fail;
	ret = mcs_caller_init();
	if (ret)
		goto fail_ksym;
	/* Before any counting site takes a direct slot a BPF link wants. */
	ret = mcs_bpf_share_init();
	if (ret)
		goto fail_caller;
	ret = mcs_flush_init();
	if (ret)
		goto fail_bpf;
	ret = mcs_stock_init();
	if (ret)
		goto fail_flush;
	ret = mcs_attr_init();
	if (ret)
		goto fail_stock;
	mcs_clones_scan(mcs_tables, ARRAY_SIZE(mcs_tables));
	mcs_staleness_init();
	ret = mcs_debugfs_init();
	if (ret)
		goto fail_attr;

	pr_info("loaded v%s on %s (generation %s, flush model %s)\n",
		MCS_VERSION, utsname()->release, MCS_GEN_NAME,
		MCS_FLUSH_MODEL);
	return 0;

fail_attr:
	mcs_attr_exit();
fail_stock:
	mcs_stock_exit();
fail_flush:
	mcs_flush_exit();
fail_bpf:
	mcs_bpf_share_exit();
fail_caller:
	mcs_caller_exit();
fail_ksym:
	mcs_ksym_exit();
	mcs_kcall_exit();
fail:
	pr_err("failed to load: %d\n", ret);
	return ret;
}

static void __exit mcs_exit(void)
{
	mcs_debugfs_exit();
	mcs_attr_exit();
	mcs_stock_exit();
	mcs_flush_exit();
	mcs_bpf_share_exit();
	mcs_caller_exit();
	mcs_ksym_exit();
	mcs_kcall_exit();
	pr_info("unloaded\n");
}

module_init(mcs_init);
module_exit(mcs_exit);

MODULE_LICENSE("GPL");
MODULE_AUTHOR("memcg-statctl developers");
MODULE_DESCRIPTION("Runtime memcg stat-flush control and stock counters");
MODULE_VERSION(MCS_VERSION);
