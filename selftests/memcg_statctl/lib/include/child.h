/* SPDX-License-Identifier: GPL-2.0 */
/* Child processes and the memory they fault in. */
#ifndef MEMCG_STATCTL_CHILD_H
#define MEMCG_STATCTL_CHILD_H

#include "util.h"

/*
 * A child forked into a cgroup (when cg != NULL) running fn(arg, c).
 * It dies with the test (PR_SET_PDEATHSIG). Parent and child talk over two
 * pipes with one-byte messages: child_notify()/child_wait() in the child,
 * child_wait_ready()/child_release() in the parent.
 */
struct child {
	pid_t pid;
	int to_child[2];
	int to_parent[2];
};

typedef int (*child_fn)(void *arg, struct child *c);

int child_start(struct child *c, const char *cg, child_fn fn, void *arg);
int child_notify(struct child *c);		/* in the child */
int child_wait(struct child *c);		/* in the child: blocks */
int child_wait_ready(struct child *c, int timeout_ms);	/* in the parent */
int child_release(struct child *c);		/* in the parent */
/* waitpid; returns the exit code, 128+sig for a signal, -errno. */
int child_reap(struct child *c, int timeout_ms);
void child_kill(struct child *c);		/* SIGKILL + reap */

/* Zeroed memory shared with children forked later; NULL on failure. */
void *shared_alloc(size_t size);
int set_nice(pid_t pid, int nice);	/* setpriority(PRIO_PROCESS) */
/* Disable THP for this process and its future mappings. */
int thp_disable(void);
/* mmap + MADV_NOHUGEPAGE + write-touch every page; NULL on failure. */
void *fault_anon(size_t pages);
int pin_to_cpu(int cpu);

/* child_fn: fault in *(size_t *)arg pages, notify, hold until released. */
int fault_and_hold(void *arg, struct child *c);
/* child_fn: read `anon` of memory.stat of cgroup (char *)arg forever. */
int memstat_read_loop(void *arg, struct child *c);
/* child_fn: loop mmap 8 MiB, touch, munmap (+read memory.stat if arg). */
int fault_loop(void *arg, struct child *c);

/*
 * child_fn for the oracle tests, arg a struct mixed_load: notify, wait for
 * the release, fault in PAGES anonymous pages, create and remove FILES
 * one-byte files (slab objects), read CG's memory.stat READS times, notify
 * and wait again.
 */
struct mixed_load {
	const char *cg;
	size_t pages;
	int files;
	int reads;
};

int mixed_load_child(void *arg, struct child *c);

/* Spin one child per online cpu at nice 19; returns count or -errno. */
int spinners_start(struct child *cs, int max);
void spinners_stop(struct child *cs, int n);

#endif
