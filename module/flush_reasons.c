// SPDX-License-Identifier: GPL-2.0
/*
 * Why flushes are requested: per requester class and per calling function.
 * See flush_reasons.h; counted as counters.c counts (per cpu, summed on
 * read, reset through a baseline), so that the classes' requests sum to
 * flush.requests and their flushes to flush.performed.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/hash.h>
#include <linux/kallsyms.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/string.h>

#include "flush_reasons.h"

enum mcs_flush_class {
	MCS_CLASS_READER,
	MCS_CLASS_RECLAIM,
	MCS_CLASS_REFAULT,
	MCS_CLASS_PERIODIC,
	MCS_CLASS_ASYNC,
	MCS_CLASS_FORCED,
	MCS_CLASS_UNATTRIBUTED,	/* caller hidden, or the table full */
	MCS_NR_CLASSES
};

static const char * const mcs_class_names[MCS_NR_CLASSES] = {
	[MCS_CLASS_READER]		= "reader",
	[MCS_CLASS_RECLAIM]		= "reclaim",
	[MCS_CLASS_REFAULT]		= "refault",
	[MCS_CLASS_PERIODIC]		= "periodic",
	[MCS_CLASS_ASYNC]		= "async",
	[MCS_CLASS_FORCED]		= "forced",
	[MCS_CLASS_UNATTRIBUTED]	= "unattributed",
};

/*
 * A reader's class, from its caller's name (compiler clone suffixes such
 * as .part.0 stripped). The refault path asks through the rate-limited
 * or delayed flush, or from workingset.c; reclaim from vmscan.c.
 */
static const char * const mcs_refault_callers[] = {
	"workingset_refault", "workingset_test_recent", "count_shadow_nodes",
	"lru_gen_refault", "mem_cgroup_flush_stats_delayed",
	"mem_cgroup_flush_stats_ratelimited",
};

static const char * const mcs_reclaim_prefixes[] = {
	"shrink_", "prepare_scan_", "lru_gen_", "try_to_free_",
	"balance_pgdat", "kswapd", "reclaim_",
};

/* Call sites, by return address: far more slots than the kernel has. */
#define MCS_CALLER_BITS		7
#define MCS_CALLERS		BIT(MCS_CALLER_BITS)

struct mcs_reason {
	u64 requests;
	u64 performed;
};

struct mcs_reasons {
	struct mcs_reason caller[MCS_CALLERS];
	struct mcs_reason cls[MCS_NR_CLASSES];
};

static unsigned long mcs_caller_ip[MCS_CALLERS];
static DEFINE_PER_CPU(struct mcs_reasons, mcs_reasons);
/* the sums at the last reset; protected by mcs_reasons_lock */
static struct mcs_reasons mcs_reasons_base;
static DEFINE_MUTEX(mcs_reasons_lock);

/* The slot of @ip, claimed on first use; MCS_CALLERS when all are taken. */
static unsigned int mcs_caller_slot(unsigned long ip)
{
	unsigned int i, h = hash_long(ip, MCS_CALLER_BITS);

	for (i = 0; i < MCS_CALLERS; i++) {
		unsigned int s = (h + i) & (MCS_CALLERS - 1);
		unsigned long cur = READ_ONCE(mcs_caller_ip[s]);

		if (!cur)
			cur = cmpxchg(&mcs_caller_ip[s], 0, ip) ?: ip;
		if (cur == ip)
			return s;
	}
	return MCS_CALLERS;
}

static void mcs_reason_add(struct mcs_reason __percpu *r, bool performed)
{
	this_cpu_inc(r->requests);
	if (performed)
		this_cpu_inc(r->performed);
}

void mcs_flush_reason_count(enum mcs_flush_origin origin, unsigned long caller,
			    bool performed)
{
	enum mcs_flush_class c;
	unsigned int s;

	switch (origin) {
	case MCS_ORIGIN_READER:
		s = caller ? mcs_caller_slot(caller) : MCS_CALLERS;
		if (s < MCS_CALLERS) {
			mcs_reason_add(&mcs_reasons.caller[s], performed);
			return;
		}
		c = MCS_CLASS_UNATTRIBUTED;
		break;
	case MCS_ORIGIN_KERNEL_PERIODIC:
	case MCS_ORIGIN_MODULE_PERIODIC:
		c = MCS_CLASS_PERIODIC;
		break;
	case MCS_ORIGIN_ASYNC:
		c = MCS_CLASS_ASYNC;
		break;
	default:
		c = MCS_CLASS_FORCED;
		break;
	}
	mcs_reason_add(&mcs_reasons.cls[c], performed);
}

/* The sum over cpus of one count: @off is its offset in struct mcs_reasons. */
static u64 mcs_reasons_sum(size_t off)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += READ_ONCE(*(u64 *)((char *)per_cpu_ptr(&mcs_reasons, cpu) + off));
	return sum;
}

#define MCS_OFF(field)	offsetof(struct mcs_reasons, field)

/* @r since the last reset. Context: mcs_reasons_lock held. */
static void mcs_reason_read(size_t off, struct mcs_reason *r)
{
	const char *base = (const char *)&mcs_reasons_base + off;

	r->requests = mcs_reasons_sum(off) - *(const u64 *)base;
	r->performed = mcs_reasons_sum(off + sizeof(u64)) -
		       *(const u64 *)(base + sizeof(u64));
}

/* The name of the function holding return address @ip, without clone suffix. */
static void mcs_caller_name(unsigned long ip, char *buf)
{
	/* ip - 1: the call, even when it is its function's last instruction */
	sprint_symbol_no_offset(buf, ip - 1);
}

static bool mcs_name_is(const char *name, const char *want)
{
	size_t n = strlen(want);

	return !strncmp(name, want, n) && (!name[n] || name[n] == '.');
}

static enum mcs_flush_class mcs_reader_class(const char *name)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(mcs_refault_callers); i++)
		if (mcs_name_is(name, mcs_refault_callers[i]))
			return MCS_CLASS_REFAULT;
	for (i = 0; i < ARRAY_SIZE(mcs_reclaim_prefixes); i++)
		if (!strncmp(name, mcs_reclaim_prefixes[i],
			     strlen(mcs_reclaim_prefixes[i])))
			return MCS_CLASS_RECLAIM;
	return MCS_CLASS_READER;
}

static void mcs_reason_print(struct seq_file *m, const char *what,
			     const char *name, const char *cls,
			     const struct mcs_reason *r)
{
	seq_printf(m, "%s %s%s%s %llu %llu %llu\n", what, name, cls ? " " : "",
		   cls ?: "", r->requests, r->performed,
		   r->requests - r->performed);
}

/* One read of `flush_reasons`: too big for the stack. */
struct mcs_reasons_view {
	char names[MCS_CALLERS][KSYM_SYMBOL_LEN];
	struct mcs_reason site[MCS_CALLERS];
	enum mcs_flush_class site_cls[MCS_CALLERS];
	struct mcs_reason cls[MCS_NR_CLASSES];
};

int mcs_flush_reasons_show(struct seq_file *m)
{
	struct mcs_reasons_view *v = kvzalloc(sizeof(*v), GFP_KERNEL);
	unsigned int i, j, n = 0;

	if (!v)
		return -ENOMEM;
	mutex_lock(&mcs_reasons_lock);
	for (i = 0; i < MCS_NR_CLASSES; i++)
		mcs_reason_read(MCS_OFF(cls[i]), &v->cls[i]);
	/* the call sites in use, merged by function */
	for (i = 0; i < MCS_CALLERS; i++) {
		unsigned long ip = READ_ONCE(mcs_caller_ip[i]);
		struct mcs_reason r;

		if (!ip)
			continue;
		mcs_reason_read(MCS_OFF(caller[i]), &r);
		mcs_caller_name(ip, v->names[n]);
		for (j = 0; j < n && strcmp(v->names[j], v->names[n]); j++)
			;
		if (j == n)
			v->site_cls[n++] = mcs_reader_class(v->names[j]);
		v->site[j].requests += r.requests;
		v->site[j].performed += r.performed;
		v->cls[v->site_cls[j]].requests += r.requests;
		v->cls[v->site_cls[j]].performed += r.performed;
	}
	mutex_unlock(&mcs_reasons_lock);
	for (i = 0; i < MCS_NR_CLASSES; i++)
		mcs_reason_print(m, "class", mcs_class_names[i], NULL, &v->cls[i]);
	for (i = 0; i < n; i++)
		mcs_reason_print(m, "caller", v->names[i],
				 mcs_class_names[v->site_cls[i]], &v->site[i]);
	kvfree(v);
	return 0;
}

void mcs_flush_reasons_reset(void)
{
	size_t off;

	mutex_lock(&mcs_reasons_lock);
	for (off = 0; off < sizeof(mcs_reasons_base); off += sizeof(u64))
		*(u64 *)((char *)&mcs_reasons_base + off) = mcs_reasons_sum(off);
	mutex_unlock(&mcs_reasons_lock);
}
