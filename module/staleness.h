/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MCS_STALENESS_H
#define MCS_STALENESS_H

#include <linux/seq_file.h>

/*
 * Live staleness (`pending`, module/ABI.md): the stat updates the kernel
 * has recorded but not yet flushed, per memcg on 6.12 and 7.x, globally
 * on 6.1. Read from the kernel's own counts, without the rstat lock and
 * without flushing.
 */

/**
 * mcs_staleness_init() - find the kernel's counts of unflushed updates
 *
 * Context: module load. A kernel without them, or a memory controller on
 * cgroup v1, leaves the feature `missing` (said in the log); the module
 * loads all the same.
 */
void mcs_staleness_init(void);

/**
 * mcs_staleness_state() - `memcg`, `global` or `missing`, for `version`
 *
 * Return: a static string.
 */
const char *mcs_staleness_state(void);

/**
 * mcs_staleness_show() - print `pending`
 * @m: the seq_file
 *
 * Context: process context; takes the RCU read lock, never the rstat lock.
 * Return: 0, or -EOPNOTSUPP when the feature is missing.
 */
int mcs_staleness_show(struct seq_file *m);

#endif /* MCS_STALENESS_H */
