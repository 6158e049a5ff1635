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

#include "compat.h"
#include "site.h"

static_assert(offsetof(struct mcs_site_row, caller_start) == MCS_ROW_START);
static_assert(offsetof(struct mcs_site_row, caller_end) == MCS_ROW_END);
static_assert(offsetof(struct mcs_site_row, hits) == MCS_ROW_HITS);
static_assert(offsetof(struct mcs_site_row, counter) == MCS_ROW_COUNTER);
static_assert(offsetof(struct mcs_site_row, amount) == MCS_ROW_AMOUNT);
static_assert(offsetof(struct mcs_site_row, kind) == MCS_ROW_KIND);
static_assert(offsetof(struct mcs_site_row, next) == MCS_ROW_NEXT);

/* Read by site_tramp.S: the first attached row of each site. */
struct mcs_site_row *mcs_site_heads[MCS_SITES_MAX];

static struct mcs_site mcs_sites[MCS_SITES_MAX];

/*
 * The fallback: the trampolines' walk, in C. Registered without
 * FTRACE_OPS_FL_RECURSION, which would wrap the callback in ftrace's
 * recursion guard (preempt off/on and an indirect call): it only adds to
 * per-cpu counters and calls nothing that this ops traces.
 */
static void notrace mcs_site_ftrace_cb(unsigned long ip,
				       unsigned long parent_ip,
				       struct ftrace_ops *op,
				       struct ftrace_regs *fregs)
{
	struct mcs_site *s = container_of(op, struct mcs_site, ops);
	struct mcs_site_row *r;
	long val;

	for (r = READ_ONCE(mcs_site_heads[s->index]); r; r = READ_ONCE(r->next)) {
		if (parent_ip < r->caller_start || parent_ip >= r->caller_end)
			continue;
		this_cpu_inc(*r->hits);
		this_cpu_inc(*r->counter);
		if (r->kind == MCS_KIND_COUNT)
			continue;
		val = mcs_fregs_arg(fregs, 2);
		if (r->kind == MCS_KIND_UPDATE_INT)
			val = (int)val;
		if (r->kind != MCS_KIND_UPDATE_ULONG)
			val = abs(val);
		this_cpu_add(*r->amount, (u64)val);
		if (READ_ONCE(mcs_update_every))
			mcs_flush_update_tick();
	}
}

#if MCS_HAVE_DIRECT
/*
 * A livepatch or a kprobe with a post_handler (IPMODIFY ftrace users) may
 * share a function with a direct trampoline only if the direct ops agrees.
 * Ours counts and returns to wherever the saved ip points, so it always
 * does; the kernel log and `hooks` say so.
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
	ret = mcs_direct_register(&s->ops, mcs_site_tramps[s->index]);
	if (ret)
		ftrace_free_filter(&s->ops);
	return ret;
}

static int mcs_site_register_ftrace(struct mcs_site *s)
{
	int ret;

	memset(&s->ops, 0, sizeof(s->ops));
	s->ops.func = mcs_site_ftrace_cb;
	ret = ftrace_set_filter_ip(&s->ops, s->addr, 0, 0);
	if (ret)
		return ret;
	ret = register_ftrace_function(&s->ops);
	if (ret)
		ftrace_free_filter(&s->ops);
	return ret;
}

static int mcs_site_register(struct mcs_site *s)
{
	int ret = mcs_site_register_direct(s);

	if (!ret) {
		s->mech = MCS_SITE_DIRECT;
		return 0;
	}
	pr_info("%s: no direct call (%d: %s), counting through an ftrace_ops\n",
		s->target, ret,
		ret == -EBUSY ? "another direct user, e.g. a BPF trampoline, has the function" :
				"direct calls unavailable");
	s->shares_ipmodify = false;
	ret = mcs_site_register_ftrace(s);
	if (!ret)
		s->mech = MCS_SITE_FTRACE;
	return ret;
}

/* Returns after the last call in flight has left the trampoline. */
static void mcs_site_unregister(struct mcs_site *s)
{
	if (s->mech == MCS_SITE_DIRECT) {
		mcs_direct_unregister(&s->ops, mcs_site_tramps[s->index]);
	} else if (s->mech == MCS_SITE_FTRACE) {
		unregister_ftrace_function(&s->ops);
		ftrace_free_filter(&s->ops);
	}
	s->mech = MCS_SITE_NONE;
	s->shares_ipmodify = false;
}

/*
 * Point the trampoline's list at the attached rows, in site order.
 * A walker running concurrently only ever steps to a later row, so it
 * ends; it may still count a row detached under it, once.
 */
static void mcs_site_relink(struct mcs_site *s)
{
	struct mcs_site_row *r, *next = NULL;
	struct mcs_site_row *order[MCS_SITE_ROWS_MAX];
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
	row->site_next = NULL;
	for (tail = &s->rows; *tail; tail = &(*tail)->site_next)
		;
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
	mcs_site_relink(s);
	if (s->nr_attached++)
		return 0;
	ret = mcs_site_register(s);
	if (ret) {
		s->nr_attached--;
		row->attached = false;
		mcs_site_relink(s);
	}
	return ret;
}

void mcs_site_detach(struct mcs_site *s, struct mcs_site_row *row)
{
	if (!row->attached)
		return;
	if (--s->nr_attached == 0)
		mcs_site_unregister(s);
	row->attached = false;
	mcs_site_relink(s);
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
