// SPDX-License-Identifier: GPL-2.0
/*
 * The hook engine: ftrace_ops for counting and redirecting. Life of an
 * ftrace hook, as in samples/ftrace/ftrace-ops.c:
 * ftrace_set_filter_ip() then register_ftrace_function(); teardown is
 * unregister_ftrace_function() (which waits for every cpu to leave the
 * callback) then ftrace_free_filter().
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/string.h>

#include "compat.h"
#include "hook.h"
#include "ksym.h"

static DEFINE_MUTEX(mcs_hook_lock);

static void notrace mcs_ftrace_cb(unsigned long ip, unsigned long parent_ip,
				  struct ftrace_ops *op,
				  struct ftrace_regs *fregs)
{
	struct mcs_hook *h;

	for (h = container_of(op, struct mcs_hook, ops); h; h = h->next_same) {
		if (!mcs_hook_from_caller(h, parent_ip))
			continue;
		this_cpu_inc(*h->hits);
		if (h->handler)
			h->handler(h, parent_ip, fregs);
		else
			mcs_count(h->counter);
	}
}

/*
 * The replacement calls the original itself; that call comes from inside
 * this module and must reach the original, not be redirected again.
 */
static void notrace mcs_redirect_cb(unsigned long ip, unsigned long parent_ip,
				    struct ftrace_ops *op,
				    struct ftrace_regs *fregs)
{
	struct mcs_hook *h = container_of(op, struct mcs_hook, ops);

	if (within_module(parent_ip, THIS_MODULE))
		return;
	this_cpu_inc(*h->hits);
	mcs_fregs_set_ip(fregs, (unsigned long)h->redirect_to);
}

static int mcs_hook_register(struct mcs_hook *h)
{
	int ret;

	if (h->leader)	/* served by the leader's ops, attached before it */
		return h->leader->state == MCS_HOOK_ATTACHED ? 0 : -EINVAL;
	memset(&h->ops, 0, sizeof(h->ops));
	if (h->mech == MCS_MECH_REDIRECT) {
		h->ops.func = mcs_redirect_cb;
		h->ops.flags = FTRACE_OPS_FL_IPMODIFY | FTRACE_OPS_FL_RECURSION;
	} else {
		h->ops.func = mcs_ftrace_cb;
		/* The callbacks only add to per-cpu counters: no recursion. */
		h->ops.flags = FTRACE_OPS_FL_RECURSION;
	}
	ret = ftrace_set_filter_ip(&h->ops, h->addr, 0, 0);
	if (ret)
		return ret;
	ret = register_ftrace_function(&h->ops);
	if (ret)
		ftrace_free_filter(&h->ops);
	return ret;
}

static void mcs_hook_unregister(struct mcs_hook *h)
{
	if (h->leader)	/* the leader's ops goes with the leader */
		return;
	unregister_ftrace_function(&h->ops);
	ftrace_free_filter(&h->ops);
}

static int mcs_hook_resolve(struct mcs_hook *h)
{
	h->state = MCS_HOOK_OTHER_GEN;
	if (h->gens && !(h->gens & MCS_GEN_BIT))
		return 0;
	h->state = MCS_HOOK_MISSING;
	h->addr = mcs_ksym(h->target);
	if (!h->addr) {
		pr_info("hook %s: %s not in this kernel\n", h->name, h->target);
		return 0;
	}
	if (h->caller &&
	    mcs_ksym_range(h->caller, &h->caller_start, &h->caller_end)) {
		pr_info("hook %s: caller %s not in this kernel\n", h->name,
			h->caller);
		return 0;
	}
	h->hits = alloc_percpu(unsigned long);
	if (!h->hits)
		return -ENOMEM;
	h->state = MCS_HOOK_OFF;
	if (h->mech != MCS_MECH_REDIRECT && !h->handler)
		mcs_counter_set_present(h->counter);
	return 0;
}

/* Chain counting rows that hook the same function in the same group. */
static void mcs_hook_table_share(struct mcs_hook_table *t)
{
	unsigned int i, j;

	for (i = 0; i < t->n; i++) {
		struct mcs_hook *h = &t->hooks[i];

		if (h->mech != MCS_MECH_FTRACE || h->state != MCS_HOOK_OFF)
			continue;
		for (j = 0; j < i; j++) {
			struct mcs_hook *l = &t->hooks[j], *tail;

			if (l->mech != MCS_MECH_FTRACE || l->leader ||
			    l->state != MCS_HOOK_OFF || l->addr != h->addr ||
			    l->group != h->group)
				continue;
			h->leader = l;
			for (tail = l; tail->next_same; tail = tail->next_same)
				;
			tail->next_same = h;
			break;
		}
	}
}

int mcs_hook_table_init(struct mcs_hook_table *t)
{
	unsigned int i;
	int ret;

	for (i = 0; i < t->n; i++) {
		ret = mcs_hook_resolve(&t->hooks[i]);
		if (ret) {
			mcs_hook_table_exit(t);
			return ret;
		}
	}
	mcs_hook_table_share(t);
	return 0;
}

void mcs_hook_table_exit(struct mcs_hook_table *t)
{
	unsigned int i;

	mcs_hooks_detach(t, ~0U);
	for (i = 0; i < t->n; i++) {
		free_percpu(t->hooks[i].hits);
		t->hooks[i].hits = NULL;
	}
}

static int mcs_hook_attach(struct mcs_hook *h)
{
	int ret;

	if (h->state != MCS_HOOK_OFF && h->state != MCS_HOOK_FAILED)
		return 0;
	ret = mcs_hook_register(h);
	if (ret) {
		pr_err("hook %s on %s: registration failed: %d\n", h->name,
		       h->target, ret);
		h->state = MCS_HOOK_FAILED;
		return ret;
	}
	h->state = MCS_HOOK_ATTACHED;
	return 0;
}

static void mcs_hook_detach(struct mcs_hook *h)
{
	if (h->state != MCS_HOOK_ATTACHED)
		return;
	mcs_hook_unregister(h);
	h->state = MCS_HOOK_OFF;
}

/* All or nothing: a failure detaches what this call attached. */
int mcs_hooks_attach(struct mcs_hook_table *t, unsigned int group)
{
	unsigned int i, j;
	int ret = 0;

	mutex_lock(&mcs_hook_lock);
	for (i = 0; i < t->n; i++) {
		struct mcs_hook *h = &t->hooks[i];

		if (!(h->group & group) || h->state == MCS_HOOK_ATTACHED)
			continue;
		if (h->state == MCS_HOOK_MISSING ||
		    h->state == MCS_HOOK_OTHER_GEN)
			continue;
		ret = mcs_hook_attach(h);
		if (ret)
			break;
	}
	if (ret) {
		for (j = 0; j < i; j++)
			if (t->hooks[j].group & group)
				mcs_hook_detach(&t->hooks[j]);
	}
	mutex_unlock(&mcs_hook_lock);
	return ret;
}

void mcs_hooks_detach(struct mcs_hook_table *t, unsigned int group)
{
	unsigned int i;

	mutex_lock(&mcs_hook_lock);
	/* Reverse order: the opposite of attach. */
	for (i = t->n; i-- > 0;)
		if (t->hooks[i].group & group)
			mcs_hook_detach(&t->hooks[i]);
	mutex_unlock(&mcs_hook_lock);
}

bool mcs_hooks_attached(struct mcs_hook_table *t, unsigned int group)
{
	unsigned int i;

	for (i = 0; i < t->n; i++)
		if ((t->hooks[i].group & group) &&
		    READ_ONCE(t->hooks[i].state) == MCS_HOOK_ATTACHED)
			return true;
	return false;
}

bool mcs_hooks_resolved(struct mcs_hook_table *t, unsigned int group)
{
	unsigned int i;

	for (i = 0; i < t->n; i++)
		if ((t->hooks[i].group & group) &&
		    t->hooks[i].state == MCS_HOOK_MISSING)
			return false;
	return true;
}

void mcs_hooks_set_missing(struct mcs_hook_table *t, unsigned int group)
{
	unsigned int i;

	mcs_hooks_detach(t, group);
	for (i = 0; i < t->n; i++)
		if ((t->hooks[i].group & group) &&
		    t->hooks[i].state != MCS_HOOK_OTHER_GEN)
			t->hooks[i].state = MCS_HOOK_MISSING;
}

static const char * const mcs_state_names[] = {
	[MCS_HOOK_MISSING]	= "missing",
	[MCS_HOOK_OFF]		= "off",
	[MCS_HOOK_ATTACHED]	= "attached",
	[MCS_HOOK_FAILED]	= "failed",
};

static const char * const mcs_mech_names[] = {
	[MCS_MECH_FTRACE]	= "ftrace",
	[MCS_MECH_REDIRECT]	= "redirect",
};

void mcs_hook_table_show(struct seq_file *m, struct mcs_hook_table *t)
{
	unsigned int i;
	int cpu;

	mutex_lock(&mcs_hook_lock);
	for (i = 0; i < t->n; i++) {
		struct mcs_hook *h = &t->hooks[i];
		unsigned long hits = 0;

		if (h->state == MCS_HOOK_OTHER_GEN)
			continue;
		if (h->hits && h->state == MCS_HOOK_ATTACHED)
			for_each_possible_cpu(cpu)
				hits += *per_cpu_ptr(h->hits, cpu);
		seq_printf(m, "%s %s %s %s %s %lu\n", h->name, h->target,
			   h->caller ?: "-", mcs_mech_names[h->mech],
			   mcs_state_names[h->state], hits);
	}
	mutex_unlock(&mcs_hook_lock);
}
