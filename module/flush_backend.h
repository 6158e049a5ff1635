/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MCS_FLUSH_BACKEND_H
#define MCS_FLUSH_BACKEND_H

#include <linux/types.h>

#include "caller.h"
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

/**
 * mcs_backend_init() - resolve the kernel objects the backend uses
 *
 * Context: module load.
 * Return: 0, or -ENOENT when this kernel lacks one (logged).
 */
int mcs_backend_init(void);

/**
 * mcs_backend_exit() - undo mcs_backend_init(); safe after a failed init
 *
 * Context: process context.
 */
void mcs_backend_exit(void);

/*
 * @target below is what a request is about: the memcg whose subtree a
 * reader wants flushed on per-memcg kernels, NULL for the root. Always
 * NULL on 6.1, where every flush is global.
 */

/**
 * mcs_backend_kernel_wants() - would the kernel flush @target now
 * @target: the memcg, or NULL
 *
 * For `kernel` mode: the kernel's own reader gate.
 *
 * Return: true when the kernel would flush for a reader.
 */
bool mcs_backend_kernel_wants(void *target);

/**
 * mcs_backend_flush() - flush @target as the kernel does
 * @target: the memcg, or NULL
 * @gate_open: leave the reader gate open, so every reader reaches the policy
 * @ns: the time the flush took, set when it ran
 *
 * Context: that of the kernel's flush it replaces.
 * Return: false when the flush did not run (another flush held the lock).
 */
bool mcs_backend_flush(void *target, bool gate_open, u64 *ns);

/**
 * mcs_backend_gate() - open the reader gate, or hand it back to the kernel
 * @open: true to open it
 */
void mcs_backend_gate(bool open);

#ifdef MCS_GEN_61
/**
 * mcs_backend_threshold_is_kernels() - whether stats_flush_threshold counts
 *
 * 6.1's reader gate is inlined into the readers, so the module opens it by
 * keeping stats_flush_threshold high; closing it leaves one more than the
 * limit, so that the next reader flushes. Until that flush the variable
 * counts nothing.
 *
 * Return: true while it holds the kernel's count of batches of updates.
 */
bool mcs_backend_threshold_is_kernels(void);
#endif

/**
 * mcs_backend_kernel_periodic() - restart or stop the kernel's periodic flush
 * @run: true to restart it
 *
 * Context: process context; stopping it sleeps.
 */
void mcs_backend_kernel_periodic(bool run);

/* The kernel's own period, in ms. */
#define MCS_KERNEL_PERIOD_MS	2000

/* Implemented by flush.c, called by the backend's redirects. */

/**
 * mcs_flush_request() - one flush request, decided by the policy
 * @origin: who asked
 * @target: the memcg, or NULL
 * @caller: the requester's return address (mcs_flush_caller()), or 0
 *
 * Counts the request and exactly one of flush.performed or flush.skipped,
 * and both in `flush_reasons` (flush_reasons.h).
 */
void mcs_flush_request(enum mcs_flush_origin origin, void *target,
		       unsigned long caller);

/*
 * In a replacement's own body: its caller, the return address the
 * redirected call left, or 0 when another tracer's return trampoline
 * (kretprobe, fprobe exit, function graph) took its place.
 */
#define mcs_flush_caller() ({					\
	unsigned long __ip = _RET_IP_;				\
	mcs_caller_hijacked(__ip) ? 0 : __ip;			\
})

/**
 * mcs_flush_kernel_mode() - whether flush_mode is `kernel`
 *
 * Return: true in `kernel` mode.
 */
bool mcs_flush_kernel_mode(void);

/**
 * mcs_flush_enter() - a call enters a replacement
 *
 * Unload waits until every call that entered has left.
 */
void mcs_flush_enter(void);

/**
 * mcs_flush_leave() - a call leaves a replacement
 */
void mcs_flush_leave(void);

#endif /* MCS_FLUSH_BACKEND_H */
