// SPDX-License-Identifier: GPL-2.0
/*
 * Charge-stock and object-stock counters.
 *
 * consume_stock() and consume_obj_stock() are inlined into their callers,
 * so their outcome is counted through neighbours, attributing a call to its
 * caller by ftrace's parent_ip (one range compare):
 *   charge stock   attempt = try_charge_memcg() called;
 *                  miss    = page_counter_try_charge() called from inside
 *                            try_charge_memcg() (on cgroup v2 exactly one
 *                            per failed consume_stock(); a retry after
 *                            reclaim tries the stock again, so it is a miss
 *                            again; with cgroup v1 memsw accounting the
 *                            memsw charge would count too: v2 only);
 *   object stock   attempt = obj_cgroup_charge() called;
 *                  miss    = try_charge_memcg() called from inside
 *                            obj_cgroup_charge() (obj_cgroup_charge_pages()
 *                            is inlined there);
 *   objcg vmstat   update  = mod_objcg_state() called;
 *                  flush   = the cached slab bytes pushed to the memcg, by
 *                            mod_objcg_state() or when drain_obj_stock()
 *                            empties the stock: the __mod_objcg_state calls
 *                            of the object-stock report
 *                            (docs/background.md#obj-stock-vmstat), now
 *                            the inlined mod_objcg_mlstate().
 *                            6.1: it calls the out-of-line copy of the
 *                            header's mod_memcg_lruvec_state(), which only
 *                            it calls and which, being `inline`, is notrace:
 *                            count __mod_memcg_lruvec_state() called from
 *                            inside that copy. 6.12: count the static
 *                            __mod_memcg_lruvec_state() called from inside
 *                            mod_objcg_state() or drain_obj_stock().
 * Refills and drains are calls of the functions of those names.
 * Adding a kernel generation is adding rows below (re-check inlining).
 *
 * The stock_hooks knob detaches and re-attaches the whole group; the counter
 * values are kept (only `reset` zeroes them) and other groups are untouched.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/moduleparam.h>

#include "compat.h"
#include "stock.h"

#define MCS_STOCK_ROW(_gens, _name, _target, _caller, _counter)	\
	{								\
		.name = _name,						\
		.target = _target,					\
		.caller = _caller,					\
		.mech = MCS_MECH_COUNT,				\
		.group = MCS_GRP_STOCK,					\
		.gens = _gens,						\
		.counter = _counter,					\
	}

#define ON_61_612	(MCS_ON_61 | MCS_ON_612)

static struct mcs_hook mcs_stock_rows[] = {
	MCS_STOCK_ROW(ON_61_612, "charge_stock.attempts", "try_charge_memcg",
		      NULL, MCS_CHARGE_STOCK_ATTEMPTS),
	MCS_STOCK_ROW(ON_61_612, "charge_stock.misses",
		      "page_counter_try_charge", "try_charge_memcg",
		      MCS_CHARGE_STOCK_MISSES),
	MCS_STOCK_ROW(MCS_ON_61, "charge_stock.refills", "refill_stock", NULL,
		      MCS_CHARGE_STOCK_REFILLS),
	/* drain_obj_stock() refills through __refill_stock() directly */
	MCS_STOCK_ROW(MCS_ON_612, "charge_stock.refills", "__refill_stock",
		      NULL, MCS_CHARGE_STOCK_REFILLS),
	MCS_STOCK_ROW(ON_61_612, "charge_stock.drains", "drain_stock", NULL,
		      MCS_CHARGE_STOCK_DRAINS),
	MCS_STOCK_ROW(ON_61_612, "obj_stock.attempts", "obj_cgroup_charge",
		      NULL, MCS_OBJ_STOCK_ATTEMPTS),
	MCS_STOCK_ROW(ON_61_612, "obj_stock.misses", "try_charge_memcg",
		      "obj_cgroup_charge", MCS_OBJ_STOCK_MISSES),
	MCS_STOCK_ROW(ON_61_612, "obj_stock.refills", "refill_obj_stock", NULL,
		      MCS_OBJ_STOCK_REFILLS),
	MCS_STOCK_ROW(ON_61_612, "obj_stock.drains", "drain_obj_stock", NULL,
		      MCS_OBJ_STOCK_DRAINS),
	MCS_STOCK_ROW(ON_61_612, "objcg_vmstat.updates", "mod_objcg_state",
		      NULL, MCS_OBJCG_VMSTAT_UPDATES),
	MCS_STOCK_ROW(MCS_ON_61, "objcg_vmstat.flushes",
		      "__mod_memcg_lruvec_state", "mod_memcg_lruvec_state",
		      MCS_OBJCG_VMSTAT_FLUSHES),
	MCS_STOCK_ROW(MCS_ON_612, "objcg_vmstat.flushes",
		      "__mod_memcg_lruvec_state", "mod_objcg_state",
		      MCS_OBJCG_VMSTAT_FLUSHES),
	MCS_STOCK_ROW(MCS_ON_612, "objcg_vmstat.flushes",
		      "__mod_memcg_lruvec_state", "drain_obj_stock",
		      MCS_OBJCG_VMSTAT_FLUSHES),

	/*
	 * 7.x: seven memcgs per cpu in the page stock, a separate obj stock
	 * of five slots; the slab path charges per object in
	 * __memcg_slab_post_alloc_hook() (each object ends in one
	 * __account_obj_stock() there) and __obj_cgroup_charge() is inlined
	 * into it and into obj_cgroup_charge(), so an obj-stock miss is a call
	 * of obj_cgroup_charge_pages() from either. The cached slab vmstat
	 * bytes go out through mod_memcg_lruvec_state() (mod_objcg_mlstate()
	 * inlined) from __account_obj_stock() or when a slot is drained.
	 */
	MCS_STOCK_ROW(MCS_ON_7X, "charge_stock.attempts", "try_charge_memcg",
		      NULL, MCS_CHARGE_STOCK_ATTEMPTS),
	MCS_STOCK_ROW(MCS_ON_7X, "charge_stock.misses",
		      "page_counter_try_charge", "try_charge_memcg",
		      MCS_CHARGE_STOCK_MISSES),
	MCS_STOCK_ROW(MCS_ON_7X, "charge_stock.refills", "refill_stock", NULL,
		      MCS_CHARGE_STOCK_REFILLS),
	MCS_STOCK_ROW(MCS_ON_7X, "charge_stock.drains", "drain_stock", NULL,
		      MCS_CHARGE_STOCK_DRAINS),
	MCS_STOCK_ROW(MCS_ON_7X, "obj_stock.attempts", "obj_cgroup_charge",
		      NULL, MCS_OBJ_STOCK_ATTEMPTS),
	MCS_STOCK_ROW(MCS_ON_7X, "obj_stock.attempts", "__account_obj_stock",
		      "__memcg_slab_post_alloc_hook", MCS_OBJ_STOCK_ATTEMPTS),
	MCS_STOCK_ROW(MCS_ON_7X, "obj_stock.misses", "obj_cgroup_charge_pages",
		      "obj_cgroup_charge", MCS_OBJ_STOCK_MISSES),
	MCS_STOCK_ROW(MCS_ON_7X, "obj_stock.misses", "obj_cgroup_charge_pages",
		      "__memcg_slab_post_alloc_hook", MCS_OBJ_STOCK_MISSES),
	MCS_STOCK_ROW(MCS_ON_7X, "obj_stock.refills", "__refill_obj_stock",
		      NULL, MCS_OBJ_STOCK_REFILLS),
	MCS_STOCK_ROW(MCS_ON_7X, "obj_stock.drains", "drain_obj_stock_slot",
		      NULL, MCS_OBJ_STOCK_DRAINS),
	MCS_STOCK_ROW(MCS_ON_7X, "objcg_vmstat.updates", "__account_obj_stock",
		      NULL, MCS_OBJCG_VMSTAT_UPDATES),
	MCS_STOCK_ROW(MCS_ON_7X, "objcg_vmstat.flushes",
		      "mod_memcg_lruvec_state", "__account_obj_stock",
		      MCS_OBJCG_VMSTAT_FLUSHES),
	MCS_STOCK_ROW(MCS_ON_7X, "objcg_vmstat.flushes",
		      "mod_memcg_lruvec_state", "drain_obj_stock_slot",
		      MCS_OBJCG_VMSTAT_FLUSHES),
};

struct mcs_hook_table mcs_stock_hooks = {
	.hooks = mcs_stock_rows,
	.n = ARRAY_SIZE(mcs_stock_rows),
};

static bool stock_hooks = true;
module_param(stock_hooks, bool, 0444);
MODULE_PARM_DESC(stock_hooks, "Attach the stock counters at load (default 1)");

static int mcs_stock_set(const char *text)
{
	u64 on;

	if (mcs_knob_parse_u64(text, 0, 1, &on))
		return -EINVAL;
	if (on)
		return mcs_hooks_attach(&mcs_stock_hooks, MCS_GRP_STOCK);
	mcs_hooks_detach(&mcs_stock_hooks, MCS_GRP_STOCK);
	return 0;
}

static void mcs_stock_show(struct seq_file *m)
{
	seq_printf(m, "%d\n",
		   mcs_hooks_attached(&mcs_stock_hooks, MCS_GRP_STOCK));
}

const struct mcs_knob mcs_stock_knob = {
	"stock_hooks", mcs_stock_set, mcs_stock_show
};

int mcs_stock_init(void)
{
	int ret = mcs_hook_table_init(&mcs_stock_hooks);

	if (ret || !stock_hooks)
		return ret;
	ret = mcs_hooks_attach(&mcs_stock_hooks, MCS_GRP_STOCK);
	if (ret)
		mcs_hook_table_exit(&mcs_stock_hooks);
	return ret;
}

void mcs_stock_exit(void)
{
	mcs_hook_table_exit(&mcs_stock_hooks);
}
