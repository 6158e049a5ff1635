/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MCS_FLUSH_TICK_H
#define MCS_FLUSH_TICK_H

/*
 * The one intended upward call, from the counting layer (site_tramp.S,
 * site.c) into the flush policy. A direct call, not a callback, to keep
 * the update path short. flush.c owns both names.
 */

/* Nonzero: every Nth update on a cpu queues an async flush. */
extern unsigned int mcs_update_every;

/**
 * mcs_flush_update_tick() - count one stat update for update_flush_every
 *
 * Queues an async flush on every Nth update of a cpu.
 *
 * Context: any; called by the update rows while mcs_update_every is set.
 * In NMI the tick counts but nothing is queued (queue_work() locks).
 */
void mcs_flush_update_tick(void);

#endif /* MCS_FLUSH_TICK_H */
