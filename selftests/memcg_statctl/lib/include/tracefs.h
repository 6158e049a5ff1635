/* SPDX-License-Identifier: GPL-2.0 */
/* The kernel's tracing (tracefs): workqueue events, ftrace callbacks. */
#ifndef MEMCG_STATCTL_TRACEFS_H
#define MEMCG_STATCTL_TRACEFS_H

#include "util.h"

/* The tracefs mount (/sys/kernel/tracing or under debugfs), or NULL. */
const char *tracefs(void);
/*
 * How many times the workqueue function FN ran during MS milliseconds,
 * from the workqueue_execute_start tracepoint (tracefs): the kernel's own
 * view, independent of the module. -errno when tracing is unavailable.
 */
int wq_fn_runs(const char *fn, unsigned int ms);
/*
 * Lines of tracefs enabled_functions (functions with an ftrace callback)
 * that MATCH accepts (all when MATCH is NULL); the first few are printed.
 * -errno when tracefs is unavailable.
 */
int ftrace_enabled_match(bool (*match)(const char *line, const void *arg),
			 const void *arg);

/*
 * Sum the hitcounts of a hist file (PATH) whose KEY is a symbol (a hist
 * trigger keyed on KEY.sym): every line, or those whose symbol is CALLER
 * or a compiler clone of it (CALLER.cold, CALLER.part.0, ...), whose calls
 * the module counts as CALLER's. CALLER "-" takes every line. Lines look
 * like   { KEY: [ffffffff8123abcd] try_charge_memcg } hitcount: 12
 * 0 or -errno.
 */
int hist_caller_sum(const char *path, const char *key, const char *caller,
		    uint64_t *sum);

/*
 * The kernel's own view of rstat flushes (6.10+): while fn(arg) runs, the
 * time from each flush this process makes (not a kworker's) from its
 * first taking of the rstat lock to its last release, from the cgroup_rstat_locked and cgroup_rstat_unlock
 * tracepoints paired per task through a synthetic event, in ns
 * (trace_clock mono). flush_once(arg) makes one flush first, to learn how
 * this kernel takes the lock. Puts the spans in @ns (at most @max) and
 * returns how many; or the callbacks' error, -ENOENT where the tracepoints
 * are missing, or -errno.
 */
int rstat_flush_spans(int (*flush_once)(void *arg), int (*fn)(void *arg),
		      void *arg, uint64_t *ns, int max);

/*
 * How many times this process took the rstat lock (the
 * cgroup_rstat_locked tracepoint, 6.10+) while fn(arg) ran: in @n. 0, or
 * fn's error, -ENOENT where the tracepoint is missing, or -errno.
 */
int rstat_locks_taken(int (*fn)(void *arg), void *arg, uint64_t *n);

#endif
