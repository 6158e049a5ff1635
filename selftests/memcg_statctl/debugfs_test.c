// SPDX-License-Identifier: GPL-2.0
/*
 * The debugfs contract of memcg_statctl (module/ABI.md): the files exist
 * with root-only modes, `version` describes this kernel, `hooks` and
 * `stats` are well formed and agree with each other.
 */
#define _GNU_SOURCE

#include <inttypes.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>

#include "lib.h"

/*
 * The foundation's flush counters. Their hooks: one `flush` redirect that
 * feeds every flush.* counter (ABI.md), or one hook per counter named after
 * it; either way, on 6.1 they must be attached.
 */
static const char *const foundation_counters[] = {
	"flush.requests", "flush.performed", "flush.periodic",
};

/* Every counter this module version exports (ABI.md, `stats`). */
static const char *const known_counters[] = {
	"flush.requests", "flush.performed", "flush.skipped",
	"flush.periodic", "flush.async", "flush.async_queued",
	"flush.ns_total", "flush.ns_max",
	"charge_stock.attempts", "charge_stock.misses",
	"charge_stock.refills", "charge_stock.drains",
	"obj_stock.attempts", "obj_stock.misses", "obj_stock.refills",
	"obj_stock.drains", "objcg_vmstat.updates", "objcg_vmstat.flushes",
	"stat_updates", "stat_updates.amount",
};

static bool is_kernel_61(void)
{
	struct utsname u;

	uname(&u);
	return !strncmp(u.release, "6.1.", 4);
}

static int test_loaded(void)
{
	char buf[64];

	if (!module_loaded(MODULE_NAME)) {
		diag("/sys/module/%s/initstate is not 'live'", MODULE_NAME);
		return KSFT_FAIL;
	}
	if (read_file("/sys/module/" MODULE_NAME "/refcnt", buf,
		      sizeof(buf)) < 0) {
		diag("/sys/module/%s/refcnt unreadable", MODULE_NAME);
		return KSFT_FAIL;
	}
	if (!path_exists(STATCTL_DIR)) {
		diag("%s does not exist", STATCTL_DIR);
		return KSFT_FAIL;
	}
	return KSFT_PASS;
}

static int check_mode(const char *file, mode_t want, bool required)
{
	char path[256];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", STATCTL_DIR, file);
	if (stat(path, &st)) {
		if (!required)
			return 0;
		diag("%s: %s", path, strerror(errno));
		return 1;
	}
	if (!S_ISREG(st.st_mode) || st.st_uid != 0 || st.st_gid != 0 ||
	    (st.st_mode & 07777) != want) {
		diag("%s: mode %04o uid %u gid %u, want a root-owned regular "
		     "file with mode %04o", path, st.st_mode & 07777,
		     st.st_uid, st.st_gid, want);
		return 1;
	}
	return 0;
}

static int test_files_and_modes(void)
{
	static const char *const knobs[] = {
		"flush_mode", "flush_threshold", "flush_period_ms",
		"update_flush_every", "stock_hooks", "objcg_flush_hooks",
	};
	static const char *const flush_files[] = {
		"flush_latency", "flush_reasons",
	};
	uint64_t performed;
	char buf[64];
	struct stat st;
	size_t i;
	int bad = 0;

	if (stat(STATCTL_DIR, &st) || !S_ISDIR(st.st_mode)) {
		diag("%s is not a directory", STATCTL_DIR);
		return KSFT_FAIL;
	}
	/* the contract is on the files; the debugfs mount point itself is
	 * 0700, so the directory's own mode is only reported */
	if (st.st_mode & 077)
		diag("note: %s has mode %04o", STATCTL_DIR, st.st_mode & 07777);
	bad += check_mode("version", 0400, true);
	bad += check_mode("hooks", 0400, true);
	bad += check_mode("stats", 0400, true);
	bad += check_mode("reset", 0200, true);
	/* with the flush counters, and only then */
	for (i = 0; i < ARRAY_SIZE(flush_files); i++) {
		bad += check_mode(flush_files[i], 0400, false);
		if (statctl_has(flush_files[i]) ==
		    !stat_get("flush.performed", &performed))
			continue;
		diag("%s %s, flush.performed %s", flush_files[i],
		     statctl_has(flush_files[i]) ? "present" : "absent",
		     stat_get("flush.performed", &performed) ? "absent" : "present");
		bad++;
	}
	/* knobs added after the first ABI: checked when present */
	for (i = 0; i < ARRAY_SIZE(knobs); i++)
		bad += check_mode(knobs[i], 0600, false);
	/* reset is write-only even for root in the sense of having no read op */
	if (statctl_read("reset", buf, sizeof(buf)) >= 0) {
		diag("reading reset succeeded; it must have no read method");
		bad++;
	}
	return bad ? KSFT_FAIL : KSFT_PASS;
}

static int test_version(void)
{
	char kernel[256], abi[64], module[64], fm[64], sm[64];
	struct utsname u;
	int bad = 0;

	if (uname(&u))
		return KSFT_FAIL;
	if (version_get("kernel", kernel, sizeof(kernel)) ||
	    version_get("abi", abi, sizeof(abi)) ||
	    version_get("module", module, sizeof(module)) ||
	    version_get("flush_model", fm, sizeof(fm)) ||
	    version_get("stock_model", sm, sizeof(sm))) {
		diag("version lacks one of kernel, abi, module, flush_model, "
		     "stock_model");
		return KSFT_FAIL;
	}
	diag("version: module %s abi %s kernel %s flush_model %s "
	     "stock_model %s", module, abi, kernel, fm, sm);
	if (strcmp(kernel, u.release)) {
		diag("kernel '%s' != uname -r '%s'", kernel, u.release);
		bad++;
	}
	if (strcmp(abi, "1")) {
		diag("abi '%s', want 1", abi);
		bad++;
	}
	if (strcmp(fm, "global") && strcmp(fm, "per-memcg")) {
		diag("flush_model '%s' not global|per-memcg", fm);
		bad++;
	}
	if (strcmp(sm, "single") && strcmp(sm, "multi")) {
		diag("stock_model '%s' not single|multi", sm);
		bad++;
	}
	if (is_kernel_61() && (strcmp(fm, "global") || strcmp(sm, "single"))) {
		diag("6.1 has a global flush and a single-memcg stock");
		bad++;
	}
	return bad ? KSFT_FAIL : KSFT_PASS;
}

static bool one_of(const char *s, const char *const *set, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(s, set[i]))
			return true;
	return false;
}

/* `partial` is attached too, missing some calls (ABI.md). */
static bool hook_counts(const struct hook *h)
{
	return !strcmp(h->state, "attached") || !strcmp(h->state, "partial");
}

static int test_hooks(void)
{
	static const char *const states[] = {
		"attached", "partial", "off", "missing", "failed",
	};
	static const char *const mechs[] = {
		"direct", "direct+ipmodify", "ftrace", "redirect",
	};
	struct hooks hs;
	struct stats s;
	const char *want;
	int i, r, bad = 0, flush;
	size_t k;

	r = hooks_read(&hs);
	if (r) {
		diag("hooks: %s", strerror(-r));
		return KSFT_FAIL;
	}
	if (stats_read(&s))
		return KSFT_FAIL;
	if (!hs.n) {
		diag("hooks is empty");
		return KSFT_FAIL;
	}
	for (i = 0; i < hs.n; i++) {
		const struct hook *h = &hs.h[i];
		uint64_t v;

		diag("hook %s %s %s %s %s %" PRIu64, h->name, h->target,
		     h->caller, h->mech, h->state, h->hits);
		if (!one_of(h->state, states, ARRAY_SIZE(states))) {
			diag("hook %s: invalid state '%s'", h->name, h->state);
			bad++;
		}
		if (!one_of(h->mech, mechs, ARRAY_SIZE(mechs))) {
			diag("hook %s: invalid mechanism '%s'", h->name,
			     h->mech);
			bad++;
		}
		if (!strcmp(h->state, "failed")) {
			diag("hook %s failed to register", h->name);
			bad++;
		}
		if (!hook_counts(h) && h->hits) {
			diag("hook %s is %s but shows %" PRIu64 " hits",
			     h->name, h->state, h->hits);
			bad++;
		}
		/* an attached hook named after a counter feeds it */
		if (hook_counts(h) &&
		    one_of(h->name, known_counters,
			   ARRAY_SIZE(known_counters)) &&
		    stats_get(&s, h->name, &v)) {
			diag("hook %s is attached but its counter is not in "
			     "stats", h->name);
			bad++;
		}
		/* a missing hook's counter is absent, never shown as 0 */
		if (!strcmp(h->state, "missing")) {
			if (!stats_get(&s, h->name, &v)) {
				diag("counter %s of a missing hook is in stats",
				     h->name);
				bad++;
			}
		}
	}
	/*
	 * 6.1's flush point may be inlined in a build (PREEMPT_RT): then the
	 * module must show it missing, and say so in `version`.
	 */
	flush = flush_control_state();
	if (flush == KSFT_FAIL)
		bad++;
	want = flush == KSFT_SKIP ? "missing" : "attached";
	for (k = 0; k < ARRAY_SIZE(foundation_counters); k++) {
		const struct hook *h = hook_find(&hs, foundation_counters[k]);

		if (!h)
			h = hook_find(&hs, "flush");
		if (!h) {
			diag("no hook feeds %s (neither 'flush' nor '%s' is "
			     "listed)", foundation_counters[k],
			     foundation_counters[k]);
			bad++;
		} else if (is_kernel_61() && strcmp(h->state, want)) {
			diag("hook %s (feeding %s) is '%s' on 6.1, want %s",
			     h->name, foundation_counters[k], h->state, want);
			bad++;
		}
	}
	return bad ? KSFT_FAIL : KSFT_PASS;
}

static int test_stats_format(void)
{
	static const char *const required[] = {
		"flush.requests", "flush.performed", "flush.periodic",
		"flush.ns_total", "flush.ns_max",
	};
	struct stats s;
	int i, j, r, bad = 0, flush;
	size_t k;
	uint64_t v;

	r = stats_read(&s);	/* rejects lines that are not "name u64" */
	if (r) {
		diag("stats: %s", strerror(-r));
		return KSFT_FAIL;
	}
	for (i = 0; i < s.n; i++) {
		for (j = 0; j < i; j++) {
			if (!strcmp(s.name[i], s.name[j])) {
				diag("counter %s listed twice", s.name[i]);
				bad++;
			}
		}
		if (!one_of(s.name[i], known_counters,
			    ARRAY_SIZE(known_counters)))
			diag("note: counter %s is new to this test",
			     s.name[i]);
	}
	/* without flush control its counters are absent, never 0 */
	flush = flush_control_state();
	if (flush == KSFT_FAIL)
		bad++;
	for (k = 0; k < ARRAY_SIZE(required); k++) {
		bool absent = stats_get(&s, required[k], &v) != 0;
		bool none = flush == KSFT_SKIP;

		if (absent != none) {
			diag("counter %s %s", required[k],
			     absent ? "absent" : "shown without flush control");
			bad++;
		}
	}
	return bad ? KSFT_FAIL : KSFT_PASS;
}

/*
 * Compiler clones, read from /proc/kallsyms here and held against what the
 * module made of them at load (module/clones.c, ABI.md `partial`).
 */
#define CLONES_MAX	32

struct clone {
	const struct hook *h;
	char name[256];
	bool of_target;		/* else of the hook's caller */
};

/* @sym is "@fn.<suffix>" with one of GCC's clone suffixes: the suffix. */
static const char *clone_suffix(const char *sym, const char *fn)
{
	static const char *const suffixes[] = {
		"cold", "part.", "constprop.", "isra.",
	};
	size_t len = strlen(fn), i;

	if (strncmp(sym, fn, len) || sym[len] != '.')
		return NULL;
	for (i = 0; i < ARRAY_SIZE(suffixes); i++)
		if (!strncmp(sym + len + 1, suffixes[i], strlen(suffixes[i])))
			return sym + len + 1;
	return NULL;
}

/* Some line of @log holds @a and, after it, @b. */
static bool log_line_has(const char *log, const char *a, const char *b)
{
	const char *p, *end;

	for (p = strstr(log, a); p; p = strstr(p + 1, a)) {
		end = strchrnul(p, '\n');
		p = strstr(p, b);
		if (p && p < end)
			return true;
		if (!p)
			return false;
		p = end;
	}
	return false;
}

/* The kernel image's text symbols that are clones of a hook's functions. */
static int clones_find(const struct hooks *hs, struct clone *c, int max)
{
	char line[512], sym[256], type;
	int n = 0, i;
	FILE *f = fopen("/proc/kallsyms", "re");

	if (!f) {
		diag("/proc/kallsyms: %s", strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		/* a module's symbol ends with "\t[module]" */
		if (strchr(line, '[') ||
		    sscanf(line, "%*s %c %255s", &type, sym) != 2 ||
		    (type != 't' && type != 'T') || !strchr(sym, '.'))
			continue;
		for (i = 0; i < hs->n && n < max; i++) {
			const struct hook *h = &hs->h[i];
			bool target = clone_suffix(sym, h->target);

			if (!target && !clone_suffix(sym, h->caller))
				continue;
			c[n].h = h;
			c[n].of_target = target;
			snprintf(c[n].name, sizeof(c[n].name), "%s", sym);
			n++;
		}
	}
	fclose(f);
	return n;
}

/*
 * Each clone of a hooked function is an entry the module does not watch:
 * the hook must say `partial`, and the load must have logged the clone.
 * A target's .cold part is no entry (only jumped to). A clone of a row's
 * caller must be counted as that caller: the load logs it so. A `partial`
 * hook must name a clone that kallsyms has. Kernels without clones pass
 * with nothing to hold, and say so.
 */
static int test_clones(void)
{
	struct clone c[CLONES_MAX];
	struct hooks hs;
	char want[512];
	int n, i, bad = 0, targets = 0;
	char *klog;
	bool logged;

	if (hooks_read(&hs))
		return KSFT_FAIL;
	n = clones_find(&hs, c, CLONES_MAX);
	if (n < 0)
		return KSFT_FAIL;
	klog = kmsg_read_all();
	logged = klog && strstr(klog, MODULE_NAME ": ");
	if (!logged)
		diag("the module's load is no longer in the kernel log: its "
		     "log lines are not checked");
	for (i = 0; i < n; i++) {
		const struct hook *h = c[i].h;
		bool cold = !strcmp(clone_suffix(c[i].name, h->target) ?: "",
				    "cold");

		if (!hook_counts(h)) {
			diag("clone %s of hook %s (%s): not checked", c[i].name,
			     h->name, h->state);
			continue;
		}
		if (c[i].of_target && !cold) {
			targets++;
			diag("clone %s of hooked %s: hook %s is %s", c[i].name,
			     h->target, h->name, h->state);
			if (strcmp(h->state, "partial")) {
				diag("hook %s: want partial", h->name);
				bad++;
			}
			snprintf(want, sizeof(want),
				 "hook %s: %s is a compiler clone", h->name,
				 c[i].name);
		} else if (c[i].of_target) {
			diag("%s: the .cold part of hooked %s, no entry",
			     c[i].name, h->target);
			continue;
		} else {
			diag("clone %s of caller %s: hook %s is %s", c[i].name,
			     h->caller, h->name, h->state);
			snprintf(want, sizeof(want),
				 "hook %s: calls from %s, a compiler clone of %s, count too",
				 h->name, c[i].name, h->caller);
			if (!strcmp(h->state, "partial"))
				snprintf(want, sizeof(want),
					 "hook %s: %s is a compiler clone",
					 h->name, c[i].name);
		}
		if (logged && !strstr(klog, want)) {
			diag("the kernel log lacks \"%s\"", want);
			bad++;
		}
	}
	for (i = 0; i < hs.n; i++) {
		const struct hook *h = &hs.h[i];

		if (strcmp(h->state, "partial") || !logged)
			continue;
		snprintf(want, sizeof(want), "hook %s: ", h->name);
		if (!log_line_has(klog, want, " is a compiler clone ")) {
			diag("hook %s is partial, but the log names no clone",
			     h->name);
			bad++;
		}
	}
	diag("kallsyms: %d clone(s) of hooked functions or their callers, "
	     "%d of them entries of a hooked function", n, targets);
	free(klog);
	return bad ? KSFT_FAIL : KSFT_PASS;
}

static const struct test tests[] = {
	{ test_loaded, "module_loaded" },
	{ test_files_and_modes, "files_and_modes" },
	{ test_version, "version" },
	{ test_hooks, "hooks" },
	{ test_stats_format, "stats_format" },
	{ test_clones, "clones" },
};

int main(void)
{
	require_module();
	return run_test_table(tests, ARRAY_SIZE(tests));
}
