// SPDX-License-Identifier: GPL-2.0
/*
 * Flush backend of the 7.x generation (per-memcg threshold, css_rstat).
 *
 * In mm/memcontrol.c of 7.3:
 * - __mem_cgroup_flush_stats(memcg, force) is static, the choke point.
 *   Unless @force it flushes only if memcg_vmstats_needs_flush()
 *   (vmstats->stats_updates > MEMCG_CHARGE_BATCH * num_online_cpus()).
 *   It sets flush_last_time = jiffies for the root, calls
 *   css_rstat_flush(&memcg->css) and fires a memcg_flush_stats tracepoint.
 * - mem_cgroup_flush_stats(memcg) is inlined into its callers in the file
 *   and calls __mem_cgroup_flush_stats(memcg, false).
 * - mem_cgroup_flush_stats_ratelimited(memcg) is the refault path's limit.
 * - flush_memcg_stats_dwork() calls __mem_cgroup_flush_stats(root, true)
 *   and requeues stats_flush_dwork after FLUSH_TIME on system_dfl_wq.
 * - Forced flushes also come from cgroup offlining and zswap limits.
 * __mem_cgroup_flush_stats and the ratelimited one are redirected. A
 * forced request other than the periodic one always flushes. `kernel` mode
 * does what the kernel does, but the memcg_flush_stats tracepoint does not
 * fire while the module is loaded. struct memcg_vmstats is private to
 * memcontrol.c, so the offset of stats_updates comes from BTF.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "compat.h"

#if defined(MCS_GEN_7X)

#include <linux/cgroup.h>
#include <linux/jiffies.h>
#include <linux/memcontrol.h>
#include <linux/timekeeping.h>
#include <linux/workqueue.h>

#include "btf.h"
#include "flush_backend.h"
#include "kcall.h"
#include "ksym.h"

/* FLUSH_TIME of mm/memcontrol.c (7.3). */
#define MCS7X_FLUSH_TIME	(2UL * HZ)

static struct {
	u64 *last_time;
	struct delayed_work *dwork;
	struct mem_cgroup **root;
	int updates_off;	/* of stats_updates in struct memcg_vmstats */
} k7x;

static __noipa noinline void mcs7x_call_css_flush(struct cgroup_subsys_state *css)
{
}

static struct mcs_kcall mcs7x_kc_css_flush = {
	.name = "css_rstat_flush",
	.stub = mcs7x_call_css_flush,
};

/* A request; @caller: flush_reasons.h. */
static void mcs7x_flush_from(struct mem_cgroup *memcg, bool force,
			     unsigned long caller)
{
	mcs_flush_enter();
	mcs_flush_request(force ? MCS_ORIGIN_FORCED : MCS_ORIGIN_READER,
			  memcg, caller);
	mcs_flush_leave();
}

/* The replacement of __mem_cgroup_flush_stats(memcg, force). */
static void mcs7x_flush_stats(struct mem_cgroup *memcg, bool force)
{
	mcs7x_flush_from(memcg, force, mcs_flush_caller());
}

/* The same, called from the kernel's periodic work. */
static void mcs7x_flush_stats_periodic(struct mem_cgroup *memcg, bool force)
{
	unsigned long caller = mcs_flush_caller();

	mcs_flush_enter();
	mcs_flush_request(force ? MCS_ORIGIN_KERNEL_PERIODIC :
				  MCS_ORIGIN_READER, memcg, force ? 0 : caller);
	mcs_flush_leave();
}

/*
 * Replaces mem_cgroup_flush_stats_ratelimited(). The kernel's rate limit
 * applies in `kernel` mode only.
 */
static void mcs7x_flush_stats_ratelimited(struct mem_cgroup *memcg)
{
	u64 due = READ_ONCE(*k7x.last_time) + 2 * MCS7X_FLUSH_TIME;
	unsigned long caller = mcs_flush_caller();

	if (mem_cgroup_disabled())
		return;
	if (!mcs_flush_kernel_mode() || time_after64(get_jiffies_64(), due))
		mcs7x_flush_from(memcg ?: *k7x.root, false, caller);
}

static struct mcs_hook mcs7x_rows[] = {
	MCS_REDIRECT_BY_CALLER_ROW("flush", "__mem_cgroup_flush_stats",
				   mcs7x_flush_stats,
				   "flush_memcg_stats_dwork",
				   mcs7x_flush_stats_periodic),
	MCS_REDIRECT_ROW("flush.ratelimited",
			 "mem_cgroup_flush_stats_ratelimited",
			 mcs7x_flush_stats_ratelimited),
};

struct mcs_hook_table mcs_backend_hooks = {
	.hooks = mcs7x_rows,
	.n = ARRAY_SIZE(mcs7x_rows),
};

int mcs_backend_init(void)
{
	unsigned long flush;
	int ret;

	ret = mcs_backend_need("flush_last_time", &k7x.last_time) ?:
	      mcs_backend_need("stats_flush_dwork", &k7x.dwork) ?:
	      mcs_backend_need("root_mem_cgroup", &k7x.root) ?:
	      mcs_backend_need_fn("css_rstat_flush", &flush);
	if (ret)
		return ret;
	k7x.updates_off = mcs_btf_member("memcg_vmstats", "stats_updates",
					 "atomic_long_t",
					 sizeof(atomic_long_t));
	if (k7x.updates_off < 0) {
		pr_err("flush control: memcg_vmstats.stats_updates unusable (%d)\n",
		       k7x.updates_off);
		return k7x.updates_off;
	}
	return mcs_kcall_attach(&mcs7x_kc_css_flush, flush);
}

void mcs_backend_exit(void)
{
	mcs_kcall_detach(&mcs7x_kc_css_flush);
}

/* memcg_vmstats_needs_flush(memcg->vmstats) */
bool mcs_backend_kernel_wants(void *target)
{
	struct mem_cgroup *memcg = target;
	atomic_long_t *updates = (atomic_long_t *)((char *)memcg->vmstats +
						   k7x.updates_off);

	return atomic_long_read(updates) >
	       MEMCG_CHARGE_BATCH * num_online_cpus();
}

bool mcs_backend_flush(void *target, bool gate_open, u64 *ns)
{
	struct mem_cgroup *memcg = target ?: *k7x.root;
	u64 start;

	if (memcg == *k7x.root)
		WRITE_ONCE(*k7x.last_time, get_jiffies_64());
	start = ktime_get_ns();
	mcs7x_call_css_flush(&memcg->css);
	*ns = ktime_get_ns() - start;
	return true;
}

void mcs_backend_gate(bool open)
{
}

void mcs_backend_kernel_periodic(bool run)
{
	if (run)
		queue_delayed_work(MCS_UNBOUND_WQ, k7x.dwork, MCS7X_FLUSH_TIME);
	else
		cancel_delayed_work_sync(k7x.dwork);
}

#endif /* MCS_GEN_7X */
