/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared helpers of the memcg_statctl selftests (in the spirit of
 * tools/testing/selftests/cgroup/cgroup_util.c).
 *
 * Conventions: functions returning int give 0 (or a count) on success and
 * -errno on failure, never print on the success path, and print one
 * diagnostic line ("# ...") on the failure path when it helps.
 */
#ifndef MEMCG_STATCTL_SELFTEST_LIB_H
#define MEMCG_STATCTL_SELFTEST_LIB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "kselftest.h"

#define MODULE_NAME	"memcg_statctl"
#define STATCTL_DIR	"/sys/kernel/debug/memcg_statctl"
#define CG_ROOT		"/sys/fs/cgroup"
#define TEST_CG_ROOT	CG_ROOT "/memcg_statctl_test"

#define PAGE_SZ		4096UL
#define MiB		(1024UL * 1024UL)
/* MEMCG_CHARGE_BATCH of every supported kernel (include/linux/memcontrol.h) */
#define CHARGE_BATCH	64

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif

/* ---- files ---------------------------------------------------------- */
/* Read a whole (small) file; NUL-terminates. Returns length or -errno. */
ssize_t read_file(const char *path, char *buf, size_t size);
/* One write(2) of exactly len bytes. Returns bytes written or -errno. */
ssize_t write_file(const char *path, const void *buf, size_t len);
int write_str(const char *path, const char *s);	/* 0 or -errno */
bool path_exists(const char *path);

/* Files of the module's debugfs directory, by basename. */
ssize_t statctl_read(const char *file, char *buf, size_t size);
ssize_t statctl_write(const char *file, const void *buf, size_t len);
bool statctl_has(const char *file);
/* A one-line file's value without its newline; -errno, -EPROTO if not one line. */
int statctl_read_line(const char *file, char *buf, size_t size);

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
/* Every counter of @names (@n) is in `stats`; else says which is not. */
bool counters_present(const char *const *names, size_t n);

/* `version`: value of KEY (to end of line) or -ENOENT. */
int version_get(const char *key, char *val, size_t size);

/* ---- cgroups -------------------------------------------------------- */
/* Make TEST_CG_ROOT with +memory for its children. */
int cg_test_root(void);
/* Fresh leaf TEST_CG_ROOT/NAME (an old one is destroyed first). */
int cg_create_leaf(const char *name, char *path, size_t size);
/* Kill its processes, wait until empty, rmdir. */
int cg_destroy(const char *path);
int cg_enter(const char *cg, pid_t pid);
/* A key of memory.stat: 0 and *val, -ENOENT, or -errno. */
int memstat_get(const char *cg, const char *key, uint64_t *val);

/* ---- child processes ------------------------------------------------ */
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

/* Spin one child per online cpu at nice 19; returns count or -errno. */
int spinners_start(struct child *cs, int max);
void spinners_stop(struct child *cs, int n);

/* ---- module --------------------------------------------------------- */
int module_load(const char *ko, const char *params);	/* finit_module */
int module_unload(const char *name, int timeout_ms);	/* delete_module */
bool module_loaded(const char *name);
/*
 * The .ko of module NAME to (re)load: $ENV when set, else NAME.ko beside
 * the test program (a kselftest package carries it there), else the
 * uncompressed file modules.dep names for the running kernel (where DKMS
 * installs it). NULL when there is none.
 */
const char *ko_find(const char *name, const char *env);
/* ko_find() of the module: $MEMCG_STATCTL_KO, beside, modules.dep. */
const char *module_ko_path(void);
/* Where module_ko_path() looked, for a diagnostic when it found nothing. */
#define KO_SOURCES	"$MEMCG_STATCTL_KO, " MODULE_NAME ".ko beside the test, modules.dep"

/* ---- kernel log ----------------------------------------------------- */
struct kmsg_mark {
	bool devkmsg;		/* /dev/kmsg usable, else klogctl */
	uint64_t seq;		/* last record seen (/dev/kmsg) */
	char line[256];		/* marker line (klogctl fallback) */
};

/* Write a marker into the log and remember where the log ends. */
int kmsg_mark(struct kmsg_mark *m, const char *tag);
/*
 * Lines logged after the mark that contain WARNING:, BUG:, Oops,
 * general protection or Call Trace; each is printed as a diagnostic.
 * Returns their number, or -errno.
 */
int kmsg_scan(const struct kmsg_mark *m);
/* kmsg_scan(), where a line containing one of @extra (@n) counts too. */
int kmsg_scan_with(const struct kmsg_mark *m, const char *const *extra,
		   size_t n);
/* kmsg_scan() == 0; otherwise says so in a diagnostic. */
bool kmsg_clean(const struct kmsg_mark *m);

/* ---- tracing -------------------------------------------------------- */
/*
 * How many times the workqueue function FN ran during MS milliseconds,
 * from the workqueue_execute_start tracepoint (tracefs): the kernel's own
 * view, independent of the module. -errno when tracing is unavailable.
 */
int wq_fn_runs(const char *fn, unsigned int ms);

/* ---- misc ----------------------------------------------------------- */
uint64_t now_ns(void);
void sleep_ms(unsigned int ms);
/* |a - b| <= (a + b) / 100 * err_pct, as in cgroup_util.c */
bool values_close(uint64_t a, uint64_t b, int err_pct);
int online_cpus(void);
/*
 * KSFT_TIMEOUT_SCALE (run_tests.sh; the harness sets it from the kernel
 * table's timeout factor): how many times slower than a stock kernel this
 * one may be. Tests with a time budget of their own scale it by this.
 */
int timeout_scale(void);
/*
 * True under QEMU's TCG (CPUID hypervisor signature "TCGTCGTCGTCG"),
 * where the guest is many times slower than a machine. Multi-threaded TCG
 * can run stale code after ftrace patches a function that another vCPU
 * runs hot; the project's guests run TCG single-threaded (the vCPUs take
 * turns), which does not, so tests keep their load on every cpu there too.
 */
bool under_tcg(void);
/*
 * Module loaded and its debugfs directory present. A module that is not
 * loaded is loaded first (kselftest's runner starts each program on its
 * own): module_ko_path() with $MEMCG_STATCTL_PARAMS, else modprobe. Where
 * it cannot be loaded (no module for this kernel, or the kernel refuses
 * the file: another kernel's build, an unsigned module under Secure Boot,
 * not root) the program skips (exit 4); a module whose init fails, or no
 * debugfs directory, is a failure.
 */
void require_module(void);
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

/* Result bookkeeping for programs made of a table of tests. */
struct test {
	int (*fn)(void);
	const char *name;
};
/* Run the table, print TAP, exit 0 / 1 (any failure) / 4 (all skipped). */
int run_test_table(const struct test *t, int n);

#define diag(fmt, ...)	ksft_print_msg(fmt "\n", ##__VA_ARGS__)

/* ---- additions (hostile_test, fault_test) ----------------------------- */
/* /sys/module/NAME/refcnt, or -errno (-ENOENT when not loaded). */
int module_refcnt(const char *name);
/* Neither /sys/module/NAME nor the debugfs directory exists. */
bool module_gone(const char *name);
/* Zeroed memory shared with children forked later; NULL on failure. */
void *shared_alloc(size_t size);
/*
 * Lines of tracefs enabled_functions (functions with an ftrace callback)
 * that MATCH accepts (all when MATCH is NULL); the first few are printed.
 * -errno when tracefs is unavailable.
 */
int ftrace_enabled_match(bool (*match)(const char *line, const void *arg),
			 const void *arg);
/* The tracefs mount (/sys/kernel/tracing or under debugfs), or NULL. */
const char *tracefs(void);
int set_nice(pid_t pid, int nice);	/* setpriority(PRIO_PROCESS) */
/* The kernel functions the module hooks (hooks' targets not `missing`). */
struct hook_targets {
	char name[HOOKS_MAX][NAME_LEN * 2];
	int n;
};

/* Reads them from `hooks` while the module is loaded; 0 or -errno. */
int hook_targets_read(struct hook_targets *t);
/*
 * After the module's unload, the kernel's flushing as without the module:
 * no function of TARGETS (read before the unload) keeps an ftrace callback
 * (enabled_functions: a callback of a module that is gone shows as a bare
 * address, so the lines are matched by function), a 20 MiB fault in a
 * fresh cgroup shows in its memory.stat within 4 s, and the kernel's
 * periodic flush work (flush_memcg_stats_dwork, seen through the
 * workqueue_execute_start tracepoint, cpus kept busy since it is
 * deferrable) runs at least once in 5 s. Returns the number of problems,
 * each said in a diagnostic; a check tracefs cannot make is said and
 * skipped.
 */
int kernel_flush_restored(const struct hook_targets *targets);

#endif
