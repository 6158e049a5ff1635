// SPDX-License-Identifier: GPL-2.0
/*
 * Per-cgroup stock attribution (attribution.h).
 *
 * The rows watch the functions of the stock counters (stock.c), so every
 * one of them exists out of line. Where an event's memcg is
 * (mm/memcontrol.c):
 *   attempts    try_charge_memcg(memcg, ...)
 *   misses      page_counter_try_charge(&memcg->memory, ...) from
 *               try_charge_memcg(): cgroup v2 charges no memsw counter,
 *               so the counter is always the memcg's `memory`
 *   refills     refill_stock(memcg, n); 6.12 __refill_stock(memcg, n)
 *   drains      drain_stock(stock): stock->cached; 7.x
 *               drain_stock(stock, i): stock->cached[i]
 *   obj_misses  6.1, 6.12: try_charge_memcg(memcg, ...) from
 *               obj_cgroup_charge(); 7.x: obj_cgroup_charge_pages(objcg,
 *               ...) from its two callers: objcg->memcg
 *   evicted     7.x: drain_stock(stock, i) from refill_stock() of a slot
 *               holding at most MEMCG_CHARGE_BATCH pages. refill_stock()
 *               drains its own cgroup's slot once that holds more than a
 *               batch; it drains any other slot, at or below a batch, only
 *               to free it for a cgroup that has none.
 * struct memcg_stock_pcp is private to mm/memcontrol.c: its members are
 * read at BTF's offsets. The charge paths hold a reference on their
 * memcg, a stock slot holds one on its cached memcg, and objcg->memcg,
 * which reparenting may change, is read with preemption off, an RCU
 * read-side section that keeps the memcg it names from being freed.
 *
 * Counts go to a per-cpu table of MCS_ATTR_SLOTS slots, open addressing on
 * the cgroup id. A slot is claimed with a cpu-local cmpxchg, so an
 * interrupt or NMI that charges on the same cpu cannot corrupt it; what
 * finds no slot counts into `other`. `reset` copies the counts into a
 * base, so nothing counted between a reset and a read is lost. Turning the
 * knob on starts from an empty table. cgroup v1 is left out: its ids are
 * another hierarchy's and try_charge_memcg() charges memsw there too.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cgroup.h>
#include <linux/hash.h>
#include <linux/memcontrol.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/workqueue.h>

#include "attribution.h"
#include "btf.h"
#include "compat.h"
#include "ksym.h"

#define MCS_ATTR_BITS		8
#define MCS_ATTR_SLOTS		BIT(MCS_ATTR_BITS)
#define MCS_ATTR_PROBES		16	/* slots tried before `other` */
#define MCS_ATTR_SAMPLE_MS	100	/* 7.x occupancy sampling period */

#define MCS_ATTR_ROW(_gens, _name, _target, _caller, _event)	\
	{							\
		.name = _name,					\
		.target = _target,				\
		.caller = _caller,				\
		.mech = MCS_MECH_COUNT,				\
		.group = MCS_GRP_ATTR,				\
		.gens = _gens,					\
		.counter = MCS_NO_COUNTER,			\
		.kind = MCS_KIND_ATTR + (_event),		\
	}

#define ON_6X		(MCS_ON_61 | MCS_ON_612)

/* Evictions are a 7.x event: the field reads `-` elsewhere. */
#ifdef MCS_GEN_7X
#define MCS_ATTR_HAVE_EVICTED	true
#else
#define MCS_ATTR_HAVE_EVICTED	false
#endif

static struct mcs_hook mcs_attr_rows[] = {
	MCS_ATTR_ROW(0, "attr.attempts", "try_charge_memcg", NULL,
		     MCS_ATTR_ATTEMPTS),
	MCS_ATTR_ROW(0, "attr.misses", "page_counter_try_charge",
		     "try_charge_memcg", MCS_ATTR_MISSES),
	MCS_ATTR_ROW(MCS_ON_61 | MCS_ON_7X, "attr.refills", "refill_stock",
		     NULL, MCS_ATTR_REFILLS),
	MCS_ATTR_ROW(MCS_ON_612, "attr.refills", "__refill_stock", NULL,
		     MCS_ATTR_REFILLS),
	MCS_ATTR_ROW(0, "attr.drains", "drain_stock", NULL, MCS_ATTR_DRAINS),
	MCS_ATTR_ROW(ON_6X, "attr.obj_misses", "try_charge_memcg",
		     "obj_cgroup_charge", MCS_ATTR_OBJ_MISSES),
	MCS_ATTR_ROW(MCS_ON_7X, "attr.obj_misses", "obj_cgroup_charge_pages",
		     "obj_cgroup_charge", MCS_ATTR_OBJ_MISSES),
	MCS_ATTR_ROW(MCS_ON_7X, "attr.obj_misses", "obj_cgroup_charge_pages",
		     "__memcg_slab_post_alloc_hook", MCS_ATTR_OBJ_MISSES),
	MCS_ATTR_ROW(MCS_ON_7X, "attr.evicted", "drain_stock", "refill_stock",
		     MCS_ATTR_EVICTED),
};

struct mcs_hook_table mcs_attr_hooks = {
	.hooks = mcs_attr_rows,
	.n = ARRAY_SIZE(mcs_attr_rows),
};

struct mcs_attr_slot {
	u64 id;				/* cgroup id; 0: free */
	u64 ev[MCS_ATTR_NR];
};

struct mcs_attr_table {
	struct mcs_attr_slot slot[MCS_ATTR_SLOTS];
	struct mcs_attr_slot other;	/* events that found no slot */
};

static struct {
	bool ok;			/* else `missing` */
	struct mcs_attr_table __percpu *tab;
	struct mcs_attr_table __percpu *base;	/* the counts at `reset` */
	int cached_off;			/* memcg_stock_pcp.cached */
#ifdef MCS_GEN_7X
	int nr_pages_off;		/* memcg_stock_pcp.nr_pages */
	u32 nr_slots;			/* NR_MEMCG_STOCK */
	/* occupancy: samples per cpu and slots in use; NULL: missing */
	void __percpu *stock;		/* the per-cpu memcg_stock */
	u64 *occ, *occ_base;
	bool occ_mismatch;		/* memcg_stock is not the stock */
#endif
} kp;

/* Knob changes, `reset` and reads of the file against each other. */
static DEFINE_MUTEX(mcs_attr_lock);

/* The memcg of stock slot @i (6.1, 6.12: the one slot). */
static notrace struct mem_cgroup *mcs_attr_cached(unsigned long stock,
						  unsigned int i)
{
	struct mem_cgroup **cached = (void *)(stock + kp.cached_off);

#ifdef MCS_GEN_7X
	if (i >= kp.nr_slots)
		return NULL;
	return READ_ONCE(cached[i]);
#else
	return READ_ONCE(*cached);
#endif
}

#ifdef MCS_GEN_7X
/* A drain from refill_stock(): the memcg evicted, or NULL if none was. */
static notrace struct mem_cgroup *mcs_attr_evicted(unsigned long stock,
						   unsigned int i)
{
	u8 *nr_pages = (void *)(stock + kp.nr_pages_off);

	/* refill_stock() only ever drains this cpu's stock */
	if (kp.stock && (void *)stock != this_cpu_ptr(kp.stock))
		WRITE_ONCE(kp.occ_mismatch, true);
	if (i >= kp.nr_slots || READ_ONCE(nr_pages[i]) > MEMCG_CHARGE_BATCH)
		return NULL;
	return mcs_attr_cached(stock, i);
}
#endif

static notrace struct mem_cgroup *mcs_attr_memcg(unsigned int ev,
						 unsigned long arg0,
						 unsigned long arg1)
{
	switch (ev) {
	case MCS_ATTR_MISSES:
		return container_of((struct page_counter *)arg0,
				    struct mem_cgroup, memory);
	case MCS_ATTR_DRAINS:
		/* 7.x: an int slot index, whose upper half is undefined */
		return mcs_attr_cached(arg0, (unsigned int)arg1);
#ifdef MCS_GEN_7X
	case MCS_ATTR_EVICTED:
		return mcs_attr_evicted(arg0, (unsigned int)arg1);
	case MCS_ATTR_OBJ_MISSES:
		return READ_ONCE(((struct obj_cgroup *)arg0)->memcg);
#endif
	default:
		return (struct mem_cgroup *)arg0;
	}
}

/* Preemption is off: the slot found is this cpu's until the increment. */
static void notrace mcs_attr_add(u64 id, unsigned int ev)
{
	unsigned int h = hash_64(id, MCS_ATTR_BITS), i, k;
	u64 key;

	for (i = 0; i < MCS_ATTR_PROBES; i++) {
		k = (h + i) & (MCS_ATTR_SLOTS - 1);
		key = this_cpu_read(kp.tab->slot[k].id);
		/* claim a free slot; an interrupt may have claimed it first */
		if (!key)
			key = this_cpu_cmpxchg(kp.tab->slot[k].id, 0, id) ?: id;
		if (key == id) {
			this_cpu_inc(kp.tab->slot[k].ev[ev]);
			return;
		}
	}
	this_cpu_inc(kp.tab->other.ev[ev]);
}

void notrace mcs_attr_event(unsigned long kind, unsigned long arg0,
			    unsigned long arg1)
{
	unsigned int ev = kind - MCS_KIND_ATTR;
	struct mem_cgroup *memcg;

	if (ev >= MCS_ATTR_NR)
		return;
	preempt_disable_notrace();
	memcg = mcs_attr_memcg(ev, arg0, arg1);
	if (memcg)
		mcs_attr_add(cgroup_id(memcg->css.cgroup), ev);
	preempt_enable_notrace();
}

#ifdef MCS_GEN_7X
static void mcs_attr_sample(struct work_struct *work);
static DECLARE_DELAYED_WORK(mcs_attr_sampler, mcs_attr_sample);

/*
 * How many memcgs each cpu's charge stock holds. Another cpu's stock is
 * read without its lock: a sample may be a moment old, which is what a
 * sample is. Only pointers are compared, none is followed.
 */
static void mcs_attr_sample(struct work_struct *work)
{
	unsigned int i, n;
	int cpu;

	for_each_online_cpu(cpu) {
		unsigned long stock = (unsigned long)per_cpu_ptr(kp.stock, cpu);

		for (i = 0, n = 0; i < kp.nr_slots; i++)
			n += !!mcs_attr_cached(stock, i);
		kp.occ[cpu * (kp.nr_slots + 1) + n]++;
	}
	if (!READ_ONCE(kp.occ_mismatch))
		schedule_delayed_work(&mcs_attr_sampler,
				      msecs_to_jiffies(MCS_ATTR_SAMPLE_MS));
}

static size_t mcs_attr_occ_len(void)
{
	return (size_t)nr_cpu_ids * (kp.nr_slots + 1);
}

static void mcs_attr_occ_start(void)
{
	if (!kp.occ)
		return;
	memset(kp.occ, 0, mcs_attr_occ_len() * sizeof(*kp.occ));
	memset(kp.occ_base, 0, mcs_attr_occ_len() * sizeof(*kp.occ));
	schedule_delayed_work(&mcs_attr_sampler, 0);
}

static void mcs_attr_occ_stop(void)
{
	cancel_delayed_work_sync(&mcs_attr_sampler);
}

static void mcs_attr_occ_reset(void)
{
	size_t i;

	if (kp.occ)
		for (i = 0; i < mcs_attr_occ_len(); i++)
			kp.occ_base[i] = READ_ONCE(kp.occ[i]);
}

static void mcs_attr_occ_show(struct seq_file *m)
{
	unsigned int i;
	int cpu;

	if (!kp.occ)
		return;
	if (READ_ONCE(kp.occ_mismatch)) {
		seq_puts(m, "occupancy_state failed\n");
		return;
	}
	for_each_online_cpu(cpu) {
		u64 *occ = kp.occ + cpu * (kp.nr_slots + 1);
		u64 *base = kp.occ_base + cpu * (kp.nr_slots + 1);

		seq_printf(m, "occupancy %d", cpu);
		for (i = 0; i <= kp.nr_slots; i++)
			seq_printf(m, " %llu", READ_ONCE(occ[i]) - base[i]);
		seq_putc(m, '\n');
	}
}

/*
 * The per-cpu memcg_stock, for the sampler. kallsyms gives per-cpu
 * variables at their link address, which per_cpu_ptr() takes, once the
 * per-cpu section lies in the image (x86-64 since 6.15). The eviction
 * rows check it against the stock refill_stock() passes, which is always
 * this cpu's.
 */
static void mcs_attr_occ_init(void)
{
	unsigned long addr = mcs_ksym("memcg_stock");
	unsigned long start = mcs_ksym("__per_cpu_start");
	unsigned long end = mcs_ksym("__per_cpu_end");
	unsigned long need = kp.cached_off + kp.nr_slots * sizeof(void *);
	unsigned long size;

	if (!addr || !start || addr < start || addr + need > end ||
	    mcs_ksym_size(addr, &size) || size < need) {
		pr_warn("stock_attribution: the per-cpu memcg_stock is not found; no occupancy\n");
		return;
	}
	kp.occ = kcalloc(mcs_attr_occ_len(), sizeof(*kp.occ), GFP_KERNEL);
	kp.occ_base = kcalloc(mcs_attr_occ_len(), sizeof(*kp.occ), GFP_KERNEL);
	if (!kp.occ || !kp.occ_base) {
		kfree(kp.occ);
		kfree(kp.occ_base);
		kp.occ = NULL;
		kp.occ_base = NULL;
		return;
	}
	kp.stock = (void __percpu *)addr;
}

static void mcs_attr_occ_exit(void)
{
	kfree(kp.occ);
	kfree(kp.occ_base);
}

static int mcs_attr_resolve(void)
{
	u32 n;

	kp.cached_off = mcs_btf_member_array("memcg_stock_pcp", "cached",
					     "mem_cgroup *",
					     sizeof(void *), &kp.nr_slots);
	if (kp.cached_off < 0)
		return kp.cached_off;
	kp.nr_pages_off = mcs_btf_member_array("memcg_stock_pcp", "nr_pages",
					       "uint8_t", 1, &n);
	if (kp.nr_pages_off < 0)
		return kp.nr_pages_off;
	if (n != kp.nr_slots) {
		pr_err("BTF: memcg_stock_pcp has %u cached, %u nr_pages\n",
		       kp.nr_slots, n);
		return -EINVAL;
	}
	mcs_attr_occ_init();
	return 0;
}
#else
static void mcs_attr_occ_start(void) {}
static void mcs_attr_occ_stop(void) {}
static void mcs_attr_occ_reset(void) {}
static void mcs_attr_occ_show(struct seq_file *m) {}
static void mcs_attr_occ_exit(void) {}

static int mcs_attr_resolve(void)
{
	kp.cached_off = mcs_btf_member("memcg_stock_pcp", "cached",
				       "mem_cgroup *", sizeof(void *));
	return kp.cached_off < 0 ? kp.cached_off : 0;
}
#endif /* MCS_GEN_7X */

static bool mcs_attr_on(void)
{
	return mcs_hooks_attached(&mcs_attr_hooks, MCS_GRP_ATTR);
}

static int mcs_attr_set(const char *text)
{
	int ret = 0, cpu;
	u64 on;

	if (mcs_knob_parse_u64(text, 0, 1, &on))
		return -EINVAL;
	if (!kp.ok)
		return on ? -EOPNOTSUPP : 0;
	mutex_lock(&mcs_attr_lock);
	if (on && !mcs_attr_on()) {
		for_each_possible_cpu(cpu) {
			memset(per_cpu_ptr(kp.tab, cpu), 0, sizeof(*kp.tab));
			memset(per_cpu_ptr(kp.base, cpu), 0, sizeof(*kp.base));
		}
		ret = mcs_hooks_attach(&mcs_attr_hooks, MCS_GRP_ATTR);
		if (!ret)
			mcs_attr_occ_start();
	} else if (!on && mcs_attr_on()) {
		mcs_attr_occ_stop();
		mcs_hooks_detach(&mcs_attr_hooks, MCS_GRP_ATTR);
	}
	mutex_unlock(&mcs_attr_lock);
	return ret;
}

static void mcs_attr_knob_show(struct seq_file *m)
{
	seq_printf(m, "%d\n", mcs_attr_on());
}

static bool stock_attribution;
module_param(stock_attribution, bool, 0444);
MODULE_PARM_DESC(stock_attribution,
		 "Count the stock events per cgroup from load (default 0)");

const struct mcs_knob mcs_attr_knobs[] = {
	{ "stock_attribution", mcs_attr_set, mcs_attr_knob_show },
};

const unsigned int mcs_attr_nr_knobs = ARRAY_SIZE(mcs_attr_knobs);

void mcs_attr_reset(void)
{
	struct mcs_attr_table *t, *b;
	unsigned int k, e;
	int cpu;

	if (!kp.ok)
		return;
	mutex_lock(&mcs_attr_lock);
	for_each_possible_cpu(cpu) {
		t = per_cpu_ptr(kp.tab, cpu);
		b = per_cpu_ptr(kp.base, cpu);
		for (k = 0; k < MCS_ATTR_SLOTS; k++)
			for (e = 0; e < MCS_ATTR_NR; e++)
				b->slot[k].ev[e] = READ_ONCE(t->slot[k].ev[e]);
		for (e = 0; e < MCS_ATTR_NR; e++)
			b->other.ev[e] = READ_ONCE(t->other.ev[e]);
	}
	mcs_attr_occ_reset();
	mutex_unlock(&mcs_attr_lock);
}

static int mcs_attr_cmp_id(const void *a, const void *b)
{
	const struct mcs_attr_slot *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/* Most misses first, then by id, so the order is stable between reads. */
static int mcs_attr_cmp_misses(const void *a, const void *b)
{
	const struct mcs_attr_slot *x = a, *y = b;
	u64 mx = x->ev[MCS_ATTR_MISSES], my = y->ev[MCS_ATTR_MISSES];

	if (mx != my)
		return mx > my ? -1 : 1;
	return mcs_attr_cmp_id(a, b);
}

static void mcs_attr_print(struct seq_file *m, const char *what,
			   const struct mcs_attr_slot *s)
{
	unsigned int e;

	seq_puts(m, what);
	for (e = 0; e < MCS_ATTR_NR; e++) {
		if (e == MCS_ATTR_EVICTED && !MCS_ATTR_HAVE_EVICTED)
			seq_puts(m, " -");
		else
			seq_printf(m, " %llu", s->ev[e]);
	}
	seq_putc(m, '\n');
}

/* The slots in use, over every cpu: an upper bound of the rows to print. */
static size_t mcs_attr_used(void)
{
	size_t n = 0;
	unsigned int k;
	int cpu;

	for_each_possible_cpu(cpu)
		for (k = 0; k < MCS_ATTR_SLOTS; k++)
			n += !!READ_ONCE(per_cpu_ptr(kp.tab, cpu)->slot[k].id);
	return n;
}

/*
 * Every cpu's slots, the same cgroup's summed, into @rows (room for
 * @max); returns how many rows. A slot claimed since mcs_attr_used()
 * counted is left for the next read.
 */
static size_t mcs_attr_collect(struct mcs_attr_slot *rows, size_t max,
			       struct mcs_attr_slot *other)
{
	struct mcs_attr_table *t, *b;
	size_t n = 0, i, j;
	unsigned int k, e;
	int cpu;

	for_each_possible_cpu(cpu) {
		t = per_cpu_ptr(kp.tab, cpu);
		b = per_cpu_ptr(kp.base, cpu);
		for (k = 0; k < MCS_ATTR_SLOTS; k++) {
			if (n == max)
				break;
			rows[n].id = READ_ONCE(t->slot[k].id);
			if (!rows[n].id)
				continue;
			for (e = 0; e < MCS_ATTR_NR; e++)
				rows[n].ev[e] = READ_ONCE(t->slot[k].ev[e]) -
						b->slot[k].ev[e];
			n++;
		}
		for (e = 0; e < MCS_ATTR_NR; e++)
			other->ev[e] += READ_ONCE(t->other.ev[e]) -
					b->other.ev[e];
	}
	sort(rows, n, sizeof(*rows), mcs_attr_cmp_id, NULL);
	for (i = 0, j = 0; i < n; i++) {
		if (j && rows[j - 1].id == rows[i].id) {
			for (e = 0; e < MCS_ATTR_NR; e++)
				rows[j - 1].ev[e] += rows[i].ev[e];
			continue;
		}
		rows[j++] = rows[i];
	}
	sort(rows, j, sizeof(*rows), mcs_attr_cmp_misses, NULL);
	return j;
}

int mcs_attr_show(struct seq_file *m)
{
	struct mcs_attr_slot *rows, other = {};
	size_t n, i, max;

	if (!kp.ok) {
		seq_puts(m, "state missing\n");
		return 0;
	}
	mutex_lock(&mcs_attr_lock);
	if (!mcs_attr_on()) {
		seq_puts(m, "state off\n");
		goto out;
	}
	max = mcs_attr_used();
	rows = kvcalloc(max + 1, sizeof(*rows), GFP_KERNEL);
	if (!rows) {
		mutex_unlock(&mcs_attr_lock);
		return -ENOMEM;
	}
	n = mcs_attr_collect(rows, max, &other);
	seq_puts(m, "state on\n");
	for (i = 0; i < n; i++) {
		char what[32];

		snprintf(what, sizeof(what), "cgroup %llu", rows[i].id);
		mcs_attr_print(m, what, &rows[i]);
	}
	mcs_attr_print(m, "other", &other);
	mcs_attr_occ_show(m);
	kvfree(rows);
out:
	mutex_unlock(&mcs_attr_lock);
	return 0;
}

/* The module parameter, applied once the feature is set up. */
static int mcs_attr_param(void)
{
	int ret;

	if (!stock_attribution)
		return 0;
	ret = mcs_attr_set("1");
	if (ret)
		pr_err("stock_attribution=1: cannot attach (%d)\n", ret);
	return ret;
}

int mcs_attr_init(void)
{
	int ret = mcs_hook_table_init(&mcs_attr_hooks);

	if (ret)
		return ret;
	if (!cgroup_subsys_on_dfl(memory_cgrp_subsys)) {
		pr_warn("stock_attribution: the memory controller is on cgroup v1; missing\n");
	} else if (!mcs_hooks_resolved(&mcs_attr_hooks, MCS_GRP_ATTR) ||
		   mcs_attr_resolve()) {
		pr_warn("stock_attribution: a function or struct member it needs is not in this kernel; missing\n");
	} else {
		kp.tab = alloc_percpu(struct mcs_attr_table);
		kp.base = alloc_percpu(struct mcs_attr_table);
		if (kp.tab && kp.base)
			kp.ok = true;
		else
			ret = -ENOMEM;
	}
	if (!ret)
		ret = mcs_attr_param();
	if (ret)
		mcs_attr_exit();
	return ret;
}

void mcs_attr_exit(void)
{
	if (kp.ok)
		mcs_attr_set("0");
	mcs_hook_table_exit(&mcs_attr_hooks);
	mcs_attr_occ_exit();
	free_percpu(kp.tab);
	free_percpu(kp.base);
	memset(&kp, 0, sizeof(kp));
}
