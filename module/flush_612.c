// SPDX-License-Identifier: GPL-2.0
/*
 * Flush backend of the 6.12 generation (per-memcg threshold).
 *
 * In mm/memcontrol.c of 6.12:
 * - mem_cgroup_flush_stats(memcg) is global, not inlined. Its gate is
 *   memcg_vmstats_needs_flush(memcg->vmstats), i.e. vmstats->stats_updates
 *   > MEMCG_CHARGE_BATCH * num_online_cpus(). It then runs the inlined
 *   do_flush_stats(memcg): flush_last_time = jiffies_64 for the root, and
 *   cgroup_rstat_flush(memcg->css.cgroup).
 * - mem_cgroup_flush_stats_ratelimited(memcg), on the refault path,
 *   flushes only when the periodic flusher is one FLUSH_TIME late.
 * - flush_memcg_stats_dwork() runs do_flush_stats(root_mem_cgroup) with no
 *   gate and requeues stats_flush_dwork after FLUSH_TIME (2 s).
 * All three are redirected to the policy. `kernel` mode evaluates the
 * kernel's own gate. The gate is inside the choke point, so there is
 * nothing to hold open. struct memcg_vmstats is private to memcontrol.c,
 * so the offset of stats_updates comes from the kernel's BTF.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "compat.h"

#if defined(MCS_GEN_612)

#include <linux/cgroup.h>
#include <linux/jiffies.h>
#include <linux/memcontrol.h>
#include <linux/timekeeping.h>
#include <linux/workqueue.h>

#include "btf.h"
#include "flush_backend.h"
#include "kcall.h"
#include "ksym.h"

/* FLUSH_TIME of mm/memcontrol.c (6.12). */
#define MCS612_FLUSH_TIME	(2UL * HZ)

static struct {
	u64 *last_time;
	struct delayed_work *dwork;
	struct mem_cgroup **root;
	int updates_off;	/* of stats_updates in struct memcg_vmstats */
} k612;

static __noipa noinline void mcs612_call_rstat_flush(struct cgroup *cgrp)
{
}

static struct mcs_kcall mcs612_kc_rstat_flush = {
	.name = "cgroup_rstat_flush",
	.stub = mcs612_call_rstat_flush,
};

/* A reader's request; @caller: flush_reasons.h. */
static void mcs612_flush_from(struct mem_cgroup *memcg, unsigned long caller)
{
	if (mem_cgroup_disabled())
		return;
	mcs_flush_enter();
	mcs_flush_request(MCS_ORIGIN_READER, memcg ?: *k612.root, caller);
	mcs_flush_leave();
}

/* The replacement of mem_cgroup_flush_stats(memcg). */
static void mcs612_flush_stats(struct mem_cgroup *memcg)
{
	mcs612_flush_from(memcg, mcs_flush_caller());
}

/*
 * Replaces mem_cgroup_flush_stats_ratelimited(). The kernel's rate limit
 * applies in `kernel` mode only.
 */
static void mcs612_flush_stats_ratelimited(struct mem_cgroup *memcg)
{
	u64 due = READ_ONCE(*k612.last_time) + 2 * MCS612_FLUSH_TIME;
	unsigned long caller = mcs_flush_caller();

	if (!mcs_flush_kernel_mode() || time_after64(get_jiffies_64(), due))
		mcs612_flush_from(memcg, caller);
}

/* The replacement of flush_memcg_stats_dwork(). */
static void mcs612_flush_dwork(struct work_struct *w)
{
	mcs_flush_enter();
	mcs_flush_request(MCS_ORIGIN_KERNEL_PERIODIC, NULL, 0);
	queue_delayed_work(MCS_UNBOUND_WQ, k612.dwork, MCS612_FLUSH_TIME);
	mcs_flush_leave();
}

static struct mcs_hook mcs612_rows[] = {
	MCS_REDIRECT_ROW("flush", "mem_cgroup_flush_stats",
			 mcs612_flush_stats),
	MCS_REDIRECT_ROW("flush.ratelimited",
			 "mem_cgroup_flush_stats_ratelimited",
			 mcs612_flush_stats_ratelimited),
	MCS_REDIRECT_ROW("flush.dwork", "flush_memcg_stats_dwork",
			 mcs612_flush_dwork),
};

struct mcs_hook_table mcs_backend_hooks = {
	.hooks = mcs612_rows,
	.n = ARRAY_SIZE(mcs612_rows),
};

int mcs_backend_init(void)
{
	unsigned long flush;
	int ret;

	ret = mcs_backend_need("flush_last_time", &k612.last_time) ?:
	      mcs_backend_need("stats_flush_dwork", &k612.dwork) ?:
	      mcs_backend_need("root_mem_cgroup", &k612.root) ?:
	      mcs_backend_need_fn("cgroup_rstat_flush", &flush);
	if (ret)
		return ret;
	k612.updates_off = mcs_btf_member("memcg_vmstats", "stats_updates",
					  "atomic64_t", sizeof(atomic64_t));
	if (k612.updates_off < 0) {
		pr_err("flush control: memcg_vmstats.stats_updates unusable (%d)\n",
		       k612.updates_off);
		return k612.updates_off;
	}
	return mcs_kcall_attach(&mcs612_kc_rstat_flush, flush);
}

void mcs_backend_exit(void)
{
	mcs_kcall_detach(&mcs612_kc_rstat_flush);
}

/* memcg_vmstats_needs_flush(memcg->vmstats) */
bool mcs_backend_kernel_wants(void *target)
{
	struct mem_cgroup *memcg = target;
	atomic64_t *updates = (atomic64_t *)((char *)memcg->vmstats +
					     k612.updates_off);

	return atomic64_read(updates) > MEMCG_CHARGE_BATCH * num_online_cpus();
}

/* do_flush_stats(memcg): cgroup_rstat_flush() sleeps for the lock. */
bool mcs_backend_flush(void *target, bool gate_open, u64 *ns)
{
	struct mem_cgroup *memcg = target ?: *k612.root;
	u64 start;

	if (memcg == *k612.root)
		WRITE_ONCE(*k612.last_time, get_jiffies_64());
	start = ktime_get_ns();
	mcs612_call_rstat_flush(memcg->css.cgroup);
	*ns = ktime_get_ns() - start;
	return true;
}

void mcs_backend_gate(bool open)
{
}

void mcs_backend_kernel_periodic(bool run)
{
	if (run)
		queue_delayed_work(MCS_UNBOUND_WQ, k612.dwork,
				   MCS612_FLUSH_TIME);
	else
		cancel_delayed_work_sync(k612.dwork);
}

#endif /* MCS_GEN_612 */
