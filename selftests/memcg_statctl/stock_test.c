// SPDX-License-Identifier: GPL-2.0
/*
 * Charge-stock and object-stock counters.
 *
 * 6.1 facts the bounds rest on: a charge that misses the per-cpu stock
 * charges MEMCG_CHARGE_BATCH (64) pages and puts the 63 left over in the
 * stock, which holds one memcg per cpu; a stock holding another memcg is
 * drained first. So P single-page charges of one process pinned to one cpu
 * miss at least P/64 times (at most 64 pages per miss) and, with a little
 * noise, not many more; two memcgs alternating on one cpu miss and drain
 * on every charge. 7.x keeps 7 memcgs per cpu, evicted by a rotating
 * pointer: there 16 memcgs taking turns miss and drain on every charge
 * (lib/turns.c says why not 8).
 *
 * Every test SKIPs when the counters (or the stock_hooks switch) it needs
 * are not in this module or kernel. A build may inline a function that one
 * hook needs (objcg_vmstat.flushes on the debug kernel): stock_hooks_switch
 * then judges the hooks and counters the kernel has, and
 * obj_stock_tmpfs_files the others.
 *
 * objcg_vmstat.flushes is opt-in (objcg_flush_hooks): the program turns it
 * on for its run, and objcg_flush_switch checks the switch itself; where
 * its hook is missing, that the switch still takes 0 and 1 only and the
 * counter stays unlisted either way.
 */
#define _GNU_SOURCE

#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib.h"

#define P_PAGES		25600
#define PINGPONG_N	4000	/* faults in total, alternating */
#define NR_FILES	2000

static const char *const charge_counters[] = {
	"charge_stock.attempts", "charge_stock.misses",
	"charge_stock.refills", "charge_stock.drains",
};

/* objcg_vmstat.flushes last: test_obj_files needs all the others */
static const char *const obj_counters[] = {
	"obj_stock.attempts", "obj_stock.misses", "obj_stock.refills",
	"obj_stock.drains", "objcg_vmstat.updates", "objcg_vmstat.flushes",
};

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * part / whole : 0;
}

/* ---- workload 1: one process faults P pages on one cpu ---------------- */

struct fault_arg {
	size_t pages;
	int cpu;
};

static int pinned_fault(void *arg, struct child *c)
{
	struct fault_arg *a = arg;

	if (pin_to_cpu(a->cpu))
		return 2;
	thp_disable();
	child_notify(c);		/* in the cgroup, pinned */
	child_wait(c);			/* go */
	if (!fault_anon(a->pages))
		return 3;
	child_notify(c);		/* done */
	child_wait(c);
	return 0;
}

/* s0/s1 bracket exactly the faults. */
static int run_pinned_fault(size_t pages, struct stats *s0, struct stats *s1)
{
	struct fault_arg a = { .pages = pages, .cpu = 0 };
	struct child c;
	char cg[256];
	int r;

	if (cg_create_leaf("stock_single", cg, sizeof(cg)))
		return -1;
	r = child_start(&c, cg, pinned_fault, &a);
	if (!r)
		r = child_wait_ready(&c, 10000);
	if (!r)
		r = stats_read(s0);
	if (!r)
		r = child_release(&c);
	if (!r)
		r = child_wait_ready(&c, 120000);
	if (!r)
		r = stats_read(s1);
	child_kill(&c);
	cg_destroy(cg);
	if (r)
		diag("pinned fault workload failed: %d", r);
	return r;
}

static int check_single(const struct stats *s0, const struct stats *s1)
{
	uint64_t att = stats_delta(s0, s1, "charge_stock.attempts");
	uint64_t miss = stats_delta(s0, s1, "charge_stock.misses");
	double lo = P_PAGES / 64.0, hi = P_PAGES / 64.0 * 1.25 + 32;
	int bad = 0;

	diag("%d pages: charge_stock.attempts +%" PRIu64 " misses +%" PRIu64
	     " refills +%" PRIu64 " drains +%" PRIu64 ": hit %.2f%%",
	     P_PAGES, att, miss,
	     stats_delta(s0, s1, "charge_stock.refills"),
	     stats_delta(s0, s1, "charge_stock.drains"),
	     pct(att - miss, att));
	if (att < P_PAGES) {
		diag("attempts %" PRIu64 " < %d", att, P_PAGES);
		bad++;
	}
	if (miss < lo || miss > hi) {
		diag("misses %" PRIu64 " outside [%.0f, %.0f]", miss, lo, hi);
		bad++;
	}
	if (att && pct(att - miss, att) < 97) {
		diag("hit percentage below 97");
		bad++;
	}
	return bad;
}

static int test_charge_single(void)
{
	struct stats s0, s1;

	if (!counters_present(charge_counters, ARRAY_SIZE(charge_counters)))
		return KSFT_SKIP;
	if (run_pinned_fault(P_PAGES, &s0, &s1))
		return KSFT_FAIL;
	return check_single(&s0, &s1) ? KSFT_FAIL : KSFT_PASS;
}

/* ---- workload 2: memcgs take turns on one cpu (lib/turns.c) ----------- */

static int64_t attr_delta(const struct turns *t, int i, enum attr_ev e)
{
	if (t->a1[i].ev[e] < 0)
		return -1;
	return t->a1[i].ev[e] - t->a0[i].ev[e];
}

/*
 * Each memcg of the ring had its own share: every turn an attempt, and in
 * a ring larger than the stock a drain of its slot (7.x: an eviction, as
 * only another memcg's refill takes it away).
 */
static int attr_turns_check(const struct turns *t, int model)
{
	int i, bad = 0;

	for (i = 0; i < t->k; i++) {
		int64_t att = attr_delta(t, i, ATTR_ATTEMPTS);
		int64_t drains = attr_delta(t, i, ATTR_DRAINS);
		int64_t ev = attr_delta(t, i, ATTR_EVICTED);

		if (att < t->turns || drains < 0.9 * t->turns ||
		    (model == 1 && ev != -1) ||
		    (model == 2 && ev < 0.9 * t->turns)) {
			diag("cgroup %" PRIu64 " (%d turns): attempts +%" PRId64
			     " drains +%" PRId64 " evicted %+" PRId64
			     "; want attempts >= turns, drains >= 0.9 turns, evicted %s",
			     t->id[i], t->turns, att, drains, ev,
			     model == 1 ? "'-'" : ">= 0.9 turns");
			bad++;
		}
	}
	return bad;
}

static int test_charge_turns(void)
{
	struct turns *t = calloc(1, sizeof(*t));
	int model = model_of_stock(), ret = KSFT_FAIL, n;
	uint64_t att, miss, drains;

	if (!t)
		return KSFT_FAIL;
	if (!counters_present(charge_counters, ARRAY_SIZE(charge_counters)) ||
	    !model) {
		free(t);
		return KSFT_SKIP;
	}
	t->k = model == 1 ? 2 : 2 * (NR_MEMCG_STOCK_MULTI + 1);
	if (getenv("MEMCG_STATCTL_RING")) {	/* debugging: another size */
		t->k = atoi(getenv("MEMCG_STATCTL_RING"));
		if (t->k < 2 || t->k > RING_MAX)
			t->k = 2;
	}
	t->turns = PINGPONG_N / t->k;
	n = t->turns * t->k;
	/* per cgroup too, where the module can */
	t->attr = !stock_attribution_on();
	diag("stock_model %s: %d memcgs take %d turns each on cpu 0%s",
	     model == 1 ? "single" : "multi", t->k, t->turns,
	     t->attr ? ", stock attribution on" : "");
	if (turns_run(t))
		goto out;
	att = stats_delta(&t->s0, &t->s1, "charge_stock.attempts");
	miss = stats_delta(&t->s0, &t->s1, "charge_stock.misses");
	drains = stats_delta(&t->s0, &t->s1, "charge_stock.drains");
	diag("%d faults taking turns in %d memcgs: attempts +%" PRIu64
	     " misses +%" PRIu64 " refills +%" PRIu64 " drains +%" PRIu64
	     ": hit %.2f%%", n, t->k, att, miss,
	     stats_delta(&t->s0, &t->s1, "charge_stock.refills"), drains,
	     pct(att - miss, att));
	diag("obj_stock during it: attempts +%" PRIu64 " misses +%" PRIu64
	     " refills +%" PRIu64 " drains +%" PRIu64,
	     stats_delta(&t->s0, &t->s1, "obj_stock.attempts"),
	     stats_delta(&t->s0, &t->s1, "obj_stock.misses"),
	     stats_delta(&t->s0, &t->s1, "obj_stock.refills"),
	     stats_delta(&t->s0, &t->s1, "obj_stock.drains"));
	ret = KSFT_PASS;
	if (att < (uint64_t)n || pct(att - miss, att) >= 10) {
		diag("want attempts >= %d and hit percentage < 10", n);
		ret = KSFT_FAIL;
	}
	if (drains < 0.9 * n) {
		diag("drains %" PRIu64 " < 0.9 * %d", drains, n);
		ret = KSFT_FAIL;
	}
	if (t->attr && attr_turns_check(t, model))
		ret = KSFT_FAIL;
out:
	free(t);
	return ret;
}

/*
 * 7.x: as many memcgs as the stock has slots take turns on cpu 0. Each
 * keeps its slot: no memcg of the ring is evicted, though each still
 * charged every turn. The ring of test_charge_turns, which outnumbers the
 * slots, shows the opposite.
 */
static int test_attr_no_eviction(void)
{
	struct turns *t;
	int i, r, ret = KSFT_PASS;
	int64_t evicted = 0;

	if (model_of_stock() != 2) {
		diag("one memcg per cpu stock: nothing is evicted to compare");
		return KSFT_SKIP;
	}
	r = stock_attribution_on();
	if (r) {
		diag("stock_attribution: %s", strerror(-r));
		return r == -ENOENT || r == -EOPNOTSUPP ? KSFT_SKIP : KSFT_FAIL;
	}
	t = calloc(1, sizeof(*t));
	if (!t)
		return KSFT_FAIL;
	t->k = NR_MEMCG_STOCK_MULTI;
	t->turns = PINGPONG_N / t->k;
	t->attr = true;
	if (turns_run(t)) {
		free(t);
		return KSFT_FAIL;
	}
	for (i = 0; i < t->k; i++) {
		if (attr_delta(t, i, ATTR_ATTEMPTS) < t->turns) {
			diag("cgroup %" PRIu64 ": attempts +%" PRId64 " < %d",
			     t->id[i], attr_delta(t, i, ATTR_ATTEMPTS),
			     t->turns);
			ret = KSFT_FAIL;
		}
		evicted += attr_delta(t, i, ATTR_EVICTED);
	}
	diag("%d memcgs, %d turns each on cpu 0: %" PRId64 " evicted", t->k,
	     t->turns, evicted);
	/*
	 * As the ring starts, slots may still hold memcgs of the test before
	 * and of this program: a few evictions. The ring that outnumbers the
	 * slots has one per turn.
	 */
	if (evicted * 20 > (int64_t)t->k * t->turns) {
		diag("want under one eviction per 20 turns: the ring fits the stock");
		ret = KSFT_FAIL;
	}
	free(t);
	return ret;
}

/* ---- workload 3: create and remove files in a tmpfs -------------------- */

/*
 * Phase 1 (churn) creates and removes one file at a time: the objcg vmstat
 * cache sees +size then -size and rarely overflows a page, so it seldom
 * flushes. Phase 2 (batch) creates all files, then removes them all: the
 * cached bytes pass PAGE_SIZE every few objects (a dentry is ~200 bytes, a
 * shmem inode ~700), so flushes to the memcg must show up.
 */
static int files_child(void *arg, struct child *c)
{
	const char *dir = arg;
	char path[256];
	int i, fd;

	child_notify(c);
	child_wait(c);
	for (i = 0; i < NR_FILES; i++) {
		snprintf(path, sizeof(path), "%s/f%d", dir, i);
		fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
		if (fd < 0)
			return 2;
		close(fd);
		if (unlink(path))
			return 3;
	}
	child_notify(c);
	child_wait(c);
	for (i = 0; i < NR_FILES; i++) {
		snprintf(path, sizeof(path), "%s/g%d", dir, i);
		fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
		if (fd < 0)
			return 4;
		close(fd);
	}
	for (i = 0; i < NR_FILES; i++) {
		snprintf(path, sizeof(path), "%s/g%d", dir, i);
		if (unlink(path))
			return 5;
	}
	child_notify(c);
	child_wait(c);
	return 0;
}

/* s0..s1: churn phase, s1..s2: batch phase */
static int run_files(struct stats *s0, struct stats *s1, struct stats *s2)
{
	char cg[256], dir[] = "/tmp/memcg_statctl_files.XXXXXX";
	struct child c;
	int r;

	if (!mkdtemp(dir)) {
		diag("mkdtemp: %s", strerror(errno));
		return -1;
	}
	if (cg_create_leaf("stock_files", cg, sizeof(cg))) {
		rmdir(dir);
		return -1;
	}
	r = child_start(&c, cg, files_child, dir);
	if (!r)
		r = child_wait_ready(&c, 10000);
	if (!r)
		r = stats_read(s0);
	if (!r)
		r = child_release(&c) ?: child_wait_ready(&c, 120000);
	if (!r)
		r = stats_read(s1);
	if (!r)
		r = child_release(&c) ?: child_wait_ready(&c, 120000);
	if (!r)
		r = stats_read(s2);
	child_kill(&c);
	cg_destroy(cg);
	rmdir(dir);
	if (r)
		diag("files workload failed: %d", r);
	return r;
}

static void print_obj(const char *what, const struct stats *a,
		      const struct stats *b)
{
	uint64_t att = stats_delta(a, b, "obj_stock.attempts");
	uint64_t miss = stats_delta(a, b, "obj_stock.misses");
	uint64_t upd = stats_delta(a, b, "objcg_vmstat.updates");
	uint64_t fl;

	if (stats_get(b, "objcg_vmstat.flushes", &fl)) {
		diag("%s, %d files: obj_stock.attempts +%" PRIu64 " misses +%"
		     PRIu64 "; objcg_vmstat.updates +%" PRIu64
		     " (no objcg_vmstat.flushes on this kernel)", what,
		     NR_FILES, att, miss, upd);
		return;
	}
	fl = stats_delta(a, b, "objcg_vmstat.flushes");
	diag("%s, %d files: obj_stock.attempts +%" PRIu64 " misses +%" PRIu64
	     " refills +%" PRIu64 " drains +%" PRIu64 "; objcg_vmstat.updates +%"
	     PRIu64 " flushes +%" PRIu64, what, NR_FILES, att, miss,
	     stats_delta(a, b, "obj_stock.refills"),
	     stats_delta(a, b, "obj_stock.drains"), upd, fl);
	diag("%s: obj-stock-vmstat table (docs/background.md): obj stock hit "
	     "%.2f%%, objcg vmstat miss rate %.2f%%", what, pct(att - miss, att),
	     pct(fl, upd));
}

static int test_obj_files(void)
{
	static const char *const flushes[] = { "objcg_vmstat.flushes" };
	struct stats s0, s1, s2;
	uint64_t att, miss, upd, fl;
	bool have_flushes;
	int bad = 0;

	/*
	 * All but the last of obj_counters are needed. objcg_vmstat.flushes
	 * is judged where the kernel has it: a build may inline the function
	 * it hooks (the debug kernel does).
	 */
	if (!counters_present(obj_counters, ARRAY_SIZE(obj_counters) - 1))
		return KSFT_SKIP;
	have_flushes = counters_present(flushes, 1);
	if (run_files(&s0, &s1, &s2))
		return KSFT_FAIL;
	print_obj("churn", &s0, &s1);
	print_obj("batch", &s1, &s2);
	att = stats_delta(&s0, &s1, "obj_stock.attempts");
	miss = stats_delta(&s0, &s1, "obj_stock.misses");
	upd = stats_delta(&s0, &s1, "objcg_vmstat.updates");
	if (att < NR_FILES) {
		diag("churn: obj_stock.attempts +%" PRIu64 " < %d", att,
		     NR_FILES);
		bad++;
	}
	if (upd < NR_FILES) {
		diag("churn: objcg_vmstat.updates +%" PRIu64 " < %d", upd,
		     NR_FILES);
		bad++;
	}
	if (miss > att) {
		diag("churn: more misses than attempts");
		bad++;
	}
	/* every object is charged and uncharged: two updates at least */
	upd = stats_delta(&s1, &s2, "objcg_vmstat.updates");
	fl = stats_delta(&s1, &s2, "objcg_vmstat.flushes");
	if (upd < 2 * NR_FILES) {
		diag("batch: want updates >= %d", 2 * NR_FILES);
		bad++;
	}
	if (have_flushes && (fl < NR_FILES / 40 || fl > upd)) {
		diag("batch: want %d <= flushes <= updates", NR_FILES / 40);
		bad++;
	}
	return bad ? KSFT_FAIL : KSFT_PASS;
}

/* ---- the stock_hooks switch -------------------------------------------- */

/* The stock hooks this kernel has are all in state @want. */
static int hooks_in_state(const char *want)
{
	static const char *const stock[] = {
		"charge_stock.", "obj_stock.", "objcg_vmstat.",
	};

	return hooks_present_state_is(stock, ARRAY_SIZE(stock), want);
}

static int test_stock_switch(void)
{
	char orig[64];
	struct stats s0, s1, f0, f1, f2;
	uint64_t perf0 = 0, perf1;
	size_t k;
	int bad = 0, flush;
	ssize_t r;

	/*
	 * The charge stock's counters are needed; of the object stock's, those
	 * this kernel has (a build may inline a function one of them needs:
	 * objcg_vmstat.flushes on the debug kernel), each judged where present.
	 */
	if (!counters_present(charge_counters, ARRAY_SIZE(charge_counters)))
		return KSFT_SKIP;
	if (!statctl_has("stock_hooks")) {
		diag("no stock_hooks switch in %s", STATCTL_DIR);
		return KSFT_SKIP;
	}
	if (statctl_read("stock_hooks", orig, sizeof(orig)) < 0)
		return KSFT_FAIL;
	r = statctl_write("stock_hooks", "0\n", 2);
	if (r != 2) {
		diag("write 0 to stock_hooks: %zd", r);
		return KSFT_FAIL;
	}
	if (hooks_in_state("off"))
		bad++;
	flush = flush_control_state();
	if (flush == KSFT_FAIL)
		bad++;
	if (flush == KSFT_PASS && stat_get("flush.performed", &perf0))
		bad++;
	/* both workloads, stock hooks detached */
	if (run_pinned_fault(P_PAGES, &s0, &s1) || run_files(&f0, &f1, &f2)) {
		bad++;
		goto restore;
	}
	for (k = 0; k < ARRAY_SIZE(charge_counters); k++) {
		uint64_t d = stats_delta(&s0, &s1, charge_counters[k]) +
			     stats_delta(&f0, &f2, charge_counters[k]);

		if (d) {
			diag("%s moved by %" PRIu64 " while detached",
			     charge_counters[k], d);
			bad++;
		}
	}
	for (k = 0; k < ARRAY_SIZE(obj_counters); k++) {
		uint64_t d = stats_delta(&s0, &s1, obj_counters[k]) +
			     stats_delta(&f0, &f2, obj_counters[k]);

		if (d) {
			diag("%s moved by %" PRIu64 " while detached",
			     obj_counters[k], d);
			bad++;
		}
	}
	/* the flush counters kept working: the workloads ran for a while,
	 * and a fresh fault + memory.stat read forces one anyway */
	if (flush == KSFT_PASS) {
		char cg[256];
		size_t pages = 20 * MiB / PAGE_SZ;
		struct child c;

		if (!cg_create_leaf("stock_switch", cg, sizeof(cg))) {
			uint64_t v;

			if (!child_start(&c, cg, fault_and_hold, &pages) &&
			    !child_wait_ready(&c, 60000))
				memstat_get(cg, "anon", &v);
			child_kill(&c);
			cg_destroy(cg);
		}
	}
	if (flush == KSFT_PASS &&
	    (stat_get("flush.performed", &perf1) || perf1 <= perf0)) {
		diag("flush.performed did not move while stock hooks were "
		     "detached");
		bad++;
	}
restore:
	r = statctl_write("stock_hooks", "1\n", 2);
	if (r != 2) {
		diag("write 1 to stock_hooks: %zd", r);
		bad++;
	}
	if (hooks_in_state("attached"))
		bad++;
	if (run_pinned_fault(P_PAGES, &s0, &s1) || check_single(&s0, &s1))
		bad++;
	statctl_write("stock_hooks", orig, strlen(orig));
	return bad ? KSFT_FAIL : KSFT_PASS;
}

/* ---- the objcg_flush_hooks switch --------------------------------------- */

static const char *const flush_rows[] = { "objcg_vmstat.flushes" };

/* objcg_vmstat.flushes listed in `stats` (@listed) and its rows in @state */
static int optin_is(bool listed, const char *state, const char *when)
{
	uint64_t v;
	bool is = !stat_get("objcg_vmstat.flushes", &v);
	int bad = hooks_present_state_is(flush_rows, 1, state);

	if (is != listed) {
		diag("%s: objcg_vmstat.flushes %s in stats", when,
		     is ? "listed" : "not listed");
		bad++;
	}
	if (bad)
		diag("%s: want rows %s, counter %s", when, state,
		     listed ? "listed" : "not listed");
	return bad;
}

/* Whether the hook of objcg_vmstat.flushes is `missing` on this kernel. */
static bool optin_missing(void)
{
	const struct hook *h;
	struct hooks hs;

	if (hooks_read(&hs))
		return false;
	h = hook_find(&hs, "objcg_vmstat.flushes");
	return h && !strcmp(h->state, "missing");
}

/*
 * Its hook missing (the debug build inlines the caller it filters on): the
 * switch still takes 0 and 1 (test_optin_switch checked it refuses 2, with
 * @bad problems so far), and the counter, which has no source, is not
 * listed whatever the switch says (module/ABI.md, `stats`).
 */
static int test_optin_switch_missing(const char *optin, int bad)
{
	uint64_t v;
	int on;

	for (on = 0; on <= 1; on++) {
		if (statctl_set("objcg_flush_hooks", on ? "1" : "0")) {
			diag("objcg_flush_hooks=%d refused", on);
			bad++;
		}
		if (!stat_get("objcg_vmstat.flushes", &v)) {
			diag("objcg_flush_hooks=%d: objcg_vmstat.flushes listed, its hook missing",
			     on);
			bad++;
		}
	}
	statctl_write("objcg_flush_hooks", optin, strlen(optin));
	diag("objcg_vmstat.flushes' hook is missing here: the switch and the unlisted counter checked");
	return bad ? KSFT_FAIL : KSFT_PASS;
}

/*
 * objcg_vmstat.flushes counts while objcg_flush_hooks and stock_hooks are
 * both 1; the counter is listed while objcg_flush_hooks is 1, and keeps
 * its value while it is not. The switch takes 0 and 1 only.
 */
static int test_optin_switch(void)
{
	char stock[8], optin[8];
	struct stats s0, s1, s2, t0, t1;
	uint64_t v0, v1;
	bool missing;
	int bad = 0;

	if (!statctl_has("objcg_flush_hooks") || !statctl_has("stock_hooks"))
		return KSFT_SKIP;
	if (statctl_read_line("stock_hooks", stock, sizeof(stock)) ||
	    statctl_read_line("objcg_flush_hooks", optin, sizeof(optin)))
		return KSFT_FAIL;
	missing = optin_missing();
	if (!missing && hooks_present_state_is(flush_rows, 1, "attached")) {
		diag("objcg_vmstat.flushes off at the start");
		return KSFT_SKIP;
	}
	if (statctl_write("objcg_flush_hooks", "2", 1) != -EINVAL) {
		diag("objcg_flush_hooks accepted 2, or failed other than EINVAL");
		bad++;
	}
	if (missing)
		return test_optin_switch_missing(optin, bad);
	if (stats_read(&s0))
		return KSFT_FAIL;
	bad += !!statctl_set("objcg_flush_hooks", "0\n");
	bad += optin_is(false, "off", "objcg_flush_hooks=0");
	/* stock_hooks=1 again must not bring the opt-in rows back */
	bad += !!statctl_set("stock_hooks", "0") + !!statctl_set("stock_hooks", "1");
	bad += optin_is(false, "off", "objcg_flush_hooks=0, stock_hooks 0 then 1");
	/* opt-in on with the stock hooks off: listed, but not attached */
	bad += !!statctl_set("stock_hooks", "0");
	bad += !!statctl_set("objcg_flush_hooks", "1");
	bad += optin_is(true, "off", "objcg_flush_hooks=1 stock_hooks=0");
	/* kept while unlisted (s0: before), and counting nothing detached */
	if (stats_read(&s1) || run_files(&t0, &t1, &s2)) {
		bad++;
		goto restore;
	}
	if (stats_get(&s0, "objcg_vmstat.flushes", &v0) ||
	    stats_get(&s1, "objcg_vmstat.flushes", &v1) || v1 < v0) {
		diag("objcg_vmstat.flushes lost its value while unlisted");
		bad++;
	}
	if (stats_delta(&s1, &s2, "objcg_vmstat.flushes")) {
		diag("objcg_vmstat.flushes +%" PRIu64 " with stock_hooks=0",
		     stats_delta(&s1, &s2, "objcg_vmstat.flushes"));
		bad++;
	}
	bad += !!statctl_set("stock_hooks", "1");
	bad += optin_is(true, "attached", "both switches 1");
	if (run_files(&s0, &s1, &s2)) {
		bad++;
		goto restore;
	}
	if (!stats_delta(&s1, &s2, "objcg_vmstat.flushes")) {
		diag("objcg_vmstat.flushes +0 over the files workload, attached");
		bad++;
	}
restore:
	statctl_write("objcg_flush_hooks", optin, strlen(optin));
	statctl_write("stock_hooks", stock, strlen(stock));
	return bad ? KSFT_FAIL : KSFT_PASS;
}

/* ---- load, workload, unload, reload ------------------------------------ */

static int counters_near_zero(const char *when)
{
	struct stats s;
	size_t k;
	uint64_t v;
	int bad = 0;

	if (stats_read(&s))
		return 1;
	for (k = 0; k < ARRAY_SIZE(charge_counters); k++) {
		stats_get(&s, charge_counters[k], &v);
		diag("%s: %s = %" PRIu64, when, charge_counters[k], v);
		/* the guest is idle and its root cgroup charges nothing */
		if (v > 256) {
			diag("%s does not start near zero", charge_counters[k]);
			bad++;
		}
	}
	return bad;
}

static int test_stock_reload(void)
{
	const char *ko = module_ko_path();
	const char *params = getenv("MEMCG_STATCTL_PARAMS");
	struct kmsg_mark mark;
	struct stats s0, s1;
	int bad = 0, r, pass;

	if (!counters_present(charge_counters, ARRAY_SIZE(charge_counters)))
		return KSFT_SKIP;
	if (!ko) {
		diag("no module file to reload from (" KO_SOURCES ")");
		return KSFT_SKIP;
	}
	if (kmsg_mark(&mark, "stock_reload"))
		return KSFT_FAIL;
	for (pass = 1; pass <= 2; pass++) {
		r = module_unload(MODULE_NAME, 5000);
		if (!r)
			r = module_load(ko, params);
		if (r) {
			diag("reload %d: %s", pass, strerror(-r));
			bad++;
			break;
		}
		bad += counters_near_zero(pass == 1 ? "after load" :
					  "after reload");
		if (pass == 1) {
			if (run_pinned_fault(P_PAGES, &s0, &s1) ||
			    check_single(&s0, &s1))
				bad++;
		}
	}
	if (!module_loaded(MODULE_NAME))
		module_load(ko, params);
	if (!kmsg_clean(&mark))
		bad++;
	return bad ? KSFT_FAIL : KSFT_PASS;
}

static const struct test tests[] = {
	{ test_charge_single, "charge_stock_one_memcg" },
	{ test_charge_turns, "charge_stock_memcgs_take_turns_one_cpu" },
	{ test_attr_no_eviction, "attribution_ring_fits_stock_no_eviction" },
	{ test_obj_files, "obj_stock_tmpfs_files" },
	{ test_stock_switch, "stock_hooks_switch" },
	{ test_optin_switch, "objcg_flush_switch" },
	{ test_stock_reload, "stock_counters_reload" },
};

int main(void)
{
	require_module();
	objcg_flush_hooks_on();
	stock_attribution_keep();
	return run_test_table(tests, ARRAY_SIZE(tests));
}
