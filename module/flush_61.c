// SPDX-License-Identifier: GPL-2.0
/*
 * Flush backend of the 6.1 generation (global threshold).
 *
 * In mm/memcontrol.c of 6.1:
 * - __mem_cgroup_flush_stats(void) trylocks stats_flush_lock, sets
 *   flush_next_time = jiffies_64 + 2 * FLUSH_TIME, calls
 *   cgroup_rstat_flush_irqsafe(root_mem_cgroup->css.cgroup), sets
 *   stats_flush_threshold to 0 and unlocks.
 * - mem_cgroup_flush_stats() is the gate, inlined into the readers. It
 *   flushes if stats_flush_threshold > num_online_cpus().
 * - flush_memcg_stats_dwork() flushes and requeues stats_flush_dwork
 *   after FLUSH_TIME (2 s) on system_unbound_wq.
 * - memcg_rstat_updated() is inlined into __mod_memcg_state,
 *   __mod_memcg_lruvec_state and __count_memcg_events.
 * Every flush passes __mem_cgroup_flush_stats, the choke point we
 * redirect. The replacement does the same steps on the kernel's own
 * objects (found through kallsyms) when the policy says so.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "compat.h"

#ifdef MCS_GEN_61

#include <linux/cgroup.h>
#include <linux/jiffies.h>
#include <linux/memcontrol.h>
#include <linux/timekeeping.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>

#include "flush_backend.h"
#include "kcall.h"
#include "ksym.h"

/* FLUSH_TIME of mm/memcontrol.c (6.1). */
#define MCS61_FLUSH_TIME	(2UL * HZ)

static struct {
	spinlock_t *lock;		/* stats_flush_lock: one flush at a time */
	u64 *next_time;
	atomic_t *threshold;
	struct delayed_work *dwork;
	struct mem_cgroup **root;
	bool threshold_counts;	/* see mcs_backend_threshold_is_kernels() */
} k61 = { .threshold_counts = true };

static __noipa noinline void mcs61_call_rstat_flush(struct cgroup *cgrp)
{
}

static struct mcs_kcall mcs61_kc_rstat_flush = {
	.name = "cgroup_rstat_flush_irqsafe",
	.stub = mcs61_call_rstat_flush,
};

/* The replacement of __mem_cgroup_flush_stats(void) for readers. */
static void mcs61_flush_stats(void)
{
	unsigned long caller = mcs_flush_caller();

	mcs_flush_enter();
	mcs_flush_request(MCS_ORIGIN_READER, NULL, caller);
	mcs_flush_leave();
}

/* The same, called from the kernel's periodic work. */
static void mcs61_flush_stats_periodic(void)
{
	mcs_flush_enter();
	mcs_flush_request(MCS_ORIGIN_KERNEL_PERIODIC, NULL, 0);
	mcs_flush_leave();
}

static struct mcs_hook mcs61_rows[] = {
	MCS_REDIRECT_BY_CALLER_ROW("flush", "__mem_cgroup_flush_stats",
				   mcs61_flush_stats,
				   "flush_memcg_stats_dwork",
				   mcs61_flush_stats_periodic),
};

struct mcs_hook_table mcs_backend_hooks = {
	.hooks = mcs61_rows,
	.n = ARRAY_SIZE(mcs61_rows),
};

int mcs_backend_init(void)
{
	unsigned long flush;

	return mcs_backend_need("stats_flush_lock", &k61.lock) ?:
	       mcs_backend_need("flush_next_time", &k61.next_time) ?:
	       mcs_backend_need("stats_flush_threshold", &k61.threshold) ?:
	       mcs_backend_need("stats_flush_dwork", &k61.dwork) ?:
	       mcs_backend_need("root_mem_cgroup", &k61.root) ?:
	       mcs_backend_need_fn("cgroup_rstat_flush_irqsafe", &flush) ?:
	       mcs_kcall_attach(&mcs61_kc_rstat_flush, flush);
}

void mcs_backend_exit(void)
{
	mcs_kcall_detach(&mcs61_kc_rstat_flush);
}

/* The kernel's gate, inlined into the readers, has already said yes. */
bool mcs_backend_kernel_wants(void *target)
{
	return true;
}

/* Readers flush when the threshold exceeds num_online_cpus(). */
static int mcs61_gate_value(bool open)
{
	return open ? INT_MAX / 2 : 0;
}

bool mcs_backend_flush(void *target, bool gate_open, u64 *ns)
{
	unsigned long flags;
	u64 start;

	if (!spin_trylock_irqsave(k61.lock, flags))
		return false;
	/*
	 * An open gate also lifts the refault path's 4 s rate limit
	 * (mem_cgroup_flush_stats_delayed): the policy decides every request.
	 */
	WRITE_ONCE(*k61.next_time,
		   gate_open ? 0 : get_jiffies_64() + 2 * MCS61_FLUSH_TIME);
	start = ktime_get_ns();
	mcs61_call_rstat_flush((*k61.root)->css.cgroup);
	*ns = ktime_get_ns() - start;
	atomic_set(k61.threshold, mcs61_gate_value(gate_open));
	WRITE_ONCE(k61.threshold_counts, !gate_open);
	spin_unlock_irqrestore(k61.lock, flags);
	return true;
}

void mcs_backend_gate(bool open)
{
	/*
	 * Closing leaves one more than the limit. The next reader flushes by
	 * the kernel's own path, which resets the threshold and
	 * flush_next_time as if we had never been.
	 */
	WRITE_ONCE(k61.threshold_counts, false);
	atomic_set(k61.threshold, open ? mcs61_gate_value(true) :
					 num_online_cpus() + 1);
	if (open)
		WRITE_ONCE(*k61.next_time, 0);
}

bool mcs_backend_threshold_is_kernels(void)
{
	return READ_ONCE(k61.threshold_counts);
}

void mcs_backend_kernel_periodic(bool run)
{
	if (run)
		queue_delayed_work(MCS_UNBOUND_WQ, k61.dwork,
				   MCS61_FLUSH_TIME);
	else
		cancel_delayed_work_sync(k61.dwork);
}

#endif /* MCS_GEN_61 */
