// SPDX-License-Identifier: GPL-2.0
/*
 * The flush counters of the foundation move with the kernel's flushes:
 * a memory.stat read after enough stat updates performs a flush, and the
 * periodic flusher runs every FLUSH_TIME (2 s).
 */
#define _GNU_SOURCE

#include <inttypes.h>
#include <string.h>

#include "lib.h"

#define FAULT_PAGES	(20 * MiB / PAGE_SZ)
#define ATTEMPTS	5
#define FLUSH_TIME_MS	2000

/*
 * A child in a fresh leaf faults in 20 MiB: with THP off that is 5120
 * charges and many more stat updates, far above the 6.1 threshold
 * (num_online_cpus() batches of 64), so the next memory.stat read must
 * call the flush. Unless the periodic flusher flushed in between: then
 * the read legitimately has nothing to do. Such an attempt is
 * inconclusive (flush.periodic moved during it) and is retried. Where the
 * fault takes longer than the flusher's period (a debug kernel under TCG),
 * every attempt is: a last one then runs with the periodic flusher
 * stopped through the module's flush_period_ms (0), restored afterwards.
 */
static int test_reader_flush(void)
{
	char cg[256], period[32] = "";
	int attempt, conclusive = 0, ret = KSFT_FAIL;

	if (cg_create_leaf("reader_flush", cg, sizeof(cg)))
		return KSFT_FAIL;

	for (attempt = 1; attempt <= ATTEMPTS + 1 && !conclusive; attempt++) {
		struct stats s0, s1, s2;
		size_t pages = FAULT_PAGES;
		struct child c;
		uint64_t anon = 0, dp, dperf, dns;
		int r;

		if (attempt > ATTEMPTS) {
			if (statctl_read_line("flush_period_ms", period,
					      sizeof(period)) ||
			    statctl_write("flush_period_ms", "0", 1) != 1) {
				diag("cannot stop the periodic flusher");
				period[0] = 0;
				break;
			}
			diag("attempt %d with flush_period_ms 0 (was %s)",
			     attempt, period);
		}
		if (stats_read(&s0))
			goto out;
		r = child_start(&c, cg, fault_and_hold, &pages);
		if (!r)
			r = child_wait_ready(&c, 60000);
		if (r) {
			diag("faulting child: %s", strerror(-r));
			child_kill(&c);
			goto out;
		}
		if (stats_read(&s1) || memstat_get(cg, "anon", &anon) ||
		    stats_read(&s2)) {
			child_kill(&c);
			goto out;
		}
		child_kill(&c);

		dp = stats_delta(&s0, &s2, "flush.periodic");
		dperf = stats_delta(&s1, &s2, "flush.performed");
		dns = stats_delta(&s1, &s2, "flush.ns_total");
		diag("attempt %d: flush.periodic +%" PRIu64 " during it, "
		     "read: flush.performed +%" PRIu64 " flush.ns_total +%"
		     PRIu64 ", anon %" PRIu64 " KiB", attempt, dp, dperf, dns,
		     anon / 1024);
		if (dp) {
			diag("attempt %d inconclusive: the periodic flusher "
			     "ran", attempt);
			continue;
		}
		conclusive++;
		ret = KSFT_PASS;
		if (dperf < 1) {
			diag("memory.stat read with pending updates performed "
			     "no flush");
			ret = KSFT_FAIL;
		}
		if (dns < 1) {
			diag("flush.ns_total did not grow with the flush");
			ret = KSFT_FAIL;
		}
		if (stat_must(&s2, "flush.ns_max") == 0) {
			diag("flush.ns_max is 0 after a flush");
			ret = KSFT_FAIL;
		}
		if (anon < FAULT_PAGES * PAGE_SZ) {
			diag("anon %" PRIu64 " < %lu after the flush", anon,
			     FAULT_PAGES * PAGE_SZ);
			ret = KSFT_FAIL;
		}
	}
	if (!conclusive)
		diag("no conclusive attempt in %d", attempt - 1);
out:
	if (period[0] &&
	    statctl_write("flush_period_ms", period, strlen(period)) < 0) {
		diag("cannot restore flush_period_ms %s", period);
		ret = KSFT_FAIL;
	}
	cg_destroy(cg);
	return ret;
}

/*
 * stats_flush_dwork is a deferrable delayed work: its timer does not wake
 * an idle cpu, so on an idle guest the period stretches. Spinners (one per
 * cpu, nice 19) keep every cpu busy so that the timer fires on time.
 */
static int test_periodic(void)
{
	struct child spin[64];
	uint64_t p0, p1, t0, t1, count;
	double expect, lo, hi;
	int n, ret = KSFT_PASS;

	n = spinners_start(spin, ARRAY_SIZE(spin));
	if (n < 0) {
		diag("cannot start spinners: %s", strerror(-n));
		return KSFT_FAIL;
	}
	if (stat_get("flush.periodic", &p0)) {
		spinners_stop(spin, n);
		return KSFT_FAIL;
	}
	t0 = now_ns();
	sleep_ms(10000);
	if (stat_get("flush.periodic", &p1)) {
		spinners_stop(spin, n);
		return KSFT_FAIL;
	}
	t1 = now_ns();
	spinners_stop(spin, n);

	count = p1 - p0;
	expect = (double)(t1 - t0) / 1e6 / FLUSH_TIME_MS;
	lo = expect * 0.5;
	hi = expect * 1.5 + 1;
	diag("flush.periodic +%" PRIu64 " in %.2f s (expected %.1f, "
	     "accepted [%.1f, %.1f])", count, (t1 - t0) / 1e9, expect, lo, hi);
	if (count < lo || count > hi)
		ret = KSFT_FAIL;
	return ret;
}

static const struct test tests[] = {
	{ test_reader_flush, "reader_flush" },
	{ test_periodic, "periodic_flush" },
};

int main(void)
{
	require_module();
	require_flush_control();
	return run_test_table(tests, ARRAY_SIZE(tests));
}
