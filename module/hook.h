/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MCS_HOOK_H
#define MCS_HOOK_H

#include <linux/ftrace.h>
#include <linux/seq_file.h>

#include "counters.h"

/*
 * One small engine for every hook of the module. A hook is a row of a
 * per-generation table (flush.c, stock.c): the function it watches, the
 * caller a call must come from to count ("count-if-called-from", decided by
 * one range compare on ftrace's parent_ip), the counter it feeds, and the
 * mechanism:
 *   ftrace     count calls (or run ->handler) at function entry;
 *   redirect   send the call to ->redirect_to (FTRACE_OPS_FL_IPMODIFY, the
 *              livepatch mechanism) unless the module itself is the caller.
 * A row applies to the kernel generations in ->gens (MCS_GEN_BIT of
 * compat.h; 0: all); rows of other generations are ignored.
 */
enum mcs_hook_mech {
	MCS_MECH_FTRACE,
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
#define MCS_GRP_FLUSH	BIT(0)	/* flush counters, always on */
#define MCS_GRP_STOCK	BIT(1)	/* stock counters, the stock_hooks switch */
#define MCS_GRP_UPDATE	BIT(2)	/* update side, only while a knob needs it */
#define MCS_GRP_CONTROL	BIT(3)	/* flush redirects, while a knob needs them */

struct mcs_hook;
typedef void (*mcs_hook_handler_t)(struct mcs_hook *h, unsigned long parent_ip,
				   struct ftrace_regs *fregs);

struct mcs_hook {
	/* Description: filled in by the tables. */
	const char *name;
	const char *target;
	const char *caller;		/* NULL: every call counts */
	enum mcs_hook_mech mech;
	unsigned int group;
	unsigned int gens;		/* generations it applies to, 0: all */
	enum mcs_counter counter;	/* counted per hit (ftrace) */
	mcs_hook_handler_t handler;	/* ftrace: replaces the plain count */
	void *redirect_to;		/* redirect: the replacement */

	/* Runtime state, owned by hook.c. */
	enum mcs_hook_state state;
	unsigned long addr;
	unsigned long caller_start, caller_end;
	unsigned long __percpu *hits;
	struct ftrace_ops ops;
	/*
	 * Rows of one table and group with the same ftrace target share the
	 * first one's ftrace_ops (a site with one ops gets its own
	 * trampoline; with several, ftrace walks every registered ops on
	 * each call). The leader's callback serves the chain.
	 */
	struct mcs_hook *leader;	/* NULL: owns its ops */
	struct mcs_hook *next_same;	/* next row served by this ops */
};

/* A redirect of @target to the module function @to. */
#define MCS_REDIRECT_ROW(_name, _target, _to, _group)	\
	{						\
		.name = _name,				\
		.target = _target,			\
		.mech = MCS_MECH_REDIRECT,		\
		.group = _group,			\
		.redirect_to = _to,			\
	}

/* An ftrace hook of @target, on the generations @gens, that runs @fn. */
#define MCS_HANDLER_ROW(_gens, _name, _target, _fn, _group)	\
	{							\
		.name = _name,					\
		.target = _target,				\
		.mech = MCS_MECH_FTRACE,			\
		.group = _group,				\
		.gens = _gens,					\
		.handler = _fn,					\
	}

struct mcs_hook_table {
	struct mcs_hook *hooks;
	unsigned int n;
};

/* Resolve every hook of @t; a missing symbol is not an error. */
int mcs_hook_table_init(struct mcs_hook_table *t);
void mcs_hook_table_exit(struct mcs_hook_table *t);

/* Attach or detach every resolved hook of @t in @group (under a mutex). */
int mcs_hooks_attach(struct mcs_hook_table *t, unsigned int group);
void mcs_hooks_detach(struct mcs_hook_table *t, unsigned int group);
/* true when some hook of @group in @t is attached */
bool mcs_hooks_attached(struct mcs_hook_table *t, unsigned int group);
/* true when every hook of @group in @t was found in this kernel */
bool mcs_hooks_resolved(struct mcs_hook_table *t, unsigned int group);
/* Mark the hooks of @group missing (a kernel object they need is absent). */
void mcs_hooks_set_missing(struct mcs_hook_table *t, unsigned int group);

/* One line per hook, in the format of the `hooks` file. */
void mcs_hook_table_show(struct seq_file *m, struct mcs_hook_table *t);

static __always_inline bool mcs_hook_from_caller(const struct mcs_hook *h,
						 unsigned long parent_ip)
{
	return !h->caller ||
	       (parent_ip >= h->caller_start && parent_ip < h->caller_end);
}

#endif /* MCS_HOOK_H */
