/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MCS_ATTRIBUTION_H
#define MCS_ATTRIBUTION_H

#include <linux/seq_file.h>

#include "hook.h"
#include "knob.h"
#include "site_abi.h"

/*
 * Per-cgroup stock attribution (`stock_attribution`, module/ABI.md): the
 * charge-stock and object-stock events of the stock counters, counted per
 * cgroup while the knob of the same name is 1. Its rows are walked by the
 * counting sites, which call mcs_attr_event() with the row's kind.
 */
enum mcs_attr_event {
	MCS_ATTR_ATTEMPTS,	/* a charge consulted the charge stock */
	MCS_ATTR_MISSES,	/* and charged the page counter instead */
	MCS_ATTR_REFILLS,	/* pages returned to the charge stock */
	MCS_ATTR_DRAINS,	/* the stock gave back a cgroup's pages */
	MCS_ATTR_OBJ_MISSES,	/* an object charge fell through to pages */
	MCS_ATTR_EVICTED,	/* 7.x: a drain to free a slot for another */
	MCS_ATTR_NR
};

extern struct mcs_hook_table mcs_attr_hooks;
extern const struct mcs_knob mcs_attr_knobs[];
extern const unsigned int mcs_attr_nr_knobs;

/**
 * mcs_attr_event() - count one attributed event
 * @kind: MCS_KIND_ATTR + the event (enum mcs_attr_event)
 * @arg0: the hooked function's argument 0 (a memcg, a page counter, a
 *	stock, an objcg: the row's function tells)
 * @arg1: its argument 1 (7.x: the stock slot of a drain)
 *
 * Context: any, NMI included; called from the counting trampolines.
 */
void mcs_attr_event(unsigned long kind, unsigned long arg0,
		    unsigned long arg1);

/**
 * mcs_attr_init() - resolve the attribution rows and what they read
 *
 * Context: module load, after the ksym lookup. What is missing makes the
 * feature `missing` (said in the log); only -ENOMEM fails the load.
 * Return: 0, or a negative errno.
 */
int mcs_attr_init(void);

/**
 * mcs_attr_exit() - detach and free
 */
void mcs_attr_exit(void);

/**
 * mcs_attr_reset() - restart every count from zero (for `reset`)
 */
void mcs_attr_reset(void);

/**
 * mcs_attr_show() - print `stock_attribution`
 * @m: the seq_file
 *
 * Return: 0, or -ENOMEM.
 */
int mcs_attr_show(struct seq_file *m);

#endif /* MCS_ATTRIBUTION_H */
