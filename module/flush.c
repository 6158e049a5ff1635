// SPDX-License-Identifier: GPL-2.0
/*
 * Flush accounting.
 *
 * 6.1: mem_cgroup_flush_stats() and its threshold gate are inlined into the
 * readers inside mm/memcontrol.c, so a reader's request is first visible as
 * a call of the static __mem_cgroup_flush_stats(); that function trylocks
 * stats_flush_lock and only then calls cgroup_rstat_flush_irqsafe(), so a
 * performed flush is a call of the latter made from inside the former (timed
 * by a kretprobe). The periodic flush is __mem_cgroup_flush_stats() called
 * from flush_memcg_stats_dwork().
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "compat.h"
#include "flush.h"

static struct mcs_hook mcs_flush_hook_rows[] = {
#ifdef MCS_GEN_61
	{
		.name = "flush.requests",
		.target = "__mem_cgroup_flush_stats",
		.mech = MCS_MECH_FTRACE,
		.group = MCS_GRP_FLUSH,
		.counter = MCS_FLUSH_REQUESTS,
	},
	{
		.name = "flush.periodic",
		.target = "__mem_cgroup_flush_stats",
		.caller = "flush_memcg_stats_dwork",
		.mech = MCS_MECH_FTRACE,
		.group = MCS_GRP_FLUSH,
		.counter = MCS_FLUSH_PERIODIC,
	},
	{
		.name = "flush.performed",
		.target = "cgroup_rstat_flush_irqsafe",
		.caller = "__mem_cgroup_flush_stats",
		.mech = MCS_MECH_KRETPROBE,
		.group = MCS_GRP_FLUSH,
		.counter = MCS_FLUSH_PERFORMED,
		.timed = true,
	},
#endif
};

struct mcs_hook_table mcs_flush_hooks = {
	.hooks = mcs_flush_hook_rows,
	.n = ARRAY_SIZE(mcs_flush_hook_rows),
};

int mcs_flush_init(void)
{
	int ret;

	ret = mcs_hook_table_init(&mcs_flush_hooks);
	if (ret)
		return ret;
	/* The timing counters exist when the timed hook does. */
	if (mcs_counter_present(MCS_FLUSH_PERFORMED)) {
		mcs_counter_set_present(MCS_FLUSH_NS_TOTAL);
		mcs_counter_set_present(MCS_FLUSH_NS_MAX);
	}
	ret = mcs_hooks_attach(&mcs_flush_hooks, MCS_GRP_FLUSH);
	if (ret)
		mcs_hook_table_exit(&mcs_flush_hooks);
	return ret;
}

void mcs_flush_exit(void)
{
	mcs_hook_table_exit(&mcs_flush_hooks);
}
