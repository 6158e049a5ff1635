// SPDX-License-Identifier: GPL-2.0
/*
 * BPF trampolines beside the module (module/bpf_share.c): fentry and fexit
 * programs attach to every function the module counts or redirects, in
 * either order, and both sides stay exact.
 *   module_first  the module counts directly (every row attached); a
 *                 counting fentry and a counting fexit program attach to
 *                 each function it counts: its rows move to `ftrace`, each
 *                 row that takes every caller equals both programs' counts
 *                 over a window, and once the programs leave every row is
 *                 `direct` again;
 *   bpf_first     the programs are there first and the module loads beside
 *                 them (`ftrace`), the same window; then the programs of
 *                 one function at a time leave, and that function's rows
 *                 alone return to `direct`;
 *   redirects     the programs on each function the module redirects (the
 *                 flush points), fentry first, then fexit first (6.1 gets
 *                 the first order wrong without the module's help), in
 *                 every flush_mode: they attach and count
 *                 each call (fentry = fexit = the redirect's hits), and the
 *                 redirect still serves: reader requests and, in `never`,
 *                 the kernel's periodic flush, are counted by the module;
 *   bpftrace      Debian's bpftrace, kfunc: and kretfunc: on the first
 *                 row's function that counts every caller (try_charge_memcg)
 *                 while the module counts it: both attach,
 *                 and count what the module counts; `direct` after it exits
 *                 (skipped where bpftrace is not in the guest);
 *   storm         at once: a fault workload, the knobs toggled, counting
 *                 programs attached and detached MEMCG_STATCTL_BPF_STORM
 *                 times (default 100), bpftrace started and stopped
 *                 MEMCG_STATCTL_BPF_STORM_BT times (default 3: each start
 *                 compiles its program, about 45 s under TCG), the module
 *                 unloaded and reloaded five times; afterwards a program
 *                 attached before an unload still counts, no ftrace
 *                 callback of the
 *                 module is left after its unload, the reloaded module is
 *                 `direct` everywhere and equals a tracefs kprobe and the
 *                 programs over a quiet window, and the kernel log is clean.
 * Windows are harness.h's oracle_window(): the module's delta must lie
 * between the oracle's deltas over the workload and over the workload
 * plus the reads around it.
 */
#define _GNU_SOURCE

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/include/bpf_fentry.h"
#include "lib.h"

#define FUNCS_MAX	24
#define BPFTRACE	"/usr/bin/bpftrace"
#define KP_GROUP	"mcsbpfshare"

/* One hooked function, its two programs and its rows that take any caller. */
struct func {
	char name[NAME_LEN * 2];
	struct bpf_counter entry, exit;
	bool attached;
	bool no_btf;			/* not a BTF function: no program */
	char rows[4][NAME_LEN];		/* rows with caller "-" */
	int nrows;
};

static struct func funcs[FUNCS_MAX];
static int nfuncs;
/*
 * The order of a function's two programs. fentry first, then fexit, is
 * the case 6.1 gets wrong on a function an IPMODIFY user holds (a flush
 * redirect) unless the module tells the trampoline: `redirects` runs both.
 */
static bool fexit_first;

static bool is_flush_redirect(const struct hook *h)
{
	return hook_is_flush_redirect(h) && !strcmp(h->state, "attached");
}

/* The functions of the hooks that @pick accepts, each once. */
static int funcs_select(bool (*pick)(const struct hook *h))
{
	struct hooks hs;
	int i, j;

	if (hooks_read(&hs))
		return -1;
	nfuncs = 0;
	for (i = 0; i < hs.n; i++) {
		const struct hook *h = &hs.h[i];
		struct func *f = NULL;

		if (!pick(h))
			continue;
		for (j = 0; j < nfuncs; j++)
			if (!strcmp(funcs[j].name, h->target))
				f = &funcs[j];
		if (!f) {
			if (nfuncs == FUNCS_MAX)
				return -1;
			f = &funcs[nfuncs++];
			memset(f, 0, sizeof(*f));
			snprintf(f->name, sizeof(f->name), "%s", h->target);
			f->entry.map_fd = f->exit.map_fd = -1;
			f->entry.prog_fd = f->exit.prog_fd = -1;
			f->entry.link_fd = f->exit.link_fd = -1;
			f->no_btf = btf_func_id(f->name) < 0;
			if (f->no_btf)
				diag("%s: no BTF function of that name, no program",
				     f->name);
		}
		if (!strcmp(h->caller, "-") && f->nrows < 4)
			snprintf(f->rows[f->nrows++], NAME_LEN, "%s", h->name);
	}
	if (!nfuncs)
		diag("no hooked function to attach to");
	return nfuncs ? 0 : -1;
}

static struct func *func_named(const char *name)
{
	int i;

	for (i = 0; i < nfuncs; i++)
		if (!strcmp(funcs[i].name, name) && !funcs[i].no_btf)
			return &funcs[i];
	return NULL;
}

static int func_attach(struct func *f)
{
	int r;

	if (f->no_btf || f->attached)
		return 0;
	struct bpf_counter *first = fexit_first ? &f->exit : &f->entry;
	struct bpf_counter *second = fexit_first ? &f->entry : &f->exit;

	r = bpf_counter_attach(first, f->name, fexit_first);
	if (r) {
		diag("%s on %s: %s", fexit_first ? "fexit" : "fentry", f->name,
		     strerror(-r));
		return r;
	}
	r = bpf_counter_attach(second, f->name, !fexit_first);
	if (r) {
		diag("%s on %s: %s", fexit_first ? "fentry" : "fexit", f->name,
		     strerror(-r));
		bpf_counter_detach(first);
		return r;
	}
	f->attached = true;
	return 0;
}

static void func_detach(struct func *f)
{
	bpf_counter_detach(&f->exit);
	bpf_counter_detach(&f->entry);
	f->attached = false;
}

static int funcs_attach(void)
{
	int i;

	for (i = 0; i < nfuncs; i++)
		if (func_attach(&funcs[i]))
			return -1;
	return 0;
}

static void funcs_detach(void)
{
	int i;

	for (i = 0; i < nfuncs; i++)
		func_detach(&funcs[i]);
}

/* ---- windows: the programs as the oracle of the module's rows ------- */

struct snap {
	uint64_t entry[FUNCS_MAX], exit[FUNCS_MAX];
	/* the programs' recursion misses: calls they did not count */
	uint64_t entry_miss[FUNCS_MAX], exit_miss[FUNCS_MAX];
};

struct window {
	struct snap o[4];
	struct hooks k[2];
};

static int window_oracle(void *ctx, int i)
{
	struct window *w = ctx;
	int j, r;

	for (j = 0; j < nfuncs; j++) {
		if (!funcs[j].attached)
			continue;
		r = bpf_counter_read(&funcs[j].entry, &w->o[i].entry[j]) ?:
		    bpf_counter_read(&funcs[j].exit, &w->o[i].exit[j]) ?:
		    bpf_counter_misses(&funcs[j].entry,
				       &w->o[i].entry_miss[j]) ?:
		    bpf_counter_misses(&funcs[j].exit, &w->o[i].exit_miss[j]);
		if (r) {
			diag("reading the programs of %s: %s", funcs[j].name,
			     strerror(-r));
			return r;
		}
	}
	return 0;
}

static int window_module(void *ctx, int i)
{
	struct window *w = ctx;

	return hooks_read(&w->k[i]);
}

static uint64_t row_delta(const struct window *w, const char *row)
{
	const struct hook *a = hook_find(&w->k[0], row);
	const struct hook *b = hook_find(&w->k[1], row);

	return a && b ? b->hits - a->hits : 0;
}

/* Every attached function's any-caller rows against both programs. */
static int window_compare(const struct window *w, int *compared)
{
	int i, j, bad = 0;
	char what[NAME_LEN * 4];

	for (i = 0; i < nfuncs; i++) {
		const struct func *f = &funcs[i];

		if (!f->attached)
			continue;
		for (j = 0; j < f->nrows; j++) {
			uint64_t v = row_delta(w, f->rows[j]);

			uint64_t em = w->o[3].entry_miss[i] - w->o[0].entry_miss[i];
			uint64_t xm = w->o[3].exit_miss[i] - w->o[0].exit_miss[i];

			snprintf(what, sizeof(what), "%s fentry", f->rows[j]);
			bad += bracket(what, v,
				       w->o[2].entry[i] - w->o[1].entry[i],
				       w->o[3].entry[i] - w->o[0].entry[i] + em);
			snprintf(what, sizeof(what), "%s fexit", f->rows[j]);
			bad += bracket(what, v,
				       w->o[2].exit[i] - w->o[1].exit[i],
				       w->o[3].exit[i] - w->o[0].exit[i] + xm);
			diag("%s on %s: module +%llu, fentry +%llu, fexit +%llu (recursion misses %llu, %llu)",
			     f->rows[j], f->name, (unsigned long long)v,
			     (unsigned long long)(w->o[2].entry[i] - w->o[1].entry[i]),
			     (unsigned long long)(w->o[2].exit[i] - w->o[1].exit[i]),
			     (unsigned long long)em, (unsigned long long)xm);
			(*compared)++;
		}
	}
	return bad;
}

static int window_check(const char *name)
{
	struct mixed_load load = { .pages = 2048, .files = 300, .reads = 50 };
	struct window w;
	int compared = 0, bad;

	memset(&w, 0, sizeof(w));
	if (oracle_window(name, &load, window_oracle, window_module, &w))
		return 1;
	bad = window_compare(&w, &compared);
	if (!compared) {
		diag("no row that takes every caller to compare");
		bad++;
	}
	return bad;
}

/* ---- the module's knobs ------------------------------------------------ */

static int set_knob(const char *knob, const char *val)
{
	if (!statctl_has(knob))
		return 0;
	return statctl_set(knob, val);
}

/* Every counting row attached: stock, update side, opt-in, attribution. */
static int all_rows(void)
{
	int r = stock_attribution_on();

	if (r && r != -ENOENT && r != -EOPNOTSUPP)
		return r;
	return set_knob("stock_hooks", "1") ?:
	       set_knob("objcg_flush_hooks", "1") ?:
	       (flush_control_state() == KSFT_PASS ?
		set_knob("flush_mode", "threshold") : 0);
}

/* The module's defaults for what all_rows() and the storm change. */
static void default_rows(void)
{
	set_knob("flush_mode", "kernel");
	set_knob("stock_attribution", "0");
	set_knob("objcg_flush_hooks", "0");
	set_knob("stock_hooks", "1");
}

static bool bpf_share_on(void)
{
	char v[32];

	return !version_get("bpf_share", v, sizeof(v)) && !strcmp(v, "on");
}

/* ---- the tests ---------------------------------------------------------- */

static int test_module_first(void)
{
	int bad = 0;

	if (all_rows() || funcs_select(hook_is_counting))
		return KSFT_FAIL;
	bad += hooks_mechs_are("direct", NULL, NULL);
	if (funcs_attach()) {
		funcs_detach();
		default_rows();
		return KSFT_FAIL;
	}
	bad += hooks_mechs_are("ftrace", NULL, NULL);
	bad += window_check("bpf_share");
	funcs_detach();
	bad += hooks_mechs_are("direct", NULL, NULL);
	default_rows();
	return bad ? KSFT_FAIL : KSFT_PASS;
}

static int test_bpf_first(void)
{
	int i, bad = 0;

	if (!module_ko_path())
		return KSFT_SKIP;
	/* the module's defaults: stock rows only */
	if (module_reload("") || funcs_select(hook_is_counting))
		return KSFT_FAIL;
	if (funcs_attach() || module_reload("")) {
		funcs_detach();
		return KSFT_FAIL;
	}
	bad += hooks_mechs_are("ftrace", NULL, NULL);
	bad += window_check("bpf_share_first");
	/* one function at a time: its rows alone go back to direct */
	for (i = 0; i < nfuncs; i++) {
		if (!funcs[i].attached)
			continue;
		func_detach(&funcs[i]);
		bad += hooks_mechs_are(NULL, funcs[i].name, "direct");
	}
	bad += hooks_mechs_are("direct", NULL, NULL);
	return bad ? KSFT_FAIL : KSFT_PASS;
}

/* Reads of @cg's memory.stat: each a reader's flush request. */
static int stat_reads(const char *cg, int n)
{
	uint64_t v;

	while (n-- > 0)
		if (memstat_get(cg, "anon", &v))
			return -1;
	return 0;
}

static int redirect_window(const char *mode, const char *cg)
{
	struct window w;
	struct stats s0, s1;
	int i, j, bad = 0;

	memset(&w, 0, sizeof(w));
	if (window_oracle(&w, 0) || window_module(&w, 0) || stats_read(&s0) ||
	    stat_reads(cg, 100) || window_module(&w, 1) || stats_read(&s1) ||
	    window_oracle(&w, 3))
		return 1;
	/* a reader's request reaches the module in every mode but `kernel`,
	 * where 6.1's inlined gate keeps most from the redirect */
	if (strcmp(mode, "kernel") &&
	    stats_delta(&s0, &s1, "flush.requests") < 100) {
		diag("%s: 100 reads, %llu flush requests", mode,
		     (unsigned long long)stats_delta(&s0, &s1, "flush.requests"));
		bad++;
	}
	for (i = 0; i < nfuncs; i++) {
		struct func *f = &funcs[i];
		uint64_t en = w.o[3].entry[i] - w.o[0].entry[i];
		uint64_t ex = w.o[3].exit[i] - w.o[0].exit[i];

		if (!f->attached)
			continue;
		for (j = 0; j < f->nrows; j++) {
			uint64_t v = row_delta(&w, f->rows[j]);

			diag("%s: %s: redirected +%llu, fentry +%llu, fexit +%llu",
			     mode, f->name, (unsigned long long)v,
			     (unsigned long long)en, (unsigned long long)ex);
			/* the programs see every call, the module's own too */
			if (en < v || ex < v || en != ex) {
				diag("%s: %s: the programs missed calls", mode,
				     f->name);
				bad++;
			}
		}
	}
	return bad;
}

/* In `never`, the kernel's periodic flush still reaches the module. */
static int periodic_seen(void)
{
	uint64_t a, b;
	int waited;

	if (stat_get("flush.periodic", &a))
		return 0;	/* no periodic redirect on this kernel */
	for (waited = 0; waited < 20000; waited += 250) {
		sleep_ms(250);
		if (!stat_get("flush.periodic", &b) && b > a)
			return 0;
	}
	diag("never: no periodic flush in 20 s with the programs attached");
	return 1;
}

static int redirects(void)
{
	static const char *const modes[] = {
		"kernel", "threshold", "always", "never",
	};
	char cg[256];
	unsigned int m;
	int bad = 0;

	if (flush_control_state() != KSFT_PASS)
		return KSFT_SKIP;
	if (funcs_select(is_flush_redirect))
		return KSFT_FAIL;
	if (cg_create_leaf("bpf_share_redirect", cg, sizeof(cg)))
		return KSFT_FAIL;
	if (funcs_attach()) {
		bad++;
		goto out;
	}
	for (m = 0; m < ARRAY_SIZE(modes); m++) {
		if (set_knob("flush_mode", modes[m])) {
			bad++;
			continue;
		}
		bad += redirect_window(modes[m], cg);
		if (!strcmp(modes[m], "never"))
			bad += periodic_seen();
	}
out:
	funcs_detach();
	set_knob("flush_mode", "kernel");
	cg_destroy(cg);
	bad += hooks_mechs_are("direct", NULL, NULL);
	return bad ? KSFT_FAIL : KSFT_PASS;
}

static int test_redirects(void)
{
	struct kmsg_mark mark;
	int r;

	kmsg_mark(&mark, "bpf_share redirects");
	fexit_first = false;
	r = redirects();
	fexit_first = true;
	if (r != KSFT_FAIL)
		r = redirects() ?: r;
	/* ftrace's own warnings (it switches itself off after one) */
	return kmsg_clean(&mark) ? r : KSFT_FAIL;
}

/* ---- bpftrace ------------------------------------------------------------ */

/*
 * bpftrace counting kfunc:FN and kretfunc:FN into @e and @r while @fn
 * runs: started, waited for until its probes are live (`Attaching`), then
 * SIGINT; its maps are read from what it prints. 0, -ENOENT without
 * bpftrace, or -errno.
 */
static int bpftrace_count(const char *func, int (*fn)(void *), void *arg,
			  uint64_t *e, uint64_t *r)
{
	char prog[512], out[8192], *p;
	int pipefd[2], waited;
	ssize_t n, got = 0;
	pid_t pid;
	int st;

	if (access(BPFTRACE, X_OK))
		return -ENOENT;
	out[0] = '\0';
	snprintf(prog, sizeof(prog),
		 "kfunc:%s { @e = count(); } kretfunc:%s { @r = count(); } "
		 "interval:ms:50 { printf(\"live\\n\"); }", func, func);
	if (pipe(pipefd))
		return -errno;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (!pid) {
		dup2(pipefd[1], 1);
		dup2(pipefd[1], 2);
		close(pipefd[0]);
		execl(BPFTRACE, "bpftrace", "-e", prog, (char *)NULL);
		_exit(127);
	}
	close(pipefd[1]);
	fcntl(pipefd[0], F_SETFL, O_NONBLOCK);
	/* live: the first interval tick prints after every probe attached */
	for (waited = 0; waited < 120000 && !strstr(out, "live"); waited += 50) {
		n = read(pipefd[0], out + got, sizeof(out) - 1 - got);
		if (n > 0)
			got += n;
		out[got] = '\0';
		if (waitpid(pid, &st, WNOHANG) == pid) {
			diag("bpftrace exited: %.300s", out);
			close(pipefd[0]);
			return -EIO;
		}
		if (!strstr(out, "live"))
			sleep_ms(50);
	}
	if (!strstr(out, "live")) {
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
		close(pipefd[0]);
		diag("bpftrace not live in 120 s");
		return -ETIMEDOUT;
	}
	n = fn(arg);
	kill(pid, SIGINT);
	fcntl(pipefd[0], F_SETFL, 0);
	while (got < (ssize_t)sizeof(out) - 1 &&
	       (n = read(pipefd[0], out + got, sizeof(out) - 1 - got)) > 0)
		got += n;
	out[got] = '\0';
	close(pipefd[0]);
	waitpid(pid, &st, 0);
	if (n < 0)
		return (int)n;
	/* bpftrace prints no map that stayed empty */
	p = strstr(out, "@e: ");
	*e = p ? strtoull(p + 4, NULL, 10) : 0;
	p = strstr(out, "@r: ");
	*r = p ? strtoull(p + 4, NULL, 10) : 0;
	if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		diag("bpftrace: exit status %d: %.300s", st, out);
		return -EIO;
	}
	return 0;
}

struct bt_ctx {
	const char *row;
	const char *func;
	uint64_t before, after;
	char mech[32];
	char cg[256];
};

/* While bpftrace runs: the row's mechanism, and a fault run in between. */
static int bt_workload(void *arg)
{
	struct bt_ctx *c = arg;
	struct hooks hs;
	struct child ch;
	size_t pages = 3000;
	const struct hook *h;
	int r;

	if (hooks_read(&hs) || !(h = hook_find(&hs, c->row)))
		return -EIO;
	snprintf(c->mech, sizeof(c->mech), "%s", h->mech);
	c->before = h->hits;
	r = child_start(&ch, c->cg, fault_and_hold, &pages);
	if (!r)
		r = child_wait_ready(&ch, 60000);
	child_kill(&ch);
	if (hooks_read(&hs) || !(h = hook_find(&hs, c->row)))
		return -EIO;
	c->after = h->hits;
	return r;
}

static int test_bpftrace(void)
{
	struct bt_ctx c = { 0 };
	struct hooks hs;
	uint64_t e, r, v;
	int i, bad = 0, ret;

	if (access(BPFTRACE, X_OK)) {
		diag("no bpftrace in this guest");
		return KSFT_SKIP;
	}
	if (hooks_read(&hs))
		return KSFT_FAIL;
	for (i = 0; i < hs.n && !c.row; i++)
		if (hook_is_counting(&hs.h[i]) && !strcmp(hs.h[i].caller, "-") &&
		    btf_func_id(hs.h[i].target) >= 0) {
			c.row = hs.h[i].name;
			c.func = hs.h[i].target;
		}
	if (!c.row) {
		diag("no counting row for all callers on a BTF function");
		return KSFT_FAIL;
	}
	if (cg_create_leaf("bpf_share_bt", c.cg, sizeof(c.cg)))
		return KSFT_FAIL;
	ret = bpftrace_count(c.func, bt_workload, &c, &e, &r);
	cg_destroy(c.cg);
	if (ret) {
		diag("bpftrace on %s beside the module: %s", c.func,
		     strerror(-ret));
		/* what bpftrace found of this kernel: its kfunc support */
		if (system(BPFTRACE " --info 2>&1 | grep -i -e kfunc -e btf -e trampoline | sed 's/^/# # /'"))
			diag("bpftrace --info failed");
		return KSFT_FAIL;
	}
	v = c.after - c.before;
	diag("bpftrace kfunc/kretfunc:%s: %llu/%llu calls over the run, module's %s +%llu (%s)",
	     c.func, (unsigned long long)e, (unsigned long long)r, c.row,
	     (unsigned long long)v, c.mech);
	if (strcmp(c.mech, "ftrace")) {
		diag("%s: mechanism %s while bpftrace shares it, want ftrace",
		     c.row, c.mech);
		bad++;
	}
	/* bpftrace counts from before the first read to after the last */
	/* calls in flight at either end: at most one per cpu */
	if (e < v || r < v || !v ||
	    (e > r ? e - r : r - e) > (uint64_t)online_cpus()) {
		diag("bpftrace counted fewer calls than the module");
		bad++;
	}
	bad += hooks_mechs_are("direct", NULL, NULL);
	return bad ? KSFT_FAIL : KSFT_PASS;
}

/* ---- the storm ------------------------------------------------------------ */

/* Knobs toggled until killed; errors are expected while it reloads. */
static int knob_toggler(void *arg, struct child *c)
{
	static const char *const modes[] = {
		"kernel", "threshold", "always", "never",
	};
	unsigned int i;

	(void)arg;
	child_notify(c);
	for (i = 0;; i++) {
		statctl_write("stock_hooks", i % 3 ? "1" : "0", 1);
		statctl_write("flush_mode", modes[i % 4], strlen(modes[i % 4]));
		statctl_write("objcg_flush_hooks", i % 2 ? "1" : "0", 1);
		statctl_write("stock_attribution", i % 5 ? "0" : "1", 1);
		/* each write may move a dozen ftrace registrations */
		sleep_ms(200);
	}
	return 0;
}

struct storm_bt {
	const char *func;
	int runs;
};

static int bt_nothing(void *arg)
{
	(void)arg;
	sleep_ms(100);
	return 0;
}

/* bpftrace started and stopped @runs times on @func, until killed. */
static int bpftrace_loop(void *arg, struct child *c)
{
	struct storm_bt *b = arg;
	uint64_t e, r;
	int i, fails = 0;

	child_notify(c);
	for (i = 0; i < b->runs; i++)
		fails += bpftrace_count(b->func, bt_nothing, NULL, &e, &r) != 0;
	return fails ? 1 : 0;
}

/* $NAME within [lo, hi], else @def (a bad value is said once). */
static int env_count(const char *name, int def, int lo, int hi)
{
	const char *s = getenv(name);
	uint64_t v;

	if (!s)
		return def;
	if (parse_u64(s, &v) || v < (uint64_t)lo || v > (uint64_t)hi) {
		diag("%s=%s: not a count in %d..%d, using %d", name, s, lo, hi,
		     def);
		return def;
	}
	return (int)v;
}

/* enabled_functions lines of a function the module hooked. */
static bool hooked_line(const char *line, const void *arg)
{
	const struct hook_targets *t = arg;
	int i;

	for (i = 0; i < t->n; i++) {
		size_t n = strlen(t->name[i]);

		if (!strncmp(line, t->name[i], n) &&
		    (line[n] == ' ' || line[n] == '\t'))
			return true;
	}
	return false;
}

/* A tracefs kprobe on @func with a hist of its calls. */
static int kprobe_add(const char *func, char *hist, size_t size)
{
	char path[256], def[256];

	snprintf(path, sizeof(path), "%s/kprobe_events", tracefs());
	snprintf(def, sizeof(def), "p:%s/calls %s caller=+0($stack):u64",
		 KP_GROUP, func);
	if (write_str(path, def))
		return -1;
	snprintf(path, sizeof(path), "%s/events/%s/calls/trigger", tracefs(),
		 KP_GROUP);
	if (write_str(path, "hist:keys=caller.sym:size=4096"))
		return -1;
	snprintf(hist, size, "%s/events/%s/calls/hist", tracefs(), KP_GROUP);
	snprintf(path, sizeof(path), "%s/events/%s/calls/enable", tracefs(),
		 KP_GROUP);
	return write_str(path, "1");
}

static void kprobe_remove(void)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/events/%s/calls/enable", tracefs(),
		 KP_GROUP);
	write_str(path, "0");
	snprintf(path, sizeof(path), "%s/events/%s/calls/trigger", tracefs(),
		 KP_GROUP);
	write_str(path, "!hist:keys=caller.sym:size=4096");
	snprintf(path, sizeof(path), "%s/kprobe_events", tracefs());
	write_str(path, "-:" KP_GROUP "/calls");
}

/* The quiet window after the storm: the module, a kprobe and programs. */
struct quiet {
	const char *hist;
	uint64_t kp[4];
	struct window w;
};

static int quiet_oracle(void *ctx, int i)
{
	struct quiet *q = ctx;

	return hist_caller_sum(q->hist, "caller", "-", &q->kp[i]) ?:
	       window_oracle(&q->w, i);
}

static int quiet_module(void *ctx, int i)
{
	struct quiet *q = ctx;

	return window_module(&q->w, i);
}

static int quiet_window(struct func *f)
{
	struct mixed_load load = { .pages = 2048, .files = 300, .reads = 50 };
	struct quiet q;
	char hist[256];
	int bad = 0, compared = 0;

	memset(&q, 0, sizeof(q));
	if (!tracefs() || kprobe_add(f->name, hist, sizeof(hist))) {
		diag("no kprobe on %s", f->name);
		kprobe_remove();
		return 1;
	}
	q.hist = hist;
	if (oracle_window("bpf_share_quiet", &load, quiet_oracle, quiet_module,
			  &q))
		bad++;
	else
		bad += bracket("kprobe vs fentry", f->entry.map_fd < 0 ? 0 :
			       q.w.o[2].entry[f - funcs] -
			       q.w.o[1].entry[f - funcs],
			       q.kp[2] - q.kp[1], q.kp[3] - q.kp[0]) +
		       window_compare(&q.w, &compared);
	if (!bad)
		diag("quiet window on %s: kprobe +%llu, %d rows compared",
		     f->name, (unsigned long long)(q.kp[2] - q.kp[1]),
		     compared);
	kprobe_remove();
	return bad;
}

static int test_storm(void)
{
	struct child faulter, toggler, bt;
	struct storm_bt btarg;
	struct hook_targets targets;
	struct kmsg_mark mark;
	struct func survivor, *busy;
	char cg[256];
	uint64_t before, after;
	int n = env_count("MEMCG_STATCTL_BPF_STORM", 100, 10, 1000);
	int i, bad = 0, reloads = 0, attaches = 0, r;
	uint64_t t0;
	bool with_bt = !access(BPFTRACE, X_OK);

	if (!module_ko_path())
		return KSFT_SKIP;
	kmsg_mark(&mark, "bpf_share storm");
	if (module_reload("") || all_rows() || funcs_select(hook_is_counting) ||
	    hook_targets_read(&targets))
		return KSFT_FAIL;
	default_rows();
	if (cg_create_leaf("bpf_share_storm", cg, sizeof(cg)))
		return KSFT_FAIL;
	memset(&faulter, 0, sizeof(faulter));
	if (child_start(&faulter, cg, fault_loop, NULL) ||
	    child_start(&toggler, NULL, knob_toggler, NULL))
		return KSFT_FAIL;
	/* a bpftrace start compiles its program: about 45 s under TCG */
	busy = func_named("try_charge_memcg") ?: &funcs[0];
	btarg.func = busy->name;
	btarg.runs = env_count("MEMCG_STATCTL_BPF_STORM_BT", 3, 1, 1000);
	if (with_bt && child_start(&bt, NULL, bpftrace_loop, &btarg))
		return KSFT_FAIL;
	t0 = now_ns();
	for (i = 0; i < n; i++) {
		struct func *f = &funcs[i % nfuncs];

		if (i && !(i % 25))
			diag("storm: %d attaches in %.1f s", i,
			     (now_ns() - t0) / 1e9);

		if (!func_attach(f))
			attaches++;
		else
			bad++;
		sleep_ms(i % 7 * 3);
		func_detach(f);
		/* five reloads, whatever the count */
		if (i % (n / 5) == n / 10) {
			/* unloaded with a program attached: it keeps counting */
			if (func_attach(busy))
				bad++;
			if (module_reload(""))
				bad++;
			else
				reloads++;
			func_detach(busy);
		}
	}
	child_kill(&toggler);
	if (with_bt) {
		r = child_reap(&bt, 3600000);
		if (r) {
			diag("bpftrace failed in the storm (exit %d)", r);
			bad++;
		}
	}
	diag("storm: %d program attaches, %d reloads, bpftrace %s", attaches,
	     reloads, with_bt ? "beside" : "absent");

	/*
	 * A program attached across an unload keeps counting after it: on
	 * the function the fault loop calls most, a charge per page (7.x
	 * faults seldom reach the first row's function, __mod_memcg_state).
	 */
	survivor = *busy;
	survivor.attached = false;
	if (func_attach(&survivor) || module_unload(MODULE_NAME, 20000)) {
		bad++;
	} else {
		bpf_counter_read(&survivor.entry, &before);
		sleep_ms(2000);
		bpf_counter_read(&survivor.entry, &after);
		if (after == before) {
			diag("%s: the program counted nothing after the unload",
			     survivor.name);
			bad++;
		}
		r = ftrace_enabled_match(hooked_line, &targets);
		if (r < 0 || r > 2) {
			/* the programs' own two trampolines may stay */
			diag("%d ftrace callbacks on hooked functions after the unload",
			     r);
			bad++;
		}
	}
	func_detach(&survivor);
	child_kill(&faulter);
	cg_destroy(cg);
	r = ftrace_enabled_match(hooked_line, &targets);
	if (r != 0) {
		diag("%d ftrace callbacks left on hooked functions with the module and the programs gone",
		     r);
		bad++;
	}
	if (module_reload("") || all_rows()) {
		bad++;
	} else {
		bad += hooks_mechs_are("direct", NULL, NULL);
		if (func_attach(busy))
			bad++;
		else
			bad += quiet_window(busy);
		func_detach(busy);
	}
	default_rows();
	bad += !kmsg_clean(&mark);
	return bad ? KSFT_FAIL : KSFT_PASS;
}

int main(void)
{
	static const struct test tests[] = {
		{ test_module_first, "module_first" },
		{ test_bpf_first, "bpf_first" },
		{ test_redirects, "redirects" },
		{ test_bpftrace, "bpftrace" },
		{ test_storm, "storm" },
	};

	/* line by line: the storm's progress shows while it runs */
	setvbuf(stdout, NULL, _IOLBF, 0);
	require_module();
	if (btf_func_id("try_charge_memcg") < 0)
		ksft_exit_skip("no vmlinux BTF for BPF programs\n");
	if (!bpf_share_on())
		ksft_exit_fail_msg("`version` says bpf_share is not on\n");
	stock_attribution_keep();
	return run_test_table(tests, ARRAY_SIZE(tests));
}
