// SPDX-License-Identifier: GPL-2.0
/*
 * The flush counters of the foundation move with the kernel's flushes:
 * a memory.stat read after enough stat updates performs a flush, and the
 * periodic flusher runs every FLUSH_TIME (2 s). The latency histogram
 * (`flush_latency`) agrees with flush.performed and flush.ns_total.
 */
#define _GNU_SOURCE

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
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

/* ---- the latency histogram ---------------------------------------- */
#define LAT_MAX		64

struct latency {
	int n;
	uint64_t lo[LAT_MAX], hi[LAT_MAX], count[LAT_MAX];	/* hi 0: inf */
	uint64_t sum;
};

/* Parse `flush_latency` (module/ABI.md): `lo hi count` lines, hi `inf` last. */
static int latency_read(struct latency *l)
{
	char buf[8192], *line, *save = NULL;
	ssize_t r = statctl_read("flush_latency", buf, sizeof(buf));

	if (r < 0) {
		diag("flush_latency: %s", strerror((int)-r));
		return -1;
	}
	memset(l, 0, sizeof(*l));
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char hi[32];

		if (l->n == LAT_MAX ||
		    sscanf(line, "%" SCNu64 " %31s %" SCNu64, &l->lo[l->n], hi,
			   &l->count[l->n]) != 3) {
			diag("flush_latency: bad line '%s'", line);
			return -1;
		}
		l->hi[l->n] = strcmp(hi, "inf") ? strtoull(hi, NULL, 10) : 0;
		l->sum += l->count[l->n++];
	}
	return 0;
}

/*
 * The histogram and `stats` of one quiet moment: read until flush.performed
 * did not move around the histogram's read (a flush from elsewhere).
 */
static int latency_snapshot(struct latency *l, struct stats *s)
{
	struct stats after;
	int i;

	for (i = 0; i < 10; i++) {
		if (stats_read(s) || latency_read(l) || stats_read(&after))
			return -1;
		if (stat_must(s, "flush.performed") ==
		    stat_must(&after, "flush.performed"))
			return 0;
		sleep_ms(50);
	}
	diag("flush.performed kept moving: no quiet moment in 10 tries");
	return -1;
}

/* The buckets sum to flush.performed and bound flush.ns_total and ns_max. */
static int latency_agrees(const struct latency *l, const struct stats *s)
{
	uint64_t performed = stat_must(s, "flush.performed");
	uint64_t total = stat_must(s, "flush.ns_total");
	uint64_t max = stat_must(s, "flush.ns_max");
	uint64_t lo = 0, hi = 0;
	bool open = false;
	int i, top = -1, bad = 0;

	for (i = 0; i < l->n; i++) {
		if (i && (l->lo[i] != l->hi[i - 1] || !l->hi[i - 1])) {
			diag("bucket %d starts at %" PRIu64 ", not where the "
			     "last ended", i, l->lo[i]);
			bad++;
		}
		lo += l->lo[i] * l->count[i];
		hi += l->hi[i] * l->count[i];
		if (l->count[i]) {
			top = i;
			open |= !l->hi[i];
		}
	}
	diag("%d buckets, %" PRIu64 " flushes; flush.performed %" PRIu64
	     ", flush.ns_total %" PRIu64 " in [%" PRIu64 ", %" PRIu64 "), "
	     "ns_max %" PRIu64, l->n, l->sum, performed, total, lo, hi, max);
	if (l->sum != performed) {
		diag("the buckets sum to %" PRIu64 ", flush.performed is %"
		     PRIu64, l->sum, performed);
		bad++;
	}
	if (total < lo || (!open && l->sum && total >= hi)) {
		diag("flush.ns_total is outside the buckets' bounds");
		bad++;
	}
	if (top >= 0 && (max < l->lo[top] || (l->hi[top] && max >= l->hi[top]))) {
		diag("flush.ns_max is not in the highest non-empty bucket");
		bad++;
	}
	return bad;
}

/*
 * With flushes from readers only (flush_mode always, no periodic flush),
 * the histogram agrees with the counters; after `reset` it is empty; and
 * one flush after that lands in the one bucket holding its duration.
 */
static int test_latency(void)
{
	char mode[32] = "", period[32] = "", cg[256];
	struct latency l;
	struct stats s;
	uint64_t anon;
	int attempt, bad = 1, i;

	if (!statctl_has("flush_latency")) {
		diag("no flush_latency with flush control available");
		return KSFT_FAIL;
	}
	if (cg_create_leaf("latency", cg, sizeof(cg)))
		return KSFT_FAIL;
	if (statctl_read_line("flush_mode", mode, sizeof(mode)) ||
	    statctl_read_line("flush_period_ms", period, sizeof(period)) ||
	    statctl_set("flush_mode", "always") ||
	    statctl_set("flush_period_ms", "0"))
		goto out;
	for (i = 0; i < 20; i++)
		if (memstat_get(cg, "anon", &anon))
			goto out;
	if (statctl_set("flush_mode", "never") || latency_snapshot(&l, &s))
		goto out;
	bad = latency_agrees(&l, &s);
	if (statctl_set("reset", "1") || latency_snapshot(&l, &s)) {
		bad++;
		goto out;
	}
	if (l.sum || stat_must(&s, "flush.performed")) {
		diag("after reset: %" PRIu64 " in the buckets, flush.performed %"
		     PRIu64, l.sum, stat_must(&s, "flush.performed"));
		bad++;
	}
	/* one flush: its duration is flush.ns_total, in its bucket */
	for (attempt = 1; attempt <= 5; attempt++) {
		if (statctl_set("reset", "1") ||
		    statctl_set("flush_mode", "always") ||
		    memstat_get(cg, "anon", &anon) ||
		    statctl_set("flush_mode", "never") ||
		    latency_snapshot(&l, &s)) {
			bad++;
			goto out;
		}
		if (stat_must(&s, "flush.performed") == 1)
			break;
		diag("attempt %d: %" PRIu64 " flushes, not 1", attempt,
		     stat_must(&s, "flush.performed"));
	}
	if (attempt > 5) {
		diag("no attempt saw exactly one flush");
		bad++;
	} else {
		bad += latency_agrees(&l, &s);
	}
out:
	if (mode[0] && statctl_set("flush_mode", mode))
		bad++;
	if (period[0] && statctl_set("flush_period_ms", period))
		bad++;
	cg_destroy(cg);
	return bad ? KSFT_FAIL : KSFT_PASS;
}

/* ---- flush reasons -------------------------------------------------- */
#define READS		20
#define SPANS_MAX	4096

struct reads {
	const char *cg;
	int n;
};

/* @n memory.stat reads of @cg, each a flush (flush_mode always). */
static int reads_run(void *arg)
{
	const struct reads *r = arg;
	uint64_t anon;
	int i;

	for (i = 0; i < r->n; i++)
		if (memstat_get(r->cg, "anon", &anon))
			return -EIO;
	return 0;
}

static int read_once(void *arg)
{
	struct reads one = { ((struct reads *)arg)->cg, 1 };

	return reads_run(&one);
}

#define CLASSES_MAX	16
#define CALLERS_MAX	128

struct reason {
	char name[NAME_LEN * 2], cls[NAME_LEN];
	uint64_t requests, performed, skipped;
};

struct reasons {
	int nclass, ncaller;
	struct reason cls[CLASSES_MAX], caller[CALLERS_MAX];
};

/* Parse `flush_reasons`: `class NAME R P S` and `caller FN CLASS R P S`. */
static int reasons_read(struct reasons *rs)
{
	static char buf[65536];
	char *line, *save = NULL;
	ssize_t r = statctl_read("flush_reasons", buf, sizeof(buf));

	if (r < 0) {
		diag("flush_reasons: %s", strerror((int)-r));
		return -1;
	}
	memset(rs, 0, sizeof(*rs));
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		struct reason *x;
		int ok;

		if (!strncmp(line, "class ", 6) && rs->nclass < CLASSES_MAX) {
			x = &rs->cls[rs->nclass++];
			ok = sscanf(line + 6, "%127s %" SCNu64 " %" SCNu64 " %"
				    SCNu64, x->name, &x->requests,
				    &x->performed, &x->skipped) == 4;
		} else if (!strncmp(line, "caller ", 7) &&
			   rs->ncaller < CALLERS_MAX) {
			x = &rs->caller[rs->ncaller++];
			ok = sscanf(line + 7, "%127s %63s %" SCNu64 " %" SCNu64
				    " %" SCNu64, x->name, x->cls, &x->requests,
				    &x->performed, &x->skipped) == 5;
		} else {
			ok = 0;
		}
		if (!ok) {
			diag("flush_reasons: bad line '%s'", line);
			return -1;
		}
		if (x->requests != x->performed + x->skipped) {
			diag("flush_reasons: '%s': requests != performed + "
			     "skipped", line);
			return -1;
		}
	}
	return 0;
}

static const struct reason *reason_find(const struct reason *v, int n,
					const char *name)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(v[i].name, name))
			return &v[i];
	return NULL;
}

/* requests (or, with @performed, flushes) of class @name in @b less in @a */
static uint64_t class_count(const struct reasons *a, const struct reasons *b,
			    const char *name, bool performed)
{
	const struct reason *x = reason_find(a->cls, a->nclass, name);
	const struct reason *y = reason_find(b->cls, b->nclass, name);

	if (performed)
		return (y ? y->performed : 0) - (x ? x->performed : 0);
	return (y ? y->requests : 0) - (x ? x->requests : 0);
}

#define class_delta(a, b, name)		class_count(a, b, name, false)
#define class_performed(a, b, name)	class_count(a, b, name, true)

/* The classes' and callers' changes between @a and @b, as diagnostics. */
static void reasons_diag(const struct reasons *a, const struct reasons *b)
{
	int i;

	for (i = 0; i < b->nclass; i++) {
		uint64_t d = class_delta(a, b, b->cls[i].name);

		if (d)
			diag("  class %s +%" PRIu64, b->cls[i].name, d);
	}
	for (i = 0; i < b->ncaller; i++) {
		const struct reason *x = reason_find(a->caller, a->ncaller,
						     b->caller[i].name);
		uint64_t d = b->caller[i].requests - (x ? x->requests : 0);

		if (d)
			diag("  caller %s (%s) +%" PRIu64, b->caller[i].name,
			     b->caller[i].cls, d);
	}
}

/*
 * `stats`, then flush_reasons, at a quiet moment: the reads of stats
 * around it agree on flush.requests and show no flush in flight
 * (flush_settled()). A request is counted in stats when it starts, in
 * flush_reasons before its outcome, and in stats' performed or skipped
 * when it ends; so then no request started, ran or ended while @r was
 * read, and @r and @s are one moment. Tries for about 2 s: 1 when quiet,
 * 0 when it never was (@s and @r are the last try's), -1 on a read error.
 */
static int reasons_snapshot(struct stats *s, struct reasons *r)
{
	struct stats s2;
	int i;

	for (i = 0; i < 100; i++) {
		if (i)
			sleep_ms(20);
		if (stats_read(s) || reasons_read(r) || stats_read(&s2))
			return -1;
		if (stat_must(s, "flush.requests") ==
		    stat_must(&s2, "flush.requests") &&
		    flush_settled(s) && flush_settled(&s2))
			return 1;
	}
	return 0;
}

/*
 * The periodic class moves as flush.periodic does: from one quiet
 * snapshot (reasons_snapshot()) to another at least 5 s later (the
 * kernel's period is 2 s), and on until the class has moved, for up to
 * 20 s; equal when both snapshots were quiet, within one otherwise.
 * Proactive reclaim (memory.reclaim) of a cgroup holding 20 MiB asks as
 * `reclaim` where it flushes, which the diagnostics show.
 */
static int reasons_periodic_and_reclaim(const char *cg)
{
	char path[300];
	size_t pages = FAULT_PAGES;
	struct child spin[64];
	struct reasons a, b;
	struct stats s0, s1;
	struct child c;
	uint64_t dp = 0, dc = 0, t0;
	int q0, q1 = -1, r, n, bad = 0;

	/* deferrable work: busy cpus keep it on time (test_periodic()) */
	n = spinners_start(spin, ARRAY_SIZE(spin));
	q0 = reasons_snapshot(&s0, &a);
	t0 = now_ns();
	if (q0 >= 0) {
		sleep_ms(5000);
		for (;;) {
			q1 = reasons_snapshot(&s1, &b);
			if (q1 < 0)
				break;
			dp = stats_delta(&s0, &s1, "flush.periodic");
			dc = class_delta(&a, &b, "periodic");
			if (dc || now_ns() - t0 > 20000000000ULL)
				break;
			sleep_ms(1000);
		}
	}
	if (n > 0)
		spinners_stop(spin, n);
	if (q0 < 0 || q1 < 0)
		return 1;
	diag("%.1f s: flush.periodic +%" PRIu64 ", class periodic +%" PRIu64
	     " (%s)", (now_ns() - t0) / 1e9, dp, dc,
	     q0 && q1 ? "both snapshots quiet: must be equal" :
			"a snapshot not quiet: may differ by one");
	if (!dc || (q0 && q1 && dc != dp) || dc + 1 < dp || dc > dp + 1) {
		diag("the periodic class does not follow flush.periodic");
		bad++;
	}
	r = child_start(&c, cg, fault_and_hold, &pages);
	if (!r)
		r = child_wait_ready(&c, 60000);
	snprintf(path, sizeof(path), "%s/memory.reclaim", cg);
	if (r || reasons_read(&a)) {
		child_kill(&c);
		return bad + 1;
	}
	/* anon without swap cannot be reclaimed (EAGAIN): it still asks */
	r = write_str(path, "10M");
	child_kill(&c);
	if (reasons_read(&b))
		return bad + 1;
	diag("memory.reclaim 10M of 20 MiB anon (%s):",
	     r ? strerror(-r) : "reclaimed");
	reasons_diag(&a, &b);
	return bad;
}

/*
 * At a quiet moment (reasons_snapshot()), whether the classes sum to
 * flush.requests and flush.performed: 0 when they do, 1 (said) when not,
 * -1 on a read error. @r gets the reasons.
 */
static int reasons_add_up(struct reasons *r, bool quiet_diag)
{
	struct stats s1;
	uint64_t req = 0, perf = 0;
	int i, q = reasons_snapshot(&s1, r);

	if (q < 0)
		return -1;
	for (i = 0; i < r->nclass; i++) {
		req += r->cls[i].requests;
		perf += r->cls[i].performed;
	}
	if (req == stat_must(&s1, "flush.requests") &&
	    perf == stat_must(&s1, "flush.performed"))
		return 0;
	if (!quiet_diag)
		diag("the classes sum to %" PRIu64 " requests, %" PRIu64
		     " performed; flush.requests %" PRIu64 ", performed %"
		     PRIu64 "%s", req, perf, stat_must(&s1, "flush.requests"),
		     stat_must(&s1, "flush.performed"),
		     q ? "" : " (never quiet for 2 s)");
	return 1;
}

/*
 * The classes add up to the flush counters, each caller's class agrees
 * with its class line, no raw address is printed, and memory.stat reads
 * are reader requests: with flush_mode always, READS of them add READS
 * to `reader` and to one caller of class reader; with never, the same
 * reads are turned away (skipped). The periodic class moves with
 * flush.periodic.
 */
static int test_reasons(void)
{
	static const char *const classes[] = {
		"reader", "reclaim", "refault", "periodic", "async", "forced",
		"unattributed",
	};
	char mode[32] = "", cg[256];
	struct reasons r0, r1, r2;
	struct reads rd = { cg, READS };
	uint64_t sum[CLASSES_MAX] = { 0 };
	size_t c;
	int i, r, bad = 1;

	if (cg_create_leaf("reasons", cg, sizeof(cg)))
		return KSFT_FAIL;
	/*
	 * From a reset on, they add up. A request that ended during the
	 * reset itself may be on one side only (module/ABI.md): reset again.
	 */
	for (i = 0, r = 1; i < 3 && r > 0; i++) {
		if (statctl_set("reset", "1"))
			goto out;
		r = reasons_add_up(&r0, i < 2);
	}
	if (r)
		goto out;
	if (statctl_read_line("flush_mode", mode, sizeof(mode)) ||
	    statctl_set("flush_mode", "always") || reasons_read(&r0) ||
	    reads_run(&rd) || reasons_read(&r1) ||
	    statctl_set("flush_mode", "never") || reads_run(&rd))
		goto out;
	bad = reasons_add_up(&r2, false) != 0;
	diag("%d memory.stat reads with flush_mode always:", READS);
	reasons_diag(&r0, &r1);
	diag("%d with never:", READS);
	reasons_diag(&r1, &r2);
	for (c = 0; c < ARRAY_SIZE(classes); c++)
		if (!reason_find(r2.cls, r2.nclass, classes[c])) {
			diag("no class %s", classes[c]);
			bad++;
		}
	/* each caller's counts are in its class's */
	for (i = 0; i < r2.ncaller; i++) {
		const struct reason *x = &r2.caller[i];

		for (c = 0; c < ARRAY_SIZE(classes); c++)
			if (!strcmp(x->cls, classes[c]))
				sum[c] += x->requests;
		if (!strncmp(x->name, "0x", 2) || !strncmp(x->name, "ffff", 4)) {
			diag("caller %s: an address, not a name", x->name);
			bad++;
		}
	}
	for (i = 0; i < r2.nclass; i++) {
		for (c = 0; c < ARRAY_SIZE(classes); c++)
			if (!strcmp(r2.cls[i].name, classes[c]) &&
			    c < 3 && r2.cls[i].requests < sum[c]) {
				diag("class %s: %" PRIu64 " requests, its "
				     "callers %" PRIu64, classes[c],
				     r2.cls[i].requests, sum[c]);
				bad++;
			}
	}
	if (class_delta(&r0, &r1, "reader") < READS ||
	    class_delta(&r1, &r2, "reader") < READS) {
		diag("memory.stat reads are not all reader requests");
		bad++;
	}
	bad += reasons_periodic_and_reclaim(cg);
out:
	if (mode[0] && statctl_set("flush_mode", mode))
		bad++;
	cg_destroy(cg);
	return bad ? KSFT_FAIL : KSFT_PASS;
}

/* ---- the kernel's own view: rstat lock tracepoints (6.10+) --------- */
/*
 * Flushes the module counts against the kernel's rstat lock tracepoints,
 * which see every rstat flush without the module's help, here those of
 * this process's memory.stat reads: as many as the module's reader
 * flushes (`flush_reasons`), and each one's duration (the module's clock
 * runs from before it takes the lock to after it lets it go) at least the
 * time the kernel held the lock: for every bucket's lower bound, at least
 * as many of the module's flushes as of the kernel's spans reach it, and
 * the totals too. The window has no periodic flush (flush_period_ms 0);
 * a kworker's flushes (an earlier test's cgroup going offline) count in
 * the module's histogram and totals, which only makes them larger.
 */
static int test_rstat_oracle(void)
{
	static uint64_t spans[SPANS_MAX];
	char mode[32] = "", period[32] = "", cg[256];
	struct latency l0, l1;
	struct stats s0, s1;
	struct reasons why0, why1;
	struct reads r = { cg, READS };
	uint64_t dperf, dreader, dns, sum = 0, max = 0;
	int n, i, k, bad = 1, skip = 0;

	if (cg_create_leaf("rstat_oracle", cg, sizeof(cg)))
		return KSFT_FAIL;
	if (statctl_read_line("flush_mode", mode, sizeof(mode)) ||
	    statctl_read_line("flush_period_ms", period, sizeof(period)) ||
	    statctl_set("flush_mode", "always") ||
	    statctl_set("flush_period_ms", "0") ||
	    latency_snapshot(&l0, &s0) || reasons_read(&why0))
		goto out;
	n = rstat_flush_spans(read_once, reads_run, &r, spans, SPANS_MAX);
	if (statctl_set("flush_mode", "never") || latency_snapshot(&l1, &s1) ||
	    reasons_read(&why1))
		goto out;
	if (n == -ENOENT) {
		diag("no cgroup_rstat_locked tracepoint (before 6.10)");
		skip = 1;
		bad = 0;
		goto out;
	}
	if (n < 0) {
		diag("rstat tracepoints: %s", strerror(-n));
		goto out;
	}
	bad = 0;
	for (i = 0; i < n; i++) {
		sum += spans[i];
		max = spans[i] > max ? spans[i] : max;
	}
	/* the detection flush came before the first snapshot's window ends */
	dperf = stat_must(&s1, "flush.performed") -
		stat_must(&s0, "flush.performed");
	dns = stat_must(&s1, "flush.ns_total") - stat_must(&s0, "flush.ns_total");
	dreader = class_performed(&why0, &why1, "reader");
	diag("%d reads (+1 to learn the lock's use): the kernel's rstat "
	     "flushes %d, %" PRIu64 " ns held in all, longest %" PRIu64 " ns; "
	     "the module's reader flushes +%" PRIu64 ", flush.performed +%"
	     PRIu64 ", flush.ns_total +%" PRIu64, READS, n, sum, max, dreader,
	     dperf, dns);
	reasons_diag(&why0, &why1);
	if (dreader != (uint64_t)n + 1) {
		diag("the module counted %" PRIu64 " reader flushes, the kernel "
		     "%d (+1)", dreader, n);
		bad++;
	}
	if (dns < sum) {
		diag("flush.ns_total grew less than the lock was held");
		bad++;
	}
	for (k = 0; k < l1.n && k < l0.n; k++) {
		uint64_t mod = 0, ker = 0;
		int j;

		for (j = k; j < l1.n; j++)
			mod += l1.count[j] - l0.count[j];
		for (i = 0; i < n; i++)
			ker += spans[i] >= l1.lo[k];
		if (mod < ker) {
			diag("%" PRIu64 " of the module's flushes took %" PRIu64
			     " ns or more, %" PRIu64 " of the kernel's lock "
			     "holds did", mod, l1.lo[k], ker);
			bad++;
		}
	}
out:
	if (mode[0] && statctl_set("flush_mode", mode))
		bad++;
	if (period[0] && statctl_set("flush_period_ms", period))
		bad++;
	cg_destroy(cg);
	if (bad)
		return KSFT_FAIL;
	return skip ? KSFT_SKIP : KSFT_PASS;
}

static const struct test tests[] = {
	{ test_reader_flush, "reader_flush" },
	{ test_periodic, "periodic_flush" },
	{ test_latency, "latency_histogram" },
	{ test_rstat_oracle, "rstat_oracle" },
	{ test_reasons, "flush_reasons" },
};

int main(void)
{
	require_module();
	require_flush_control();
	return run_test_table(tests, ARRAY_SIZE(tests));
}
