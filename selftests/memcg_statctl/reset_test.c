// SPDX-License-Identifier: GPL-2.0
/*
 * `reset`: writing "1" zeroes every counter; anything else is EINVAL and
 * resets nothing.
 *
 * Counters are live (the periodic flusher alone moves the flush counters
 * every 2 s), so "zero" cannot be read back exactly. What holds exactly:
 *  - every counter only grows between resets, so a value read after a
 *    rejected write that is below the value read before proves a reset
 *    (rejects test: every counter must be >= its previous value);
 *  - after a reset, a counter holds only what happened since: with all
 *    test activity stopped and less than 2 s elapsed, flush.periodic is at
 *    most 1, every counter that stood at >= 100 before is at most a quarter
 *    of that, and flush.ns_max <= flush.ns_total (an ns_max left over from
 *    before the reset would exceed the new, small ns_total).
 * Activity first pushes the counters well up: a child in a leaf cgroup
 * faults 2 MiB and reads memory.stat, 100 times (each read flushes).
 */
#define _GNU_SOURCE

#include <inttypes.h>
#include <string.h>
#include <sys/mman.h>

#include "lib.h"

#define ROUNDS		100
#define ROUND_PAGES	(2 * MiB / PAGE_SZ)

static int activity_child(void *arg, struct child *c)
{
	const char *cg = arg;
	uint64_t v;
	int i;

	thp_disable();
	for (i = 0; i < ROUNDS; i++) {
		void *p = fault_anon(ROUND_PAGES);

		if (!p)
			return 2;
		memstat_get(cg, "anon", &v);
		munmap(p, ROUND_PAGES * PAGE_SZ);
	}
	child_notify(c);
	return 0;
}

/* Push the counters up; the activity has stopped when this returns. */
static int make_activity(void)
{
	struct child c;
	char cg[256];
	int r;

	if (cg_create_leaf("reset", cg, sizeof(cg)))
		return -1;
	r = child_start(&c, cg, activity_child, cg);
	if (!r)
		r = child_wait_ready(&c, 120000);
	if (!r)
		r = child_reap(&c, 10000);
	else
		child_kill(&c);
	cg_destroy(cg);
	if (r)
		diag("activity child failed: %d", r);
	return r;
}

/* A snapshot of stats not torn by a concurrent flush: read until two
 * consecutive reads agree on the flush counters. */
static int stats_stable(struct stats *s)
{
	static const char *const keys[] = {
		"flush.requests", "flush.performed", "flush.ns_total",
		"flush.ns_max",
	};
	struct stats t;
	int i;
	size_t k;

	if (stats_read(s))
		return -1;
	for (i = 0; i < 20; i++) {
		bool same = true;

		if (stats_read(&t))
			return -1;
		for (k = 0; k < ARRAY_SIZE(keys); k++)
			if (stats_delta(s, &t, keys[k]))
				same = false;
		if (same)
			return 0;
		*s = t;
	}
	return -1;
}

static int test_reset_zeroes(void)
{
	struct stats s0, s1;
	uint64_t t0, t1, v1, ns_max, ns_total;
	int i, bad = 0;
	ssize_t r;

	if (make_activity())
		return KSFT_FAIL;
	if (stats_read(&s0))
		return KSFT_FAIL;
	if (stat_must(&s0, "flush.performed") < ROUNDS / 2) {
		diag("only %" PRIu64 " flushes after %d memory.stat reads "
		     "with pending updates", stat_must(&s0, "flush.performed"),
		     ROUNDS);
		return KSFT_FAIL;
	}
	t0 = now_ns();
	r = statctl_write("reset", "1\n", 2);
	if (r != 2) {
		diag("write '1\\n' to reset: %zd (%s)", r,
		     r < 0 ? strerror(-r) : "short");
		return KSFT_FAIL;
	}
	if (stats_stable(&s1))
		return KSFT_FAIL;
	t1 = now_ns();
	if (t1 - t0 >= 2000000000ULL) {
		diag("reset-to-read took %.2f s, too long to judge",
		     (t1 - t0) / 1e9);
		return KSFT_FAIL;
	}
	for (i = 0; i < s0.n; i++) {
		const char *name = s0.name[i];

		if (stats_get(&s1, name, &v1)) {
			diag("counter %s disappeared after reset", name);
			bad++;
			continue;
		}
		diag("%-24s before %12" PRIu64 "  after reset %10" PRIu64,
		     name, s0.val[i], v1);
		if (!strcmp(name, "flush.ns_max"))
			continue;
		if (s0.val[i] >= 100 && v1 > s0.val[i] / 4) {
			diag("%s not reset", name);
			bad++;
		}
	}
	if (stat_must(&s1, "flush.periodic") > 1) {
		diag("flush.periodic > 1 within %.3f s of the reset",
		     (t1 - t0) / 1e9);
		bad++;
	}
	ns_max = stat_must(&s1, "flush.ns_max");
	ns_total = stat_must(&s1, "flush.ns_total");
	if (ns_max > ns_total) {
		diag("flush.ns_max %" PRIu64 " > flush.ns_total %" PRIu64
		     ": ns_max not reset", ns_max, ns_total);
		bad++;
	}
	return bad ? KSFT_FAIL : KSFT_PASS;
}

static int test_reset_rejects(void)
{
	static const struct {
		const char *buf;
		size_t len;
		const char *desc;
	} bad_inputs[] = {
		{ "0", 1, "0" }, { "0\n", 2, "0\\n" }, { "2", 1, "2" },
		{ "abc", 3, "abc" }, { "", 0, "empty" }, { "\n", 1, "\\n" },
		{ "1x", 2, "1x" }, { "-1", 2, "-1" }, { " 1", 2, "' 1'" },
		{ "1 ", 2, "'1 '" }, { "1\n\n", 3, "1\\n\\n" },
		{ "11", 2, "11" },
	};
	struct stats prev, cur;
	int i, bad = 0;
	size_t k;
	ssize_t r;

	if (make_activity())
		return KSFT_FAIL;
	if (stats_read(&prev))
		return KSFT_FAIL;
	if (stat_must(&prev, "flush.performed") < ROUNDS / 2) {
		diag("too few flushes to see a reset");
		return KSFT_FAIL;
	}
	for (k = 0; k < ARRAY_SIZE(bad_inputs); k++) {
		r = statctl_write("reset", bad_inputs[k].buf,
				  bad_inputs[k].len);
		if (r != -EINVAL) {
			diag("write %s to reset: %zd (%s), want EINVAL",
			     bad_inputs[k].desc, r,
			     r < 0 ? strerror(-r) : "accepted");
			bad++;
		}
		if (stats_read(&cur))
			return KSFT_FAIL;
		for (i = 0; i < prev.n; i++) {
			uint64_t v;

			if (stats_get(&cur, prev.name[i], &v)) {
				diag("%s disappeared", prev.name[i]);
				bad++;
			} else if (v < prev.val[i]) {
				diag("write %s reset %s: %" PRIu64 " -> %"
				     PRIu64, bad_inputs[k].desc, prev.name[i],
				     prev.val[i], v);
				bad++;
			}
		}
		prev = cur;
	}
	/* the accepted spelling without newline */
	r = statctl_write("reset", "1", 1);
	if (r != 1) {
		diag("write '1' to reset: %zd, want 1", r);
		bad++;
	}
	if (stats_read(&cur))
		return KSFT_FAIL;
	if (stat_must(&cur, "flush.performed") >
	    stat_must(&prev, "flush.performed") / 4) {
		diag("write '1' did not reset flush.performed");
		bad++;
	}
	return bad ? KSFT_FAIL : KSFT_PASS;
}

static const struct test tests[] = {
	{ test_reset_zeroes, "reset_zeroes_counters" },
	{ test_reset_rejects, "reset_rejects_bad_input" },
};

int main(void)
{
	require_module();
	require_flush_control();
	return run_test_table(tests, ARRAY_SIZE(tests));
}
