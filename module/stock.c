// SPDX-License-Identifier: GPL-2.0
/*
 * Charge-stock and object-stock counters.
 *
 * consume_stock() and consume_obj_stock() are inlined into their callers.
 * So their outcome is counted through neighbours, by caller (one range
 * compare on ftrace's parent_ip):
 *
 * - charge stock attempt: try_charge_memcg() called.
 * - charge stock miss: page_counter_try_charge() called from
 *   try_charge_memcg(). On cgroup v2 exactly one per failed
 *   consume_stock(); a retry after reclaim is another miss. v2 only: v1
 *   memsw accounting would count its memsw charge too.
 * - object stock attempt: obj_cgroup_charge() called.
 * - object stock miss: try_charge_memcg() called from obj_cgroup_charge()
 *   (obj_cgroup_charge_pages() is inlined there).
 * - objcg vmstat update: mod_objcg_state() called.
 * - objcg vmstat flush: cached slab bytes pushed to the memcg by
 *   mod_objcg_state() or by drain_obj_stock(). These are the
 *   __mod_objcg_state calls of docs/background.md#obj-stock-vmstat, now
 *   the inlined mod_objcg_mlstate(). On 6.1 it calls the out-of-line copy
 *   of the header's mod_memcg_lruvec_state(), notrace as `inline` and
 *   called by nothing else: count __mod_memcg_lruvec_state() from that
 *   copy. On 6.12 count the static __mod_memcg_lruvec_state() from
 *   mod_objcg_state() or drain_obj_stock().
 * - refills and drains: calls of the functions of those names.
 *
 * A new kernel generation needs new rows below (re-check inlining).
 *
 * The stock_hooks knob detaches and re-attaches the whole group. Counter
 * values are kept (only `reset` zeroes them).
 *
 * objcg_vmstat.flushes is opt-in (objcg_flush_hooks, default 0). It counts
 * through (__)mod_memcg_lruvec_state(), which runs for every page-state
 * update (about four per page fault), for an event that is slab-only and
 * rare. That walk would be most of the default hooks' cost per fault.
 * While off, the counter is not listed in `stats`, so nobody reads a zero
 * that was never counted.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/moduleparam.h>

#include "compat.h"
#include "counters.h"
#include "stock.h"

/* A counting row of @_group (MCS_GRP_*). */
#define MCS_GROUP_ROW(_group, _gens, _name, _target, _caller, _counter) \
	{								\
		.name = _name,						\
		.target = _target,					\
		.caller = _caller,					\
		.mech = MCS_MECH_COUNT,				\
		.group = _group,					\
		.gens = _gens,						\
		.counter = _counter,					\
	}

#define MCS_STOCK_ROW(...)	MCS_GROUP_ROW(MCS_GRP_STOCK, __VA_ARGS__)
/* A row of the opt-in group: its own switch, off at load by default. */
#define MCS_OPTIN_ROW(...)	MCS_GROUP_ROW(MCS_GRP_OPTIN, __VA_ARGS__)

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
	MCS_OPTIN_ROW(MCS_ON_61, "objcg_vmstat.flushes",
		      "__mod_memcg_lruvec_state", "mod_memcg_lruvec_state",
		      MCS_OBJCG_VMSTAT_FLUSHES),
	MCS_OPTIN_ROW(MCS_ON_612, "objcg_vmstat.flushes",
		      "__mod_memcg_lruvec_state", "mod_objcg_state",
		      MCS_OBJCG_VMSTAT_FLUSHES),
	MCS_OPTIN_ROW(MCS_ON_612, "objcg_vmstat.flushes",
		      "__mod_memcg_lruvec_state", "drain_obj_stock",
		      MCS_OBJCG_VMSTAT_FLUSHES),

	/*
	 * 7.x: the page stock holds seven memcgs per cpu, the obj stock five
	 * slots. The slab path charges per object in
	 * __memcg_slab_post_alloc_hook(), each ending in one
	 * __account_obj_stock(). __obj_cgroup_charge() is inlined there and
	 * into obj_cgroup_charge(), so an obj-stock miss is a call of
	 * obj_cgroup_charge_pages() from either. Cached slab vmstat bytes go
	 * out through mod_memcg_lruvec_state() (mod_objcg_mlstate() inlined),
	 * from __account_obj_stock() or when a slot is drained.
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
	MCS_OPTIN_ROW(MCS_ON_7X, "objcg_vmstat.flushes",
		      "mod_memcg_lruvec_state", "__account_obj_stock",
		      MCS_OBJCG_VMSTAT_FLUSHES),
	MCS_OPTIN_ROW(MCS_ON_7X, "objcg_vmstat.flushes",
		      "mod_memcg_lruvec_state", "drain_obj_stock_slot",
		      MCS_OBJCG_VMSTAT_FLUSHES),
};

struct mcs_hook_table mcs_stock_hooks = {
	.hooks = mcs_stock_rows,
	.n = ARRAY_SIZE(mcs_stock_rows),
};

/*
 * objcg_vmstat.flushes counts while both switches are on. This lock makes
 * a knob write read and apply the pair as one.
 */
static DEFINE_MUTEX(mcs_stock_lock);
static bool mcs_optin_on;

/* Attach or detach the opt-in rows to match both switches. */
static int mcs_optin_apply(void)
{
	if (mcs_optin_on && mcs_hooks_attached(&mcs_stock_hooks, MCS_GRP_STOCK))
		return mcs_hooks_attach(&mcs_stock_hooks, MCS_GRP_OPTIN);
	mcs_hooks_detach(&mcs_stock_hooks, MCS_GRP_OPTIN);
	return 0;
}

static int mcs_stock_set(const char *text)
{
	int ret;
	u64 on;

	if (mcs_knob_parse_u64(text, 0, 1, &on))
		return -EINVAL;
	mutex_lock(&mcs_stock_lock);
	if (on) {
		ret = mcs_hooks_attach(&mcs_stock_hooks, MCS_GRP_STOCK);
		if (!ret) {
			ret = mcs_optin_apply();
			if (ret)
				mcs_hooks_detach(&mcs_stock_hooks,
						 MCS_GRP_STOCK);
		}
	} else {
		mcs_hooks_detach(&mcs_stock_hooks, MCS_GRP_STOCK | MCS_GRP_OPTIN);
		ret = 0;
	}
	mutex_unlock(&mcs_stock_lock);
	return ret;
}

static void mcs_stock_show(struct seq_file *m)
{
	seq_printf(m, "%d\n",
		   mcs_hooks_attached(&mcs_stock_hooks, MCS_GRP_STOCK));
}

static bool stock_hooks = true;
module_param(stock_hooks, bool, 0444);
MODULE_PARM_DESC(stock_hooks, "Attach the stock counters at load (default 1)");

static bool objcg_flush_hooks;
module_param(objcg_flush_hooks, bool, 0444);
MODULE_PARM_DESC(objcg_flush_hooks,
		 "Count objcg_vmstat.flushes too, while stock_hooks is 1 (default 0: it costs a walk on every page-state update)");

static int mcs_optin_set(const char *text)
{
	bool was;
	int ret;
	u64 on;

	if (mcs_knob_parse_u64(text, 0, 1, &on))
		return -EINVAL;
	mutex_lock(&mcs_stock_lock);
	was = mcs_optin_on;
	mcs_optin_on = on;
	ret = mcs_optin_apply();
	if (ret)
		mcs_optin_on = was;
	else if (on && mcs_hooks_resolved(&mcs_stock_hooks, MCS_GRP_OPTIN))
		mcs_counter_set_present(MCS_OBJCG_VMSTAT_FLUSHES);
	else
		mcs_counter_clear_present(MCS_OBJCG_VMSTAT_FLUSHES);
	mutex_unlock(&mcs_stock_lock);
	return ret;
}

static void mcs_optin_show(struct seq_file *m)
{
	seq_printf(m, "%d\n", READ_ONCE(mcs_optin_on));
}

const struct mcs_knob mcs_stock_knobs[] = {
	{ "stock_hooks", mcs_stock_set, mcs_stock_show },
	{ "objcg_flush_hooks", mcs_optin_set, mcs_optin_show },
};

const unsigned int mcs_stock_nr_knobs = ARRAY_SIZE(mcs_stock_knobs);

int mcs_stock_init(void)
{
	int ret = mcs_hook_table_init(&mcs_stock_hooks);

	if (ret)
		return ret;
	ret = mcs_optin_set(objcg_flush_hooks ? "1" : "0");
	if (!ret && stock_hooks)
		ret = mcs_stock_set("1");
	if (ret)
		mcs_hook_table_exit(&mcs_stock_hooks);
	return ret;
}

void mcs_stock_exit(void)
{
	mcs_hook_table_exit(&mcs_stock_hooks);
}
