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
 *   drain_stock(stock[, i])          6.1, 6.12: stock->cached; 7.x: one
 *                                    probe per slot i (the array's length
 *                                    from BTF), filtered on the index,
 *                                    reading stock->cached[i]
 *   7.x evictions                    the same per slot, counting calls
 *                                    from refill_stock() whose slot holds
 *                                    at most MEMCG_CHARGE_BATCH pages (the
 *                                    module's rule, applied by the kernel's
 *                                    tracing: it checks that each eviction
 *                                    is counted once and for its cgroup,
 *                                    not the rule itself)
 * with every offset read from vmlinux's BTF. The hists that count only
 * some callers' calls (obj-stock misses, evictions) are keyed on the
 * caller too (the return address, $stack0). On cgroup v2 without swap,
 * a test cgroup's memory counter is charged only by try_charge_memcg(),
 * so the probe's count for its id is that cgroup's charge-stock misses.
 *
 * Two cgroups fault different numbers of pages and create tmpfs files
 * (charged slab objects); each one's attempts, misses, refills, drains and
 * obj-stock misses must equal the hist's count for its id, give or take
 * the calls the kprobes missed (kprobe_profile). A counter that mixed the
 * cgroups up, or counted every call for each, fails. Then the turn-taking
 * ring of lib/turns.c, whose every turn drains (and on 7.x evicts): each
 * of its cgroups' drains and evictions against the hists.
 *
 * Then each again with a kretprobe on those functions: a kretprobe
 * replaces the return address, which the module's caller-filtered rows
 * check (docs/tracers.md), so the module must recover the true caller.
 * The kprobe's $stack0 is then the kretprobe's trampoline: obj-stock
 * misses and evictions, which the oracle tells apart by caller, are
 * compared alone only.
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
#define CHARGE_BATCH	64	/* MEMCG_CHARGE_BATCH: a fuller slot overflowed */
#define RING_FAULTS	4000	/* the ring's faults, all memcgs' turns */

/*
 * One tracefs kprobe of the oracle: its event (EV_GROUP/name), function,
 * fetch arguments and hist trigger, the count it gives and, where only
 * some callers' calls count (their hist is keyed on caller.sym), which.
 */
struct probe {
	char name[8];
	char fn[64];
	char args[256];
	char trigger[128];
	enum attr_ev ev;
	char callers[2][64];
};

/* 7.x: a drains and an evictions probe per stock slot, up to SLOTS_MAX */
#define SLOTS_MAX	16
#define PROBES_MAX	(4 + 2 * SLOTS_MAX)

static struct probe probes[PROBES_MAX];
static int nprobes;
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

/* The fetch in @buf reads the memcg at @off from argument 0 first. */
static void fetch_deref(char *buf, size_t size, long off)
{
	char *at = strstr(buf, "(%di)"), rest[128];

	snprintf(rest, sizeof(rest), "(+%ld(%%di))%s", off, at + 5);
	snprintf(at, size - (at - buf), "%s", rest);
}

/* The target of @name's hooks and, in @callers, the callers of its rows. */
static int hook_target(const struct hooks *hs, const char *name, char *fn,
		       size_t size, char (*callers)[64])
{
	const struct hook *h = hook_find(hs, name);
	int i, n = 0;

	if (!h || !strcmp(h->state, "missing")) {
		diag("no hook %s", name);
		return -ENOENT;
	}
	snprintf(fn, size, "%s", h->target);
	for (i = 0; callers && i < hs->n && n < 2; i++)
		if (!strcmp(hs->h[i].name, name))
			snprintf(callers[n++], sizeof(callers[0]), "%s",
				 hs->h[i].caller);
	return 0;
}

static struct probe *probe_new(enum attr_ev ev, const char *kind)
{
	struct probe *p = &probes[nprobes];

	memset(p, 0, sizeof(*p));
	snprintf(p->name, sizeof(p->name), "%s%d", kind, nprobes++);
	p->ev = ev;
	snprintf(p->trigger, sizeof(p->trigger), "hist:keys=cgid:size=2048");
	return p;
}

/*
 * The drains of drain_stock(stock) (6.1, 6.12: the memcg in stock->cached)
 * or drain_stock(stock, i) (7.x: stock->cached[i]); on 7.x one probe per
 * slot, each filtered on the index, and as many that count evictions: a
 * call from refill_stock() on a slot of at most CHARGE_BATCH pages.
 */
static int drain_probes(const struct hooks *hs, bool multi)
{
	char fn[64], base[160];
	long cached, nr_pages, slots = 1;
	struct probe *p;
	int i;

	if (hook_target(hs, "attr.drains", fn, sizeof(fn), NULL) ||
	    btf_member_offset("memcg_stock_pcp", "cached", &cached) ||
	    (multi && (btf_member_offset("memcg_stock_pcp", "nr_pages",
					 &nr_pages) ||
		       btf_member_array_len("memcg_stock_pcp", "cached",
					    &slots))))
		return -ENOENT;
	if (slots < 1 || slots > SLOTS_MAX) {
		diag("memcg_stock_pcp.cached has %ld slots: not 1..%d", slots,
		     SLOTS_MAX);
		return -ERANGE;
	}
	for (i = 0; i < slots; i++) {
		long slot = cached + i * sizeof(void *);

		/*
		 * An empty slot is no drain of a memcg (the module counts
		 * none): its failed fetch leaves the cgid field undefined.
		 */
		if (cgid_fetch(0, base, sizeof(base)))
			return -ENOENT;
		fetch_deref(base, sizeof(base), slot);
		p = probe_new(ATTR_DRAINS, "d");
		snprintf(p->fn, sizeof(p->fn), "%s", fn);
		snprintf(p->args, sizeof(p->args),
			 "%s memcg=+%ld(%%di):x64 idx=%%si:s32", base, slot);
		snprintf(p->trigger, sizeof(p->trigger),
			 "hist:keys=cgid:size=2048 if memcg != 0");
		if (!multi)
			continue;
		snprintf(p->trigger, sizeof(p->trigger),
			 "hist:keys=cgid:size=2048 if memcg != 0 && idx == %d", i);
		p = probe_new(ATTR_EVICTED, "e");
		snprintf(p->fn, sizeof(p->fn), "%s", fn);
		snprintf(p->args, sizeof(p->args),
			 "%s memcg=+%ld(%%di):x64 idx=%%si:s32 nr=+%ld(%%di):u8",
			 base, slot, nr_pages + i);
		snprintf(p->trigger, sizeof(p->trigger),
			 "hist:keys=cgid,caller.sym:size=2048 if memcg != 0 && idx == %d && nr <= %d",
			 i, CHARGE_BATCH);
		snprintf(p->callers[0], sizeof(p->callers[0]), "refill_stock");
	}
	return 0;
}

/* Every probe: functions from `hooks`, offsets from vmlinux's BTF. */
static int probes_resolve(void)
{
	static const struct { const char *hook; enum attr_ev ev; } one[] = {
		{ "attr.attempts", ATTR_ATTEMPTS },
		{ "attr.misses", ATTR_MISSES },
		{ "attr.refills", ATTR_REFILLS },
		{ "attr.obj_misses", ATTR_OBJ_MISSES },
	};
	struct hooks hs;
	long memory, objcg_memcg;
	struct probe *p;
	unsigned int i;
	int model = model_of_stock();

	nprobes = 0;
	if (!model || hooks_read(&hs))
		return -EIO;
	if (btf_member_offset("mem_cgroup", "memory", &memory))
		return -ENOENT;
	for (i = 0; i < ARRAY_SIZE(one); i++) {
		p = probe_new(one[i].ev, "p");
		if (hook_target(&hs, one[i].hook, p->fn, sizeof(p->fn),
				one[i].ev == ATTR_OBJ_MISSES ? p->callers : NULL) ||
		    cgid_fetch(one[i].ev == ATTR_MISSES ? -memory : 0, p->args,
			       sizeof(p->args)))
			return -ENOENT;
		if (one[i].ev != ATTR_OBJ_MISSES)
			continue;
		/* the obj-stock misses hist is keyed on the caller too */
		snprintf(p->trigger, sizeof(p->trigger),
			 "hist:keys=cgid,caller.sym:size=4096");
		if (strcmp(p->fn, "try_charge_memcg")) {
			/* 7.x: argument 0 is an objcg, its memcg one load away */
			if (btf_member_offset("obj_cgroup", "memcg",
					      &objcg_memcg))
				return -ENOENT;
			fetch_deref(p->args, sizeof(p->args), objcg_memcg);
		}
	}
	return drain_probes(&hs, model == 2);
}

static int kprobe_cmd(const char *cmd)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/kprobe_events", tracefs());
	return write_str(path, cmd);	/* appends */
}

static void ev_path(char *buf, size_t size, const char *name,
		    const char *file)
{
	snprintf(buf, size, "%s/events/" EV_GROUP "/%s/%s", tracefs(), name,
		 file);
}

static void probes_remove(void)
{
	char path[256], cmd[160];
	int i;

	for (i = 0; i < nprobes; i++) {
		ev_path(path, sizeof(path), probes[i].name, "trigger");
		snprintf(cmd, sizeof(cmd), "!%s", probes[i].trigger);
		write_str(path, cmd);
		snprintf(cmd, sizeof(cmd), "-:" EV_GROUP "/%s", probes[i].name);
		kprobe_cmd(cmd);
	}
	for (i = 0; i < nprobes; i++) {
		snprintf(cmd, sizeof(cmd), "r%d", i);
		ev_path(path, sizeof(path), cmd, "enable");
		write_str(path, "0");
		snprintf(cmd, sizeof(cmd), "-:" EV_GROUP "/r%d", i);
		kprobe_cmd(cmd);
	}
}

static int probes_add(void)
{
	char path[256], cmd[512];
	int i, r = 0;

	for (i = 0; i < nprobes && !r; i++) {
		const struct probe *p = &probes[i];

		snprintf(cmd, sizeof(cmd), "p:" EV_GROUP "/%s %s %s caller=$stack0:x64",
			 p->name, p->fn, p->args);
		r = kprobe_cmd(cmd);
		if (!r) {
			ev_path(path, sizeof(path), p->name, "trigger");
			r = write_str(path, p->trigger);
		}
		/* one kretprobe per function is enough to hide the callers */
		if (!r && kretprobes && (i == 0 || strcmp(p->fn, probes[i - 1].fn))) {
			snprintf(cmd, sizeof(cmd), "r:" EV_GROUP "/r%d %s", i,
				 p->fn);
			r = kprobe_cmd(cmd);
			snprintf(cmd, sizeof(cmd), "r%d", i);
			ev_path(path, sizeof(path), cmd, "enable");
			if (!r)
				r = write_str(path, "1");
		}
		if (r)
			diag("kprobe %s on %s: %s", p->name, p->fn, strerror(-r));
	}
	if (r)
		probes_remove();
	return r;
}

/* Whether hist key text @sym ("[addr] name ...") names one of @callers. */
static bool caller_in(const char *sym, const char (*callers)[64])
{
	const char *name = strchr(sym, ']');
	size_t len;
	int i;

	if (!name)
		return false;
	name += 1 + strspn(name + 1, " ");
	len = strcspn(name, " }");
	for (i = 0; i < 2 && callers[i][0]; i++) {
		size_t n = strlen(callers[i]);

		/* the caller, or a compiler clone of it (.cold, .part.0) */
		if (len >= n && !strncmp(name, callers[i], n) &&
		    (len == n || name[n] == '.'))
			return true;
	}
	return false;
}

/* Both sides, per cgroup of a run: the module's row and the oracle's. */
struct snap {
	int n;
	struct attr_row mod[RING_MAX];
	int64_t oracle[RING_MAX][ATTR_NR];
};

/* Adds @count to the oracle's event @e of the cgroup of @id that is @cgid. */
static void snap_add(struct snap *s, const uint64_t *id, enum attr_ev e,
		     uint64_t cgid, int64_t count)
{
	int c;

	for (c = 0; c < s->n; c++)
		if (id[c] == cgid)
			s->oracle[c][e] += count;
}

/*
 * Probe @p's hist, read once: each count (of its callers) added to the
 * snapshot's oracle for the cgroup of @id it names.
 */
static int hist_add(const struct probe *p, const uint64_t *id, struct snap *s)
{
	static char buf[1 << 18];
	char path[256], *line, *save;
	ssize_t n;

	ev_path(path, sizeof(path), p->name, "hist");
	n = read_file(path, buf, sizeof(buf));
	if (n < 0)
		return (int)n;
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *k = strstr(line, "cgid:"), *hc = strstr(line, "hitcount:");
		char *caller = strstr(line, "caller:");

		if (!k || !hc)
			continue;
		if (p->callers[0][0] && (!caller || !caller_in(caller, p->callers)))
			continue;
		snap_add(s, id, p->ev, strtoull(k + 5, NULL, 10),
			 strtoll(hc + 9, NULL, 10));
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
		char kind;
		int i;

		if (sscanf(line, " %c%d %llu %llu", &kind, &i, &hits, &miss) == 4 &&
		    kind != 'r')
			sum += miss;
	}
	return sum;
}

/* The module's row of each cgroup of @id into @rows; zeros for one unlisted. */
static int mod_rows(const uint64_t *id, int n, struct attr_row *rows)
{
	int c, r;

	for (c = 0; c < n; c++) {
		r = attr_get(id[c], &rows[c]);
		if (r == -ENOENT) {
			memset(&rows[c], 0, sizeof(rows[c]));
			r = 0;
		}
		if (r)
			return r;
	}
	return 0;
}

/*
 * Both sides for the @s->n cgroups of @id, taken while the module's stay
 * the same before and after reading the hists: work the kernel defers
 * (RCU freeing a task's objects) may still charge or refill a cgroup a
 * moment later. A cgroup the module has not listed has zeros.
 */
static int snap_take(const uint64_t *id, struct snap *s)
{
	struct attr_row again[RING_MAX];
	int tries, i, r;

	for (tries = 0; tries < 50; tries++) {
		memset(s->oracle, 0, sizeof(s->oracle));
		r = mod_rows(id, s->n, s->mod);
		for (i = 0; i < nprobes && !r; i++)
			r = hist_add(&probes[i], id, s);
		if (!r)
			r = mod_rows(id, s->n, again);
		if (r)
			return r;
		if (!memcmp(again, s->mod, s->n * sizeof(again[0])))
			return 0;
		sleep_ms(100);
	}
	diag("the test cgroups never went quiet");
	return -EBUSY;
}

/* Whether event @e is compared: counted here, and not told by a hidden caller. */
static bool compared(enum attr_ev e, bool multi)
{
	if (e == ATTR_EVICTED && !multi)
		return false;		/* 6.x: `-` */
	/* with a kretprobe beside, $stack0 is its trampoline */
	return !kretprobes || (e != ATTR_OBJ_MISSES && e != ATTR_EVICTED);
}

/*
 * Each compared count of each cgroup, module against oracle, from @s0 to
 * @s1: the module's must lie between the oracle's and that plus the calls
 * the kprobes missed. @total gets each event's oracle sum over the cgroups.
 */
static int compare(const uint64_t *id, const struct snap *s0,
		   const struct snap *s1, uint64_t missed, int64_t *total)
{
	static const char *const ev_name[ATTR_NR] = {
		"attempts", "misses", "refills", "drains", "obj_misses",
		"evicted",
	};
	bool multi = model_of_stock() == 2;
	int c, e, bad = 0;

	memset(total, 0, ATTR_NR * sizeof(*total));
	for (c = 0; c < s1->n; c++) {
		for (e = 0; e < ATTR_NR; e++) {
			int64_t mod = s1->mod[c].ev[e] - s0->mod[c].ev[e];
			int64_t orc = s1->oracle[c][e] - s0->oracle[c][e];
			char what[96];

			if (!compared(e, multi))
				continue;
			total[e] += orc;
			snprintf(what, sizeof(what), "cgroup %" PRIu64 " %s",
				 id[c], ev_name[e]);
			diag("%s: module +%" PRId64 ", kprobe +%" PRId64, what,
			     mod, orc);
			bad |= mod < 0 || orc < 0 ||
			       bracket(what, mod, orc, orc + missed);
		}
	}
	return bad;
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

/* Probes added, the attribution on: 0, else a KSFT_ result. */
static int oracle_ready(void)
{
	int r = stock_attribution_on();

	if (r) {
		diag("stock_attribution: %s", strerror(-r));
		return r == -ENOENT || r == -EOPNOTSUPP ? KSFT_SKIP : KSFT_FAIL;
	}
	if (!tracefs() || probes_resolve())
		return KSFT_SKIP;
	return probes_add() ? KSFT_FAIL : 0;
}

static uint64_t missed_now(void)
{
	uint64_t missed = probes_missed();

	diag("%s: kprobes missed %" PRIu64 " calls",
	     kretprobes ? "with kretprobes beside" : "alone", missed);
	return missed;
}

/* Two cgroups fault PAGES_A and PAGES_B pages and make FILES files each. */
static int run_pair(void)
{
	char cg[2][256] = { { 0 } };
	struct snap s0 = { .n = 2 }, s1 = { .n = 2 };
	int64_t total[ATTR_NR];
	uint64_t id[2];
	struct stat st;
	int c, r, bad = 1;

	r = oracle_ready();
	if (r)
		return r;
	for (c = 0; c < 2; c++) {
		if (cg_create_leaf(c ? "attr_b" : "attr_a", cg[c], sizeof(cg[c])) ||
		    stat(cg[c], &st))
			goto out;
		id[c] = st.st_ino;
	}
	if (snap_take(id, &s0) || fault_in(cg[0], PAGES_A) ||
	    fault_in(cg[1], PAGES_B) || snap_take(id, &s1))
		goto out;
	bad = compare(id, &s0, &s1, missed_now(), total);
	for (c = 0; c < 2 && !kretprobes; c++) {
		if (s1.oracle[c][ATTR_OBJ_MISSES] == s0.oracle[c][ATTR_OBJ_MISSES]) {
			diag("cgroup %" PRIu64 ": no obj-stock miss seen, nothing compared",
			     id[c]);
			bad = 1;
		}
	}
	/* the cgroup that faulted twice the pages charged more */
	if (s1.mod[1].ev[ATTR_ATTEMPTS] - s0.mod[1].ev[ATTR_ATTEMPTS] <=
	    s1.mod[0].ev[ATTR_ATTEMPTS] - s0.mod[0].ev[ATTR_ATTEMPTS]) {
		diag("cgroup B (%d pages) did not attempt more charges than A (%d)",
		     PAGES_B, PAGES_A);
		bad = 1;
	}
out:
	probes_remove();
	for (c = 0; c < 2; c++)
		if (cg[c][0])
			cg_destroy(cg[c]);
	return bad ? KSFT_FAIL : KSFT_PASS;
}

static int test_oracle(void)
{
	kretprobes = false;
	return run_pair();
}

static int test_oracle_kretprobe(void)
{
	kretprobes = true;
	return run_pair();
}

/*
 * The turn-taking ring of lib/turns.c (2 memcgs on 6.x, 16 on 7.x, on cpu
 * 0), whose every turn drains a stock slot and, on 7.x, evicts one: each
 * cgroup's drains (and evictions) over its whole life must equal the
 * kprobe hists', which start at zero for its new id as the module's row
 * does; and the ring must have drained (and evicted) in at least 90% of
 * its turns, or it did not test what it is for.
 */
static int run_ring(void)
{
	struct snap *s0 = calloc(2, sizeof(*s0)), *s1 = s0 + 1;
	struct turns *t = calloc(1, sizeof(*t));
	int model = model_of_stock(), r, bad = 1;
	int64_t total[ATTR_NR];

	if (!s0 || !t) {
		free(s0);
		free(t);
		return KSFT_FAIL;
	}
	r = oracle_ready();
	if (r)
		goto out_free;
	t->k = model == 2 ? 2 * (NR_MEMCG_STOCK_MULTI + 1) : 2;
	t->turns = RING_FAULTS / t->k;
	diag("%d memcgs take %d turns each on cpu 0", t->k, t->turns);
	if (turns_run(t))
		goto out;
	s0->n = s1->n = t->k;
	if (snap_take(t->id, s1))
		goto out;
	bad = compare(t->id, s0, s1, missed_now(), total);
	if (total[ATTR_DRAINS] < (int64_t)t->k * t->turns * 9 / 10 ||
	    (model == 2 && !kretprobes &&
	     total[ATTR_EVICTED] < (int64_t)t->k * t->turns * 9 / 10)) {
		diag("the ring drained %" PRId64 " and evicted %" PRId64
		     " times in %d turns: too few to compare",
		     total[ATTR_DRAINS], total[ATTR_EVICTED], t->k * t->turns);
		bad = 1;
	}
out:
	probes_remove();
	r = bad ? KSFT_FAIL : KSFT_PASS;
out_free:
	free(s0);
	free(t);
	return r;
}

static int test_ring(void)
{
	kretprobes = false;
	return run_ring();
}

static int test_ring_kretprobe(void)
{
	kretprobes = true;
	return run_ring();
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
	{ test_ring, "drains_and_evictions_equal_kprobe_hists" },
	{ test_ring_kretprobe, "drains_equal_kprobe_hists_kretprobe_beside" },
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
