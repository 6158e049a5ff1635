// SPDX-License-Identifier: GPL-2.0
/*
 * The hook engine. Counting rows go to their function's counting site
 * (site.c). A redirect is an ftrace_ops of its own, used as in
 * samples/ftrace/ftrace-ops.c: ftrace_set_filter_ip(), then
 * register_ftrace_function(). Teardown: unregister_ftrace_function(),
 * which waits for every cpu to leave the callback, then
 * ftrace_free_filter().
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/string.h>

#include "compat.h"
#include "hook.h"
#include "ksym.h"
#include "site.h"
#include "unregister.h"

static DEFINE_MUTEX(mcs_hook_lock);

void mcs_hooks_lock(void)
{
	mutex_lock(&mcs_hook_lock);
}

void mcs_hooks_unlock(void)
{
	mutex_unlock(&mcs_hook_lock);
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
	void *to = h->redirect_to;

	if (within_module(parent_ip, THIS_MODULE))
		return;
	this_cpu_inc(h->pcpu->hits);
	if (parent_ip >= h->alt_start && parent_ip < h->alt_end)
		to = h->redirect_alt;
	mcs_fregs_set_ip(fregs, (unsigned long)to);
}

/* The row and its clones' rows, all or none. */
static int mcs_hook_attach_rows(struct mcs_hook *h)
{
	unsigned int i;
	int ret = mcs_site_attach(h->site, &h->row);

	for (i = 0; !ret && i < h->nr_clone_rows; i++) {
		ret = mcs_site_attach(h->site, &h->clone_rows[i]);
		if (ret) {
			while (i-- > 0)
				mcs_site_detach(h->site, &h->clone_rows[i]);
			mcs_site_detach(h->site, &h->row);
		}
	}
	return ret;
}

static void mcs_hook_detach_rows(struct mcs_hook *h)
{
	unsigned int i;

	for (i = h->nr_clone_rows; i-- > 0;)
		mcs_site_detach(h->site, &h->clone_rows[i]);
	mcs_site_detach(h->site, &h->row);
}

static int mcs_hook_register(struct mcs_hook *h)
{
	int ret, tries;

	if (h->mech == MCS_MECH_COUNT)
		return mcs_hook_attach_rows(h);
	memset(&h->ops, 0, sizeof(h->ops));
	h->ops.func = mcs_redirect_cb;
	h->ops.flags = FTRACE_OPS_FL_IPMODIFY | FTRACE_OPS_FL_RECURSION |
		       FTRACE_OPS_FL_PERMANENT;
	ret = ftrace_set_filter_ip(&h->ops, h->addr, 0, 0);
	if (ret)
		return ret;
	/*
	 * On a function a BPF trampoline holds, its ops_func may answer
	 * -EAGAIN while another task has the trampoline's mutex: try again.
	 */
	for (tries = 0; tries < 100; tries++) {
		ret = register_ftrace_function(&h->ops);
		if (ret != -EAGAIN)
			break;
		usleep_range(1000, 2000);
	}
	if (ret)
		ftrace_free_filter(&h->ops);
	return ret;
}

static void mcs_hook_unregister(struct mcs_hook *h)
{
	if (h->mech == MCS_MECH_COUNT) {
		mcs_hook_detach_rows(h);
		return;
	}
	mcs_unregister_check(unregister_ftrace_function(&h->ops), h->target);
	ftrace_free_filter(&h->ops);
}

/* The trampolines' view of a counting row; the caller range is resolved. */
static int mcs_hook_site(struct mcs_hook *h)
{
	struct mcs_site_row *r = &h->row;

	r->pcpu = h->pcpu;
	r->kind = h->kind;
	h->site = mcs_site_get(h->addr, h->target, r);
	if (!h->site) {
		pr_err("hook %s: more counting sites than MCS_SITES_MAX\n",
		       h->name);
		return -ENOSPC;
	}
	return 0;
}

static int mcs_hook_resolve(struct mcs_hook *h)
{
	int ret;

	h->state = MCS_HOOK_OTHER_GEN;
	h->nr_clone_rows = 0;
	h->partial[0] = '\0';
	if (h->gens && !(h->gens & MCS_GEN_BIT))
		return 0;
	h->state = MCS_HOOK_MISSING;
	h->addr = mcs_ksym(h->target);
	if (!h->addr) {
		pr_info("hook %s: %s not in this kernel\n", h->name, h->target);
		return 0;
	}
	if (!mcs_ksym_in_text(h->addr)) {
		pr_info("hook %s: %s is not in the kernel image (a module's symbol?)\n",
			h->name, h->target);
		h->addr = 0;
		return 0;
	}
	h->row.caller_start = 0;
	h->row.caller_end = ULONG_MAX;
	if (h->caller && mcs_ksym_range(h->caller, &h->row.caller_start,
					&h->row.caller_end)) {
		pr_info("hook %s: caller %s not in this kernel\n", h->name,
			h->caller);
		return 0;
	}
	h->alt_start = 0;
	h->alt_end = 0;
	if (h->alt_caller && mcs_ksym_range(h->alt_caller, &h->alt_start,
					    &h->alt_end)) {
		pr_info("hook %s: caller %s not in this kernel\n", h->name,
			h->alt_caller);
		return 0;
	}
	h->pcpu = alloc_percpu(struct mcs_row_pcpu);
	if (!h->pcpu)
		return -ENOMEM;
	if (h->mech == MCS_MECH_COUNT) {
		ret = mcs_hook_site(h);
		if (ret)
			return ret;
		if (h->counter != MCS_NO_COUNTER)
			mcs_counter_add_source(h->counter, &h->pcpu->hits);
		if (h->kind != MCS_KIND_COUNT && h->kind < MCS_KIND_ATTR)
			mcs_counter_add_source(h->amount, &h->pcpu->amount);
		if (h->caller) {
			mcs_counter_add_source(MCS_CALLER_RECOVERED,
					       &h->pcpu->recovered);
			mcs_counter_add_source(MCS_CALLER_UNATTRIBUTED,
					       &h->pcpu->unattributed);
			mcs_counter_set_present(MCS_CALLER_RECOVERED);
			mcs_counter_set_present(MCS_CALLER_UNATTRIBUTED);
		}
		/* opt-in counters are listed while attached (their knob) */
		if (!(h->group & (MCS_GRP_UPDATE | MCS_GRP_OPTIN)) &&
		    h->counter != MCS_NO_COUNTER)
			mcs_counter_set_present(h->counter);
	}
	h->state = MCS_HOOK_OFF;
	return 0;
}

int mcs_hook_table_init(struct mcs_hook_table *t)
{
	unsigned int i;
	int ret = 0;

	mutex_lock(&mcs_hook_lock);
	for (i = 0; i < t->n; i++) {
		ret = mcs_hook_resolve(&t->hooks[i]);
		if (ret)
			break;
	}
	mutex_unlock(&mcs_hook_lock);
	if (ret)
		mcs_hook_table_exit(t);
	return ret;
}

void mcs_hook_table_exit(struct mcs_hook_table *t)
{
	bool in_use = false;
	unsigned int i;

	mcs_hooks_detach(t, ~0U);
	mutex_lock(&mcs_hook_lock);
	for (i = 0; i < t->n; i++) {
		struct mcs_hook *h = &t->hooks[i];

		if (!h->site)
			continue;
		/* Rows of another table keep the site and its trampoline. */
		in_use |= h->site->nr_attached > 0;
		while (h->nr_clone_rows > 0)
			mcs_site_put(h->site,
				     &h->clone_rows[--h->nr_clone_rows]);
		mcs_site_put(h->site, &h->row);
		h->site = NULL;
	}
	/*
	 * A trampoline that read one of these rows before the unlink may
	 * still be about to add to its per-cpu data. Preempted there in task
	 * context, RCU Tasks waits for it (as ftrace does for a trampoline).
	 * In an interrupt or with preemption off, synchronize_rcu() does.
	 */
	if (in_use) {
		synchronize_rcu();
		synchronize_rcu_tasks();
	}
	for (i = 0; i < t->n; i++) {
		struct mcs_hook *h = &t->hooks[i];

		if (h->pcpu)
			mcs_counter_del_sources(h->pcpu, sizeof(*h->pcpu));
		free_percpu(h->pcpu);
		h->pcpu = NULL;
	}
	mutex_unlock(&mcs_hook_lock);
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

unsigned int mcs_hooks_renotify(struct mcs_hook_table *t, unsigned long addr)
{
	unsigned int i, n = 0;

	mutex_lock(&mcs_hook_lock);
	for (i = 0; i < t->n; i++) {
		struct mcs_hook *h = &t->hooks[i];

		if (h->mech != MCS_MECH_REDIRECT || h->addr != addr ||
		    h->state != MCS_HOOK_ATTACHED)
			continue;
		mcs_hook_unregister(h);
		if (mcs_hook_register(h)) {
			pr_err("hook %s on %s: registration failed again: the kernel's function runs unredirected\n",
			       h->name, h->target);
			h->state = MCS_HOOK_FAILED;
			continue;
		}
		n++;
	}
	mutex_unlock(&mcs_hook_lock);
	return n;
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

/* The mechanism in use, or the one an attach tries first. */
static const char *mcs_hook_mech_name(const struct mcs_hook *h)
{
	const char *name;

	if (h->mech == MCS_MECH_REDIRECT)
		return "redirect";
	name = h->site && h->state == MCS_HOOK_ATTACHED ?
		mcs_site_mech_name(h->site) : NULL;
	return name ?: (MCS_HAVE_DIRECT ? "direct" : "ftrace");
}

void mcs_hook_table_show(struct seq_file *m, struct mcs_hook_table *t)
{
	unsigned int i;
	int cpu;

	mutex_lock(&mcs_hook_lock);
	for (i = 0; i < t->n; i++) {
		struct mcs_hook *h = &t->hooks[i];
		u64 hits = 0;

		if (h->state == MCS_HOOK_OTHER_GEN)
			continue;
		if (h->pcpu && h->state == MCS_HOOK_ATTACHED)
			for_each_possible_cpu(cpu)
				hits += per_cpu_ptr(h->pcpu, cpu)->hits;
		seq_printf(m, "%s %s %s %s %s %llu\n", h->name, h->target,
			   h->caller ?: "-", mcs_hook_mech_name(h),
			   h->state == MCS_HOOK_ATTACHED && h->partial[0] ?
			   "partial" : mcs_state_names[h->state], hits);
	}
	mutex_unlock(&mcs_hook_lock);
}
