/* SPDX-License-Identifier: GPL-2.0 */
/* The module's debugfs files: stats, hooks, version. */
#ifndef MEMCG_STATCTL_STATCTL_H
#define MEMCG_STATCTL_STATCTL_H

#include "util.h"

#define STATCTL_DIR	"/sys/kernel/debug/memcg_statctl"

/* Files of the module's debugfs directory, by basename. */
ssize_t statctl_read(const char *file, char *buf, size_t size);
ssize_t statctl_write(const char *file, const void *buf, size_t len);
bool statctl_has(const char *file);
/* Write all of @val to @file; 0, or -errno (-EIO: short) and a diagnostic. */
int statctl_set(const char *file, const char *val);
/* A one-line file's value without its newline; -errno, -EPROTO if not one line. */
int statctl_read_line(const char *file, char *buf, size_t size);

/*
 * Turn the opt-in objcg_flush_hooks switch on for the rest of the program
 * and put its value back at exit: a test of every counter or every row
 * needs objcg_vmstat.flushes, which is off by default. 0, or -errno
 * (-ENOENT: no such switch).
 */
int objcg_flush_hooks_on(void);

/* ---- stats ---------------------------------------------------------- */
#define STATS_MAX	128
#define NAME_LEN	64

struct stats {
	int n;
	char name[STATS_MAX][NAME_LEN];
	uint64_t val[STATS_MAX];
};

/* Parse `stats`. -EPROTO on a malformed line (printed), -errno otherwise. */
int stats_read(struct stats *s);
/* 0 and *val, or -ENOENT when the counter is absent from the snapshot. */
int stats_get(const struct stats *s, const char *name, uint64_t *val);
/* Convenience: read `stats` and get one counter (0, -ENOENT, -errno). */
int stat_get(const char *name, uint64_t *val);
/* Value of a counter that must be there; aborts the test program if not. */
uint64_t stat_must(const struct stats *s, const char *name);
/* b - a for a counter present in both (0 when absent). */
uint64_t stats_delta(const struct stats *a, const struct stats *b,
		     const char *name);
/*
 * flush.requests = flush.performed + flush.skipped in @s: no flush was in
 * flight when it was read. A request is counted when it starts and its
 * outcome when it ends; a vCPU that QEMU pauses mid-flush can hold that
 * gap open for a while.
 */
bool flush_settled(const struct stats *s);
/* Every counter of @names (@n) is in `stats`; else says which is not. */
bool counters_present(const char *const *names, size_t n);

/* ---- hooks ---------------------------------------------------------- */
#define HOOKS_MAX	64

struct hook {
	char name[NAME_LEN];
	char target[NAME_LEN * 2];
	char caller[NAME_LEN * 2];
	char mech[32];
	char state[32];
	uint64_t hits;
};

struct hooks {
	int n;
	struct hook h[HOOKS_MAX];
};

/*
 * A redirect of a kernel flush point (the `flush*` rows), not one of the
 * module's redirects of the BPF link functions (`bpf.*`).
 */
bool hook_is_flush_redirect(const struct hook *h);
/* An attached row that counts (not a redirect). */
bool hook_is_counting(const struct hook *h);
/*
 * Every attached counting row uses mechanism @mech, except those on kernel
 * function @target, which use @target_mech (a NULL mechanism: not
 * checked; a NULL @target: none). Returns the number of rows that do not,
 * each said in a diagnostic; 1 when `hooks` cannot be read.
 */
int hooks_mechs_are(const char *mech, const char *target,
		    const char *target_mech);
/* Parse `hooks`; -EPROTO (printed) on a line without exactly 6 fields. */
int hooks_read(struct hooks *hs);
const struct hook *hook_find(const struct hooks *hs, const char *name);
/*
 * Every hook whose name starts with one of @prefixes (@n of them) is in
 * state @want, and there is at least one. Returns the number of problems
 * (each said in a diagnostic), 1 when `hooks` cannot be read.
 */
int hooks_state_is(const char *const *prefixes, size_t n, const char *want);
/*
 * The same, except that a hook `missing` on this kernel (a function it
 * needs is not a function of its own there) passes, said in a diagnostic.
 */
int hooks_present_state_is(const char *const *prefixes, size_t n,
			   const char *want);

/* The kernel functions the module hooks (hooks' targets not `missing`). */
struct hook_targets {
	char name[HOOKS_MAX][NAME_LEN * 2];
	int n;
};

/* Reads them from `hooks` while the module is loaded; 0 or -errno. */
int hook_targets_read(struct hook_targets *t);

/* ---- stock_by_cgroup ------------------------------------------------ */
enum attr_ev {
	ATTR_ATTEMPTS, ATTR_MISSES, ATTR_REFILLS, ATTR_DRAINS, ATTR_OBJ_MISSES,
	ATTR_EVICTED, ATTR_NR
};

/* One cgroup's line of `stock_by_cgroup`; evicted is -1 where "-". */
struct attr_row {
	uint64_t id;
	int64_t ev[ATTR_NR];
};

/*
 * The line of cgroup @id (0: the `other` line) of `stock_by_cgroup`. 0,
 * -ENOENT when the cgroup is not listed (all zero then), -ENODATA when
 * the state is not `on`, -EPROTO on a malformed file (printed), -errno.
 */
int attr_get(uint64_t id, struct attr_row *row);

/*
 * In main(), before run_test_table(): put stock_attribution back to its
 * value of now when the program exits (tests run in children that _exit).
 * 0, -ENOENT without the knob, -errno.
 */
int stock_attribution_keep(void);

/* Turn it on: 0, -ENOENT without the knob, -EOPNOTSUPP if `missing`. */
int stock_attribution_on(void);

/* ---- version -------------------------------------------------------- */
/* `version`: value of KEY (to end of line) or -ENOENT. */
int version_get(const char *key, char *val, size_t size);
/*
 * Flush control on this kernel: KSFT_PASS when `version` says available;
 * KSFT_SKIP when it says missing and a flush point the module redirects
 * (a `redirect` row of `hooks`) is indeed not a function of this kernel
 * (absent from /proc/kallsyms: inlined by its compiler); KSFT_FAIL when the
 * module gave up on a kernel that has every flush point. Says why.
 */
int flush_control_state(void);
/* Exit the program with that result unless flush control is available. */
void require_flush_control(void);

#endif
