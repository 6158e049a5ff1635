// SPDX-License-Identifier: GPL-2.0
/*
 * Counting sites (site.h): one ftrace registration per hooked function,
 * a direct-call trampoline where the kernel lets us have one, an ordinary
 * ftrace_ops otherwise. Callers hold the hook engine's mutex.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/build_bug.h>
#include <linux/ftrace.h>
#include <linux/kernel.h>
#include <linux/percpu.h>
#include <linux/stddef.h>
#include <linux/string.h>

#include "attribution.h"
#include "caller.h"
#include "compat.h"
#include "site.h"
#include "stat_unit.h"
#include "unregister.h"

static_assert(offsetof(struct mcs_site_row, caller_start) == MCS_ROW_START);
static_assert(offsetof(struct mcs_site_row, caller_end) == MCS_ROW_END);
static_assert(offsetof(struct mcs_site_row, pcpu) == MCS_ROW_PCPU);
static_assert(offsetof(struct mcs_site_row, kind) == MCS_ROW_KIND);
static_assert(offsetof(struct mcs_site_row, next) == MCS_ROW_NEXT);
static_assert(offsetof(struct mcs_row_pcpu, hits) == MCS_PCPU_HITS);
static_assert(offsetof(struct mcs_row_pcpu, amount) == MCS_PCPU_AMOUNT);

/*
 * Read by site_tramp.S: the first attached row of each site; the per-cpu
 * data of a first row that takes every caller (alone, or counting ahead
 * of others); the rows the head-walk walks after it.
 */
struct mcs_site_row *mcs_site_heads[MCS_SITES_MAX];
struct mcs_row_pcpu __percpu *mcs_site_single[MCS_SITES_MAX];
struct mcs_site_row *mcs_site_rest[MCS_SITES_MAX];

static struct mcs_site mcs_sites[MCS_SITES_MAX];

/* Whether a row takes every caller (no caller filter). */
static bool notrace mcs_row_any_caller(const struct mcs_site_row *r)
{
	return !r->caller_start && r->caller_end == ULONG_MAX;
}

/*
 * Add one matching call to @r: hits, an update row's amount, an
 * attribution row's event (@arg0 .. @arg2 are the call's arguments).
 */
static void notrace mcs_row_count(struct mcs_site_row *r, long arg0,
				  long arg1, long arg2)
{
	this_cpu_inc(r->pcpu->hits);
	if (r->kind == MCS_KIND_COUNT)
		return;
	if (r->kind >= MCS_KIND_ATTR) {
		mcs_attr_event(r->kind, arg0, arg1);
		return;
	}
	this_cpu_add(r->pcpu->amount,
		     mcs_stat_amount_kind(arg1, arg2, r->kind));
	if (READ_ONCE(mcs_update_every))
		mcs_flush_update_tick();
}

/* Rows that take every caller have counted the call already. */
void notrace mcs_site_recover(unsigned int index, unsigned long *slot,
			      long arg0, long arg1, long arg2)
{
	struct mcs_site_row *r;
	unsigned long parent;

	if (!mcs_caller_hijacked(READ_ONCE(*slot)))
		return;		/* a caller in low kernel text, not counted */
	parent = mcs_caller_recover(slot);

	for (r = READ_ONCE(mcs_site_heads[index]); r; r = READ_ONCE(r->next)) {
		if (mcs_row_any_caller(r))
			continue;
		if (!parent) {
			this_cpu_inc(r->pcpu->unattributed);
			continue;
		}
		if (parent < r->caller_start || parent >= r->caller_end)
			continue;
		this_cpu_inc(r->pcpu->recovered);
		mcs_row_count(r, arg0, arg1, arg2);
	}
}

/*
 * The fallback: the trampolines' walk, in C. No FTRACE_OPS_FL_RECURSION:
 * its guard costs a preempt off/on and an indirect call, and this callback
 * only adds to per-cpu counters and calls nothing this ops traces.
 */
static void notrace mcs_site_ftrace_cb(unsigned long ip,
				       unsigned long parent_ip,
				       struct ftrace_ops *op,
				       struct ftrace_regs *fregs)
{
	struct mcs_site *s = container_of(op, struct mcs_site, fops);
	struct mcs_site_row *r;

	/* ftrace passes the true caller, whatever the stack slot holds. */
	for (r = READ_ONCE(mcs_site_heads[s->index]); r; r = READ_ONCE(r->next)) {
		if (parent_ip < r->caller_start || parent_ip >= r->caller_end)
			continue;
		if (r->kind == MCS_KIND_COUNT)
			mcs_row_count(r, 0, 0, 0);
		else
			mcs_row_count(r, mcs_fregs_arg(fregs, 0),
				      mcs_fregs_arg(fregs, 1),
				      mcs_fregs_arg(fregs, 2));
	}
}

/* A first row the head-walk counts without compares. */
static bool mcs_row_headcount(const struct mcs_site_row *r)
{
	return r && mcs_row_any_caller(r) && r->kind == MCS_KIND_COUNT;
}

/* The trampoline that fits the attached rows of @s. */
static unsigned long mcs_site_tramp(const struct mcs_site *s)
{
	const struct mcs_site_row *r = mcs_site_heads[s->index];
	unsigned int v = MCS_VARIANT_WALK;

	if (s->nr_attached == 1 && r && mcs_row_any_caller(r) &&
	    r->kind < MCS_NR_KINDS)
		v = MCS_VARIANT_SINGLE + r->kind;
	else if (s->nr_attached > 1 && mcs_row_headcount(r))
		v = MCS_VARIANT_HEADWALK;
	return mcs_site_tramps[v][s->index];
}

/* Move @s's direct call to the trampoline @want. */
static int mcs_site_move(struct mcs_site *s, unsigned long want)
{
	int ret;

	if (want == s->tramp)
		return 0;
	ret = mcs_direct_modify(&s->ops, want);
	if (ret)
		pr_err("%s: moving the direct call failed: %d\n", s->target, ret);
	else
		s->tramp = want;
	return ret;
}

#if MCS_HAVE_DIRECT
/*
 * An IPMODIFY user (a livepatch, a kprobe with a post_handler) may share a
 * function with a direct trampoline only if the direct ops agrees. Ours
 * returns to wherever the saved ip points, so it always agrees. The log
 * and `hooks` say so.
 */
static int mcs_site_ops_func(struct ftrace_ops *op, MCS_OPS_FUNC_IP
			     enum ftrace_ops_cmd cmd)
{
	struct mcs_site *s = container_of(op, struct mcs_site, ops);

	switch (cmd) {
	case FTRACE_OPS_CMD_ENABLE_SHARE_IPMODIFY_SELF:
	case FTRACE_OPS_CMD_ENABLE_SHARE_IPMODIFY_PEER:
		WRITE_ONCE(s->shares_ipmodify, true);
		pr_info("%s: counting trampoline shares the function with an IPMODIFY ftrace user (livepatch or kprobe post_handler)\n",
			s->target);
		return 0;
	case FTRACE_OPS_CMD_DISABLE_SHARE_IPMODIFY_PEER:
		WRITE_ONCE(s->shares_ipmodify, false);
		pr_info("%s: no IPMODIFY ftrace user shares the function any more\n",
			s->target);
		return 0;
	default:
		return -EOPNOTSUPP;
	}
}
#endif

static int mcs_site_register_direct(struct mcs_site *s)
{
	int ret;

	memset(&s->ops, 0, sizeof(s->ops));
#if MCS_HAVE_DIRECT
	s->ops.ops_func = mcs_site_ops_func;
#endif
	ret = ftrace_set_filter_ip(&s->ops, s->addr, 0, 0);
	if (ret)
		return ret;
	s->tramp = mcs_site_tramp(s);
	ret = mcs_direct_register(&s->ops, s->tramp);
	if (ret)
		ftrace_free_filter(&s->ops);
	return ret;
}

static int mcs_site_register_ftrace(struct mcs_site *s)
{
	int ret;

	memset(&s->fops, 0, sizeof(s->fops));
	s->fops.func = mcs_site_ftrace_cb;
	ret = ftrace_set_filter_ip(&s->fops, s->addr, 0, 0);
	if (ret)
		return ret;
	ret = register_ftrace_function(&s->fops);
	if (ret)
		ftrace_free_filter(&s->fops);
	return ret;
}

static void mcs_site_unregister_ftrace(struct mcs_site *s)
{
	mcs_unregister_check(unregister_ftrace_function(&s->fops), s->target);
	ftrace_free_filter(&s->fops);
}

/* BPF links in progress (bpf_share.c): no site takes a direct slot then. */
static unsigned int mcs_bpf_linking;

static int mcs_site_register(struct mcs_site *s)
{
	int ret = mcs_bpf_linking ? -EBUSY : mcs_site_register_direct(s);

	if (!ret) {
		s->mech = MCS_SITE_DIRECT;
		s->yielded = false;
		return 0;
	}
	pr_info("%s: no direct call (%d: %s), counting through an ftrace_ops\n",
		s->target, ret,
		ret == -EBUSY ? "another direct user, e.g. a BPF trampoline, has the function" :
				"direct calls unavailable");
	s->shares_ipmodify = false;
	s->yielded = ret == -EBUSY;
	ret = mcs_site_register_ftrace(s);
	if (!ret)
		s->mech = MCS_SITE_FTRACE;
	return ret;
}

/* Returns after the last call in flight has left the trampoline. */
static void mcs_site_unregister(struct mcs_site *s)
{
	if (s->mech == MCS_SITE_DIRECT)
		mcs_unregister_check(mcs_direct_unregister(&s->ops, s->tramp),
				     s->target);
	else if (s->mech == MCS_SITE_FTRACE)
		mcs_unregister_check(unregister_ftrace_function(&s->fops),
				     s->target);
	if (s->mech == MCS_SITE_FTRACE)
		ftrace_free_filter(&s->fops);
	s->mech = MCS_SITE_NONE;
	s->shares_ipmodify = false;
	s->yielded = false;
}

/*
 * Direct to ftrace, or back. The new mechanism is registered before the
 * old one goes, so no call is missed; a call that enters the function in
 * the moment both are registered is counted by both (ftrace calls the
 * ops, then the direct trampoline). Tests compare counts over windows
 * with no switch inside.
 */
static void mcs_site_to_ftrace(struct mcs_site *s, const char *why)
{
	int ret;

	if (s->mech != MCS_SITE_DIRECT)
		return;
	ret = mcs_site_register_ftrace(s);
	if (ret) {
		pr_err("%s: cannot move counting to an ftrace_ops (%d); %s may fail with -EBUSY\n",
		       s->target, ret, why);
		return;
	}
	mcs_unregister_check(mcs_direct_unregister(&s->ops, s->tramp),
			     s->target);
	s->mech = MCS_SITE_FTRACE;
	s->shares_ipmodify = false;
	s->yielded = true;
	pr_info("%s: counting moved from the direct trampoline to an ftrace_ops: %s\n",
		s->target, why);
}

static void mcs_site_to_direct(struct mcs_site *s, const char *why)
{
	int ret;

	if (s->mech != MCS_SITE_FTRACE || !s->yielded)
		return;
	ret = mcs_site_register_direct(s);
	if (ret == -EBUSY)
		return;		/* still another direct user's */
	if (ret) {
		pr_err("%s: direct trampoline not registered again (%d): counting stays on the ftrace_ops\n",
		       s->target, ret);
		s->yielded = false;
		return;
	}
	mcs_site_unregister_ftrace(s);
	s->mech = MCS_SITE_DIRECT;
	s->yielded = false;
	pr_info("%s: counting back on the direct trampoline: %s\n", s->target,
		why);
}

void mcs_sites_bpf_link_begin(unsigned long addr)
{
	unsigned int i;

	mcs_bpf_linking++;
	for (i = 0; i < MCS_SITES_MAX; i++)
		if (mcs_sites[i].addr && (!addr || mcs_sites[i].addr == addr))
			mcs_site_to_ftrace(&mcs_sites[i],
					   "a BPF trampoline is attaching to the function");
}

void mcs_sites_reclaim(const char *why)
{
	unsigned int i;

	if (mcs_bpf_linking)
		return;
	for (i = 0; i < MCS_SITES_MAX; i++)
		if (mcs_sites[i].addr)
			mcs_site_to_direct(&mcs_sites[i], why);
}

void mcs_sites_bpf_link_end(int ret)
{
	if (!WARN_ON_ONCE(!mcs_bpf_linking))
		mcs_bpf_linking--;
	mcs_sites_reclaim(ret ? "a BPF trampoline failed to attach" :
				"no other direct user");
}

/*
 * Link the attached rows for the trampolines, sorted by caller start (the
 * walk stops at the first row above the caller), and point the single-row
 * variants at the row when there is one.
 *
 * A concurrent walker only steps to later rows, so it ends. It may count
 * a row detached under it, once. With two rows attached the single pointer
 * keeps its row: its variant stays registered until mcs_site_update()
 * moves the call to the walk.
 *
 * The head-walk's rest is the list after a first row it counts, else the
 * whole list, so a head-walk still registered misses no filtered row.
 */
static void mcs_site_relink(struct mcs_site *s)
{
	struct mcs_site_row *order[MCS_SITE_ROWS_MAX];
	struct mcs_site_row *r, *next = NULL;
	int n = 0;

	for (r = s->rows; r && n < ARRAY_SIZE(order); r = r->site_next)
		order[n++] = r;
	while (n-- > 0) {
		if (!order[n]->attached)
			continue;
		WRITE_ONCE(order[n]->next, next);
		next = order[n];
	}
	WRITE_ONCE(mcs_site_heads[s->index], next);
	if (next && (!next->next || mcs_row_headcount(next)))
		WRITE_ONCE(mcs_site_single[s->index], next->pcpu);
	WRITE_ONCE(mcs_site_rest[s->index],
		   mcs_row_headcount(next) ? next->next : next);
}

/* Register, unregister or switch the trampoline after a change of rows. */
static int mcs_site_update(struct mcs_site *s)
{
	if (!s->nr_attached) {
		mcs_site_unregister(s);
		return 0;
	}
	if (s->mech == MCS_SITE_NONE)
		return mcs_site_register(s);
	if (s->mech != MCS_SITE_DIRECT)
		return 0;
	return mcs_site_move(s, mcs_site_tramp(s));
}

struct mcs_site *mcs_site_get(unsigned long addr, const char *target,
			      struct mcs_site_row *row)
{
	struct mcs_site *s, *free = NULL;
	struct mcs_site_row **tail;
	unsigned int i;

	for (i = 0; i < MCS_SITES_MAX; i++) {
		s = &mcs_sites[i];
		if (s->addr == addr) {
			if (s->nr_rows == MCS_SITE_ROWS_MAX)
				return NULL;
			goto found;
		}
		if (!s->addr && !free)
			free = s;
	}
	if (!free)
		return NULL;
	s = free;
	memset(s, 0, sizeof(*s));
	s->addr = addr;
	s->target = target;
	s->index = s - mcs_sites;
found:
	row->attached = false;
	row->next = NULL;
	/* In the order of caller_start, which the walk relies on. */
	for (tail = &s->rows; *tail; tail = &(*tail)->site_next)
		if ((*tail)->caller_start > row->caller_start)
			break;
	row->site_next = *tail;
	*tail = row;
	s->nr_rows++;
	return s;
}

void mcs_site_put(struct mcs_site *s, struct mcs_site_row *row)
{
	struct mcs_site_row **p;

	if (row->attached)
		mcs_site_detach(s, row);
	for (p = &s->rows; *p; p = &(*p)->site_next) {
		if (*p == row) {
			*p = row->site_next;
			break;
		}
	}
	if (--s->nr_rows == 0)
		s->addr = 0;
}

int mcs_site_attach(struct mcs_site *s, struct mcs_site_row *row)
{
	int ret;

	if (row->attached)
		return 0;
	row->attached = true;
	s->nr_attached++;
	mcs_site_relink(s);
	ret = mcs_site_update(s);
	if (ret) {
		row->attached = false;
		s->nr_attached--;
		mcs_site_relink(s);
		mcs_site_update(s);
	}
	return ret;
}

void mcs_site_detach(struct mcs_site *s, struct mcs_site_row *row)
{
	if (!row->attached)
		return;
	/* The last row: no call may be in a trampoline once unlinked. */
	if (s->nr_attached == 1)
		mcs_site_unregister(s);
	/*
	 * The head-walk counts its first row without looking at the list:
	 * move to the walk, right for any list, before the rows change.
	 */
	else if (s->mech == MCS_SITE_DIRECT &&
		 s->tramp == mcs_site_tramps[MCS_VARIANT_HEADWALK][s->index])
		mcs_site_move(s, mcs_site_tramps[MCS_VARIANT_WALK][s->index]);
	row->attached = false;
	s->nr_attached--;
	mcs_site_relink(s);
	mcs_site_update(s);
}

const char *mcs_site_mech_name(const struct mcs_site *s)
{
	switch (s->mech) {
	case MCS_SITE_DIRECT:
		return READ_ONCE(s->shares_ipmodify) ? "direct+ipmodify" :
						       "direct";
	case MCS_SITE_FTRACE:
		return "ftrace";
	default:
		return NULL;
	}
}
