/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MCS_COUNTERS_H
#define MCS_COUNTERS_H

#include <linux/bitops.h>
#include <linux/minmax.h>
#include <linux/percpu.h>
#include <linux/types.h>

/*
 * The counters of the `stats` file (module/ABI.md). Their names are an ABI:
 * add new ones, never rename.
 */
enum mcs_counter {
	MCS_FLUSH_REQUESTS,
	MCS_FLUSH_PERFORMED,
	MCS_FLUSH_SKIPPED,
	MCS_FLUSH_PERIODIC,
	MCS_FLUSH_ASYNC,
	MCS_FLUSH_ASYNC_QUEUED,
	MCS_FLUSH_NS_TOTAL,
	MCS_FLUSH_NS_MAX,
	MCS_CHARGE_STOCK_ATTEMPTS,
	MCS_CHARGE_STOCK_MISSES,
	MCS_CHARGE_STOCK_REFILLS,
	MCS_CHARGE_STOCK_DRAINS,
	MCS_OBJ_STOCK_ATTEMPTS,
	MCS_OBJ_STOCK_MISSES,
	MCS_OBJ_STOCK_REFILLS,
	MCS_OBJ_STOCK_DRAINS,
	MCS_OBJCG_VMSTAT_UPDATES,
	MCS_OBJCG_VMSTAT_FLUSHES,
	MCS_STAT_UPDATES,
	MCS_STAT_UPDATES_AMOUNT,
	MCS_CALLER_RECOVERED,
	MCS_CALLER_UNATTRIBUTED,
	/* the buckets of `flush_latency`, not in `stats` (no names) */
	MCS_FLUSH_LAT_FIRST,
	MCS_FLUSH_LAT_LAST = MCS_FLUSH_LAT_FIRST + 40,
	MCS_NR_COUNTERS
};

/*
 * Flush durations in log2 ns buckets: bucket 0 holds 0 ns, bucket k holds
 * [2^(k-1), 2^k) ns, the last one everything from 2^39 ns (9 minutes) up.
 * Counted where flush.performed and flush.ns_total are, and reset with
 * them, so the buckets sum to flush.performed.
 */
#define MCS_FLUSH_LAT_BUCKETS	(MCS_FLUSH_LAT_LAST - MCS_FLUSH_LAT_FIRST + 1)

struct mcs_pcpu_counters {
	u64 v[MCS_NR_COUNTERS];
};

DECLARE_PER_CPU(struct mcs_pcpu_counters, mcs_counters);

/*
 * Why the counts are exact (also for the rows' hits and amounts that
 * hooked counters are summed from):
 * - An event is one this_cpu_add(), a single `addq %gs:` on x86. No
 *   interrupt, NMI or preemption can split it. Readers sum all cpus.
 * - No cpu writes another's slot: a remote store could lose a local add.
 *   `reset` records the sums as a baseline that reads subtract. Values
 *   only grow, so reads never go below it, nor backwards.
 * - Counting callbacks call nothing hooked: no double count by recursion.
 * flush.ns_max is the exception: a maximum cannot be rebased. It is kept
 * per cpu with cmpxchg and cleared with xchg (mcs_counter_max()).
 */

/**
 * mcs_count_add() - add @n to this cpu's value of @c
 * @c: the counter
 * @n: the amount
 *
 * Context: any, including NMI.
 */
static __always_inline void mcs_count_add(enum mcs_counter c, u64 n)
{
	this_cpu_add(mcs_counters.v[c], n);
}

/**
 * mcs_count() - count one event of @c on this cpu
 * @c: the counter
 *
 * Context: any, including NMI.
 */
static __always_inline void mcs_count(enum mcs_counter c)
{
	this_cpu_inc(mcs_counters.v[c]);
}

/**
 * mcs_count_flush_ns() - count one flush of @ns nanoseconds in its bucket
 * @ns: the flush's duration
 *
 * Context: any, including NMI.
 */
static __always_inline void mcs_count_flush_ns(u64 ns)
{
	unsigned int k = min_t(unsigned int, fls64(ns), MCS_FLUSH_LAT_BUCKETS - 1);

	this_cpu_inc(mcs_counters.v[MCS_FLUSH_LAT_FIRST + k]);
}

/**
 * mcs_counter_max() - raise this cpu's maximum of @c to @val
 * @c: a maximum (flush.ns_max)
 * @val: the new value
 */
void mcs_counter_max(enum mcs_counter c, u64 val);

/**
 * mcs_counter_read() - the value `stats` shows
 * @c: the counter
 *
 * Return: the sum over cpus less the sum at the last `reset`, or the
 * maximum for a maximum.
 */
u64 mcs_counter_read(enum mcs_counter c);

/**
 * mcs_counter_sum() - the sum over cpus since load, ignoring `reset`
 * @c: the counter
 *
 * Return: the sum.
 */
u64 mcs_counter_sum(enum mcs_counter c);

/**
 * mcs_counter_name() - the ABI name of @c
 * @c: the counter
 *
 * Return: the name (module/ABI.md).
 */
const char *mcs_counter_name(enum mcs_counter c);

/**
 * mcs_counters_reset() - start every counter again from 0
 *
 * Records the current sums as the baseline that reads subtract.
 */
void mcs_counters_reset(void);

/**
 * mcs_counter_add_source() - per-cpu values that @c is summed from
 * @c: the counter
 * @p: a row's hits or amount (site.h)
 *
 * A counter fed by counting rows is the sum of their per-cpu values plus
 * its own slot, so a trampoline adds to one place per call.
 *
 * Context: table resolution at load; no reader runs then.
 */
void mcs_counter_add_source(enum mcs_counter c, u64 __percpu *p);

/**
 * mcs_counter_del_sources() - remove every source inside an area
 * @base: the area, [@base, @base + @size)
 * @size: its size
 *
 * Context: before the area is freed at unload; no reader runs then.
 */
void mcs_counter_del_sources(void __percpu *base, size_t size);

/**
 * mcs_counter_set_present() - print @c in `stats`
 * @c: a counter some available hook feeds
 */
void mcs_counter_set_present(enum mcs_counter c);

/**
 * mcs_counter_clear_present() - stop printing @c in `stats`
 * @c: a counter no attached hook feeds; its value is kept
 */
void mcs_counter_clear_present(enum mcs_counter c);

/**
 * mcs_counter_present() - whether `stats` prints @c
 * @c: the counter
 *
 * Return: true when some hook feeding it is available.
 */
bool mcs_counter_present(enum mcs_counter c);

#endif /* MCS_COUNTERS_H */
