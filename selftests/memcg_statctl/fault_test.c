// SPDX-License-Identifier: GPL-2.0
/*
 * Load/unload cycles under load.
 *
 *  unload_cycles_under_load  CYCLES (50, or $MEMCG_STATCTL_FAULT_CYCLES
 *      from MIN_CYCLES to 500) unload/load cycles, at least
 *      MIN_CYCLES (24) within the time budget, while three
 *      children run: a page-fault loop (mmap 8 MiB, touch, munmap) in a
 *      leaf cgroup, a memory.stat reader of that cgroup, and a reader of
 *      `stats` (open, read, close in a loop; it keeps reading, failing with
 *      ENOENT, while the module is gone). Before each unload the knobs are
 *      set to a new combination (flush_mode over the four modes,
 *      flush_period_ms 0/500/2000, update_flush_every 0/64, stock_hooks
 *      0/1: every attach/detach path runs under load) and left to act for
 *      a moment.
 *      Every cycle: after a load the knobs are back at their defaults (when
 *      no MEMCG_STATCTL_PARAMS); no leaked module reference: on even cycles
 *      the stats reader is paused and /sys/module/memcg_statctl/refcnt must
 *      be exactly 0, on odd cycles it keeps running and refcnt must reach 0
 *      within 3 s (only open files hold references); delete_module succeeds
 *      and the module and its debugfs directory are gone after it.
 *      The last unload is made from the most hostile setting (never, period
 *      0, update_flush_every 64, stock_hooks 0). Then, with the load
 *      stopped and the module gone, the kernel's flushing must be back
 *      (kernel_flush_restored() of lib.h: no function the module hooked
 *      keeps an ftrace callback, a 20 MiB fault shows in memory.stat
 *      within 4 s, the kernel's periodic flush work runs). The kernel log stays clean (no
 *      WARNING, BUG, Oops, Call Trace) and the module is loaded again at
 *      the end.
 *
 * The load runs on every cpu, so that the hooked functions run on one cpu
 * while another patches them. Under QEMU's TCG (see under_tcg() in lib.h)
 * it runs at nice 10 so that the loader keeps going.
 */
#define _GNU_SOURCE

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib.h"

#define CYCLES		50
#define CYCLES_MAX	500
/*
 * The knob combinations repeat every 12 cycles (set_combo()): a run that
 * hit the time budget passes when it went through each of them twice.
 */
#define MIN_CYCLES	24

/* the number of cycles to run: CYCLES or $MEMCG_STATCTL_FAULT_CYCLES */
static int cycles = CYCLES;
#define SETTLE_MS	200
/*
 * Stop cycling past this (a failure only when fewer than MIN_CYCLES ran: a
 * starved guest is slow, not wrong) so that the final checks and the
 * reload still run within the program's timeout (fault_test:600 in the
 * Makefile's TEST_TIMEOUTS). Under TCG a cycle takes
 * 4-5 s, nearly all of it in ftrace: each hook attached or detached by a
 * knob or by the unload patches kernel text, and each detach waits for RCU
 * Tasks grace periods (unregister_ftrace_function() of a module's ops).
 * Scaled by timeout_scale(), as run_tests.sh scales the timeout: a cycle
 * takes about 16 s on PREEMPT_RT under TCG.
 */
#define BUDGET_S	420

/* where the time of a cycle goes: mean and max per phase, in ms */
enum { PH_KNOBS, PH_SETTLE, PH_PAUSE, PH_REFCNT, PH_UNLOAD, PH_LOAD, PH_N };
static const char *const phase_names[PH_N] = {
	"knobs", "settle", "pause", "refcnt", "unload", "load",
};

struct phases {
	double sum[PH_N], max[PH_N];
	int n[PH_N];
	uint64_t t;
};

/* close the phase that began at p->t; the next one begins now */
static void phase_end(struct phases *p, int ph)
{
	uint64_t t = now_ns();
	double ms = (t - p->t) / 1e6;

	p->sum[ph] += ms;
	p->n[ph]++;
	if (ms > p->max[ph])
		p->max[ph] = ms;
	p->t = t;
}

static void phases_report(const struct phases *p)
{
	char line[512];
	size_t off = 0;
	int i;

	for (i = 0; i < PH_N && off < sizeof(line); i++)
		off += snprintf(line + off, sizeof(line) - off,
				"%s%s %.0f/%.0f", i ? ", " : "", phase_names[i],
				p->n[i] ? p->sum[i] / p->n[i] : 0, p->max[i]);
	diag("per cycle, ms mean/max: %s", line);
}

struct shared {
	volatile int pause;	/* parent: stop opening `stats` */
	volatile int paused;	/* reader: not holding it open */
	volatile unsigned long reads, fails;
};

static struct shared *sh;

static int stats_reader(void *arg, struct child *c)
{
	char buf[16384];

	(void)arg;
	child_notify(c);
	for (;;) {
		if (sh->pause) {
			sh->paused = 1;
			sleep_ms(2);
			continue;
		}
		sh->paused = 0;
		if (statctl_read("stats", buf, sizeof(buf)) < 0) {
			sh->fails++;
			sleep_ms(1);
		} else {
			sh->reads++;
		}
	}
	return 0;
}

static int knob_set(const char *name, const char *val)
{
	if (!statctl_has(name))
		return 0;	/* not in this module */
	return statctl_set(name, val) ? -1 : 0;
}

static int knob_is(const char *name, const char *want)
{
	char buf[64];

	if (!statctl_has(name))
		return 0;
	if (statctl_read(name, buf, sizeof(buf)) < 0)
		return -1;
	buf[strcspn(buf, "\n")] = 0;
	if (strcmp(buf, want)) {
		diag("%s is '%s' after a load, want the default '%s'", name,
		     buf, want);
		return -1;
	}
	return 0;
}

static const char *const modes[] = { "kernel", "threshold", "always",
				     "never" };
/* flush_control_state(): without flush control only stock_hooks cycles */
static int flush;
static const char *const periods[] = { "0", "500", "2000" };

static int set_combo(int cycle, bool last, char *desc, size_t size)
{
	const char *mode = modes[cycle % 4];
	const char *period = periods[cycle % 3];
	const char *every = (cycle / 3) % 2 ? "64" : "0";
	const char *stock = (cycle / 2) % 2 ? "0" : "1";
	int r;

	if (last) {
		mode = "never";
		period = "0";
		every = "64";
		stock = "0";
	}
	if (flush != KSFT_PASS) {
		snprintf(desc, size, "-/-/-/%s", stock);
		return knob_set("stock_hooks", stock);
	}
	snprintf(desc, size, "%s/%s/%s/%s", mode, period, every, stock);
	r = knob_set("flush_period_ms", period);
	r |= knob_set("update_flush_every", every);
	r |= knob_set("stock_hooks", stock);
	r |= knob_set("flush_mode", mode);
	return r;
}

/* refcnt 0: exactly (reader paused) or within 3 s (reader running) */
static int refcnt_zero(bool paused, int cycle)
{
	int i, r = -1;

	for (i = 0; i < (paused ? 1 : 300); i++) {
		r = module_refcnt(MODULE_NAME);
		if (!r)
			return 0;
		sleep_ms(10);
	}
	diag("cycle %d: refcnt %d%s", cycle, r,
	     paused ? " with no debugfs file open" : " for 3 s");
	return -1;
}

static int pause_reader(void)
{
	int i;

	sh->paused = 0;
	sh->pause = 1;
	for (i = 0; i < 500; i++) {
		if (sh->paused)
			return 0;
		sleep_ms(10);
	}
	diag("the stats reader did not pause");
	return -1;
}

static int test_cycles(void)
{
	const char *ko = module_ko_path();
	const char *params = getenv("MEMCG_STATCTL_PARAMS");
	bool defaults = !params || !*params, tcg = under_tcg();
	struct child fl = { 0 }, ms = { 0 }, sr = { 0 };
	struct hook_targets targets;
	struct kmsg_mark mark;
	char cg[256], desc[64];
	struct phases ph = { 0 };
	uint64_t t0 = now_ns();
	int budget_s = BUDGET_S * timeout_scale();
	int cycle, done = 0, bad = 0, r, status;

	if (!ko) {
		diag("no module file to reload from (" KO_SOURCES ")");
		return KSFT_SKIP;
	}
	if (!path_exists(ko)) {
		diag("%s does not exist", ko);
		return KSFT_FAIL;
	}
	sh = shared_alloc(sizeof(*sh));
	if (!sh || kmsg_mark(&mark, "fault_test") ||
	    hook_targets_read(&targets))	/* every load hooks the same */
		return KSFT_FAIL;
	if (cg_create_leaf("fault_cycles", cg, sizeof(cg)))
		return KSFT_FAIL;
	if (tcg)
		diag("QEMU TCG: the load runs at nice 10, so that the loader keeps going");
	r = child_start(&fl, cg, fault_loop, NULL) ?:
	    child_start(&ms, NULL, memstat_read_loop, cg) ?:
	    child_start(&sr, NULL, stats_reader, NULL);
	if (!r)
		r = child_wait_ready(&fl, 10000) ?:
		    child_wait_ready(&ms, 10000) ?:
		    child_wait_ready(&sr, 10000);
	if (r) {
		diag("cannot start the load: %d", r);
		bad++;
		goto out;
	}
	if (tcg) {
		set_nice(fl.pid, 10);
		set_nice(ms.pid, 10);
		set_nice(sr.pid, 10);
	}

	for (cycle = 1; cycle <= cycles; cycle++) {
		bool last = cycle == cycles, paused = !(cycle % 2);

		ph.t = now_ns();
		if (!last && ph.t - t0 > budget_s * 1000000000ULL) {
			diag("time budget of %d s reached after %d cycles: "
			     "this one is the last", budget_s, done);
			last = true;
		}
		if (set_combo(cycle, last, desc, sizeof(desc)))
			bad++;
		phase_end(&ph, PH_KNOBS);
		sleep_ms(SETTLE_MS);
		phase_end(&ph, PH_SETTLE);
		if (paused && pause_reader()) {
			bad++;
			break;
		}
		phase_end(&ph, PH_PAUSE);
		if (refcnt_zero(paused, cycle))
			bad++;
		phase_end(&ph, PH_REFCNT);
		r = module_unload(MODULE_NAME, 5000);
		phase_end(&ph, PH_UNLOAD);
		if (r) {
			diag("cycle %d (%s): delete_module: %s", cycle, desc,
			     strerror(-r));
			bad++;
			sh->pause = 0;
			break;
		}
		if (!module_gone(MODULE_NAME)) {
			diag("cycle %d: module or %s still there after "
			     "delete_module", cycle, STATCTL_DIR);
			bad++;
		}
		sh->pause = 0;
		done++;
		if (last)
			break;
		r = module_load(ko, params);
		phase_end(&ph, PH_LOAD);
		if (r) {
			diag("cycle %d: finit_module(%s): %s", cycle, ko,
			     strerror(-r));
			bad++;
			break;
		}
		if (!module_loaded(MODULE_NAME) || !statctl_has("stats")) {
			diag("cycle %d: module not live after load", cycle);
			bad++;
			break;
		}
		if (defaults &&
		    (knob_is("flush_mode", "kernel") ||
		     knob_is("flush_period_ms", "2000") ||
		     knob_is("update_flush_every", "0") ||
		     knob_is("stock_hooks", "1")))
			bad++;
		if (cycle % 10 == 0)
			diag("cycle %d (last unload from %s): %.0f s so far, "
			     "stats reads %lu (%lu failed while unloaded)",
			     cycle, desc, (now_ns() - t0) / 1e9, sh->reads,
			     sh->fails);
		if (waitpid(fl.pid, &status, WNOHANG) ||
		    waitpid(ms.pid, &status, WNOHANG) ||
		    waitpid(sr.pid, &status, WNOHANG)) {
			diag("cycle %d: a load child died", cycle);
			bad++;
			break;
		}
	}
	diag("%d unloads in %.1f s, the last from %s", done,
	     (now_ns() - t0) / 1e9, desc);
	phases_report(&ph);
	if (done < MIN_CYCLES) {
		diag("%d of %d cycles ran, fewer than %d", done, cycles,
		     MIN_CYCLES);
		bad++;
	}
out:
	child_kill(&sr);
	child_kill(&ms);
	child_kill(&fl);
	cg_destroy(cg);

	if (!module_loaded(MODULE_NAME)) {
		bad += kernel_flush_restored(&targets);
		r = module_load(ko, params);
		if (r) {
			diag("final finit_module: %s", strerror(-r));
			bad++;
		}
	}
	if (!module_loaded(MODULE_NAME) || !statctl_has("stats")) {
		diag("module not loaded at the end");
		bad++;
	}
	if (!kmsg_clean(&mark))
		bad++;
	return bad ? KSFT_FAIL : KSFT_PASS;
}

static const struct test tests[] = {
	{ test_cycles, "unload_cycles_under_load" },
};

int main(void)
{
	const char *env = getenv("MEMCG_STATCTL_FAULT_CYCLES");
	uint64_t v;

	if (env && *env) {
		if (parse_u64(env, &v) || v < MIN_CYCLES || v > CYCLES_MAX)
			ksft_exit_fail_msg("MEMCG_STATCTL_FAULT_CYCLES=%s: not a number of cycles from %d to %d\n",
					   env, MIN_CYCLES, CYCLES_MAX);
		cycles = (int)v;
	}
	require_module();
	flush = flush_control_state();
	if (flush == KSFT_FAIL)
		ksft_exit_fail_msg("flush control not available\n");
	return run_test_table(tests, ARRAY_SIZE(tests));
}
