/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MCS_FLUSH_BACKEND_H
#define MCS_FLUSH_BACKEND_H

#include <linux/types.h>

#include "hook.h"

/*
 * What the flush policy (flush.c) needs from one kernel generation
 * (flush_61.c, ...): its hook table, its flush worker, its reader gate and
 * its periodic flusher.
 */
enum mcs_flush_origin {
	MCS_ORIGIN_READER,		/* a stat reader asked the kernel */
	MCS_ORIGIN_KERNEL_PERIODIC,	/* the kernel's own periodic work */
	MCS_ORIGIN_MODULE_PERIODIC,	/* our replacement periodic work */
	MCS_ORIGIN_ASYNC,		/* update_flush_every */
};

/* The per-generation hook table: the flush redirect and the update side. */
extern struct mcs_hook_table mcs_flush_hooks;

/* Resolve the kernel objects; -ENOENT when this kernel lacks one. */
int mcs_backend_init(void);
/*
 * Flush as the kernel does (trylock, flush, reset its gate); with
 * @gate_open, leave the kernel's reader gate open so that every reader
 * reaches the policy. Returns false when another flush holds the lock.
 */
bool mcs_backend_flush(bool gate_open, u64 *ns);
/* Open the reader gate, or put it back so that the kernel takes over. */
void mcs_backend_gate(bool open);
/* Stop or restart the kernel's own periodic flusher. */
void mcs_backend_kernel_periodic(bool run);
/* The kernel's own period, in ms. */
#define MCS_KERNEL_PERIOD_MS	2000

/* Implemented by flush.c, called by the backend's redirect. */
void mcs_flush_request(enum mcs_flush_origin origin);
void mcs_flush_enter(void);
void mcs_flush_leave(void);
/* Update-side callbacks, called by the backend's update hooks. */
void mcs_flush_stat_update(u64 amount);

#endif /* MCS_FLUSH_BACKEND_H */
