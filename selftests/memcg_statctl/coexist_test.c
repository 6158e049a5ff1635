// SPDX-License-Identifier: GPL-2.0
/*
 * The module beside other tracers on the same functions.
 *
 * A kretprobe, an fprobe exit handler or the function-graph tracer
 * replaces the return address of a traced call with a trampoline of its
 * own before the module's direct trampoline reads it as the caller. The
 * module must still attribute each call to its true caller, and count in
 * caller.unattributed what it cannot attribute.
 *
 *   kretprobe  a tracefs kretprobe event on every function that a
 *              caller-filtered row watches;
 *   fgraph     the function-graph tracer on those functions, with the
 *              same kretprobes added after it (two hijacks, stacked);
 *   fprobe     a tracefs fprobe exit event (kernels with fprobe events);
 *   periodic   the same three on the flush redirects' functions, with
 *              flush_mode=never: the kernel's periodic flush must still be
 *              recognised, so it still runs and flush.periodic counts it.
 *
 * The oracle is the hijacker itself: its event's hist keyed on
 * __probe_ret_ip, the return address it saved, which is the true caller.
 * A row's module count must lie between the oracle's calls from the row's
 * caller over the workload and over the workload plus the reads around
 * it, plus the calls the kretprobes missed.
 */
#define _GNU_SOURCE

#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib.h"

#define EV_GROUP	"mcscoexist"
#define ROWS_MAX	16
#define FAULT_PAGES	2048
#define FILES		300
#define STAT_READS	50
#define PERIODIC_FN	"flush_memcg_stats_dwork"

enum hijacker { KRETPROBE, FGRAPH, FPROBE };

static const char *const hijacker_names[] = { "kretprobe", "fgraph", "fprobe" };

struct row {
	char name[NAME_LEN];
	char target[NAME_LEN * 2];
	char caller[NAME_LEN * 2];	/* "-": every caller */
	int hook;			/* index in `hooks` */
	int probe;			/* index in targets[] */
};

static struct row rows[ROWS_MAX];
static int nrows;
static char targets[ROWS_MAX][NAME_LEN * 2];
static int ntargets;

/* Rows of `hooks` whose mechanism @redirect selects, attached. */
static int rows_select(bool redirect)
{
	struct hooks hs;
	int i, j;

	if (hooks_read(&hs))
		return -1;
	nrows = 0;
	ntargets = 0;
	for (i = 0; i < hs.n && nrows < ROWS_MAX; i++) {
		const struct hook *h = &hs.h[i];
		struct row *r = &rows[nrows];

		if (strcmp(h->state, "attached") ||
		    !strcmp(h->mech, "redirect") != redirect ||
		    (redirect && !hook_is_flush_redirect(h)))
			continue;
		if (!redirect && !strcmp(h->caller, "-"))
			continue;
		snprintf(r->name, sizeof(r->name), "%s", h->name);
		snprintf(r->target, sizeof(r->target), "%s", h->target);
		snprintf(r->caller, sizeof(r->caller), "%s", h->caller);
		r->hook = i;
		for (j = 0; j < ntargets && strcmp(targets[j], r->target); j++)
			;
		if (j == ntargets)
			snprintf(targets[ntargets++], sizeof(targets[0]), "%s",
				 r->target);
		r->probe = j;
		nrows++;
	}
	return 0;
}

/* ---- the hijackers, which are the oracle too --------------------------- */

static int tracefs_write(const char *file, const char *s, bool append)
{
	char path[256];
	const char *t = tracefs();
	ssize_t n;
	int fd;

	if (!t)
		return -ENOENT;
	snprintf(path, sizeof(path), "%s/%s", t, file);
	fd = open(path, O_WRONLY | O_CLOEXEC | (append ? O_APPEND : O_TRUNC));
	if (fd < 0)
		return -errno;
	n = write(fd, s, strlen(s));
	n = n < 0 ? -errno : 0;
	close(fd);
	return n;
}

static int ev_file(char *buf, size_t size, int probe, const char *file)
{
	const char *t = tracefs();

	if (!t)
		return -ENOENT;
	snprintf(buf, size, "%s/events/" EV_GROUP "/e%d/%s", t, probe, file);
	return 0;
}

static void events_remove(enum hijacker how)
{
	char path[256], cmd[64];
	int i;

	for (i = 0; i < ROWS_MAX; i++) {
		if (!ev_file(path, sizeof(path), i, "trigger") &&
		    path_exists(path))
			write_str(path, "!hist:keys=__probe_ret_ip.sym");
		snprintf(cmd, sizeof(cmd), "-:" EV_GROUP "/e%d", i);
		tracefs_write(how == FPROBE ? "dynamic_events" :
					      "kprobe_events", cmd, true);
	}
	if (how == FGRAPH) {
		tracefs_write("current_tracer", "nop", false);
		tracefs_write("set_ftrace_filter", "", false);
	}
}

/* A return event on every target, each with a hist keyed on the caller. */
static int events_add(enum hijacker how)
{
	char path[256], cmd[320];
	int i, r;

	for (i = 0; i < ntargets; i++) {
		if (how == FPROBE)
			snprintf(cmd, sizeof(cmd), "f:" EV_GROUP "/e%d %.127s%%return",
				 i, targets[i]);
		else
			snprintf(cmd, sizeof(cmd), "r:" EV_GROUP "/e%d %.127s",
				 i, targets[i]);
		r = tracefs_write(how == FPROBE ? "dynamic_events" :
						  "kprobe_events", cmd, true);
		if (!r)
			r = ev_file(path, sizeof(path), i, "trigger");
		if (!r)
			r = write_str(path, "hist:keys=__probe_ret_ip.sym");
		if (r) {
			diag("%s on %s: %s", cmd, targets[i], strerror(-r));
			return r;
		}
	}
	return 0;
}

/* The function-graph tracer on the targets. */
static int fgraph_start(void)
{
	int i, r = 0;

	for (i = 0; i < ntargets && !r; i++)
		r = tracefs_write("set_ftrace_filter", targets[i], i > 0);
	if (!r)
		r = tracefs_write("current_tracer", "function_graph", false);
	if (r)
		diag("function_graph on the targets: %s", strerror(-r));
	return r;
}

static void hijack_stop(enum hijacker how)
{
	events_remove(how);
}

/* -ENOTSUP: this kernel has no such tracer (said in a diagnostic). */
static int hijack_start(enum hijacker how)
{
	int r;

	if (how == FGRAPH) {
		r = fgraph_start();
		if (r) {
			hijack_stop(how);
			return r == -EINVAL ? -ENOTSUP : r;
		}
	}
	r = events_add(how);
	if (r) {
		hijack_stop(how);
		/* fprobe events: EINVAL where the kernel has none */
		return how == FPROBE && r == -EINVAL ? -ENOTSUP : r;
	}
	return 0;
}

/* The calls on probe @probe's hist from @caller ("-": any). */
static int hist_sum(int probe, const char *caller, uint64_t *sum)
{
	char path[256];

	if (ev_file(path, sizeof(path), probe, "hist"))
		return -ENOENT;
	return hist_caller_sum(path, "__probe_ret_ip", caller, sum);
}

/* Calls the kretprobes could not follow (kprobe_profile's misses). */
static uint64_t probes_missed(void)
{
	static char buf[1 << 16];
	char path[256], *line, *save;
	const char *t = tracefs();
	uint64_t sum = 0;

	if (!t)
		return 0;
	snprintf(path, sizeof(path), "%s/kprobe_profile", t);
	if (read_file(path, buf, sizeof(buf)) < 0)
		return 0;
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		unsigned long long hits, miss;
		int probe;

		if (sscanf(line, " e%d %llu %llu", &probe, &hits, &miss) == 3)
			sum += miss;
	}
	return sum;
}

struct snap {
	uint64_t oracle[ROWS_MAX];
	uint64_t missed;
};

static int snap(struct snap *s)
{
	int i, r;

	s->missed = probes_missed();
	for (i = 0; i < nrows; i++) {
		r = hist_sum(rows[i].probe, rows[i].caller, &s->oracle[i]);
		if (r) {
			diag("hist of %s: %s", rows[i].target, strerror(-r));
			return r;
		}
	}
	return 0;
}

/* ---- the workload ------------------------------------------------------ */

/* oracle: a [module] b ... workload ... c [module] d */
struct window {
	struct snap a, b, c, d;
	struct hooks k0, k1;
	struct stats s0, s1;
};

static int window_oracle(void *ctx, int i)
{
	struct window *w = ctx;
	struct snap *s[] = { &w->a, &w->b, &w->c, &w->d };

	return snap(s[i]);
}

static int window_module(void *ctx, int i)
{
	struct window *w = ctx;

	return stats_read(i ? &w->s1 : &w->s0) ?:
	       hooks_read(i ? &w->k1 : &w->k0);
}

static int measure(struct window *w)
{
	struct mixed_load load = {
		.pages = FAULT_PAGES, .files = FILES, .reads = STAT_READS,
	};

	return oracle_window("coexist", &load, window_oracle, window_module, w);
}

static int compare(const struct window *w, const char *how)
{
	uint64_t lo, hi, lo_all = 0, hi_all = 0, missed;
	char what[400];
	int i, bad = 0;

	missed = w->d.missed - w->a.missed;
	for (i = 0; i < nrows; i++) {
		const struct row *r = &rows[i];

		lo = w->c.oracle[i] - w->b.oracle[i];
		hi = w->d.oracle[i] - w->a.oracle[i] + missed;
		lo_all += lo;
		hi_all += hi;
		snprintf(what, sizeof(what), "%s: %.63s (%.127s from %.127s)",
			 how, r->name, r->target, r->caller);
		bad += bracket(what, w->k1.h[r->hook].hits - w->k0.h[r->hook].hits,
			       lo, hi);
		diag("%s: +%" PRIu64 "%s", what, lo, lo == hi ? "" : " (or more)");
	}
	if (!lo_all) {
		diag("%s: the workload made no call from a filtered caller", how);
		bad++;
	}
	/* every counted call came through the recovery */
	snprintf(what, sizeof(what), "%s: caller.recovered", how);
	bad += bracket(what, stats_delta(&w->s0, &w->s1, "caller.recovered"),
		       lo_all, hi_all);
	if (stats_delta(&w->s0, &w->s1, "caller.unattributed")) {
		diag("%s: caller.unattributed +%" PRIu64, how,
		     stats_delta(&w->s0, &w->s1, "caller.unattributed"));
		bad++;
	}
	if (missed)
		diag("%s: the kretprobes missed %" PRIu64 " calls", how, missed);
	return bad;
}

/* Every selected row still counts through its direct trampoline. */
static int rows_direct(void)
{
	struct hooks hs;
	int i, bad = 0;

	if (hooks_read(&hs))
		return 1;
	for (i = 0; i < nrows; i++) {
		const struct hook *h = &hs.h[rows[i].hook];

		if (strcmp(h->mech, "direct")) {
			diag("%s: mechanism %s, want direct", h->name, h->mech);
			bad++;
		}
	}
	return bad;
}

static int rows_test(enum hijacker how)
{
	const char *name = hijacker_names[how];
	struct window w;
	int bad, r;

	if (!statctl_has("stock_hooks"))
		return KSFT_SKIP;
	if (rows_select(false))
		return KSFT_FAIL;
	if (!nrows) {
		diag("no caller-filtered row is attached");
		return KSFT_SKIP;
	}
	r = hijack_start(how);
	if (r == -ENOTSUP)
		return KSFT_SKIP;
	if (r)
		return KSFT_FAIL;
	bad = rows_direct();
	if (!bad)
		bad = measure(&w) ? 1 : compare(&w, name);
	hijack_stop(how);
	return bad ? KSFT_FAIL : KSFT_PASS;
}

static int test_kretprobe(void)
{
	return rows_test(KRETPROBE);
}

static int test_fgraph(void)
{
	return rows_test(FGRAPH);
}

static int test_fprobe(void)
{
	return rows_test(FPROBE);
}

/* ---- the flush redirects ------------------------------------------------ */

/* The oracle's periodic flush requests: the kernel's work asking. */
static int periodic_calls(uint64_t *sum)
{
	uint64_t n;
	int i, r;

	*sum = 0;
	for (i = 0; i < nrows; i++) {
		/* 6.12 redirects the work itself, every caller is the pool */
		r = hist_sum(rows[i].probe,
			     strcmp(rows[i].target, PERIODIC_FN) ? PERIODIC_FN :
								   "-", &n);
		if (r)
			return r;
		*sum += n;
	}
	return 0;
}

static int periodic_test(enum hijacker how)
{
	const char *name = hijacker_names[how];
	uint64_t o0 = 0, o1 = 0, p, performed;
	struct stats s0, s1;
	struct child spin[64];
	int bad = 0, n, r;

	require_flush_control();
	if (rows_select(true))
		return KSFT_FAIL;
	r = hijack_start(how);
	if (r == -ENOTSUP)
		return KSFT_SKIP;
	if (r)
		return KSFT_FAIL;
	if (statctl_write("flush_mode", "never", 5) < 0) {
		diag("flush_mode=never failed");
		hijack_stop(how);
		return KSFT_FAIL;
	}
	/* the kernel's periodic work is deferrable: keep the cpus busy */
	n = spinners_start(spin, ARRAY_SIZE(spin));
	r = periodic_calls(&o0) ?: stats_read(&s0);
	sleep_ms(7000);
	r = r ?: periodic_calls(&o1) ?: stats_read(&s1);
	if (n > 0)
		spinners_stop(spin, n);
	statctl_write("flush_mode", "kernel", 6);
	hijack_stop(how);
	if (r) {
		diag("%s: reading the counters failed: %s", name, strerror(-r));
		return KSFT_FAIL;
	}
	p = stats_delta(&s0, &s1, "flush.periodic");
	performed = stats_delta(&s0, &s1, "flush.performed");
	diag("%s, flush_mode=never, 7 s: flush.periodic +%" PRIu64
	     ", flush.performed +%" PRIu64 ", the oracle's periodic calls +%"
	     PRIu64, name, p, performed, o1 - o0);
	if (p < 2) {
		diag("the kernel's periodic flush did not keep running");
		bad++;
	}
	/* the last request may still be flushing at the second read */
	if (performed + 1 < p) {
		diag("periodic requests were skipped");
		bad++;
	}
	/* one request in flight at either read */
	if (p + 1 < o1 - o0 || p > o1 - o0 + 1) {
		diag("flush.periodic and the oracle differ by more than one");
		bad++;
	}
	return bad ? KSFT_FAIL : KSFT_PASS;
}

static int test_periodic_kretprobe(void)
{
	return periodic_test(KRETPROBE);
}

static int test_periodic_fgraph(void)
{
	return periodic_test(FGRAPH);
}

static int test_periodic_fprobe(void)
{
	return periodic_test(FPROBE);
}

int main(void)
{
	static const struct test tests[] = {
		{ test_kretprobe, "kretprobe" },
		{ test_fgraph, "fgraph" },
		{ test_fprobe, "fprobe" },
		{ test_periodic_kretprobe, "periodic_kretprobe" },
		{ test_periodic_fgraph, "periodic_fgraph" },
		{ test_periodic_fprobe, "periodic_fprobe" },
	};

	require_module();
	if (!tracefs())
		ksft_exit_skip("no tracefs\n");
	/* objcg_vmstat.flushes is a caller-filtered row: it must be there */
	objcg_flush_hooks_on();
	return run_test_table(tests, ARRAY_SIZE(tests));
}
