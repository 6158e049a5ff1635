// SPDX-License-Identifier: GPL-2.0
/*
 * Per-cpu event counters, summed on read, reset through a baseline.
 * See counters.h for why the counts are exact.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/bitmap.h>
#include <linux/cpumask.h>
#include <linux/mutex.h>

#include "counters.h"

DEFINE_PER_CPU(struct mcs_pcpu_counters, mcs_counters);

static const char * const mcs_counter_names[MCS_NR_COUNTERS] = {
	[MCS_FLUSH_REQUESTS]		= "flush.requests",
	[MCS_FLUSH_PERFORMED]		= "flush.performed",
	[MCS_FLUSH_SKIPPED]		= "flush.skipped",
	[MCS_FLUSH_PERIODIC]		= "flush.periodic",
	[MCS_FLUSH_ASYNC]		= "flush.async",
	[MCS_FLUSH_ASYNC_QUEUED]	= "flush.async_queued",
	[MCS_FLUSH_NS_TOTAL]		= "flush.ns_total",
	[MCS_FLUSH_NS_MAX]		= "flush.ns_max",
	[MCS_CHARGE_STOCK_ATTEMPTS]	= "charge_stock.attempts",
	[MCS_CHARGE_STOCK_MISSES]	= "charge_stock.misses",
	[MCS_CHARGE_STOCK_REFILLS]	= "charge_stock.refills",
	[MCS_CHARGE_STOCK_DRAINS]	= "charge_stock.drains",
	[MCS_OBJ_STOCK_ATTEMPTS]	= "obj_stock.attempts",
	[MCS_OBJ_STOCK_MISSES]		= "obj_stock.misses",
	[MCS_OBJ_STOCK_REFILLS]		= "obj_stock.refills",
	[MCS_OBJ_STOCK_DRAINS]		= "obj_stock.drains",
	[MCS_OBJCG_VMSTAT_UPDATES]	= "objcg_vmstat.updates",
	[MCS_OBJCG_VMSTAT_FLUSHES]	= "objcg_vmstat.flushes",
	[MCS_STAT_UPDATES]		= "stat_updates",
	[MCS_STAT_UPDATES_AMOUNT]	= "stat_updates.amount",
	[MCS_CALLER_RECOVERED]		= "caller.recovered",
	[MCS_CALLER_UNATTRIBUTED]	= "caller.unattributed",
};

#define MCS_SOURCES_MAX		64

/* Per-cpu values that counters are summed from, besides their own slot. */
static struct {
	enum mcs_counter c;
	u64 __percpu *p;
} mcs_sources[MCS_SOURCES_MAX];
static unsigned int mcs_nr_sources;

/* Sums at the last reset; protected by mcs_base_lock. */
static u64 mcs_base[MCS_NR_COUNTERS];
static DEFINE_MUTEX(mcs_base_lock);
static DECLARE_BITMAP(mcs_present, MCS_NR_COUNTERS);

static bool mcs_is_max(enum mcs_counter c)
{
	return c == MCS_FLUSH_NS_MAX;
}

u64 mcs_counter_sum(enum mcs_counter c)
{
	u64 sum = 0;
	int cpu;

	unsigned int i, n = READ_ONCE(mcs_nr_sources);

	for_each_possible_cpu(cpu) {
		u64 v = READ_ONCE(per_cpu(mcs_counters, cpu).v[c]);

		if (mcs_is_max(c)) {
			sum = max(sum, v);
			continue;
		}
		sum += v;
		for (i = 0; i < n; i++)
			if (mcs_sources[i].c == c && mcs_sources[i].p)
				sum += READ_ONCE(*per_cpu_ptr(mcs_sources[i].p,
							      cpu));
	}
	return sum;
}

void mcs_counter_add_source(enum mcs_counter c, u64 __percpu *p)
{
	unsigned int i;

	for (i = 0; i < mcs_nr_sources; i++)
		if (!mcs_sources[i].p)
			break;
	if (WARN_ON_ONCE(i == MCS_SOURCES_MAX))
		return;
	mcs_sources[i].c = c;
	WRITE_ONCE(mcs_sources[i].p, p);
	if (i == mcs_nr_sources)
		WRITE_ONCE(mcs_nr_sources, i + 1);
}

void mcs_counter_del_sources(void __percpu *base, size_t size)
{
	unsigned long lo = (__force unsigned long)base, hi = lo + size;
	unsigned int i;

	for (i = 0; i < mcs_nr_sources; i++) {
		unsigned long p = (__force unsigned long)mcs_sources[i].p;

		if (p >= lo && p < hi)
			WRITE_ONCE(mcs_sources[i].p, NULL);
	}
}

/* Raise this cpu's maximum; callers may be preempted, hence cmpxchg. */
void mcs_counter_max(enum mcs_counter c, u64 val)
{
	u64 *slot = raw_cpu_ptr(&mcs_counters.v[c]);
	u64 old = READ_ONCE(*slot);

	while (val > old) {
		u64 prev = cmpxchg64(slot, old, val);

		if (prev == old)
			break;
		old = prev;
	}
}

u64 mcs_counter_read(enum mcs_counter c)
{
	u64 v;

	if (mcs_is_max(c))
		return mcs_counter_sum(c);
	mutex_lock(&mcs_base_lock);
	v = mcs_counter_sum(c) - mcs_base[c];
	mutex_unlock(&mcs_base_lock);
	return v;
}

void mcs_counters_reset(void)
{
	int c, cpu;

	mutex_lock(&mcs_base_lock);
	for (c = 0; c < MCS_NR_COUNTERS; c++) {
		if (!mcs_is_max(c)) {
			mcs_base[c] = mcs_counter_sum(c);
			continue;
		}
		for_each_possible_cpu(cpu)
			xchg(&per_cpu(mcs_counters, cpu).v[c], 0);
	}
	/*
	 * A flush counts its request before it runs, its outcome after. A
	 * request in flight now would leave flush.requests short of
	 * performed + skipped until the next reset. So take the outcomes' sum
	 * as the requests' baseline: the request counts after the reset, with
	 * its outcome. Each outcome follows its request, so later reads never
	 * fall below this baseline.
	 */
	mcs_base[MCS_FLUSH_REQUESTS] = mcs_base[MCS_FLUSH_PERFORMED] +
				       mcs_base[MCS_FLUSH_SKIPPED];
	mutex_unlock(&mcs_base_lock);
}

const char *mcs_counter_name(enum mcs_counter c)
{
	return mcs_counter_names[c];	/* NULL for a latency bucket */
}

void mcs_counter_set_present(enum mcs_counter c)
{
	set_bit(c, mcs_present);
}

void mcs_counter_clear_present(enum mcs_counter c)
{
	clear_bit(c, mcs_present);
}

bool mcs_counter_present(enum mcs_counter c)
{
	return test_bit(c, mcs_present);
}
