// SPDX-License-Identifier: GPL-2.0
/*
 * Flush policy: the knobs flush_mode, flush_threshold, flush_period_ms and
 * update_flush_every (module/ABI.md) and the flush.* counters.
 *
 * The kernel's side of each generation is in flush_<gen>.c.
 *
 * - The kernel's flush choke point is redirected (ftrace IPMODIFY, as
 *   livepatch does) from load to unload. The replacement hands every
 *   request to mcs_flush_request(). In `kernel` mode that does the
 *   kernel's own steps on the kernel's own objects: the kernel behaves as
 *   without the module, and flush.* counts.
 * - The kernel's reader gate (a threshold check inlined into the readers)
 *   is held open outside `kernel` mode, so every reader reaches the
 *   policy. Back in `kernel` mode it is left just above the kernel's
 *   limit: the next reader flushes and resets the kernel's state.
 * - Pending updates (threshold mode) are the module's own count, in the
 *   kernel's unit: the stat_updates.amount counter since the start of the
 *   last performed flush.
 *   The update hooks that feed it are attached only while `threshold`
 *   mode or update_flush_every needs them.
 * - flush_period_ms 2000 (the kernel's FLUSH_TIME) leaves the kernel's
 *   periodic work alone. Any other value replaces it with our own delayed
 *   work (0: none). Unload restores the kernel's.
 * - update_flush_every N: every Nth update on a cpu queues one async
 *   flush, as 5.15 did (docs/background.md#update-path-flush). A pending
 *   work item coalesces: flush.async_queued counts the attempts,
 *   flush.async the flushes done.
 * - Each request is exactly one of flush.performed or flush.skipped (the
 *   policy declined, or another flush held the lock).
 * - `never` governs memcg's own requests only. rstat is shared by all
 *   controllers: reading cpu.stat or io.stat flushes memcg too.
 * - Unload order: update hooks off, async work cancelled, the kernel's
 *   periodic work back, redirect off, calls in flight drained, gate closed.
 * - The kernel's unexported flush worker is called through kcall stubs
 *   (kcall.h), never through a pointer, for IBT.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/memcontrol.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/preempt.h>
#include <linux/rcupdate.h>
#include <linux/wait_bit.h>
#include <linux/string.h>
#include <linux/workqueue.h>

#include "compat.h"
#include "counters.h"
#include "flush.h"
#include "flush_reasons.h"
#include "flush_tick.h"

enum mcs_flush_mode {
	MCS_MODE_KERNEL,
	MCS_MODE_THRESHOLD,
	MCS_MODE_ALWAYS,
	MCS_MODE_NEVER,
};

static const char * const mcs_mode_names[] = {
	[MCS_MODE_KERNEL]	= "kernel",
	[MCS_MODE_THRESHOLD]	= "threshold",
	[MCS_MODE_ALWAYS]	= "always",
	[MCS_MODE_NEVER]	= "never",
};

#define MCS_THRESHOLD_MAX	BIT_ULL(62)
#define MCS_PERIOD_MIN_MS	10U
#define MCS_PERIOD_MAX_MS	3600000U
#define MCS_UPDATE_EVERY_MAX	BIT(24)

/* Knob values: written under mcs_knob_lock, read locklessly. */
static DEFINE_MUTEX(mcs_knob_lock);
static int mcs_mode = MCS_MODE_KERNEL;
static u64 mcs_threshold;
static unsigned int mcs_period_ms = MCS_KERNEL_PERIOD_MS;
unsigned int mcs_update_every;	/* read by site_tramp.S */
static bool mcs_kernel_periodic_stopped;
static bool mcs_available;
/* A redirect could not attach at load (another IPMODIFY user holds it). */
static bool mcs_attach_failed;

static atomic_t mcs_inflight = ATOMIC_INIT(0);

/*
 * Pending updates (threshold mode): the stat_updates.amount counter's sum
 * over cpus minus its sum at the start of the last flush performed in
 * threshold mode, or at entering it (mcs_apply_mode()).
 */
static DEFINE_PER_CPU(unsigned long, mcs_update_calls);
static u64 mcs_pending_base;

static void mcs_periodic_fn(struct work_struct *work);
static void mcs_async_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(mcs_periodic_work, mcs_periodic_fn);
static DECLARE_WORK(mcs_async_work, mcs_async_fn);

static u64 mcs_pending_sum(void)
{
	return mcs_counter_sum(MCS_STAT_UPDATES_AMOUNT);
}

void mcs_flush_enter(void)
{
	atomic_inc(&mcs_inflight);
}

void mcs_flush_leave(void)
{
	if (atomic_dec_and_test(&mcs_inflight))
		wake_up_var(&mcs_inflight);
}

/* queue_work() takes a spinlock: never from NMI. The tick still counts. */
void notrace mcs_flush_update_tick(void)
{
	unsigned int every = READ_ONCE(mcs_update_every);

	if (every && this_cpu_inc_return(mcs_update_calls) % every == 0 &&
	    !in_nmi()) {
		mcs_count(MCS_FLUSH_ASYNC_QUEUED);
		queue_work(MCS_UNBOUND_WQ, &mcs_async_work);
	}
}

/*
 * memcg_rstat_updated() is inlined into these. Argument 2 is the update's
 * size in the kernel's unit: an int, a long (7.x's
 * __mod_memcg_lruvec_state()) or an unsigned event count.
 */
#define ON_61_612	(MCS_ON_61 | MCS_ON_612)

static struct mcs_hook mcs_update_rows[] = {
	MCS_UPDATE_ROW(ON_61_612, "update.memcg_state", "__mod_memcg_state",
		       MCS_KIND_UPDATE_INT),
	MCS_UPDATE_ROW(ON_61_612, "update.lruvec_state",
		       "__mod_memcg_lruvec_state", MCS_KIND_UPDATE_INT),
	MCS_UPDATE_ROW(ON_61_612, "update.events", "__count_memcg_events",
		       MCS_KIND_UPDATE_ULONG),
	/* 7.x: __mod_memcg_state() is inlined into mod_memcg_state(int) */
	MCS_UPDATE_ROW(MCS_ON_7X, "update.memcg_state", "mod_memcg_state",
		       MCS_KIND_UPDATE_INT),
	MCS_UPDATE_ROW(MCS_ON_7X, "update.lruvec_state",
		       "__mod_memcg_lruvec_state", MCS_KIND_UPDATE_LONG),
	MCS_UPDATE_ROW(MCS_ON_7X, "update.events", "count_memcg_events",
		       MCS_KIND_UPDATE_ULONG),
};

struct mcs_hook_table mcs_update_hooks = {
	.hooks = mcs_update_rows,
	.n = ARRAY_SIZE(mcs_update_rows),
};

bool mcs_flush_kernel_mode(void)
{
	return READ_ONCE(mcs_mode) == MCS_MODE_KERNEL;
}

/* @pending: the amount counter's sum, read in threshold mode only */
static bool mcs_policy_flushes(int mode, void *target, u64 pending)
{
	switch (mode) {
	case MCS_MODE_THRESHOLD:
		return pending - READ_ONCE(mcs_pending_base) >
		       READ_ONCE(mcs_threshold);
	case MCS_MODE_NEVER:
		return false;
	case MCS_MODE_KERNEL:
		return mcs_backend_kernel_wants(target);
	default:	/* always */
		return true;
	}
}

void mcs_flush_request(enum mcs_flush_origin origin, void *target,
		       unsigned long caller)
{
	int mode = READ_ONCE(mcs_mode);
	bool flush = true;
	u64 ns, pending = 0;

	/*
	 * Read once, before any flush: the updates counted before the flush
	 * starts are the ones it folds. Those that come while it runs (on a
	 * cpu it has already passed, or after) are pending for the next
	 * request: a base taken at the end would drop them, and a 7.x flush
	 * on many cpus takes long enough for that to leave memory.stat
	 * thousands of pages stale. The other modes keep no base.
	 */
	if (mode == MCS_MODE_THRESHOLD)
		pending = mcs_pending_sum();
	mcs_count(MCS_FLUSH_REQUESTS);
	if (origin == MCS_ORIGIN_KERNEL_PERIODIC ||
	    origin == MCS_ORIGIN_MODULE_PERIODIC)
		mcs_count(MCS_FLUSH_PERIODIC);
	else if (origin == MCS_ORIGIN_READER)
		flush = mcs_policy_flushes(mode, target, pending);
	/* async and forced requests always flush */

	/*
	 * The reason is counted before the outcome: once flush.requests =
	 * flush.performed + flush.skipped (no flush in flight), every request
	 * is in flush_reasons too, and the classes sum to the counters.
	 */
	if (flush && mcs_backend_flush(target, mode != MCS_MODE_KERNEL, &ns)) {
		if (mode == MCS_MODE_THRESHOLD)
			WRITE_ONCE(mcs_pending_base, pending);
		mcs_flush_reason_count(origin, caller, true);
		smp_wmb();	/* the reason before the outcome; see above */
		mcs_count(MCS_FLUSH_PERFORMED);
		mcs_count_add(MCS_FLUSH_NS_TOTAL, ns);
		mcs_count_flush_ns(ns);
		mcs_counter_max(MCS_FLUSH_NS_MAX, ns);
		if (origin == MCS_ORIGIN_ASYNC)
			mcs_count(MCS_FLUSH_ASYNC);
		return;
	}
	mcs_flush_reason_count(origin, caller, false);
	smp_wmb();	/* the reason before the outcome, as above */
	mcs_count(MCS_FLUSH_SKIPPED);
}

static void mcs_periodic_fn(struct work_struct *work)
{
	unsigned int ms;

	mcs_flush_request(MCS_ORIGIN_MODULE_PERIODIC, NULL, 0);
	ms = READ_ONCE(mcs_period_ms);
	if (ms && ms != MCS_KERNEL_PERIOD_MS)
		queue_delayed_work(MCS_UNBOUND_WQ, &mcs_periodic_work,
				   msecs_to_jiffies(ms));
}

static void mcs_async_fn(struct work_struct *work)
{
	mcs_flush_request(MCS_ORIGIN_ASYNC, NULL, 0);
}

/* Attach the update-side hooks exactly while a knob needs them. */
static int mcs_update_hooks_sync(int mode, unsigned int every)
{
	if (mode == MCS_MODE_THRESHOLD || every)
		return mcs_hooks_attach(&mcs_update_hooks, MCS_GRP_UPDATE);
	mcs_hooks_detach(&mcs_update_hooks, MCS_GRP_UPDATE);
	return 0;
}

static int mcs_apply_mode(int mode)
{
	int old = mcs_mode, ret;

	if (mode == old)
		return 0;
	ret = mcs_update_hooks_sync(mode, mcs_update_every);
	if (ret)
		return ret;
	if (mode == MCS_MODE_THRESHOLD)
		WRITE_ONCE(mcs_pending_base, mcs_pending_sum());
	WRITE_ONCE(mcs_mode, mode);
	if (old == MCS_MODE_KERNEL)
		mcs_backend_gate(true);
	else if (mode == MCS_MODE_KERNEL)
		mcs_backend_gate(false);
	return 0;
}

static void mcs_apply_period(unsigned int ms)
{
	WRITE_ONCE(mcs_period_ms, ms);
	if (ms == MCS_KERNEL_PERIOD_MS) {
		cancel_delayed_work_sync(&mcs_periodic_work);
		if (mcs_kernel_periodic_stopped) {
			mcs_backend_kernel_periodic(true);
			mcs_kernel_periodic_stopped = false;
		}
		return;
	}
	if (!mcs_kernel_periodic_stopped) {
		mcs_backend_kernel_periodic(false);
		mcs_kernel_periodic_stopped = true;
	}
	if (ms)
		mod_delayed_work(MCS_UNBOUND_WQ, &mcs_periodic_work,
				 msecs_to_jiffies(ms));
	else
		cancel_delayed_work_sync(&mcs_periodic_work);
}

static int mcs_apply_update_every(unsigned int every)
{
	int ret = mcs_update_hooks_sync(mcs_mode, every);

	if (!ret)
		WRITE_ONCE(mcs_update_every, every);
	return ret;
}

/*
 * Parsers return 0 or -EINVAL. Checkers (for module parameters) return 1
 * when the value needs flush control, i.e. differs from the kernel's way.
 */
static int mcs_parse_mode(const char *text)
{
	int mode = match_string(mcs_mode_names, ARRAY_SIZE(mcs_mode_names),
				text);

	return mode < 0 ? -EINVAL : mode;
}

static int mcs_parse_threshold(const char *text, u64 *v)
{
	return mcs_knob_parse_u64(text, 0, MCS_THRESHOLD_MAX, v);
}

static int mcs_parse_period(const char *text, u64 *v)
{
	if (mcs_knob_parse_u64(text, 0, MCS_PERIOD_MAX_MS, v) ||
	    (*v && *v < MCS_PERIOD_MIN_MS))
		return -EINVAL;
	return 0;
}

static int mcs_parse_update_every(const char *text, u64 *v)
{
	return mcs_knob_parse_u64(text, 0, MCS_UPDATE_EVERY_MAX, v);
}

static int mcs_check_mode(const char *text)
{
	int mode = mcs_parse_mode(text);

	return mode < 0 ? mode : mode != MCS_MODE_KERNEL;
}

static int mcs_check_threshold(const char *text)
{
	u64 v;

	return mcs_parse_threshold(text, &v) ?: 1;
}

static int mcs_check_period(const char *text)
{
	u64 v;

	return mcs_parse_period(text, &v) ?: v != MCS_KERNEL_PERIOD_MS;
}

static int mcs_check_update_every(const char *text)
{
	u64 v;

	return mcs_parse_update_every(text, &v) ?: v != 0;
}

/* Knob setters: parse, then apply under the knob lock. */

static int mcs_set_mode(const char *text)
{
	int mode = mcs_parse_mode(text);
	int ret;

	if (mode < 0)
		return mode;
	mutex_lock(&mcs_knob_lock);
	ret = mcs_available ? mcs_apply_mode(mode) : -EOPNOTSUPP;
	mutex_unlock(&mcs_knob_lock);
	return ret;
}

static int mcs_set_threshold(const char *text)
{
	u64 v;

	if (mcs_parse_threshold(text, &v))
		return -EINVAL;
	/* Like the other flush knobs: nothing would read it. */
	if (!mcs_available)
		return -EOPNOTSUPP;
	WRITE_ONCE(mcs_threshold, v);
	return 0;
}

static int mcs_set_period(const char *text)
{
	u64 v;

	if (mcs_parse_period(text, &v))
		return -EINVAL;
	if (!mcs_available)
		return -EOPNOTSUPP;
	mutex_lock(&mcs_knob_lock);
	mcs_apply_period(v);
	mutex_unlock(&mcs_knob_lock);
	return 0;
}

static int mcs_set_update_every(const char *text)
{
	u64 v;
	int ret;

	if (mcs_parse_update_every(text, &v))
		return -EINVAL;
	mutex_lock(&mcs_knob_lock);
	ret = mcs_available ? mcs_apply_update_every(v) : -EOPNOTSUPP;
	mutex_unlock(&mcs_knob_lock);
	return ret;
}

static void mcs_show_mode(struct seq_file *m)
{
	seq_printf(m, "%s\n", mcs_mode_names[READ_ONCE(mcs_mode)]);
}

static void mcs_show_threshold(struct seq_file *m)
{
	seq_printf(m, "%llu\n", READ_ONCE(mcs_threshold));
}

static void mcs_show_period(struct seq_file *m)
{
	seq_printf(m, "%u\n", READ_ONCE(mcs_period_ms));
}

static void mcs_show_update_every(struct seq_file *m)
{
	seq_printf(m, "%u\n", READ_ONCE(mcs_update_every));
}

/*
 * Initial values, parsed exactly like writes to the debugfs files of the
 * same name (mcs_flush_knobs). NULL keeps the value mcs_flush_init() set.
 */
static char *flush_mode = "kernel";
module_param(flush_mode, charp, 0444);
MODULE_PARM_DESC(flush_mode, "Initial flush_mode: kernel, threshold, always or never (default kernel)");
static char *flush_threshold;
module_param(flush_threshold, charp, 0444);
MODULE_PARM_DESC(flush_threshold, "Initial flush_threshold in pending updates (default: the kernel's, MEMCG_CHARGE_BATCH * online cpus)");
static char *flush_period_ms = "2000";
module_param(flush_period_ms, charp, 0444);
MODULE_PARM_DESC(flush_period_ms, "Initial flush_period_ms: 0 (no periodic flush) or 10..3600000 (default 2000, the kernel's)");
static char *update_flush_every = "0";
module_param(update_flush_every, charp, 0444);
MODULE_PARM_DESC(update_flush_every, "Initial update_flush_every: 0 (off) or N, an async flush every N stat updates on a cpu (default 0)");

/*
 * Each row is a debugfs file and the module parameter of the same name.
 * Load applies them in this order: flush_mode last, so a mode starts with
 * the other values it was loaded with.
 */
const struct mcs_knob mcs_flush_knobs[] = {
	MCS_KNOB_ROW(flush_threshold, mcs_set_threshold, mcs_show_threshold,
		     mcs_check_threshold),
	MCS_KNOB_ROW(flush_period_ms, mcs_set_period, mcs_show_period,
		     mcs_check_period),
	MCS_KNOB_ROW(update_flush_every, mcs_set_update_every,
		     mcs_show_update_every, mcs_check_update_every),
	MCS_KNOB_ROW(flush_mode, mcs_set_mode, mcs_show_mode, mcs_check_mode),
};

const unsigned int mcs_flush_nr_knobs = ARRAY_SIZE(mcs_flush_knobs);

static bool flush_hooks = true;
module_param(flush_hooks, bool, 0444);
MODULE_PARM_DESC(flush_hooks, "Attach flush control and the flush counters at load (default 1; 0 leaves the kernel's flushing entirely alone, for measuring the module's own cost)");

const char *mcs_flush_state(void)
{
	if (mcs_available)
		return "available";
	if (mcs_attach_failed)
		return "failed";
	return flush_hooks ? "missing" : "off";
}

static const enum mcs_counter mcs_flush_counters[] = {
	MCS_FLUSH_REQUESTS, MCS_FLUSH_PERFORMED, MCS_FLUSH_SKIPPED,
	MCS_FLUSH_PERIODIC, MCS_FLUSH_ASYNC, MCS_FLUSH_ASYNC_QUEUED,
	MCS_FLUSH_NS_TOTAL, MCS_FLUSH_NS_MAX,
};

/*
 * The target of a redirect this kernel lacks, or NULL. Flush control is
 * all or nothing: flushes through a missing choke point would bypass the
 * policy. A choke point goes missing when the compiler inlines it, as
 * PREEMPT_RT 6.1 does with __mem_cgroup_flush_stats().
 */
static const char *mcs_backend_missing(void)
{
	unsigned int i;

	for (i = 0; i < mcs_backend_hooks.n; i++)
		if (mcs_backend_hooks.hooks[i].state == MCS_HOOK_MISSING)
			return mcs_backend_hooks.hooks[i].target;
	return NULL;
}

/*
 * Without flush control the module still loads and counts, but only if no
 * flush parameter asks for what it cannot do (@state says why).
 */
static int mcs_flush_params_unavailable(const char *state)
{
	return mcs_knobs_check_params(mcs_flush_knobs, mcs_flush_nr_knobs,
				      state);
}

int mcs_flush_init(void)
{
	const char *missing;
	unsigned int i;
	int ret;

	/* An invalid parameter fails the load, whatever else happens. */
	ret = mcs_knobs_check_params(mcs_flush_knobs, mcs_flush_nr_knobs,
				     NULL);
	if (ret)
		return ret;
	mcs_threshold = MEMCG_CHARGE_BATCH * num_online_cpus();
	ret = mcs_hook_table_init(&mcs_backend_hooks);
	if (ret)
		return ret;
	ret = mcs_hook_table_init(&mcs_update_hooks);
	if (ret)
		goto fail_backend_table;
	if (!flush_hooks) {
		ret = mcs_flush_params_unavailable("off (flush_hooks=0)");
		if (ret)
			goto fail_tables;
		return 0;
	}
	missing = mcs_backend_missing();
	if (missing || mcs_backend_init()) {
		/* Load all the same: `hooks` and `version` say why. */
		mcs_backend_exit();
		mcs_hooks_set_missing(&mcs_backend_hooks, ~0U);
		mcs_hooks_set_missing(&mcs_update_hooks, ~0U);
		if (missing)
			pr_warn("flush control unavailable: %s() or its caller is not a function of its own in this kernel (inlined): no flush point to redirect\n",
				missing);
		else
			pr_warn("flush control unavailable on this kernel\n");
		ret = mcs_flush_params_unavailable("missing on this kernel");
		if (ret)
			goto fail_tables;
		return 0;
	}
	ret = mcs_hooks_attach(&mcs_backend_hooks, MCS_GRP_REDIRECT);
	if (ret) {
		/*
		 * Another IPMODIFY user (a livepatch, a kprobe with a
		 * post_handler) holds a function we must redirect. Counting
		 * does not need it, so load without flush control. `hooks`
		 * and `version` show it, the log says why.
		 */
		mcs_backend_exit();
		mcs_attach_failed = true;
		pr_warn("flush control unavailable: a flush hook could not attach (%d)\n",
			ret);
		ret = mcs_flush_params_unavailable("failed to attach");
		if (ret)
			goto fail_tables;
		return 0;
	}
	mcs_available = true;
	for (i = 0; i < ARRAY_SIZE(mcs_flush_counters); i++)
		mcs_counter_set_present(mcs_flush_counters[i]);
	if (mcs_hooks_resolved(&mcs_update_hooks, MCS_GRP_UPDATE)) {
		mcs_counter_set_present(MCS_STAT_UPDATES);
		mcs_counter_set_present(MCS_STAT_UPDATES_AMOUNT);
	}
	ret = mcs_knobs_apply_params(mcs_flush_knobs, mcs_flush_nr_knobs);
	if (ret) {
		mcs_flush_exit();
		return ret;
	}
	return 0;

fail_tables:
	mcs_hook_table_exit(&mcs_update_hooks);
fail_backend_table:
	mcs_hook_table_exit(&mcs_backend_hooks);
	return ret;
}

void mcs_flush_exit(void)
{
	mutex_lock(&mcs_knob_lock);
	if (mcs_available) {
		mcs_hooks_detach(&mcs_update_hooks, MCS_GRP_UPDATE);
		cancel_work_sync(&mcs_async_work);
		mcs_apply_period(MCS_KERNEL_PERIOD_MS);
		mcs_hooks_detach(&mcs_backend_hooks, MCS_GRP_REDIRECT);
		/*
		 * No new call reaches a replacement now. Wait for the calls
		 * inside, then for a voluntary switch of every task, so none
		 * is left between mcs_flush_leave() and the return.
		 */
		wait_var_event(&mcs_inflight, !atomic_read(&mcs_inflight));
		synchronize_rcu_tasks();
		if (mcs_mode != MCS_MODE_KERNEL)
			mcs_backend_gate(false);
		mcs_mode = MCS_MODE_KERNEL;
		mcs_available = false;
		mcs_backend_exit();
	}
	mutex_unlock(&mcs_knob_lock);
	mcs_hook_table_exit(&mcs_update_hooks);
	mcs_hook_table_exit(&mcs_backend_hooks);
}
