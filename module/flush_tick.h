/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MCS_FLUSH_TICK_H
#define MCS_FLUSH_TICK_H

/*
 * The one call from the counting layer up into the flush policy: update
 * rows tick the update_flush_every counter on the hot path. It is a direct
 * call (site_tramp.S and site.c), not a callback, to keep that path short.
 * flush.c owns both names.
 */

/* Nonzero: every Nth update on a cpu queues an async flush. */
extern unsigned int mcs_update_every;

/* Count one update; queue an async flush on every Nth (flush.c). */
void mcs_flush_update_tick(void);

#endif /* MCS_FLUSH_TICK_H */
