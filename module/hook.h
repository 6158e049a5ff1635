/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MCS_HOOK_H
#define MCS_HOOK_H

#include <linux/ftrace.h>
#include <linux/seq_file.h>

#include "counters.h"
#include "site.h"

/*
 * One small engine for every hook of the module. A hook is a row of a
 * table (flush.c, stock.c): the function it watches, the caller a call
 * must come from to count (one range compare on the return address), the
 * counter it feeds, and the mechanism:
 *   count     add one to ->counter per matching call, and an update row
 *             the update's size too (site_abi.h). Done by the function's
 *             counting site (site.h).
 *   redirect  send the call to ->redirect_to (FTRACE_OPS_FL_IPMODIFY, as
 *             livepatch does), unless the module itself is the caller.
 * Rows whose ->gens (MCS_GEN_BIT bits, 0: all) lack this generation are
 * ignored.
 */
/* Compiler clones of one caller counted with it (.cold, .part.0, ...). */
#define MCS_HOOK_CLONES_MAX	2
#define MCS_HOOK_NAME_LEN	64

enum mcs_hook_mech {
	MCS_MECH_COUNT,
	MCS_MECH_REDIRECT,
};

enum mcs_hook_state {
	MCS_HOOK_OTHER_GEN,	/* a row of another kernel generation */
	MCS_HOOK_MISSING,	/* a symbol it needs is not in this kernel */
	MCS_HOOK_OFF,		/* resolved, not attached */
	MCS_HOOK_ATTACHED,
	MCS_HOOK_FAILED,	/* registration failed, see the kernel log */
};

/* Hook groups, attached and detached together. */
#define MCS_GRP_REDIRECT BIT(0)	/* flush redirects, from load to unload */
#define MCS_GRP_STOCK	BIT(1)	/* stock counters, the stock_hooks switch */
#define MCS_GRP_UPDATE	BIT(2)	/* update side, only while a knob needs it */
#define MCS_GRP_OPTIN	BIT(3)	/* opt-in counters, each its own switch */
#define MCS_GRP_ATTR	BIT(4)	/* stock attribution, its knob */

/* ->counter of a row that feeds no `stats` counter (attribution rows). */
#define MCS_NO_COUNTER	MCS_NR_COUNTERS

struct mcs_hook {
	/* Description: filled in by the tables. */
	const char *name;
	const char *target;
	const char *caller;		/* NULL: every call counts */
	enum mcs_hook_mech mech;
	unsigned int group;
	unsigned int gens;		/* generations it applies to, 0: all */
	enum mcs_counter counter;	/* count: the sum of the rows' hits */
					/* or MCS_NO_COUNTER */
	enum mcs_counter amount;	/* update rows: of their amounts */
	unsigned int kind;		/* count: MCS_KIND_* of site_abi.h */
	void *redirect_to;		/* redirect: the replacement */
	/*
	 * redirect: calls from @alt_caller go to @redirect_alt instead. The
	 * ftrace callback sees the true caller even when a kretprobe or the
	 * graph tracer has replaced the return address on the stack.
	 */
	const char *alt_caller;
	void *redirect_alt;

	/* Runtime state, owned by hook.c. */
	enum mcs_hook_state state;
	unsigned long addr;
	struct mcs_row_pcpu __percpu *pcpu;	/* hits (and amount) */
	struct mcs_site *site;		/* count */
	struct mcs_site_row row;	/* count */
	/* count: the same row for compiler clones of the caller (clones.c) */
	struct mcs_site_row clone_rows[MCS_HOOK_CLONES_MAX];
	unsigned int nr_clone_rows;
	/* A clone of the target or of alt_caller, whose calls are missed. */
	char partial[MCS_HOOK_NAME_LEN];
	struct ftrace_ops ops;		/* redirect */
	unsigned long alt_start, alt_end;	/* redirect: @alt_caller */
};

/*
 * An update-side row of @target on the generations @gens: counts
 * stat_updates and adds the update's size (argument 2, read as @kind) to
 * stat_updates.amount.
 */
#define MCS_UPDATE_ROW(_gens, _name, _target, _kind)	\
	{						\
		.name = _name,				\
		.target = _target,			\
		.mech = MCS_MECH_COUNT,			\
		.group = MCS_GRP_UPDATE,		\
		.gens = _gens,				\
		.counter = MCS_STAT_UPDATES,		\
		.amount = MCS_STAT_UPDATES_AMOUNT,	\
		.kind = _kind,				\
	}

/*
 * A redirect of @target to @to, or to @alt for calls from @caller, on the
 * generations @gens (0: all).
 */
#define MCS_REDIRECT_ON_ROW(_gens, _name, _target, _to, _caller, _alt) \
	{						\
		.name = _name,				\
		.target = _target,			\
		.mech = MCS_MECH_REDIRECT,		\
		.group = MCS_GRP_REDIRECT,		\
		.gens = _gens,				\
		.redirect_to = _to,			\
		.alt_caller = _caller,			\
		.redirect_alt = _alt,			\
	}

/* A redirect of @target to @to, or to @alt for calls from @caller. */
#define MCS_REDIRECT_BY_CALLER_ROW(_name, _target, _to, _caller, _alt) \
	MCS_REDIRECT_ON_ROW(0, _name, _target, _to, _caller, _alt)

/* A redirect of @target to the module function @to. */
#define MCS_REDIRECT_ROW(_name, _target, _to)		\
	MCS_REDIRECT_BY_CALLER_ROW(_name, _target, _to, NULL, NULL)

struct mcs_hook_table {
	struct mcs_hook *hooks;
	unsigned int n;
};

/**
 * mcs_hook_table_init() - resolve every hook of a table
 * @t: the table
 *
 * A symbol this kernel lacks leaves its hook `missing`; it is no error.
 *
 * Return: 0, or -ENOMEM or -ENOSPC (nothing kept then).
 */
int mcs_hook_table_init(struct mcs_hook_table *t);

/**
 * mcs_hook_table_exit() - detach every hook of @t and free what init took
 * @t: the table
 */
void mcs_hook_table_exit(struct mcs_hook_table *t);

/**
 * mcs_hooks_attach() - attach every resolved hook of a group
 * @t: the table
 * @group: MCS_GRP_* bits
 *
 * All or nothing: a failure detaches what this call attached.
 *
 * Return: 0, or the first registration's error.
 */
int mcs_hooks_attach(struct mcs_hook_table *t, unsigned int group);

/**
 * mcs_hooks_detach() - detach every hook of a group, in reverse order
 * @t: the table
 * @group: MCS_GRP_* bits
 */
void mcs_hooks_detach(struct mcs_hook_table *t, unsigned int group);

/**
 * mcs_hooks_attached() - whether some hook of @group in @t is attached
 * @t: the table
 * @group: MCS_GRP_* bits
 *
 * Return: true when one is.
 */
bool mcs_hooks_attached(struct mcs_hook_table *t, unsigned int group);

/**
 * mcs_hooks_resolved() - whether this kernel has every hook of @group
 * @t: the table
 * @group: MCS_GRP_* bits
 *
 * Return: true when none is `missing`.
 */
bool mcs_hooks_resolved(struct mcs_hook_table *t, unsigned int group);

/**
 * mcs_hooks_set_missing() - mark the hooks of @group missing
 * @t: the table
 * @group: MCS_GRP_* bits
 *
 * For a kernel object they need that is absent; they are detached first.
 */
void mcs_hooks_set_missing(struct mcs_hook_table *t, unsigned int group);

/**
 * mcs_hooks_lock() - take the hook engine's mutex
 *
 * For clones.c, which adds rows to hooks.
 *
 * Context: process context; sleeps.
 */
void mcs_hooks_lock(void);

/**
 * mcs_hooks_unlock() - release the hook engine's mutex
 */
void mcs_hooks_unlock(void);

/**
 * mcs_hooks_renotify() - register the attached redirects of @addr again
 * @t: the table
 * @addr: the function
 *
 * An IPMODIFY ops that registers on a function a direct trampoline holds
 * tells that trampoline's owner it shares the function (ftrace's ops_func,
 * FTRACE_OPS_CMD_ENABLE_SHARE_IPMODIFY_PEER). For a BPF trampoline that
 * came after the redirect, this is how it learns (bpf_share.c). Calls of
 * @addr in between run the kernel's function.
 *
 * Return: how many redirects were registered again.
 */
unsigned int mcs_hooks_renotify(struct mcs_hook_table *t, unsigned long addr);

/**
 * mcs_hook_table_show() - the lines of @t in the `hooks` file
 * @m: the file
 * @t: the table
 */
void mcs_hook_table_show(struct seq_file *m, struct mcs_hook_table *t);

#endif /* MCS_HOOK_H */
