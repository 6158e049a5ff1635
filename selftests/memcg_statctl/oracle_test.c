// SPDX-License-Identifier: GPL-2.0
/*
 * The counting hooks against an independent oracle, through every path a
 * call can take to the module's counting code:
 *   after_load    the module counts through direct trampolines, then a
 *                 tracefs kprobe joins each hooked function (ftrace shares
 *                 the function: the trampoline is reached through
 *                 ftrace_regs_caller);
 *   before_load   the kprobes are there first, the module joins them;
 *   variant_switch a function whose rows change (stock_hooks toggled while
 *                 the update side counts) moves between trampolines;
 *   bpf_at_load   a BPF fentry program holds one hooked function's direct
 *                 call slot at load: that function's rows fall back to an
 *                 ordinary ftrace_ops (`hooks` says `ftrace`), the others
 *                 stay direct;
 *   bpf_runtime   with the module counting directly, a BPF fentry program
 *                 attaches all the same: the module moves that function to
 *                 an ftrace_ops first (module/bpf_share.c), counts it there
 *                 exactly, and goes back to direct once the program left.
 *   ipmodify      an IPMODIFY ftrace user (the helper module
 *                 mcs_ipmodify_peer, registering what a livepatch or a
 *                 kprobe with a post_handler registers) loads on a function
 *                 the module counts directly, and the module loads on a
 *                 function it holds: `hooks` says `direct+ipmodify`, the
 *                 counts stay exact.
 * The oracle: a kprobe event on each hooked function that records the
 * caller's return address ($stack0 at entry), and a hist trigger keyed on
 * it (.sym), so that a row's "calls from CALLER" are the hitcounts of the
 * keys inside CALLER. Both sides see the same calls; the module's deltas
 * (each row's hits, each counter) must lie between the oracle's deltas
 * over the workload and over the workload plus the reads around it, plus
 * the calls the kprobe said it missed (kprobe_profile), which on an idle
 * guest with no miss is exact equality.
 * Every row of the update side is included (flush_mode=threshold). Its
 * counter stat_updates.amount has an oracle of its own: a second hist on
 * each update function's kprobe, keyed on the stat item and the delta
 * (arguments 1 and 2), from which the test computes the size of every
 * update as the kernel counts it (6.12 and 7.x count the items kept in
 * bytes or KiB in pages; the items' numbers come from vmlinux's BTF).
 */
#define _GNU_SOURCE

#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/include/bpf_fentry.h"
#include "lib.h"

#define ROWS_MAX	32
#define EV_GROUP	"mcsoracle"
#define FAULT_PAGES	2048
#define FILES		300
#define STAT_READS	50
/* On every generation, the first charge-stock row's function. */
#define BPF_TARGET	"try_charge_memcg"
#define PEER_NAME	"mcs_ipmodify_peer"
/* where scripts/vm/guest-stage.sh puts it, when ko_find() finds none */
#define PEER_KO_STAGED	"/lib/" PEER_NAME ".ko"

struct row {
	char name[NAME_LEN];
	char target[NAME_LEN * 2];
	char caller[NAME_LEN * 2];
	int hook;		/* index in `hooks` */
	int probe;		/* index in targets[] */
};

static struct row rows[ROWS_MAX];
static int nrows;
static char targets[ROWS_MAX][NAME_LEN * 2];
static int ntargets;

/* How an update function's argument 2 reads, by probe: */
enum update_arg {
	NOT_UPDATE,		/* not an update function */
	STAT_INT,		/* a stat delta, int */
	STAT_LONG,		/* a stat delta, long (7.x lruvec) */
	EVENT_COUNT,		/* an event count, unsigned long */
};

static enum update_arg update_args[ROWS_MAX];

static const char *const update_fetch[] = {
	[STAT_INT] = "s32", [STAT_LONG] = "s64", [EVENT_COUNT] = "u64",
};

/* The second hist of an update function's kprobe. */
#define AMOUNT_HIST	"hist:keys=idx,val:size=8192"

static char generation[16];

static enum update_arg update_arg_of(const char *target)
{
	if (strstr(target, "count_memcg_events"))
		return EVENT_COUNT;
	if (!strcmp(generation, "7.x") &&
	    !strcmp(target, "__mod_memcg_lruvec_state"))
		return STAT_LONG;
	return STAT_INT;
}

/* The attached counting rows, and the distinct functions they watch. */
static int rows_select(void)
{
	struct hooks hs;
	int i, j;

	if (hooks_read(&hs))
		return -1;
	nrows = ntargets = 0;
	memset(update_args, 0, sizeof(update_args));
	for (i = 0; i < hs.n && nrows < ROWS_MAX; i++) {
		struct row *r = &rows[nrows];

		if (!hook_is_counting(&hs.h[i]))
			continue;
		snprintf(r->name, sizeof(r->name), "%s", hs.h[i].name);
		snprintf(r->target, sizeof(r->target), "%s", hs.h[i].target);
		snprintf(r->caller, sizeof(r->caller), "%s", hs.h[i].caller);
		r->hook = i;
		for (j = 0; j < ntargets && strcmp(targets[j], r->target); j++)
			;
		if (j == ntargets)
			snprintf(targets[ntargets++], sizeof(targets[0]), "%s",
				 r->target);
		r->probe = j;
		if (!strncmp(r->name, "update.", 7))
			update_args[j] = update_arg_of(r->target);
		nrows++;
	}
	if (!nrows)
		diag("no counting hook is attached");
	return nrows ? 0 : -1;
}

/* The counter a row feeds: its own name, or stat_updates for update.* */
static const char *row_counter(const struct row *r)
{
	return strncmp(r->name, "update.", 7) ? r->name : "stat_updates";
}

/* ---- the oracle ------------------------------------------------------- */

static int ev_path(char *buf, size_t size, int probe, const char *file)
{
	const char *t = tracefs();

	if (!t)
		return -ENOENT;
	snprintf(buf, size, "%s/events/" EV_GROUP "/t%d/%s", t, probe, file);
	return 0;
}

static int kprobe_events(const char *cmd)
{
	char path[256];
	const char *t = tracefs();

	if (!t)
		return -ENOENT;
	snprintf(path, sizeof(path), "%s/kprobe_events", t);
	return write_str(path, cmd);	/* no O_TRUNC: appends */
}

static void probes_remove(void)
{
	char path[256], cmd[64];
	int i;

	for (i = 0; i < ntargets; i++) {
		if (!ev_path(path, sizeof(path), i, "trigger")) {
			write_str(path, "!hist:keys=caller.sym");
			if (update_args[i])
				write_str(path, "!" AMOUNT_HIST);
		}
		snprintf(cmd, sizeof(cmd), "-:" EV_GROUP "/t%d", i);
		kprobe_events(cmd);
	}
}

static int probes_add(void)
{
	char path[256], cmd[320];
	int i, r;

	for (i = 0; i < ntargets; i++) {
		int n = snprintf(cmd, sizeof(cmd),
				 "p:" EV_GROUP "/t%d %.127s caller=$stack0:x64",
				 i, targets[i]);

		/* x86-64: arguments 1 and 2 in %si and %dx at entry */
		if (update_args[i])
			snprintf(cmd + n, sizeof(cmd) - n,
				 " idx=%%si:s32 val=%%dx:%s",
				 update_fetch[update_args[i]]);
		r = kprobe_events(cmd);
		if (!r && !(r = ev_path(path, sizeof(path), i, "trigger")))
			r = write_str(path, "hist:keys=caller.sym");
		if (!r && update_args[i])
			r = write_str(path, AMOUNT_HIST);
		if (r) {
			diag("kprobe + hist on %s: %s", targets[i], strerror(-r));
			probes_remove();
			return r;
		}
	}
	return 0;
}

/* The calls on probe @probe's hist from @caller ("-": any). */
static int hist_sum(int probe, const char *caller, uint64_t *sum)
{
	char path[256];

	if (ev_path(path, sizeof(path), probe, "hist"))
		return -ENOENT;
	return hist_caller_sum(path, "caller", caller, sum);
}

/*
 * kprobe_profile's "missed" of each event: calls the kprobe skipped
 * because another kprobe was running on that cpu (an interrupt or a
 * softirq, such as RCU callbacks freeing slab objects, that lands in a
 * kprobe's handler). The module counts those calls; the oracle can only
 * say how many it missed.
 */
static int kprobe_missed(uint64_t *missed)
{
	static char buf[1 << 16];
	char path[256], *line, *save;
	const char *t = tracefs();
	int probe;

	if (!t)
		return -ENOENT;
	snprintf(path, sizeof(path), "%s/kprobe_profile", t);
	if (read_file(path, buf, sizeof(buf)) < 0)
		return -EIO;
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		unsigned long long hits, miss;

		if (sscanf(line, " t%d %llu %llu", &probe, &hits, &miss) == 3 &&
		    probe >= 0 && probe < ntargets)
			missed[probe] = miss;
	}
	return 0;
}

/* ---- the kernel's size of an update ------------------------------------ */

/*
 * The stat items the kernel keeps in bytes (unit 1) or KiB (1024), from
 * memcg_page_state_unit() of mm/memcontrol.c (6.12, 7.3); -1: not in this
 * kernel's BTF.
 */
static struct {
	const char *name;
	long unit;
	long item;
} subpage[] = {
	{ "MEMCG_PERCPU_B", 1, -1 }, { "MEMCG_ZSWAP_B", 1, -1 },
	{ "NR_SLAB_RECLAIMABLE_B", 1, -1 },
	{ "NR_SLAB_UNRECLAIMABLE_B", 1, -1 },
	{ "NR_KERNEL_STACK_KB", 1024, -1 },
};

static void subpage_resolve(void)
{
	size_t i;
	int r;

	for (i = 0; i < ARRAY_SIZE(subpage); i++) {
		r = btf_enum_value(subpage[i].name, &subpage[i].item);
		if (r) {
			diag("%s not in vmlinux's BTF: %s", subpage[i].name,
			     strerror(-r));
			subpage[i].item = -1;
		}
	}
}

/*
 * What memcg_rstat_updated() adds for one update: |val| on 6.1; on 6.12
 * and 7.x a byte or KiB item is first turned into pages as
 * memcg_state_val_in_pages() does, with each generation's arithmetic
 * (6.12: int, then an unsigned division; 7.x: mult_frac() on |val|), and
 * at least 1.
 */
static uint64_t kernel_amount(enum update_arg a, long idx, int64_t val)
{
	const int64_t page = PAGE_SZ;
	int64_t unit = page;
	uint64_t x, r;
	size_t i;

	if (a == EVENT_COUNT)
		return (uint64_t)val;
	for (i = 0; i < ARRAY_SIZE(subpage); i++)
		if (subpage[i].item == idx)
			unit = subpage[i].unit;
	if (!strcmp(generation, "6.1") || !val || unit == page)
		return val < 0 ? -(uint64_t)val : (uint64_t)val;
	if (!strcmp(generation, "6.12")) {
		int v = (int)val * (int)unit;
		unsigned long q = (unsigned long)v / page;
		int pages = (int)(q > 1 ? q : 1);

		return pages < 0 ? -(int64_t)pages : pages;
	}
	x = val < 0 ? -(uint64_t)val : (uint64_t)val;
	r = x / page * unit + x % page * unit / page;
	return r ? r : 1;
}

/* The sum of the kernel's sizes on probe @probe's (idx, val) hist. */
static int hist_amount(int probe, uint64_t *sum)
{
	static char buf[1 << 20];
	char path[256], *line, *save;
	ssize_t n;

	if (ev_path(path, sizeof(path), probe, "hist"))
		return -ENOENT;
	n = read_file(path, buf, sizeof(buf));
	if (n < 0)
		return n;
	*sum = 0;
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *i = strstr(line, "idx:"), *v = strstr(line, "val:");
		char *hc = strstr(line, "hitcount:");
		unsigned long long d;

		if (sscanf(line, "Dropped: %llu", &d) == 1 && d) {
			diag("the hist on %s dropped %llu keys", targets[probe],
			     d);
			return -ENOSPC;
		}
		if (!i || !v || !hc)
			continue;
		/* a hist prints every key unsigned: -1 as 2^64 - 1 */
		*sum += strtoull(hc + 9, NULL, 10) *
			kernel_amount(update_args[probe],
				      (int)strtoull(i + 4, NULL, 10),
				      (int64_t)strtoull(v + 4, NULL, 10));
	}
	return 0;
}

struct snap {
	uint64_t oracle[ROWS_MAX];
	uint64_t missed[ROWS_MAX];	/* by probe */
	uint64_t amount[ROWS_MAX];	/* by probe, update functions */
};

static int oracle_snap(struct snap *s)
{
	int i, r;

	memset(s->missed, 0, sizeof(s->missed));
	r = kprobe_missed(s->missed);
	if (r) {
		diag("kprobe_profile: %s", strerror(-r));
		return r;
	}
	for (i = 0; i < nrows; i++) {
		r = hist_sum(rows[i].probe, rows[i].caller, &s->oracle[i]);
		if (r) {
			diag("hist of %s: %s", rows[i].target, strerror(-r));
			return r;
		}
	}
	for (i = 0; i < ntargets; i++) {
		if (!update_args[i])
			continue;
		r = hist_amount(i, &s->amount[i]);
		if (r) {
			diag("amount hist of %s: %s", targets[i], strerror(-r));
			return r;
		}
	}
	return 0;
}

/* ---- the workload ------------------------------------------------------ */

struct window {
	struct snap a, b, c, d;		/* oracle: a [module] b ... c [module] d */
	struct hooks k0, k1;
	struct stats s0, s1;
};

static int window_oracle(void *ctx, int i)
{
	struct window *w = ctx;
	struct snap *s[] = { &w->a, &w->b, &w->c, &w->d };

	return oracle_snap(s[i]);
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

	return oracle_window("oracle", &load, window_oracle, window_module, w);
}

/* Calls the oracle's kprobe on @probe skipped during the window. */
static uint64_t missed(const struct window *w, int probe)
{
	return w->d.missed[probe] - w->a.missed[probe];
}

/*
 * stat_updates.amount against the kernel's sizes of the same calls. A call
 * the kprobe missed has an unknown size: then only the lower bound holds.
 */
static int compare_amount(const struct window *w)
{
	uint64_t lo = 0, hi = 0, miss = 0;
	bool any = false;
	int i;

	for (i = 0; i < ntargets; i++) {
		if (!update_args[i])
			continue;
		any = true;
		lo += w->c.amount[i] - w->b.amount[i];
		hi += w->d.amount[i] - w->a.amount[i];
		miss += missed(w, i);
	}
	if (!any)
		return 0;
	diag("counter stat_updates.amount: +%" PRIu64 "%s", lo,
	     miss ? " or more (the kprobes missed calls)" : "");
	return bracket("counter stat_updates.amount",
		       stats_delta(&w->s0, &w->s1, "stat_updates.amount"),
		       lo, miss ? UINT64_MAX : hi);
}

static int compare(const struct window *w)
{
	uint64_t lo, hi, total = 0;
	int i, j, bad = 0;
	char what[400];

	for (i = 0; i < nrows; i++) {
		const struct row *r = &rows[i];

		lo = w->c.oracle[i] - w->b.oracle[i];
		hi = w->d.oracle[i] - w->a.oracle[i] + missed(w, r->probe);
		snprintf(what, sizeof(what), "hook %.63s (%.127s from %.127s)", r->name,
			 r->target, r->caller);
		bad += bracket(what, w->k1.h[r->hook].hits - w->k0.h[r->hook].hits,
			       lo, hi);
		diag("%s: +%" PRIu64 "%s", what, lo, lo == hi ? "" : " (or more)");
		if (missed(w, r->probe))
			diag("  the oracle's kprobe on %s missed %" PRIu64
			     " calls (a kprobe interrupted by another)",
			     r->target, missed(w, r->probe));
		total += lo;
	}
	/* A counter is the sum of the rows feeding it. */
	for (i = 0; i < nrows; i++) {
		const char *name = row_counter(&rows[i]);

		for (j = 0; j < i && strcmp(row_counter(&rows[j]), name); j++)
			;
		if (j < i)
			continue;
		lo = hi = 0;
		for (j = i; j < nrows; j++) {
			if (strcmp(row_counter(&rows[j]), name))
				continue;
			lo += w->c.oracle[j] - w->b.oracle[j];
			hi += w->d.oracle[j] - w->a.oracle[j] +
			      missed(w, rows[j].probe);
		}
		snprintf(what, sizeof(what), "counter %.63s", name);
		bad += bracket(what, stats_delta(&w->s0, &w->s1, name), lo, hi);
	}
	bad += compare_amount(w);
	if (!total) {
		diag("the workload made no counted call");
		bad++;
	}
	return bad;
}

static int oracle_run(const char *other, const char *other_mech)
{
	struct window w;
	int bad;

	if (probes_add())
		return KSFT_FAIL;
	bad = hooks_mechs_are("direct", other, other_mech);
	if (!bad)
		bad = measure(&w) ? 1 : compare(&w);
	probes_remove();
	return bad ? KSFT_FAIL : KSFT_PASS;
}

/* ---- module states ----------------------------------------------------- */

static int set_mode(const char *mode)
{
	int r = statctl_write("flush_mode", mode, strlen(mode)) < 0;

	if (r)
		diag("flush_mode=%s failed", mode);
	return r;
}

/* Back to how the job loaded it: defaults. */
static void restore(void)
{
	probes_remove();
	module_reload("");
}

static bool flush_available(void)
{
	char v[64];

	return !version_get("flush_control", v, sizeof(v)) &&
	       !strcmp(v, "available");
}

/* Parameters that load the module with every counting row attached. */
#define ALL_ROWS	"flush_mode=threshold objcg_flush_hooks=1"

/* Every counting row attached: stock, opt-in and update side. */
static int all_rows(void)
{
	if (statctl_has("objcg_flush_hooks") &&
	    statctl_set("objcg_flush_hooks", "1"))
		return -1;
	if (flush_available() && set_mode("threshold"))
		return -1;
	return rows_select();
}

static int test_after_load(void)
{
	int ret;

	if (all_rows())
		return KSFT_FAIL;
	ret = oracle_run(NULL, NULL);
	set_mode("kernel");
	return ret;
}

/* The tests that reload the module need its file; without, they skip. */
static bool have_ko(void)
{
	if (module_ko_path())
		return true;
	diag("no module file to reload (" KO_SOURCES ")");
	return false;
}

static int test_before_load(void)
{
	struct window w;
	int bad = 1;

	if (!have_ko())
		return KSFT_SKIP;
	if (all_rows() || module_reload(NULL) || probes_add())
		goto out;
	if (module_reload(ALL_ROWS))
		goto out;
	bad = hooks_mechs_are("direct", NULL, NULL);
	if (!bad)
		bad = measure(&w) ? 1 : compare(&w);
out:
	restore();
	return bad ? KSFT_FAIL : KSFT_PASS;
}

static int test_bpf_at_load(void)
{
	int link, prog, ret = KSFT_FAIL;

	if (btf_func_id(BPF_TARGET) < 0) {
		diag("no BTF for %s: %d", BPF_TARGET, btf_func_id(BPF_TARGET));
		return KSFT_SKIP;
	}
	if (!have_ko())
		return KSFT_SKIP;
	if (all_rows() || module_reload(NULL))
		goto out;
	link = bpf_fentry_attach(BPF_TARGET, &prog);
	if (link < 0) {
		diag("BPF fentry on %s: %s", BPF_TARGET, strerror(-link));
		goto out;
	}
	if (!module_reload(ALL_ROWS))
		ret = oracle_run(BPF_TARGET, "ftrace");
	module_reload(NULL);
	close(link);
	close(prog);
out:
	restore();
	return ret;
}

static int test_bpf_runtime(void)
{
	int link, prog = -1, bad = 0;

	if (btf_func_id(BPF_TARGET) < 0)
		return KSFT_SKIP;
	/* stock rows only: the update side stays off (flush_mode=kernel) */
	if (rows_select())
		return KSFT_FAIL;
	bad += hooks_mechs_are("direct", NULL, NULL);
	link = bpf_fentry_attach(BPF_TARGET, &prog);
	if (link < 0) {
		diag("BPF fentry on %s while the module counts directly: %s",
		     BPF_TARGET, strerror(-link));
		return KSFT_FAIL;
	}
	/* the module made room: that function's rows count through ftrace */
	if (oracle_run(BPF_TARGET, "ftrace") != KSFT_PASS)
		bad++;
	close(link);
	close(prog);
	/* the program gone, the function is counted directly again */
	bad += hooks_mechs_are("direct", NULL, NULL);
	return bad ? KSFT_FAIL : KSFT_PASS;
}

/*
 * The update side alone, then the stock counters joining it: on 6.1 and
 * 6.12 __mod_memcg_lruvec_state() carries an update row (every caller)
 * and stock rows (some callers), so its site moves from the single-row
 * trampoline to the walk (modify_ftrace_direct) and back.
 */
static int test_variant_switch(void)
{
	int ret = KSFT_FAIL;

	if (!flush_available() || !statctl_has("stock_hooks"))
		return KSFT_SKIP;
	if (set_mode("threshold"))
		return KSFT_FAIL;
	if (statctl_write("stock_hooks", "0", 1) < 0 || rows_select() ||
	    oracle_run(NULL, NULL) != KSFT_PASS)
		goto out;
	if (statctl_write("stock_hooks", "1", 1) < 0 || rows_select() ||
	    oracle_run(NULL, NULL) != KSFT_PASS)
		goto out;
	if (statctl_write("stock_hooks", "0", 1) < 0 || rows_select())
		goto out;
	ret = oracle_run(NULL, NULL);
out:
	statctl_write("stock_hooks", "1", 1);
	set_mode("kernel");
	return ret;
}

/* $MCS_PEER_KO, beside the test (a kselftest package), modules.dep, /lib */
static const char *peer_ko(void)
{
	const char *ko = ko_find(PEER_NAME, "MCS_PEER_KO");

	return ko ? ko : PEER_KO_STAGED;
}

static int peer_load(void)
{
	int r = module_load(peer_ko(), "func=" BPF_TARGET);

	if (r)
		diag("%s func=%s: %s", PEER_NAME, BPF_TARGET, strerror(-r));
	return r;
}

static int test_ipmodify(void)
{
	int bad = 0;

	if (!path_exists(peer_ko())) {
		diag("no %s", peer_ko());
		return KSFT_SKIP;
	}
	if (!have_ko())
		return KSFT_SKIP;
	/* the peer joins the module's direct trampoline */
	if (all_rows() || peer_load())
		goto out;
	bad += oracle_run(BPF_TARGET, "direct+ipmodify") != KSFT_PASS;
	if (module_unload(PEER_NAME, 10000))
		bad++;
	bad += hooks_mechs_are("direct", NULL, NULL);
	/* the module joins the peer */
	if (module_reload(NULL) || peer_load() || module_reload(ALL_ROWS))
		goto out;
	bad += hooks_mechs_are("direct", BPF_TARGET, "direct+ipmodify");
	if (module_unload(PEER_NAME, 10000))
		bad++;
	bad += hooks_mechs_are("direct", NULL, NULL);
	restore();
	return bad ? KSFT_FAIL : KSFT_PASS;
out:
	if (module_loaded(PEER_NAME))
		module_unload(PEER_NAME, 10000);
	restore();
	return KSFT_FAIL;
}

int main(void)
{
	static const struct test tests[] = {
		{ test_after_load, "after_load" },
		{ test_before_load, "before_load" },
		{ test_variant_switch, "variant_switch" },
		{ test_bpf_at_load, "bpf_at_load" },
		{ test_bpf_runtime, "bpf_runtime" },
		{ test_ipmodify, "ipmodify" },
	};

	require_module();
	if (!tracefs())
		ksft_exit_skip("no tracefs\n");
	if (version_get("generation", generation, sizeof(generation)))
		ksft_exit_fail_msg("no generation in `version`\n");
	subpage_resolve();
	objcg_flush_hooks_on();
	return run_test_table(tests, ARRAY_SIZE(tests));
}
