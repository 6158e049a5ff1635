// SPDX-License-Identifier: GPL-2.0
/*
 * `pending`: the kernel's own counts of memcg stat updates that no flush
 * has folded yet, read without flushing.
 *
 * - pending_format: `scope` agrees with version's `pending` and
 *   `flush_model`; `batch` is MEMCG_CHARGE_BATCH; `trigger` is batch x
 *   online cpus; per memcg (6.12, 7.x) the root and a fresh leaf are
 *   listed by cgroup id (the inode number of the cgroup's directory).
 * - pending_reads_do_not_flush (6.12, 7.x): with every flush stopped, a
 *   leaf holding unflushed updates keeps them over 50 reads of `pending`
 *   (a window into which a forced flush fell is tried again, up to 5),
 *   and those reads never take the rstat lock (the kernel's
 *   cgroup_rstat_locked tracepoint, 6.10+), which one read of the leaf's
 *   cpu.stat, the control, does.
 * - pending_memcg (6.12, 7.x): with every flush stopped (flush_mode=never,
 *   flush_period_ms=0), a child faults pages in a leaf and holds them. The
 *   kernel counts every change by its size, memory.stat shows the net
 *   change, so the leaf's pending updates (handed up + per cpu) are at
 *   least the change of its `anon` pages plus its `pgfault` events between
 *   a read before a forced flush and one after; its parent's are at least
 *   the leaf's. The flush zeroes the leaf's counts: after it, the leaf has
 *   nothing handed up and at most one update per page per cpu (its pages
 *   still waiting in a cpu's LRU batch, which any later LRU addition on
 *   that cpu drains and counts). The workload stays below the trigger,
 *   where the kernel's count is exact. A window into which a flush fell
 *   (7.x: an earlier cgroup going offline flushes its parent, ours) is
 *   tried again, up to 5.
 * - pending_global (6.1): under the kernel's policy (flush_mode=kernel,
 *   no periodic flush), a workload of four triggers' worth of pages takes
 *   the global count past the trigger, and a memory.stat read, which the
 *   kernel's gate then lets flush, takes it down (tried again where other
 *   updates took it straight back up). Under the module's
 *   policy the count is the module's gate, not the kernel's: no `global`
 *   line; nor after switching back until a flush, which brings it back.
 */
#define _GNU_SOURCE

#include <inttypes.h>
#include <string.h>
#include <sys/stat.h>

#include "lib.h"

struct pending_row {
	uint64_t id, handed, cpus;
};

struct pending {
	char scope[16];
	uint64_t batch, trigger, global;
	bool has_global;
	struct pending_row rows[8192];
	int n;
};

static int pending_read(struct pending *p)
{
	static char buf[1024 * 1024];
	char *line, *save = NULL;
	ssize_t r;

	memset(p, 0, sizeof(*p));
	r = statctl_read("pending", buf, sizeof(buf) - 1);
	if (r < 0) {
		diag("read pending: %s", strerror((int)-r));
		return -1;
	}
	if (r == sizeof(buf) - 1) {
		diag("pending: larger than %zu bytes", sizeof(buf) - 1);
		return -1;
	}
	buf[r] = '\0';
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		struct pending_row *row = &p->rows[p->n];

		if (sscanf(line, "scope %15s", p->scope) == 1)
			continue;
		if (sscanf(line, "batch %" SCNu64, &p->batch) == 1 ||
		    sscanf(line, "trigger %" SCNu64, &p->trigger) == 1)
			continue;
		if (sscanf(line, "global %" SCNu64, &p->global) == 1) {
			p->has_global = true;
			continue;
		}
		if (!strncmp(line, "cgroup ", 7)) {
			if (p->n == ARRAY_SIZE(p->rows)) {
				diag("pending: more than %zu cgroups",
				     ARRAY_SIZE(p->rows));
				return -1;
			}
			if (sscanf(line, "cgroup %" SCNu64 " %" SCNu64 " %" SCNu64,
				   &row->id, &row->handed, &row->cpus) != 3) {
				diag("pending: bad line '%s'", line);
				return -1;
			}
			p->n++;
		}
	}
	if (!p->scope[0] || !p->batch || !p->trigger) {
		diag("pending: no scope, batch or trigger line");
		return -1;
	}
	return 0;
}

static const struct pending_row *pending_find(const struct pending *p,
					      uint64_t id)
{
	int i;

	for (i = 0; i < p->n; i++)
		if (p->rows[i].id == id)
			return &p->rows[i];
	return NULL;
}

static uint64_t cg_id(const char *path)
{
	struct stat st;

	return stat(path, &st) ? 0 : (uint64_t)st.st_ino;
}

static int test_format(void)
{
	char want[16], model[32], cg[256];
	struct pending p;
	int bad = 0;

	if (version_get("pending", want, sizeof(want)) ||
	    version_get("flush_model", model, sizeof(model)))
		return KSFT_FAIL;
	if (!strcmp(want, "missing"))
		return statctl_has("pending") ? KSFT_FAIL : KSFT_SKIP;
	if (strcmp(want, !strcmp(model, "global") ? "global" : "memcg")) {
		diag("version: pending %s beside flush_model %s", want, model);
		bad++;
	}
	if (cg_create_leaf("pending_fmt", cg, sizeof(cg)) || pending_read(&p))
		return KSFT_FAIL;
	if (strcmp(p.scope, want)) {
		diag("scope %s, version says %s", p.scope, want);
		bad++;
	}
	if (p.batch != CHARGE_BATCH ||
	    p.trigger != (uint64_t)CHARGE_BATCH * online_cpus()) {
		diag("batch %" PRIu64 ", trigger %" PRIu64 "; want %d, %d x %d cpus",
		     p.batch, p.trigger, CHARGE_BATCH, CHARGE_BATCH,
		     online_cpus());
		bad++;
	}
	if (!strcmp(want, "global") && !p.has_global) {
		diag("scope global without a global line");
		bad++;
	}
	if (!strcmp(want, "memcg") &&
	    (!pending_find(&p, cg_id(CG_ROOT)) || !pending_find(&p, cg_id(cg)))) {
		diag("root (id %" PRIu64 ") or leaf (id %" PRIu64 ") not listed",
		     cg_id(CG_ROOT), cg_id(cg));
		bad++;
	}
	cg_destroy(cg);
	return bad ? KSFT_FAIL : KSFT_PASS;
}

/* 50 reads of `pending`, the last into @arg (a struct pending). */
static int reads_of_pending(void *arg)
{
	int i;

	for (i = 0; i < 50; i++)
		if (pending_read(arg))
			return -EIO;
	return 0;
}

/*
 * The control: reading a leaf's cpu.stat flushes its base stats, whatever
 * the module's policy, under the rstat lock.
 */
static int read_cpu_stat(void *arg)
{
	char path[512], buf[4096];

	snprintf(path, sizeof(path), "%s/cpu.stat", (const char *)arg);
	return read_file(path, buf, sizeof(buf)) < 0 ? -EIO : 0;
}

/*
 * Waits until flush.performed has stood still for 600 ms (at most 10 s):
 * on 7.x a cgroup going offline forces a flush from a kworker some time
 * after its rmdir, an earlier window's cgroup too.
 */
static void flushes_settle(void)
{
	uint64_t last = UINT64_MAX, v;
	struct stats s;
	int still = 0, i;

	for (i = 0; i < 50 && still < 3; i++) {
		if (stats_read(&s) || stats_get(&s, "flush.performed", &v))
			return;
		still = v == last ? still + 1 : 0;
		last = v;
		sleep_ms(200);
	}
}

/*
 * One window of pending_reads_do_not_flush: 1 pass, 0 fail, -1 a flush
 * the module counted (7.x forces one when an earlier test's cgroup goes
 * offline) fell into it, so it proves nothing.
 */
static int no_flush_window(uint64_t trigger)
{
	struct pending before, after;
	const struct pending_row *a, *b;
	struct stats s0, s1;
	uint64_t id, taken = 0, control = 0;
	size_t pages = 16;
	char cg[256];
	struct child c;
	int ok = 1, locks = 0;

	(void)trigger;	/* 16 pages: far below it */

	if (cg_create_leaf("pending_reads", cg, sizeof(cg)))
		return 0;
	flushes_settle();
	if (stats_read(&s0)) {
		cg_destroy(cg);
		return 0;
	}
	id = cg_id(cg);
	if (child_start(&c, cg, fault_and_hold, &pages) ||
	    child_wait_ready(&c, 60000)) {
		child_kill(&c);
		cg_destroy(cg);
		return 0;
	}
	if (pending_read(&before))
		ok = 0;
	if (ok)
		locks = rstat_locks_taken(reads_of_pending, &after, &taken);
	if (ok && !locks)
		locks = rstat_locks_taken(read_cpu_stat, cg, &control);
	if (locks && locks != -ENOENT) {
		diag("rstat tracepoint: %s", strerror(-locks));
		ok = 0;
	}
	if (stats_read(&s1))
		ok = 0;
	child_release(&c);
	child_reap(&c, 10000);
	cg_destroy(cg);
	if (!ok)
		return 0;
	if (stats_delta(&s0, &s1, "flush.performed")) {
		diag("a flush fell into the window: again");
		return -1;
	}
	if (!locks && (taken || !control)) {
		diag("this process took the rstat lock %" PRIu64 " times in "
		     "50 reads of pending, %" PRIu64 " in one of cpu.stat "
		     "(want 0, and at least 1)", taken, control);
		return 0;
	}
	if (locks == -ENOENT)
		diag("no cgroup_rstat_locked tracepoint (before 6.10): the "
		     "rstat lock not watched");
	else
		diag("rstat lock taken 0 times in 50 reads of pending, %"
		     PRIu64 " in one read of cpu.stat", control);
	a = pending_find(&before, id);
	b = pending_find(&after, id);
	if (!a || !b || !(a->handed + a->cpus)) {
		diag("leaf not listed, or nothing pending in it");
		return 0;
	}
	if (b->handed + b->cpus < a->handed + a->cpus) {
		diag("50 reads: the leaf's pending %" PRIu64 "+%" PRIu64
		     " fell to %" PRIu64 "+%" PRIu64, a->handed, a->cpus,
		     b->handed, b->cpus);
		return 0;
	}
	return 1;
}

/*
 * Runs @window (1 pass, 0 fail, -1 inconclusive) with every flush stopped,
 * up to 5 times while inconclusive. Per memcg only (6.12, 7.x).
 */
static int memcg_windows(int (*window)(uint64_t trigger))
{
	struct pending p;
	int try, r = -1;

	if (!statctl_has("pending") || pending_read(&p))
		return statctl_has("pending") ? KSFT_FAIL : KSFT_SKIP;
	if (strcmp(p.scope, "memcg"))
		return KSFT_SKIP;
	if (statctl_set("flush_mode", "never") ||
	    statctl_set("flush_period_ms", "0"))
		return KSFT_FAIL;
	for (try = 0; try < 5 && r < 0; try++)
		r = window(p.trigger);
	return r > 0 ? KSFT_PASS : KSFT_FAIL;
}

static int test_no_flush(void)
{
	return memcg_windows(no_flush_window);
}

/* A forced flush of @cg's subtree: a memory.stat read with flush_mode=always. */
static int force_flush(const char *cg, uint64_t *anon, uint64_t *pgfault)
{
	int r = statctl_set("flush_mode", "always");

	if (!r)
		r = memstat_get(cg, "anon", anon);
	if (!r)
		r = memstat_get(cg, "pgfault", pgfault);
	if (!r)
		r = statctl_set("flush_mode", "never");
	return r;
}

/*
 * One window of pending_memcg: 1 pass, 0 fail, -1 a flush the module did
 * not ask for (7.x forces one on the parent of a cgroup going offline,
 * which folds this leaf's counts too) fell between the faults and the
 * first read of `pending`, so it proves nothing.
 */
static int memcg_window(uint64_t trigger)
{
	uint64_t anon0, fault0, anon1, fault1, change, id, pid, moved = 0;
	const struct pending_row *leaf, *parent;
	struct pending before, after;
	struct stats s0, s1;
	char cg[256];
	struct child c;
	size_t pages;
	int bad = 0;

	if (cg_create_leaf("pending", cg, sizeof(cg)))
		return 0;
	flushes_settle();
	id = cg_id(cg);
	pid = cg_id(TEST_CG_ROOT);
	/* About three updates a page: well below the trigger. */
	pages = trigger / 8;
	if (stats_read(&s0) || child_start(&c, cg, fault_and_hold, &pages) ||
	    child_wait_ready(&c, 60000)) {
		child_kill(&c);
		cg_destroy(cg);
		return 0;
	}
	/* never: this read folds nothing in */
	if (memstat_get(cg, "anon", &anon0) ||
	    memstat_get(cg, "pgfault", &fault0) || pending_read(&before) ||
	    stats_read(&s1))
		bad++;
	else
		moved = stats_delta(&s0, &s1, "flush.performed");
	if (!bad && !moved && force_flush(cg, &anon1, &fault1))
		bad++;
	if (!bad && !moved && pending_read(&after))
		bad++;
	leaf = bad || moved ? NULL : pending_find(&before, id);
	parent = bad || moved ? NULL : pending_find(&before, pid);
	if (!bad && !moved && (!leaf || !parent)) {
		diag("leaf or parent not listed");
		bad++;
	}
	if (!bad && !moved) {
		uint64_t total = leaf->handed + leaf->cpus;

		change = (anon1 > anon0 ? anon1 - anon0 : anon0 - anon1) /
			 PAGE_SZ + (fault1 - fault0);
		diag("%zu pages: pending %" PRIu64 "+%" PRIu64
		     ", memory.stat changed by %" PRIu64 " (anon %" PRIu64
		     " -> %" PRIu64 " B, pgfault +%" PRIu64 "), parent %"
		     PRIu64 "+%" PRIu64, pages, leaf->handed, leaf->cpus,
		     change, anon0, anon1, fault1 - fault0, parent->handed,
		     parent->cpus);
		if (change < pages || total < change) {
			diag("want pages %zu <= change %" PRIu64
			     " <= pending %" PRIu64, pages, change, total);
			bad++;
		}
		if (parent->handed + parent->cpus < total) {
			diag("parent has fewer pending updates than the leaf");
			bad++;
		}
		leaf = pending_find(&after, id);
		if (!leaf || leaf->handed ||
		    leaf->cpus > pages * online_cpus() || leaf->cpus >= total) {
			diag("after the flush the leaf has %" PRIu64 "+%" PRIu64
			     "; want 0+(at most %zu, below %" PRIu64 ")",
			     leaf ? leaf->handed : 0, leaf ? leaf->cpus : 0,
			     pages * online_cpus(), total);
			bad++;
		}
	}
	child_release(&c);
	child_reap(&c, 10000);
	cg_destroy(cg);
	if (moved && !bad) {
		diag("a flush fell into the window: again");
		return -1;
	}
	return bad ? 0 : 1;
}

static int test_memcg(void)
{
	return memcg_windows(memcg_window);
}

/*
 * 6.1 counts in batches of 64 per cpu and stops adding once the count is
 * past the trigger (memcg_rstat_updated() checks before it adds): it sits
 * just above the trigger until a flush. After the flush that a memory.stat
 * read makes, other updates anywhere in the system can take it past the
 * trigger again before the next read of `pending` (a slow debug kernel
 * under TCG does). Such a try is retried; one of GLOBAL_TRIES must show
 * the reader flushing (flush.performed +1) and the count going down.
 */
#define GLOBAL_TRIES	5

static int global_flush_takes_it_down(const char *cg, size_t pages)
{
	struct pending p, q;
	struct stats s0, s1;
	uint64_t anon, flushes = 0;
	int try;

	for (try = 1; try <= GLOBAL_TRIES; try++) {
		if (pending_read(&p) || stats_read(&s0) ||
		    memstat_get(cg, "anon", &anon) || pending_read(&q) ||
		    stats_read(&s1))
			return 1;
		if (!p.has_global || !q.has_global) {
			diag("flush_mode kernel: no global line");
			return 1;
		}
		flushes = stats_delta(&s0, &s1, "flush.performed");
		diag("%zu pages: global %" PRIu64 ", after a memory.stat read "
		     "%" PRIu64 " (trigger %" PRIu64 "), flush.performed +%"
		     PRIu64, pages, p.global, q.global, p.trigger, flushes);
		if (p.global <= p.trigger) {
			diag("want the count past the trigger before the read");
			return 1;
		}
		if (flushes && q.global < p.global)
			return 0;
	}
	diag("in %d tries no read both flushed and left the count lower",
	     GLOBAL_TRIES);
	return 1;
}

static int test_global(void)
{
	uint64_t anon;
	struct pending p;
	char cg[256];
	struct child c;
	size_t pages;
	int bad = 0;

	if (!statctl_has("pending") || pending_read(&p))
		return statctl_has("pending") ? KSFT_FAIL : KSFT_SKIP;
	if (strcmp(p.scope, "global"))
		return KSFT_SKIP;
	/* the module's policy: the count is its gate, not shown */
	if (statctl_set("flush_period_ms", "0") ||
	    statctl_set("flush_mode", "never") || pending_read(&p))
		return KSFT_FAIL;
	if (p.has_global) {
		diag("flush_mode never: a global line (%" PRIu64 ")", p.global);
		bad++;
	}
	if (statctl_set("flush_mode", "kernel") ||
	    cg_create_leaf("pending", cg, sizeof(cg)) || pending_read(&p))
		return KSFT_FAIL;
	/*
	 * Until a flush the variable holds the gate's closing value (above
	 * the limit): no line, or, if some reader flushed meanwhile, a count
	 * below the trigger.
	 */
	if (p.has_global && p.global >= p.trigger) {
		diag("right after flush_mode kernel: global %" PRIu64, p.global);
		bad++;
	}
	/* under the kernel's policy a reader past the limit flushes */
	if (memstat_get(cg, "anon", &anon) || pending_read(&p))
		return KSFT_FAIL;
	if (!p.has_global) {
		diag("after a flush: no global line");
		bad++;
	}
	pages = 4 * p.trigger;
	if (child_start(&c, cg, fault_and_hold, &pages) ||
	    child_wait_ready(&c, 60000)) {
		child_kill(&c);
		cg_destroy(cg);
		return KSFT_FAIL;
	}
	bad += global_flush_takes_it_down(cg, pages);
	child_release(&c);
	child_reap(&c, 10000);
	cg_destroy(cg);
	return bad ? KSFT_FAIL : KSFT_PASS;
}

static const struct test tests[] = {
	{ test_format, "pending_format" },
	{ test_no_flush, "pending_reads_do_not_flush" },
	{ test_memcg, "pending_memcg" },
	{ test_global, "pending_global" },
};

/* The tests stop flushes; the programs after this one expect the defaults. */
static void flush_defaults(void)
{
	statctl_set("flush_mode", "kernel");
	statctl_set("flush_period_ms", "2000");
}

int main(void)
{
	require_module();
	require_flush_control();
	if (cg_test_root())
		ksft_exit_fail_msg("cannot create %s\n", TEST_CG_ROOT);
	/* run_test_table() exits: only an atexit handler runs after it */
	atexit(flush_defaults);
	return run_test_table(tests, ARRAY_SIZE(tests));
}
