/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MCS_COUNTERS_H
#define MCS_COUNTERS_H

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
	MCS_NR_COUNTERS
};

struct mcs_pcpu_counters {
	u64 v[MCS_NR_COUNTERS];
};

DECLARE_PER_CPU(struct mcs_pcpu_counters, mcs_counters);

/*
 * Why the counts are exact:
 * - each event is one this_cpu_add(), a single read-modify-write instruction
 *   on x86 (`addq %gs:`), so neither an interrupt nor an NMI on the same cpu
 *   can split it, and preemption cannot move the task between the read and
 *   the write; a task that migrates afterwards has already counted on the
 *   cpu it ran on, and readers sum over every possible cpu;
 * - no cpu ever writes another cpu's slot: `reset` does not clear the
 *   per-cpu values (a remote store could race with a local add and lose it),
 *   it records the current sums as a baseline that reads subtract. Per-cpu
 *   values only grow, so a read never goes below the baseline and two reads
 *   without a reset between them never go backwards;
 * - the callbacks that count do not call anything that is itself hooked, so
 *   an event is never counted twice through recursion;
 * - the same holds for the rows' per-cpu hits and amounts that the counters
 *   of hooked events are summed from (mcs_counter_add_source()).
 * flush.ns_max is the exception: a maximum cannot be rebased, so it is kept
 * per cpu with cmpxchg and cleared with xchg (see mcs_counter_max()).
 */
static __always_inline void mcs_count_add(enum mcs_counter c, u64 n)
{
	this_cpu_add(mcs_counters.v[c], n);
}

static __always_inline void mcs_count(enum mcs_counter c)
{
	this_cpu_inc(mcs_counters.v[c]);
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
 * A counter that counting rows feed is the sum of their per-cpu values,
 * added to the counter's own slot: a trampoline then adds to one place per
 * call. Sources are added while the tables are resolved at load and
 * removed before they are freed at unload; no reader runs then.
 */
void mcs_counter_add_source(enum mcs_counter c, u64 __percpu *p);

/**
 * mcs_counter_del_sources() - remove every source inside an area
 * @base: the area, [@base, @base + @size)
 * @size: its size
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
