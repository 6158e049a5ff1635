// SPDX-License-Identifier: GPL-2.0
/*
 * Unload/load cycles under load: a child in a leaf cgroup keeps faulting
 * (mmap 8 MiB, touch, munmap) and reading its memory.stat, so that the
 * hooked functions run while hooks come and go. The kernel log must stay
 * clean, every reload must come back with the same hooks and with its
 * counters starting near zero, and the module must be loaded at the end.
 *
 * The child runs on any cpu, so that a hooked function may run on one cpu
 * while another patches it (the guests run QEMU's TCG single-threaded: the
 * vCPUs take turns, and none runs code that another has just patched).
 *
 * "Near zero": each cycle measures every counter's rate over RUN_MS while
 * loaded; right after the next load a counter may hold at most what that
 * rate gives over the load-to-read interval, times 3, plus 64. On a slower
 * kernel (KSFT_TIMEOUT_SCALE, e.g. the debug kernel's 5) the rates swing
 * more from window to window, and the factor 3 is scaled by it. A counter
 * that a reload did not zero still breaks the bound within a few cycles,
 * since it keeps what every earlier load counted.
 *
 * without_flush_control loads the module once with flush_hooks=0: the
 * flush knobs must then refuse writes (EOPNOTSUPP) and keep their values.
 *
 * params_every_path: an invalid flush parameter fails the load with
 * EINVAL however the module would load (flush control available, off by
 * flush_hooks=0, missing on this kernel), and a valid one that asks for
 * flush control where there is none fails it with EOPNOTSUPP.
 *
 * ftrace_enabled: while the module is loaded, sysctl
 * kernel.ftrace_enabled=0 is refused (EBUSY) and stays 1; with it 0, the
 * module refuses to load (EBUSY) and says why in the log. Kernels that
 * never let ftrace be switched off (7.x: EOPNOTSUPP) need neither.
 */
#define _GNU_SOURCE

#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <sys/wait.h>

#include "lib.h"

#define CYCLES	20
#define RUN_MS	500

static const char *const files[] = { "version", "hooks", "stats", "reset" };

static int files_present(void)
{
	size_t i;
	int bad = 0;

	for (i = 0; i < ARRAY_SIZE(files); i++) {
		if (!statctl_has(files[i])) {
			diag("%s/%s missing", STATCTL_DIR, files[i]);
			bad++;
		}
	}
	return bad;
}

static int same_hooks(const struct hooks *a, const struct hooks *b)
{
	int i, bad = 0;

	if (a->n != b->n) {
		diag("%d hooks after reload, %d before", b->n, a->n);
		return 1;
	}
	for (i = 0; i < a->n; i++) {
		if (strcmp(a->h[i].name, b->h[i].name) ||
		    strcmp(a->h[i].state, b->h[i].state)) {
			diag("hook %s %s became %s %s", a->h[i].name,
			     a->h[i].state, b->h[i].name, b->h[i].state);
			bad++;
		}
	}
	return bad;
}

/*
 * Counters right after a load against the highest rate any cycle's window
 * has seen so far: a starved window alone would understate the load's own
 * activity, while a counter that was not zeroed still carries every earlier
 * cycle's counts.
 */
static int check_start(const struct stats *start, const struct stats *r0,
		       const struct stats *r1, uint64_t run_ns,
		       uint64_t load_ns, int cycle)
{
	static double max_rate[STATS_MAX];	/* per ns, by name's index in r1 */
	int i, k, bad = 0;

	if (start->n != r1->n) {
		diag("cycle %d: %d counters after reload, %d before", cycle,
		     start->n, r1->n);
		bad++;
	}
	for (i = 0; i < start->n; i++) {
		const char *name = start->name[i];
		uint64_t v = start->val[i], d, bound;

		if (!strncmp(name, "flush.ns_", 9))
			continue;	/* durations, not counts */
		if (stats_get(r1, name, &d)) {
			diag("cycle %d: new counter %s", cycle, name);
			bad++;
			continue;
		}
		d = stats_delta(r0, r1, name);
		for (k = 0; k < r1->n && strcmp(r1->name[k], name); k++)
			;
		if ((double)d / run_ns > max_rate[k])
			max_rate[k] = (double)d / run_ns;
		bound = (uint64_t)(max_rate[k] * load_ns * 3 *
				   timeout_scale()) + 64;
		if (!strcmp(name, "flush.periodic"))
			bound = load_ns / 2000000000ULL + 1;
		if (v > bound) {
			diag("cycle %d: %s = %" PRIu64 " right after load "
			     "(%.1f ms), bound %" PRIu64, cycle, name, v,
			     load_ns / 1e6, bound);
			bad++;
		}
	}
	return bad;
}

static int test_reload_cycles(void)
{
	const char *ko = module_ko_path();
	const char *params = getenv("MEMCG_STATCTL_PARAMS");
	struct stats r0, r1, start;
	struct hooks h0, h;
	struct kmsg_mark mark;
	struct child c;
	char cg[256];
	uint64_t t0, t1, run_ns;
	int cycle, r, bad = 0, status;

	if (!ko) {
		diag("no module file to reload from (" KO_SOURCES ")");
		return KSFT_SKIP;
	}
	if (!path_exists(ko)) {
		diag("%s does not exist", ko);
		return KSFT_FAIL;
	}
	if (hooks_read(&h0))
		return KSFT_FAIL;
	if (kmsg_mark(&mark, "reload_test")) {
		diag("cannot read the kernel log");
		return KSFT_FAIL;
	}
	if (cg_create_leaf("reload", cg, sizeof(cg)))
		return KSFT_FAIL;
	r = child_start(&c, cg, fault_loop, cg);
	if (!r)
		r = child_wait_ready(&c, 10000);
	if (r) {
		diag("faulting child: %s", strerror(-r));
		child_kill(&c);
		cg_destroy(cg);
		return KSFT_FAIL;
	}

	/* rates of the module as loaded by the harness */
	if (stats_read(&r0))
		goto fail;
	t0 = now_ns();
	sleep_ms(RUN_MS);
	if (stats_read(&r1))
		goto fail;
	run_ns = now_ns() - t0;

	for (cycle = 1; cycle <= CYCLES; cycle++) {
		r = module_unload(MODULE_NAME, 5000);
		if (r) {
			diag("cycle %d: delete_module: %s", cycle,
			     strerror(-r));
			goto fail;
		}
		if (module_loaded(MODULE_NAME) || path_exists(STATCTL_DIR)) {
			diag("cycle %d: module or %s still there after "
			     "delete_module", cycle, STATCTL_DIR);
			bad++;
		}
		t0 = now_ns();
		r = module_load(ko, params);
		if (r) {
			diag("cycle %d: finit_module(%s): %s", cycle, ko,
			     strerror(-r));
			goto fail;
		}
		if (stats_read(&start))
			goto fail;
		t1 = now_ns();
		if (!module_loaded(MODULE_NAME) || files_present()) {
			diag("cycle %d: module not live after load", cycle);
			goto fail;
		}
		bad += check_start(&start, &r0, &r1, run_ns, t1 - t0, cycle);
		if (hooks_read(&h))
			goto fail;
		bad += same_hooks(&h0, &h);

		/* this cycle's rates, for the next check */
		r0 = start;
		sleep_ms(RUN_MS);
		if (stats_read(&r1))
			goto fail;
		run_ns = now_ns() - t1;
		diag("cycle %d: load %.1f ms; in %.0f ms: flush.requests +%"
		     PRIu64 " flush.performed +%" PRIu64, cycle,
		     (t1 - t0) / 1e6, run_ns / 1e6,
		     stats_delta(&r0, &r1, "flush.requests"),
		     stats_delta(&r0, &r1, "flush.performed"));
		if (waitpid(c.pid, &status, WNOHANG)) {
			diag("cycle %d: the faulting child died (status "
			     "0x%x)", cycle, status);
			c.pid = 0;
			goto fail;
		}
	}
	child_kill(&c);
	cg_destroy(cg);

	r = kmsg_scan(&mark);
	if (r < 0) {
		diag("cannot read the kernel log: %s", strerror(-r));
		bad++;
	} else if (r) {
		diag("%d bad kernel log lines since the mark", r);
		bad++;
	}
	if (!module_loaded(MODULE_NAME) || files_present()) {
		diag("module not loaded with its files at the end");
		bad++;
	}
	return bad ? KSFT_FAIL : KSFT_PASS;

fail:
	child_kill(&c);
	cg_destroy(cg);
	if (!module_loaded(MODULE_NAME))
		module_load(ko, params);
	kmsg_scan(&mark);
	return KSFT_FAIL;
}

/* A valid value of each flush knob that none of them has by default. */
static const char *const flush_knob_writes[][2] = {
	{ "flush_mode", "always" },
	{ "flush_threshold", "1000" },
	{ "flush_period_ms", "500" },
	{ "update_flush_every", "32" },
};

/* Every flush knob refuses a valid write with EOPNOTSUPP and keeps its value. */
static int flush_knobs_refuse(void)
{
	char before[64], after[64];
	int bad = 0, r;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(flush_knob_writes); i++) {
		const char *knob = flush_knob_writes[i][0];
		const char *val = flush_knob_writes[i][1];
		ssize_t w;

		if (statctl_read_line(knob, before, sizeof(before))) {
			diag("%s unreadable", knob);
			bad++;
			continue;
		}
		w = statctl_write(knob, val, strlen(val));
		r = statctl_read_line(knob, after, sizeof(after));
		if (w != -EOPNOTSUPP) {
			diag("%s '%s' without flush control gave %zd, want EOPNOTSUPP (%d)",
			     knob, val, w, -EOPNOTSUPP);
			bad++;
		}
		if (r || strcmp(before, after)) {
			diag("%s was '%s', reads '%s' after the refused write",
			     knob, before, r ? "?" : after);
			bad++;
		}
	}
	return bad;
}

/*
 * Loaded with flush_hooks=0: version says flush_control off, the flush
 * knobs refuse every write (module/ABI.md) and there are no flush.*
 * counters, while stock_hooks and counting work. Then the module is
 * loaded again as the harness had it.
 */
static int test_without_flush_control(void)
{
	const char *ko = module_ko_path();
	const char *params = getenv("MEMCG_STATCTL_PARAMS");
	struct kmsg_mark mark;
	char fc[64] = "";
	uint64_t v;
	int bad = 0, r;

	if (!ko) {
		diag("no module file to reload from (" KO_SOURCES ")");
		return KSFT_SKIP;
	}
	if (kmsg_mark(&mark, "reload_test flush_hooks=0"))
		return KSFT_FAIL;
	r = module_unload(MODULE_NAME, 5000);
	if (!r)
		r = module_load(ko, "flush_hooks=0");
	if (r) {
		diag("reload with flush_hooks=0: %s", strerror(-r));
		bad++;
		goto out;
	}
	if (version_get("flush_control", fc, sizeof(fc)) || strcmp(fc, "off")) {
		diag("flush_control '%s', want off", fc);
		bad++;
	}
	bad += flush_knobs_refuse();
	if (!stat_get("flush.requests", &v)) {
		diag("flush.requests present without flush control");
		bad++;
	}
	if (statctl_write("stock_hooks", "0", 1) != 1 ||
	    statctl_write("stock_hooks", "1", 1) != 1) {
		diag("stock_hooks refused a write without flush control");
		bad++;
	}
	diag("flush_hooks=0: flush_control %s, %s", fc,
	     bad ? "see above" : "every flush knob refused its write");
out:
	if (module_loaded(MODULE_NAME) && module_unload(MODULE_NAME, 5000))
		bad++;
	r = module_load(ko, params);
	if (r) {
		diag("reload as before: %s", strerror(-r));
		bad++;
	}
	if (!kmsg_clean(&mark))
		bad++;
	return bad ? KSFT_FAIL : KSFT_PASS;
}

/* Load with @params: want the result @want (0 or -errno). */
static int load_expect(const char *ko, const char *params, int want)
{
	int r = module_load(ko, params);

	if (!r && module_unload(MODULE_NAME, 5000))
		return 1;
	if (r == want)
		return 0;
	diag("load with '%s': %s, want %s", params, r ? strerror(-r) : "loaded",
	     want ? strerror(-want) : "loaded");
	return 1;
}

static int test_params_every_path(void)
{
	const char *ko = module_ko_path();
	const char *params = getenv("MEMCG_STATCTL_PARAMS");
	char fc[64] = "";
	int bad = 0;

	if (!ko) {
		diag("no module file to reload from (" KO_SOURCES ")");
		return KSFT_SKIP;
	}
	version_get("flush_control", fc, sizeof(fc));
	if (module_unload(MODULE_NAME, 5000))
		return KSFT_FAIL;
	bad += load_expect(ko, "flush_mode=bogus", -EINVAL);
	bad += load_expect(ko, "flush_period_ms=5", -EINVAL);
	bad += load_expect(ko, "flush_hooks=0 flush_mode=bogus", -EINVAL);
	bad += load_expect(ko, "flush_hooks=0 update_flush_every=-1", -EINVAL);
	bad += load_expect(ko, "flush_hooks=0 flush_threshold=1x", -EINVAL);
	bad += load_expect(ko, "flush_hooks=0 flush_mode=never", -EOPNOTSUPP);
	bad += load_expect(ko, "flush_hooks=0 flush_period_ms=100",
			   -EOPNOTSUPP);
	bad += load_expect(ko, "flush_hooks=0 flush_mode=kernel", 0);
	bad += load_expect(ko, "flush_hooks=0 flush_period_ms=2000", 0);
	if (!strcmp(fc, "available")) {
		bad += load_expect(ko, "flush_mode=never flush_period_ms=100",
				   0);
	} else {
		/* flush control missing here: the same rules */
		diag("flush_control %s: valid flush parameters are refused", fc);
		bad += load_expect(ko, "flush_mode=never", -EOPNOTSUPP);
	}
	if (module_load(ko, params)) {
		diag("reload as before failed");
		bad++;
	}
	return bad ? KSFT_FAIL : KSFT_PASS;
}

#define FTRACE_ENABLED	"/proc/sys/kernel/ftrace_enabled"

static int test_ftrace_enabled(void)
{
	const char *ko = module_ko_path();
	const char *params = getenv("MEMCG_STATCTL_PARAMS");
	static const char *const why[] = { "kernel.ftrace_enabled" };
	struct kmsg_mark mark;
	char v[16] = "";
	int bad = 0, r;

	if (!ko) {
		diag("no module file to reload from (" KO_SOURCES ")");
		return KSFT_SKIP;
	}
	if (!path_exists(FTRACE_ENABLED))
		return KSFT_SKIP;
	r = write_str(FTRACE_ENABLED, "0");
	if (r == -EOPNOTSUPP) {
		diag("this kernel never lets ftrace be switched off: %s",
		     strerror(-r));
	} else if (r != -EBUSY) {
		diag("ftrace_enabled=0 while loaded: %s, want EBUSY",
		     r ? strerror(-r) : "accepted");
		bad++;
	}
	if (read_file(FTRACE_ENABLED, v, sizeof(v)) < 0 || v[0] != '1') {
		diag("ftrace_enabled reads '%s' while loaded", v);
		bad++;
		write_str(FTRACE_ENABLED, "1");
	}
	if (module_unload(MODULE_NAME, 5000))
		return KSFT_FAIL;
	r = write_str(FTRACE_ENABLED, "0");
	if (r == -EOPNOTSUPP) {
		diag("ftrace_enabled=0 without the module: %s too",
		     strerror(-r));
	} else if (r) {
		diag("ftrace_enabled=0 without the module: %s", strerror(-r));
		bad++;
	} else {
		kmsg_mark(&mark, "reload_test ftrace_enabled=0");
		bad += load_expect(ko, params, -EBUSY);
		/* the refusal's line is the one "bad" line wanted here */
		if (kmsg_scan_with(&mark, why, ARRAY_SIZE(why)) != 1) {
			diag("no log line names kernel.ftrace_enabled");
			bad++;
		}
		write_str(FTRACE_ENABLED, "1");
	}
	if (module_load(ko, params)) {
		diag("load with ftrace enabled again failed");
		bad++;
	}
	return bad ? KSFT_FAIL : KSFT_PASS;
}

static const struct test tests[] = {
	{ test_reload_cycles, "reload_cycles_under_load" },
	{ test_without_flush_control, "without_flush_control" },
	{ test_params_every_path, "params_every_path" },
	{ test_ftrace_enabled, "ftrace_enabled" },
};

int main(void)
{
	require_module();
	return run_test_table(tests, ARRAY_SIZE(tests));
}
