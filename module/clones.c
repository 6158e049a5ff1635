// SPDX-License-Identifier: GPL-2.0
/*
 * Compiler clones of hooked functions and of their callers.
 *
 * GCC may split a function (foo.part.0, foo.cold) or specialise a copy
 * (foo.constprop.0, foo.isra.0). kallsyms names each piece, and
 * kallsyms_lookup_name("foo") finds only the first.
 * - A caller's clone holds calls the row must count. The row gets the
 *   clone's range too, feeding the same hits.
 * - A target's clone is a function we do not hook. Its calls are missed,
 *   and the hook is shown `partial` with the clone's name. Not so a
 *   target's .cold part: it is reached by jumps from the target's body,
 *   never called, so every call still passes the hooked entry.
 * - A clone of the caller a redirect tells apart (periodic work) makes
 *   the hook `partial` too.
 * One pass over kallsyms at load, after every table attached.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/string.h>

#include "clones.h"
#include "ksym.h"

struct mcs_clones {
	struct mcs_hook_table **tables;
	unsigned int n;
};

/* The suffixes GCC gives the pieces it makes of a function. */
static bool mcs_clone_suffix(const char *s)
{
	static const char * const suffixes[] = {
		"cold", "part.", "constprop.", "isra.",
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(suffixes); i++)
		if (!strncmp(s, suffixes[i], strlen(suffixes[i])))
			return true;
	return false;
}

/* @name is a clone of @fn: "@fn.<suffix>". */
static bool mcs_clone_of(const char *name, size_t len, const char *fn)
{
	return fn && strlen(fn) == len && !strncmp(name, fn, len);
}

static void mcs_clone_partial(struct mcs_hook *h, const char *name)
{
	if (h->partial[0])
		return;
	strscpy(h->partial, name, sizeof(h->partial));
	pr_warn("hook %s: %s is a compiler clone this module does not watch: calls there are not counted (the hook is `partial`)\n",
		h->name, name);
}

static void mcs_clone_caller(struct mcs_hook *h, const char *name,
			     unsigned long addr)
{
	struct mcs_site_row *r;
	unsigned long size;

	if (h->nr_clone_rows == MCS_HOOK_CLONES_MAX ||
	    mcs_ksym_size(addr, &size)) {
		mcs_clone_partial(h, name);
		return;
	}
	r = &h->clone_rows[h->nr_clone_rows];
	r->caller_start = addr;
	r->caller_end = addr + size;
	r->pcpu = h->pcpu;
	r->kind = h->kind;
	if (!mcs_site_get(h->addr, h->target, r)) {
		mcs_clone_partial(h, name);
		return;
	}
	if (h->state == MCS_HOOK_ATTACHED && mcs_site_attach(h->site, r)) {
		mcs_site_put(h->site, r);
		mcs_clone_partial(h, name);
		return;
	}
	h->nr_clone_rows++;
	pr_info("hook %s: calls from %s, a compiler clone of %s, count too\n",
		h->name, name, h->caller);
}

static void mcs_clone_table(struct mcs_hook_table *t, const char *name,
			    size_t len, bool cold, unsigned long addr)
{
	unsigned int i;

	for (i = 0; i < t->n; i++) {
		struct mcs_hook *h = &t->hooks[i];

		if (h->state == MCS_HOOK_OTHER_GEN ||
		    h->state == MCS_HOOK_MISSING)
			continue;
		if ((!cold && mcs_clone_of(name, len, h->target)) ||
		    mcs_clone_of(name, len, h->alt_caller))
			mcs_clone_partial(h, name);
		else if (h->mech == MCS_MECH_COUNT &&
			 mcs_clone_of(name, len, h->caller))
			mcs_clone_caller(h, name, addr);
	}
}

static int mcs_clone_cb(void *data, const char *name,
			MCS_KSYM_EACH_MOD unsigned long addr)
{
	struct mcs_clones *c = data;
	const char *dot = strchr(name, '.');
	unsigned int i;

	if (!dot || !mcs_clone_suffix(dot + 1) || !mcs_ksym_in_text(addr))
		return 0;
	for (i = 0; i < c->n; i++)
		mcs_clone_table(c->tables[i], name, dot - name,
				!strcmp(dot + 1, "cold"), addr);
	return 0;
}

void mcs_clones_scan(struct mcs_hook_table **tables, unsigned int n)
{
	struct mcs_clones c = { .tables = tables, .n = n };
	int ret;

	mcs_hooks_lock();
	ret = mcs_ksym_each(mcs_clone_cb, &c);
	mcs_hooks_unlock();
	if (ret)
		pr_info("compiler clones not checked (%d)\n", ret);
}
