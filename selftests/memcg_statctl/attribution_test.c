// SPDX-License-Identifier: GPL-2.0
/*
 * Per-cgroup stock attribution: the stock_attribution knob and the
 * stock_by_cgroup file.
 *
 * The oracle is the kernel's own tracing. A tracefs kprobe on each
 * function the module attributes, with a hist keyed on the cgroup id
 * that the probe fetches itself:
 *   try_charge_memcg(memcg)          cgid = memcg->css.cgroup->kn->id
 *   page_counter_try_charge(counter) the same from container_of(counter,
 *                                    struct mem_cgroup, memory)
 *   (__)refill_stock(memcg)          as try_charge_memcg
 *   obj-stock misses                 6.1, 6.12: try_charge_memcg() from
 *                                    obj_cgroup_charge(); 7.x:
 *                                    obj_cgroup_charge_pages(objcg) from
 *                                    obj_cgroup_charge() or
 *                                    __memcg_slab_post_alloc_hook(), the
 *                                    id from objcg->memcg
 * with every offset read from vmlinux's BTF. The obj-stock probe's hist is
 * keyed on the caller too (the return address, $stack0). On cgroup v2 without swap,
 * a test cgroup's memory counter is charged only by try_charge_memcg(),
 * so the probe's count for its id is that cgroup's charge-stock misses.
 * Two cgroups fault different numbers of pages and create tmpfs files
 * (charged slab objects); each one's attempts, misses, refills and obj-stock
 * misses must equal the hist's count for its id, give or take
 * the calls the kprobes missed (kprobe_profile). A counter that mixed the
 * cgroups up, or counted every call for each, fails.
 *
 * Then the same with a kretprobe on each of those functions: a kretprobe
 * replaces the return address, which the module's misses row filters on
 * (docs/tracers.md), so the module must recover the true caller. The
 * kprobe's $stack0 is then the kretprobe's trampoline: obj-stock misses,
 * which the oracle tells apart by caller, are compared alone only.
 */
#define _GNU_SOURCE

#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib.h"
#include "lib/include/bpf_fentry.h"

#define EV_GROUP	"mcs_attr"
#define PAGES_A		3000
#define PAGES_B		6000
#define FILES		400	/* per cgroup: slab objects, obj-stock misses */

enum probe { P_ATTEMPTS, P_MISSES, P_REFILLS, P_OBJ, NR_PROBES };

static const enum attr_ev probe_ev[NR_PROBES] = {
	ATTR_ATTEMPTS, ATTR_MISSES, ATTR_REFILLS, ATTR_OBJ_MISSES,
};

static const char *const probe_name[NR_PROBES] = {
	"attempts", "misses", "refills", "obj_misses",
};

/* The callers whose calls of P_OBJ's function are obj-stock misses. */
static const char *obj_callers[2];

static char probe_fn[NR_PROBES][64];
static char probe_fetch[NR_PROBES][128];
static bool kretprobes;

/* The cgroup id fetch of a memcg at @base(%di): +KNID(+KN(+CG(%di))). */
static int cgid_fetch(long base, char *buf, size_t size)
{
	long css, cg, kn, id;

	if (btf_member_offset("mem_cgroup", "css", &css) ||
	    btf_member_offset("cgroup_subsys_state", "cgroup", &cg) ||
	    btf_member_offset("cgroup", "kn", &kn) ||
	    btf_member_offset("kernfs_node", "id", &id)) {
		diag("BTF lacks a member of the cgroup id chain");
		return -ENOENT;
	}
	base += css + cg;
	snprintf(buf, size, "cgid=+%ld(+%ld(%c%ld(%%di))):u64", id, kn,
		 base < 0 ? '-' : '+', labs(base));
	return 0;
}

/* P_OBJ's fetch reads the memcg at @off from argument 0 first. */
static void obj_fetch_deref(long off)
{
	char *at = strstr(probe_fetch[P_OBJ], "(%di)"), rest[128];

	snprintf(rest, sizeof(rest), "(+%ld(%%di))%s", off, at + 5);
	snprintf(at, sizeof(probe_fetch[P_OBJ]) - (at - probe_fetch[P_OBJ]),
		 "%s", rest);
}

/* Each probe's function (from `hooks`) and fetch. */
static int probes_resolve(void)
{
	static const char *const hook_of[NR_PROBES] = {
		"attr.attempts", "attr.misses", "attr.refills",
		"attr.obj_misses",
	};
	struct hooks hs;
	long memory, objcg_memcg;
	int p, i, n = 0;

	if (hooks_read(&hs))
		return -EIO;
	for (p = 0; p < NR_PROBES; p++) {
		const struct hook *h = hook_find(&hs, hook_of[p]);

		if (!h || !strcmp(h->state, "missing")) {
			diag("no hook %s", hook_of[p]);
			return -ENOENT;
		}
		snprintf(probe_fn[p], sizeof(probe_fn[p]), "%s", h->target);
	}
	/* the obj-stock miss rows: one per caller, the same function */
	for (i = 0; i < hs.n && n < 2; i++)
		if (!strcmp(hs.h[i].name, "attr.obj_misses"))
			obj_callers[n++] = strdup(hs.h[i].caller);
	if (btf_member_offset("mem_cgroup", "memory", &memory))
		return -ENOENT;
	if (cgid_fetch(0, probe_fetch[P_ATTEMPTS], sizeof(probe_fetch[0])) ||
	    cgid_fetch(-memory, probe_fetch[P_MISSES],
		       sizeof(probe_fetch[0])))
		return -ENOENT;
	memcpy(probe_fetch[P_REFILLS], probe_fetch[P_ATTEMPTS],
	       sizeof(probe_fetch[0]));
	if (strcmp(probe_fn[P_OBJ], "try_charge_memcg")) {
		/* 7.x: argument 0 is an objcg, whose memcg is one load away */
		if (btf_member_offset("obj_cgroup", "memcg", &objcg_memcg))
			return -ENOENT;
		if (cgid_fetch(0, probe_fetch[P_OBJ], sizeof(probe_fetch[0])))
			return -ENOENT;
		obj_fetch_deref(objcg_memcg);
	} else {
		memcpy(probe_fetch[P_OBJ], probe_fetch[P_ATTEMPTS],
		       sizeof(probe_fetch[0]));
	}
	return 0;
}

static int kprobe_cmd(const char *cmd)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/kprobe_events", tracefs());
	return write_str(path, cmd);	/* appends */
}

static void ev_path(char *buf, size_t size, char kind, int p,
		    const char *file)
{
	snprintf(buf, size, "%s/events/" EV_GROUP "/%c%d/%s", tracefs(), kind,
		 p, file);
}

static void probes_remove(void)
{
	char path[256], cmd[64];
	int p;

	for (p = 0; p < NR_PROBES; p++) {
		ev_path(path, sizeof(path), 'p', p, "trigger");
		write_str(path, p == P_OBJ ? "!hist:keys=cgid,caller.sym" :
					     "!hist:keys=cgid");
		snprintf(cmd, sizeof(cmd), "-:" EV_GROUP "/p%d", p);
		kprobe_cmd(cmd);
		ev_path(path, sizeof(path), 'r', p, "enable");
		write_str(path, "0");
		snprintf(cmd, sizeof(cmd), "-:" EV_GROUP "/r%d", p);
		kprobe_cmd(cmd);
	}
}

static int probes_add(void)
{
	char path[256], cmd[320];
	int p, r = 0;

	for (p = 0; p < NR_PROBES && !r; p++) {
		snprintf(cmd, sizeof(cmd),
			 "p:" EV_GROUP "/p%d %s %s caller=$stack0:x64", p,
			 probe_fn[p], probe_fetch[p]);
		r = kprobe_cmd(cmd);
		if (!r) {
			ev_path(path, sizeof(path), 'p', p, "trigger");
			r = write_str(path, p == P_OBJ ?
				      "hist:keys=cgid,caller.sym:size=4096" :
				      "hist:keys=cgid:size=2048");
		}
		if (!r && kretprobes) {
			snprintf(cmd, sizeof(cmd), "r:" EV_GROUP "/r%d %s", p,
				 probe_fn[p]);
			r = kprobe_cmd(cmd);
			ev_path(path, sizeof(path), 'r', p, "enable");
			if (!r)
				r = write_str(path, "1");
		}
		if (r)
			diag("kprobe on %s: %s", probe_fn[p], strerror(-r));
	}
	if (r)
		probes_remove();
	return r;
}

/* Whether hist key text @sym ("[addr] name ...") names one of obj_callers. */
static bool obj_caller(const char *sym)
{
	const char *name = strchr(sym, ']');
	size_t len;
	int i;

	if (!name)
		return false;
	name += 1 + strspn(name + 1, " ");
	len = strcspn(name, " }");
	for (i = 0; i < 2 && obj_callers[i]; i++) {
		size_t n = strlen(obj_callers[i]);

		/* the caller, or a compiler clone of it (.cold, .part.0) */
		if (len >= n && !strncmp(name, obj_callers[i], n) &&
		    (len == n || name[n] == '.'))
			return true;
	}
	return false;
}

/* The hist count of probe @p for cgroup @id (P_OBJ: from obj_callers). */
static int hist_count(int p, uint64_t id, uint64_t *count)
{
	static char buf[1 << 18];
	char path[256], *line, *save;
	ssize_t n;

	ev_path(path, sizeof(path), 'p', p, "hist");
	n = read_file(path, buf, sizeof(buf));
	if (n < 0)
		return (int)n;
	*count = 0;
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *k = strstr(line, "cgid:"), *hc = strstr(line, "hitcount:");
		char *caller = strstr(line, "caller:");

		if (!k || !hc || strtoull(k + 5, NULL, 10) != id)
			continue;
		if (p == P_OBJ && (!caller || !obj_caller(caller)))
			continue;
		*count += strtoull(hc + 9, NULL, 10);
	}
	return 0;
}

/* kprobe_profile's misses of the entry probes, summed. */
static uint64_t probes_missed(void)
{
	static char buf[1 << 16];
	char path[256], *line, *save;
	uint64_t sum = 0;

	snprintf(path, sizeof(path), "%s/kprobe_profile", tracefs());
	if (read_file(path, buf, sizeof(buf)) < 0)
		return UINT64_MAX;
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		unsigned long long hits, miss;
		int p;

		if (sscanf(line, " p%d %llu %llu", &p, &hits, &miss) == 3)
			sum += miss;
	}
	return sum;
}

struct snap {
	struct attr_row mod[2];
	uint64_t oracle[2][NR_PROBES];
};

/*
 * Both sides for both cgroups, taken while the module's stay the same
 * before and after reading the hists: work the kernel defers (RCU freeing
 * a task's objects) may still charge or refill a cgroup a moment later.
 */
static int snap_take(const uint64_t *id, struct snap *s)
{
	struct attr_row again;
	int tries, c, p, r, moved;

	for (tries = 0; tries < 50; tries++) {
		for (c = 0, r = 0; c < 2 && !r; c++) {
			r = attr_get(id[c], &s->mod[c]);
			if (r == -ENOENT)
				r = 0;
			for (p = 0; p < NR_PROBES && !r; p++)
				r = hist_count(p, id[c], &s->oracle[c][p]);
		}
		for (c = 0, moved = 0; c < 2 && !r; c++) {
			r = attr_get(id[c], &again);
			if (r == -ENOENT)
				r = 0;
			moved |= memcmp(&again, &s->mod[c], sizeof(again));
		}
		if (r)
			return r;
		if (!moved)
			return 0;
		sleep_ms(100);
	}
	diag("the test cgroups never went quiet");
	return -EBUSY;
}

/* child_fn: fault *arg pages, create and remove FILES tmpfs files. */
static int fault_and_files(void *arg, struct child *c)
{
	char dir[] = "/tmp/memcg_statctl_attr.XXXXXX", path[300];
	int i, fd;

	thp_disable();
	if (!fault_anon(*(size_t *)arg) || !mkdtemp(dir))
		return 2;
	for (i = 0; i < FILES; i++) {
		snprintf(path, sizeof(path), "%s/f%d", dir, i);
		fd = open(path, O_CREAT | O_WRONLY, 0600);
		if (fd < 0)
			return 3;
		close(fd);
	}
	for (i = 0; i < FILES; i++) {
		snprintf(path, sizeof(path), "%s/f%d", dir, i);
		unlink(path);
	}
	rmdir(dir);
	if (child_notify(c))
		return 4;
	child_wait(c);
	return 0;
}

/* Fault @pages in cgroup @cg, and make files, then exit. */
static int fault_in(const char *cg, size_t pages)
{
	struct child ch;
	int r = child_start(&ch, cg, fault_and_files, &pages);

	if (!r)
		r = child_wait_ready(&ch, 60000);
	child_kill(&ch);
	return r;
}

static int compare(const uint64_t *id, const struct snap *s0,
		   const struct snap *s1, uint64_t missed)
{
	int c, p, bad = 0;

	for (c = 0; c < 2; c++) {
		for (p = 0; p < NR_PROBES; p++) {
			enum attr_ev e = probe_ev[p];
			uint64_t mod = s1->mod[c].ev[e] - s0->mod[c].ev[e];
			uint64_t orc = s1->oracle[c][p] - s0->oracle[c][p];
			char what[96];

			if (p == P_OBJ && kretprobes)
				continue;	/* $stack0 is the trampoline */
			snprintf(what, sizeof(what), "cgroup %" PRIu64 " %s",
				 id[c], probe_name[p]);
			diag("%s: module +%" PRIu64 ", kprobe +%" PRIu64, what,
			     mod, orc);
			bad |= bracket(what, mod, orc, orc + missed);
		}
	}
	for (c = 0; c < 2 && !kretprobes; c++) {
		if (s1->oracle[c][P_OBJ] == s0->oracle[c][P_OBJ]) {
			diag("cgroup %" PRIu64 ": no obj-stock miss seen, nothing compared",
			     id[c]);
			bad = 1;
		}
	}
	/* the cgroup that faulted twice the pages charged more */
	if (s1->mod[1].ev[ATTR_ATTEMPTS] - s0->mod[1].ev[ATTR_ATTEMPTS] <=
	    s1->mod[0].ev[ATTR_ATTEMPTS] - s0->mod[0].ev[ATTR_ATTEMPTS]) {
		diag("cgroup B (%d pages) did not attempt more charges than A (%d)",
		     PAGES_B, PAGES_A);
		bad = 1;
	}
	return bad;
}

static int run_oracle(void)
{
	char cg[2][256] = { { 0 } };
	uint64_t id[2], missed;
	struct snap s0, s1;
	struct stat st;
	int c, r, bad = 1;

	r = stock_attribution_on();
	if (r) {
		diag("stock_attribution: %s", strerror(-r));
		return r == -ENOENT || r == -EOPNOTSUPP ? KSFT_SKIP : KSFT_FAIL;
	}
	if (!tracefs() || probes_resolve())
		return KSFT_SKIP;
	for (c = 0; c < 2; c++) {
		if (cg_create_leaf(c ? "attr_b" : "attr_a", cg[c], sizeof(cg[c])) ||
		    stat(cg[c], &st))
			goto out;
		id[c] = st.st_ino;
	}
	if (probes_add())
		goto out;
	if (snap_take(id, &s0) || fault_in(cg[0], PAGES_A) ||
	    fault_in(cg[1], PAGES_B) || snap_take(id, &s1))
		goto out;
	missed = probes_missed();
	diag("%s: kprobes missed %" PRIu64 " calls",
	     kretprobes ? "with kretprobes beside" : "alone", missed);
	bad = compare(id, &s0, &s1, missed);
out:
	probes_remove();
	for (c = 0; c < 2; c++)
		if (cg[c][0])
			cg_destroy(cg[c]);
	return bad ? KSFT_FAIL : KSFT_PASS;
}

static int test_oracle(void)
{
	return run_oracle();
}

static int test_oracle_kretprobe(void)
{
	kretprobes = true;
	return run_oracle();
}

/* The knob takes 0 and 1 only; the file follows it. */
static int test_knob(void)
{
	static const char *const bad_values[] = { "2", "-1", "on", "1 ", "" };
	char v[16], buf[4096];
	struct attr_row row;
	unsigned int i;
	int r, bad = 0;
	ssize_t w;

	if (!statctl_has("stock_attribution"))
		return KSFT_SKIP;
	if (statctl_read_line("stock_attribution", v, sizeof(v)) ||
	    strcmp(v, "0")) {
		diag("stock_attribution reads '%s', want the default 0", v);
		bad++;
	}
	r = attr_get(0, &row);
	if (r != -ENODATA) {
		diag("stock_by_cgroup while off: %d, want state off", r);
		bad++;
	}
	for (i = 0; i < ARRAY_SIZE(bad_values); i++) {
		w = statctl_write("stock_attribution", bad_values[i],
				  strlen(bad_values[i]));
		if (w != -EINVAL) {
			diag("write '%s': %zd, want -EINVAL", bad_values[i], w);
			bad++;
		}
	}
	w = statctl_write("stock_attribution", "1\n", 2);
	if (w == -EOPNOTSUPP) {
		statctl_read("stock_by_cgroup", buf, sizeof(buf));
		diag("attribution is missing here: %.40s", buf);
		return bad ? KSFT_FAIL : KSFT_SKIP;
	}
	if (w != 2 || attr_get(0, &row)) {
		diag("turning it on: write %zd, `other` line %d", w,
		     attr_get(0, &row));
		bad++;
	}
	bad += hooks_state_is((const char *const[]){ "attr." }, 1,
			      "attached");
	if (statctl_write("stock_attribution", "0", 1) != 1 ||
	    attr_get(0, &row) != -ENODATA) {
		diag("turning it off did not give state off");
		bad++;
	}
	bad += hooks_state_is((const char *const[]){ "attr." }, 1, "off");
	return bad ? KSFT_FAIL : KSFT_PASS;
}

/* `reset` restarts every cgroup's counts; the knob stays on. */
static int test_reset(void)
{
	char cg[256];
	struct attr_row row;
	struct stat st;
	int r, ret = KSFT_FAIL;

	r = stock_attribution_on();
	if (r)
		return r == -ENOENT || r == -EOPNOTSUPP ? KSFT_SKIP : KSFT_FAIL;
	if (cg_create_leaf("attr_reset", cg, sizeof(cg)) || stat(cg, &st))
		return KSFT_FAIL;
	if (fault_in(cg, 500) || attr_get(st.st_ino, &row))
		goto out;
	if (row.ev[ATTR_ATTEMPTS] < 500) {
		diag("attempts %" PRId64 " after 500 faults", row.ev[ATTR_ATTEMPTS]);
		goto out;
	}
	if (statctl_write("reset", "1", 1) != 1)
		goto out;
	r = attr_get(st.st_ino, &row);
	if (r || row.ev[ATTR_ATTEMPTS] > 50) {
		diag("after reset: %d, attempts %" PRId64, r,
		     row.ev[ATTR_ATTEMPTS]);
		goto out;
	}
	if (fault_in(cg, 500) || attr_get(st.st_ino, &row) ||
	    row.ev[ATTR_ATTEMPTS] < 500) {
		diag("counting after reset: attempts %" PRId64,
		     row.ev[ATTR_ATTEMPTS]);
		goto out;
	}
	ret = KSFT_PASS;
out:
	cg_destroy(cg);
	return ret;
}

static const struct test tests[] = {
	{ test_knob, "knob_and_file" },
	{ test_oracle, "per_cgroup_equals_kprobe_hists" },
	{ test_oracle_kretprobe, "per_cgroup_equals_kprobe_hists_kretprobe_beside" },
	{ test_reset, "reset_restarts_counts" },
};

int main(void)
{
	require_module();
	if (cg_test_root())
		ksft_exit_skip("no cgroup2 memory controller\n");
	stock_attribution_keep();
	return run_test_table(tests, ARRAY_SIZE(tests));
}
