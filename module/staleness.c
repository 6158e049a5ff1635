// SPDX-License-Identifier: GPL-2.0
/*
 * Live staleness: the stat updates the kernel recorded and no flush has
 * folded yet (`pending`, module/ABI.md). Only the kernel's own counts are
 * read: no hook, no rstat lock, no flush.
 *
 * mm/memcontrol.c counts every change to a memcg stat by its size
 * (abs(val): pages, or events) in memcg_rstat_updated():
 * - 6.12, 7.x: per memcg and cpu in memcg_vmstats_percpu.stats_updates,
 *   for the memcg and each ancestor; once a cpu's count reaches
 *   MEMCG_CHARGE_BATCH it is added to memcg->vmstats->stats_updates,
 *   unless that already exceeds the flush trigger
 *   (MEMCG_CHARGE_BATCH * num_online_cpus()), and the cpu's count restarts.
 *   A flush of the memcg zeroes both.
 * - 6.1: globally, in the per-cpu stats_updates; a cpu's count above
 *   MEMCG_CHARGE_BATCH is added, in whole batches, to stats_flush_threshold
 *   unless that already exceeds num_online_cpus(), and restarts from 0
 *   (the remainder below a batch is lost). A flush zeroes
 *   stats_flush_threshold only. While the module holds the readers' gate
 *   open (flush_61.c), the variable counts nothing.
 * Both private structs are read through BTF, never through a guessed
 * layout, and their types differ: 6.12 atomic64_t and unsigned int, 7.x
 * atomic_long_t and unsigned long.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cgroup.h>
#include <linux/cpumask.h>
#include <linux/memcontrol.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>

#include "btf.h"
#include "compat.h"
#include "flush_backend.h"
#include "ksym.h"
#include "staleness.h"

static struct {
	bool ok;
	struct mem_cgroup **root;
#ifdef MCS_GEN_61
	atomic_t *threshold;		/* stats_flush_threshold, in batches */
#else
	int updates_off;		/* memcg_vmstats.stats_updates */
	int cpu_updates_off;		/* memcg_vmstats_percpu.stats_updates */
#endif
} kp;

#ifdef MCS_GEN_61
static int mcs_staleness_resolve(void)
{
	return mcs_ksym_object("pending", "stats_flush_threshold",
			       &kp.threshold, sizeof(*kp.threshold));
}
#else
#ifdef MCS_GEN_612
#define MCS_UPDATES_TYPE	atomic64_t
#define mcs_updates_read	atomic64_read
#define MCS_CPU_UPDATES_TYPE	unsigned int
#define MCS_CPU_UPDATES_BTF	"unsigned int"
#else
#define MCS_UPDATES_TYPE	atomic_long_t
#define mcs_updates_read	atomic_long_read
#define MCS_CPU_UPDATES_TYPE	unsigned long
#define MCS_CPU_UPDATES_BTF	"long unsigned int"	/* BTF's name */
#endif

static int mcs_staleness_resolve(void)
{
	kp.updates_off = mcs_btf_member("memcg_vmstats", "stats_updates",
					__stringify(MCS_UPDATES_TYPE),
					sizeof(MCS_UPDATES_TYPE));
	kp.cpu_updates_off = mcs_btf_member("memcg_vmstats_percpu",
					    "stats_updates",
					    MCS_CPU_UPDATES_BTF,
					    sizeof(MCS_CPU_UPDATES_TYPE));
	if (kp.updates_off < 0)
		return kp.updates_off;
	return kp.cpu_updates_off < 0 ? kp.cpu_updates_off : 0;
}

/* What the memcg's cpus gathered below their batch, not yet handed up. */
static u64 mcs_staleness_cpus(struct mem_cgroup *memcg)
{
	/* the struct is private to mm/memcontrol.c: bytes, at BTF's offset */
	char __percpu *stats = (char __percpu *)memcg->vmstats_percpu;
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu) {
		char *statc = per_cpu_ptr(stats, cpu);

		sum += READ_ONCE(*(MCS_CPU_UPDATES_TYPE *)
				 (statc + kp.cpu_updates_off));
	}
	return sum;
}

static u64 mcs_staleness_handed_up(struct mem_cgroup *memcg)
{
	MCS_UPDATES_TYPE *updates = (MCS_UPDATES_TYPE *)
		((char *)memcg->vmstats + kp.updates_off);
	long n = mcs_updates_read(updates);

	return n > 0 ? n : 0;
}
#endif /* !MCS_GEN_61 */

void mcs_staleness_init(void)
{
	/* On cgroup v1 the ids would be another hierarchy's than cgroup2's. */
	if (!cgroup_subsys_on_dfl(memory_cgrp_subsys)) {
		pr_warn("pending: the memory controller is on cgroup v1; `pending` is missing\n");
		return;
	}
	kp.ok = !mcs_ksym_object("pending", "root_mem_cgroup", &kp.root,
				 sizeof(*kp.root)) &&
		!mcs_staleness_resolve();
	if (!kp.ok)
		pr_warn("pending: the kernel's counts of unflushed stat updates are not readable here; `pending` is missing\n");
}

const char *mcs_staleness_state(void)
{
	if (!kp.ok)
		return "missing";
#ifdef MCS_GEN_61
	return "global";
#else
	return "memcg";
#endif
}

int mcs_staleness_show(struct seq_file *m)
{
	u64 trigger = (u64)MEMCG_CHARGE_BATCH * num_online_cpus();
#ifndef MCS_GEN_61
	struct cgroup_subsys_state *css;
	u64 off_n = 0, off_pending = 0, off_cpus = 0;
#endif

	if (!kp.ok)
		return -EOPNOTSUPP;
	seq_printf(m, "scope %s\n", mcs_staleness_state());
	seq_printf(m, "batch %u\n", MEMCG_CHARGE_BATCH);
	seq_printf(m, "trigger %llu\n", trigger);
#ifdef MCS_GEN_61
	if (mcs_backend_threshold_is_kernels())
		seq_printf(m, "global %llu\n",
			   (u64)max(atomic_read(kp.threshold), 0) *
			   MEMCG_CHARGE_BATCH);
#else
	rcu_read_lock();
	css_for_each_descendant_pre(css, &(*kp.root)->css) {
		struct mem_cgroup *memcg = mem_cgroup_from_css(css);
		u64 pending = mcs_staleness_handed_up(memcg);
		u64 cpus = mcs_staleness_cpus(memcg);

		/*
		 * Not online: removed and not yet freed, or its memory
		 * controller switched off in the parent's subtree_control.
		 */
		if (!(READ_ONCE(css->flags) & CSS_ONLINE)) {
			off_n++;
			off_pending += pending;
			off_cpus += cpus;
			continue;
		}
		seq_printf(m, "cgroup %llu %llu %llu\n",
			   cgroup_id(css->cgroup), pending, cpus);
		/* seq_file retries with a larger buffer: stop the walk now */
		if (seq_has_overflowed(m))
			break;
	}
	rcu_read_unlock();
	seq_printf(m, "offline %llu %llu %llu\n", off_n, off_pending,
		   off_cpus);
#endif
	return 0;
}
