/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MCS_FLUSH_BACKEND_H
#define MCS_FLUSH_BACKEND_H

#include <linux/types.h>

#include "hook.h"
#include "ksym.h"

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
	MCS_ORIGIN_FORCED,		/* the kernel insists (7.x offlining) */
};

/* The per-generation hook table: the redirects of the flush choke points. */
extern struct mcs_hook_table mcs_backend_hooks;

/*
 * Resolve a variable of the kernel the backend accesses, given the address
 * of a typed pointer to it, or a function it calls (ksym.h).
 */
#define mcs_backend_need(name, ptr) ({				\
	typeof(ptr) __p = (ptr);					\
	mcs_ksym_object("flush control", name, __p, sizeof(**__p));	\
})
#define mcs_backend_need_fn(name, addr) \
	mcs_ksym_function("flush control", name, addr)

/* Resolve the kernel objects; -ENOENT when this kernel lacks one. */
int mcs_backend_init(void);
void mcs_backend_exit(void);
/*
 * @target is what a request is about: the memcg whose subtree a reader
 * wants flushed on per-memcg kernels, NULL for the root (and always on 6.1,
 * where every flush is global).
 *
 * In `kernel` mode, would the kernel flush @target for a reader now?
 */
bool mcs_backend_kernel_wants(void *target);
/*
 * Flush @target as the kernel does; with @gate_open, leave the kernel's
 * reader gate open so that every reader reaches the policy. Returns false
 * when the flush did not run (another flush held the lock).
 */
bool mcs_backend_flush(void *target, bool gate_open, u64 *ns);
/* Open the reader gate, or put it back so that the kernel takes over. */
void mcs_backend_gate(bool open);
/* Stop or restart the kernel's own periodic flusher. */
void mcs_backend_kernel_periodic(bool run);
/* The kernel's own period, in ms. */
#define MCS_KERNEL_PERIOD_MS	2000

/* Implemented by flush.c, called by the backend's redirects. */
void mcs_flush_request(enum mcs_flush_origin origin, void *target);
bool mcs_flush_kernel_mode(void);
void mcs_flush_enter(void);
void mcs_flush_leave(void);

#endif /* MCS_FLUSH_BACKEND_H */
