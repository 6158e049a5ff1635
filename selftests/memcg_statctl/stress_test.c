// SPDX-License-Identifier: GPL-2.0
/*
 * Concurrency stress: every knob, `reset` and every reader of the debugfs
 * directory at once, under a memcg load, for a bounded time.
 *
 *  stress  For DURATION seconds (default 120; the first argument or
 *          $MEMCG_STATCTL_STRESS_S sets it, 1..86400), and on, up to
 *          twice that, until each knob has had each of its valid values
 *          (a write that patches code can take seconds under TCG), all at
 *          once:
 *          - one writer per knob: flush_mode over its four modes,
 *            flush_threshold 0, 1, 64, the kernel's (64 x online cpus),
 *            2^40, 2^62; flush_period_ms 0, 10, 500, 2000 (the kernel's),
 *            3600000; update_flush_every 0, 1, 32, 2^24; stock_hooks,
 *            objcg_flush_hooks and stock_attribution 0, 1.
 *            The valid values are written in turn (from a random one);
 *            every fifth write, from the first, is invalid (out of range
 *            or malformed) and must fail with EINVAL; a valid one must
 *            succeed and read back as written;
 *          - a second writer per knob, racing the first with the same
 *            values and rules: while it may have written between the
 *            first writer's write and read-back (a sequence count around
 *            each of its writes says when), that read-back must be a value
 *            the knob allows instead of the exact one. After each write it
 *            waits twice as long as the write took, so that writes
 *            which take seconds (they patch code) leave the first writer
 *            room for exact read-backs;
 *          - a writer of `reset`: valid writes start a new reset epoch
 *            under a lock that the `stats` samplers take to read; invalid
 *            ones must fail with EINVAL and start no epoch, so a wrong
 *            reset shows as a counter going down. In the last quarter of
 *            the run it writes only invalid values: one epoch spans it;
 *          - readers: two of `stats`, one of `hooks`, one of the knobs,
 *            `version` and `stock_by_cgroup`;
 *          - a load, one child of each kind per cpu: page faults in memcg
 *            leaves, slab objects (tmpfs files created and unlinked) in
 *            memcg leaves, memory.stat readers of those leaves, and leaves
 *            created, charged (anonymous and tmpfs pages that outlive the
 *            leaf) and removed.
 *          Judged: every write as above, and every valid value of each
 *          knob written at least once and one read-back of each knob free
 *          of its racer (else the run was too short to judge; the run
 *          goes on for them); no counter of `stats` went down between
 *          two reads of one epoch; the hits of a hook attached at two
 *          reads did not go down; the sets of counters and hooks and the
 *          `version` text never changed; no hook `failed`; every knob
 *          always read a value it allows; `stock_by_cgroup` always reads
 *          as its kinds of line (state on or off, cgroup, other, occupancy,
 *          occupancy_state); no value of `stats` or `stock_by_cgroup`
 *          looks like a wrapped
 *          negative number; no load child failed. Afterwards, knobs
 *          back to their values from before and the load gone, at
 *          quiescence: flush.requests = flush.performed + flush.skipped
 *          over the last epoch (at least one request); and the kernel
 *          log since the start has no WARNING, BUG, Oops, lockdep, KASAN,
 *          UBSAN, "sleeping function", stall or lockup line. Prints the
 *          rate of each kind of operation and the invariants' counts.
 *          Without flush control (version's flush_control not `available`,
 *          e.g. PREEMPT_RT 6.1) the same, except that every write of a
 *          flush knob must fail with EOPNOTSUPP (EINVAL allowed for an
 *          invalid value) and the flush invariant is not judged. Where
 *          stock attribution is `missing` (cgroup v1), its knob must refuse
 *          1 with EOPNOTSUPP and may take 0.
 *  unload_restores_kernel_flush  From the knob values the stress ended
 *          with, unload: no function the module hooked keeps an ftrace
 *          callback (tracefs enabled_functions) and the kernel flushes as
 *          without the module (kernel_flush_restored() of lib.h); then the
 *          module is loaded again. Needs $MEMCG_STATCTL_KO (else SKIP).
 *
 * This supersedes flush_knobs_test's former knob_stress (flush_mode and
 * flush_threshold writers under a fault load for 30 s).
 *
 * The threads and children are spread over every online cpu, round robin,
 * under QEMU's TCG too: the project's guests run single-threaded TCG (the
 * vCPUs take turns on one host thread, so none runs code another has just
 * patched); multi-threaded TCG can run stale code after ftrace patches a
 * function that another vCPU runs hot. MEMCG_STATCTL_SEED fixes the random
 * choices (printed either way).
 */
#define _GNU_SOURCE

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib.h"

#define DEFAULT_S	120
#define MAX_S		86400
#define PER_KIND_MAX	32	/* load children of one kind */
#define FAULT_PAGES	64	/* per mmap of a faulting child */
#define CHURN_PAGES	32	/* anonymous pages of a short-lived leaf */
#define SHOW_MAX	5	/* violations printed per thread */
#define INVALID_1_IN	5	/* every 5th write is invalid, from the first */
#define ATTR_BUF	(256 << 10)	/* stock_by_cgroup: 2 x 256 slots and more */

static unsigned int duration_s = DEFAULT_S;
static unsigned int seed;

/* ---- knobs (module/ABI.md) ------------------------------------------------ */

static char threshold_kernel[32];	/* 64 x online cpus */

static const char *const mode_good[] = {
	"kernel", "threshold", "always", "never", "never\n", NULL,
};

static const char *const mode_bad[] = {
	"\n", "foo", "Kernel", "always ", "1", NULL,
};

static const char *const threshold_good[] = {
	"0", "1", "64", threshold_kernel, "1099511627776",
	"4611686018427387904", "64\n", NULL,
};

static const char *const threshold_bad[] = {
	"4611686018427387905", "-1", "18446744073709551616", "0x10", " 1",
	NULL,
};

static const char *const period_good[] = {
	"0", "10", "500", "2000", "3600000", "2000\n", NULL,
};

static const char *const period_bad[] = {
	"9", "3600001", "-0", "1e3", NULL,
};

static const char *const every_good[] = {
	"0", "1", "32", "16777216", "0\n", NULL,
};

static const char *const every_bad[] = {
	"16777217", "+1", "1 ", NULL,
};

static const char *const stock_good[] = { "0", "1", "1\n", NULL };

static const char *const stock_bad[] = { "2", "on", "01x", NULL };

static const char *const mode_names[] = {
	"kernel", "threshold", "always", "never",
};

/* What a knob's writes need, else they are refused with EOPNOTSUPP. */
enum needs {
	NEEDS_NOTHING,
	NEEDS_FLUSH_CTL,	/* flush control: every write is refused */
	NEEDS_ATTRIBUTION,	/* stock_by_cgroup not `missing`: 0 is taken */
};

struct knob {
	const char *name;
	const char *const *good;
	const char *const *bad;
	bool mode;		/* a mode name, else a number in 0..max */
	unsigned long long max;
	unsigned long long min_nonzero;	/* flush_period_ms: 0 or 10.. */
	enum needs needs;	/* what a write of 1 or more must have */
};

static const struct knob knobs[] = {
	{ "flush_mode", mode_good, mode_bad, true, 0, 0, NEEDS_FLUSH_CTL },
	{ "flush_threshold", threshold_good, threshold_bad, false,
	  1ULL << 62, 0, NEEDS_FLUSH_CTL },
	{ "flush_period_ms", period_good, period_bad, false, 3600000, 10,
	  NEEDS_FLUSH_CTL },
	{ "update_flush_every", every_good, every_bad, false, 1 << 24, 0,
	  NEEDS_FLUSH_CTL },
	{ "stock_hooks", stock_good, stock_bad, false, 1, 0, NEEDS_NOTHING },
	{ "objcg_flush_hooks", stock_good, stock_bad, false, 1, 0,
	  NEEDS_NOTHING },
	{ "stock_attribution", stock_good, stock_bad, false, 1, 0,
	  NEEDS_ATTRIBUTION },
};

/*
 * version's flush_control is `available`. Without it (PREEMPT_RT 6.1, or
 * flush_hooks=0) the stress runs all the same: the flush knobs must refuse
 * every write with EOPNOTSUPP (module/ABI.md) and keep their value, and
 * the flush counters are absent, so the flush invariant is not judged.
 */
static bool flush_ctl;

/* stock_by_cgroup's state is not `missing`: stock_attribution takes 1. */
static bool attr_ok;

/* A knob the stress may set: what it needs is there. */
static bool knob_settable(const struct knob *k)
{
	switch (k->needs) {
	case NEEDS_FLUSH_CTL:
		return flush_ctl;
	case NEEDS_ATTRIBUTION:
		return attr_ok;
	default:
		return true;
	}
}

#define NKNOBS	ARRAY_SIZE(knobs)

static const char *const reset_bad[] = { "0", "2", "1 ", "11", "\n", NULL };

/* A value the knob allows (what reading it may ever show). */
static bool knob_allows(const struct knob *k, const char *val)
{
	unsigned long long v;
	char *end;
	size_t i;

	if (k->mode) {
		for (i = 0; i < ARRAY_SIZE(mode_names); i++)
			if (!strcmp(val, mode_names[i]))
				return true;
		return false;
	}
	if (val[0] < '0' || val[0] > '9')
		return false;
	errno = 0;
	v = strtoull(val, &end, 10);
	if (errno || *end)
		return false;
	return v <= k->max && !(v && v < k->min_nonzero);
}

static int knob_write(const char *name, const char *val)
{
	ssize_t r = statctl_write(name, val, strlen(val));

	if (r < 0)
		return r;
	return (size_t)r == strlen(val) ? 0 : -EIO;
}

static size_t count_of(const char *const *list)
{
	size_t n = 0;

	while (list[n])
		n++;
	return n;
}

/* ---- what the threads share ------------------------------------------------ */

static atomic_int stop;

/*
 * Reset epochs: the resetter holds the lock for writing around each valid
 * reset write and starts a new epoch; a `stats` sampler holds it for
 * reading around each read, so every read lies inside one epoch and two
 * reads of one epoch must not see a counter go down. Writers first: the
 * samplers read back to back and would starve a reader-first lock.
 */
static pthread_rwlock_t epoch_lock;
static unsigned long epoch;

/* What the stress saw first; every later read must match its shape. */
static struct stats first_stats;
static struct hooks first_hooks;
static char first_version[4096];

struct tally {
	unsigned long violations;
	const char *who;
};

static void violation(struct tally *t, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	if (t->violations++ >= SHOW_MAX)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	diag("%s: %s", t->who, msg);
}

/* ---- writers ----------------------------------------------------------------- */

struct writer {
	pthread_t th;
	const struct knob *k;	/* NULL: the `reset` writer */
	size_t ki;		/* k's index in knobs[] */
	bool racer;		/* the knob's second writer */
	char name[40];		/* a racer's name: "KNOB racer" */
	int cpu;
	unsigned int seed;
	unsigned int next_good;	/* valid values in turn, from a random one */
	atomic_ulong done_good;	/* bit i: good[i] written and judged */
	unsigned long writes, accepted, rejected;
	atomic_ulong exact;	/* read-backs judged exactly */
	unsigned long raced;	/* read-backs that a racing write may have changed */
	unsigned long long write_ns;	/* how long the last write took */
	struct tally t;
};

/*
 * Per knob, a count its racer bumps before and after each write: odd while
 * a racing write may be under way. The first writer's read-back is exact
 * when the count was even and the same before its write and after it.
 */
static atomic_ulong knob_seq[NKNOBS];

/*
 * The last quarter of the run is one reset epoch: the resetter then writes
 * only invalid values, so the flush invariant judged afterwards covers
 * that much of the load, every knob writer still at work.
 */
static atomic_int last_epoch;

static void knob_writer_step(struct writer *w)
{
	const struct knob *k = w->k;
	bool bad = w->writes++ % INVALID_1_IN == 0;
	unsigned int i = bad ? rand_r(&w->seed) % count_of(k->bad) :
			       w->next_good++ % count_of(k->good);
	const char *val = bad ? k->bad[i] : k->good[i];
	atomic_ulong *seq = &knob_seq[w->ki];
	unsigned long seq0 = 0;
	char want[32], got[64];
	int r;

	if (w->racer)
		atomic_fetch_add(seq, 1);
	else
		seq0 = atomic_load(seq);
	w->write_ns = now_ns();
	r = knob_write(k->name, val);
	w->write_ns = now_ns() - w->write_ns;
	if (w->racer)
		atomic_fetch_add(seq, 1);

	snprintf(want, sizeof(want), "%s", val);
	want[strcspn(want, "\n")] = 0;
	if (!knob_settable(k)) {
		/* refused whatever its value; a missing feature may be set off */
		bool off_ok = k->needs == NEEDS_ATTRIBUTION && !strcmp(want, "0");

		if (r != -EOPNOTSUPP && !(bad && r == -EINVAL) && !(off_ok && !r)) {
			violation(&w->t, "'%s' without %s gave %d, want EOPNOTSUPP",
				  want, k->needs == NEEDS_FLUSH_CTL ?
				  "flush control" : "stock attribution", r);
			return;
		}
		w->rejected++;
		if (!bad)
			atomic_fetch_or(&w->done_good, 1UL << i);
		return;
	}
	if (bad) {
		if (r == -EINVAL)
			w->rejected++;
		else
			violation(&w->t, "invalid '%s' gave %d, want EINVAL",
				  want, r);
		return;
	}
	if (r) {
		violation(&w->t, "'%s' failed: %s", want, strerror(-r));
		return;
	}
	w->accepted++;
	if (w->racer) {
		atomic_fetch_or(&w->done_good, 1UL << i);
		return;
	}
	r = statctl_read_line(k->name, got, sizeof(got));
	if (r) {
		violation(&w->t, "read back after '%s': %d", want, r);
	} else if (seq0 % 2 || atomic_load(seq) != seq0) {
		/* the racer may have written in between */
		w->raced++;
		if (knob_allows(k, got))
			atomic_fetch_or(&w->done_good, 1UL << i);
		else
			violation(&w->t,
				  "wrote '%s' (raced), reads back '%s', which it does not allow",
				  want, got);
	} else if (strcmp(got, want)) {
		atomic_fetch_add(&w->exact, 1);
		violation(&w->t, "wrote '%s', reads back '%s'", want, got);
	} else {
		atomic_fetch_add(&w->exact, 1);
		atomic_fetch_or(&w->done_good, 1UL << i);
	}
}

static void reset_writer_step(struct writer *w)
{
	const char *val;
	ssize_t r;

	if (w->writes++ % INVALID_1_IN == 0 || atomic_load(&last_epoch)) {
		val = reset_bad[rand_r(&w->seed) % count_of(reset_bad)];
		r = statctl_write("reset", val, strlen(val));
		if (r == -EINVAL)
			w->rejected++;
		else
			violation(&w->t, "invalid write of %zu bytes gave %zd, want EINVAL",
				  strlen(val), r);
		return;
	}
	pthread_rwlock_wrlock(&epoch_lock);
	r = statctl_write("reset", "1", 1);
	epoch++;
	pthread_rwlock_unlock(&epoch_lock);
	if (r == 1)
		w->accepted++;
	else
		violation(&w->t, "'1' gave %zd", r);
}

/* A racer's rest: twice its last write, in steps that see `stop`. */
static void racer_pause(struct writer *w)
{
	unsigned long long ms = 2 * w->write_ns / 1000000;

	while (ms && !atomic_load(&stop)) {
		unsigned int step = ms < 100 ? ms : 100;

		sleep_ms(step);
		ms -= step;
	}
}

static void *writer_fn(void *arg)
{
	struct writer *w = arg;

	pin_to_cpu(w->cpu);
	while (!atomic_load(&stop)) {
		if (w->k) {
			knob_writer_step(w);
			if (w->racer)
				racer_pause(w);
			sleep_ms(rand_r(&w->seed) % 5);
		} else {
			reset_writer_step(w);
			sleep_ms(rand_r(&w->seed) % 50);
		}
	}
	return NULL;
}

/* ---- readers ----------------------------------------------------------------- */

struct reader {
	pthread_t th;
	int cpu;
	unsigned long reads, reads2, reads3, compared, epochs;
	struct tally t;
};

/*
 * An opt-in counter (objcg_vmstat.flushes) is listed only while its switch
 * is on, and the stress flips that switch: the names are compared without it.
 */
static bool optin_counter(const char *name)
{
	return !strcmp(name, "objcg_vmstat.flushes");
}

/* The next name of @s at or after @i that is not an opt-in counter. */
static int next_fixed(const struct stats *s, int i)
{
	while (i < s->n && optin_counter(s->name[i]))
		i++;
	return i;
}

static bool same_names(const struct stats *a, const struct stats *b)
{
	int i = next_fixed(a, 0), j = next_fixed(b, 0);

	for (; i < a->n && j < b->n;
	     i = next_fixed(a, i + 1), j = next_fixed(b, j + 1))
		if (strcmp(a->name[i], b->name[j]))
			return false;
	return i == a->n && j == b->n;
}

static void *stats_sampler_fn(void *arg)
{
	struct reader *rd = arg;
	struct stats prev, cur;
	unsigned long e, prev_e = 0;
	bool have_prev = false;
	int i, r;

	pin_to_cpu(rd->cpu);
	while (!atomic_load(&stop)) {
		pthread_rwlock_rdlock(&epoch_lock);
		e = epoch;
		r = stats_read(&cur);
		pthread_rwlock_unlock(&epoch_lock);
		if (r) {
			violation(&rd->t, "stats read failed: %d", r);
			sleep_ms(10);
			continue;
		}
		rd->reads++;
		if (!same_names(&first_stats, &cur))
			violation(&rd->t, "counters changed: %d, %d at the start",
				  cur.n, first_stats.n);
		for (i = 0; i < cur.n; i++)
			if (cur.val[i] >> 62)
				violation(&rd->t, "%s = %llu: a wrapped negative?",
					  cur.name[i],
					  (unsigned long long)cur.val[i]);
		if (have_prev && e == prev_e && same_names(&prev, &cur)) {
			uint64_t was;

			rd->compared++;
			for (i = 0; i < cur.n; i++)
				if (!stats_get(&prev, cur.name[i], &was) &&
				    cur.val[i] < was)
					violation(&rd->t, "epoch %lu: %s went down, %llu -> %llu",
						  e, cur.name[i],
						  (unsigned long long)was,
						  (unsigned long long)cur.val[i]);
		}
		if (!have_prev || e != prev_e)
			rd->epochs++;
		prev = cur;
		prev_e = e;
		have_prev = true;
		sleep_ms(1);
	}
	return NULL;
}

static bool state_known(const char *state)
{
	return !strcmp(state, "attached") || !strcmp(state, "off") ||
	       !strcmp(state, "missing");
}

static void check_hooks(struct reader *rd, const struct hooks *prev,
			const struct hooks *cur)
{
	int i;

	if (cur->n != first_hooks.n) {
		violation(&rd->t, "%d hooks, %d at the start", cur->n,
			  first_hooks.n);
		return;
	}
	for (i = 0; i < cur->n; i++) {
		const struct hook *h = &cur->h[i], *f = &first_hooks.h[i];

		if (strcmp(h->name, f->name) || strcmp(h->target, f->target)) {
			violation(&rd->t, "hook %d is %s on %s, was %s on %s",
				  i, h->name, h->target, f->name, f->target);
			continue;
		}
		if (!state_known(h->state))
			violation(&rd->t, "hook %s is %s", h->name, h->state);
		else if (!strcmp(f->state, "missing") !=
			 !strcmp(h->state, "missing"))
			violation(&rd->t, "hook %s went from %s to %s",
				  h->name, f->state, h->state);
		if (!prev || strcmp(prev->h[i].state, "attached") ||
		    strcmp(h->state, "attached"))
			continue;
		rd->compared++;
		if (h->hits < prev->h[i].hits)
			violation(&rd->t, "hook %s: hits went down, %llu -> %llu",
				  h->name,
				  (unsigned long long)prev->h[i].hits,
				  (unsigned long long)h->hits);
	}
}

static void *hooks_reader_fn(void *arg)
{
	struct reader *rd = arg;
	struct hooks *a = malloc(sizeof(*a)), *b = malloc(sizeof(*b)), *tmp;
	bool have_prev = false;
	int r;

	if (!a || !b) {
		violation(&rd->t, "out of memory");
		free(a);
		free(b);
		return NULL;
	}
	pin_to_cpu(rd->cpu);
	while (!atomic_load(&stop)) {
		r = hooks_read(b);
		if (r) {
			violation(&rd->t, "hooks read failed: %d", r);
			have_prev = false;
			sleep_ms(10);
			continue;
		}
		rd->reads++;
		check_hooks(rd, have_prev && a->n == b->n ? a : NULL, b);
		tmp = a;
		a = b;
		b = tmp;
		have_prev = true;
		sleep_ms(2);
	}
	free(a);
	free(b);
	return NULL;
}

/* The state word of stock_by_cgroup's first line into @buf. */
static int attr_state(char *buf, size_t size)
{
	char line[64];
	ssize_t len = statctl_read("stock_by_cgroup", line, sizeof(line));

	/* a longer file fills the buffer: only its first line matters */
	if (len < 0)
		return len;
	line[sizeof(line) - 1] = 0;
	if (sscanf(line, "state %63s", buf) != 1 || strlen(buf) >= size)
		return -EPROTO;
	return 0;
}

/* One `stock_by_cgroup` read: its kinds of line, no wrapped value. */
static void check_attribution(struct reader *rd, char *buf, size_t size)
{
	static const char *const kinds[] = {
		"cgroup ", "other ", "occupancy ", "occupancy_state ",
	};
	ssize_t len = statctl_read("stock_by_cgroup", buf, size);
	char *line, *save, *tok, *tsave;
	bool first = true;
	size_t i;

	if (len < 0) {
		violation(&rd->t, "stock_by_cgroup read failed: %zd", len);
		return;
	}
	if ((size_t)len >= size - 1)
		return;		/* more cgroups than the buffer: not judged */
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save), first = false) {
		if (first) {
			if (strcmp(line, attr_ok ? "state on" : "state missing") &&
			    strcmp(line, "state off"))
				violation(&rd->t, "stock_by_cgroup starts '%s'", line);
			continue;
		}
		for (i = 0; i < ARRAY_SIZE(kinds); i++)
			if (!strncmp(line, kinds[i], strlen(kinds[i])))
				break;
		if (i == ARRAY_SIZE(kinds)) {
			violation(&rd->t, "stock_by_cgroup line '%s'", line);
			continue;
		}
		for (tok = strtok_r(line, " ", &tsave); tok;
		     tok = strtok_r(NULL, " ", &tsave))
			if (tok[0] >= '0' && tok[0] <= '9' &&
			    strtoull(tok, NULL, 10) >> 62)
				violation(&rd->t, "stock_by_cgroup %s: a wrapped negative?",
					  tok);
	}
	rd->reads3++;
}

/*
 * The knobs, `version` and `stock_by_cgroup`: reads counts knob files,
 * reads2 versions, reads3 stock_by_cgroup.
 */
static void *knob_reader_fn(void *arg)
{
	struct reader *rd = arg;
	char val[64], ver[sizeof(first_version)], *attr = malloc(ATTR_BUF);
	size_t i;
	ssize_t len;
	int r;

	if (!attr) {
		violation(&rd->t, "out of memory");
		return NULL;
	}
	pin_to_cpu(rd->cpu);
	while (!atomic_load(&stop)) {
		check_attribution(rd, attr, ATTR_BUF);
		for (i = 0; i < NKNOBS; i++) {
			r = statctl_read_line(knobs[i].name, val, sizeof(val));
			if (r)
				violation(&rd->t, "%s read failed: %d",
					  knobs[i].name, r);
			else if (!knob_allows(&knobs[i], val))
				violation(&rd->t, "%s reads '%s', which it does not allow",
					  knobs[i].name, val);
			rd->reads++;
		}
		len = statctl_read("version", ver, sizeof(ver));
		if (len < 0)
			violation(&rd->t, "version read failed: %zd", len);
		else if (strcmp(ver, first_version))
			violation(&rd->t, "version changed: '%s'", ver);
		rd->reads2++;
		sleep_ms(5);
	}
	free(attr);
	return NULL;
}

/* ---- the load (children) ---------------------------------------------------- */

enum load_kind { L_FAULT, L_SLAB, L_MEMSTAT, L_CGROUP, L_KINDS };

static const char *const load_names[L_KINDS] = {
	"pages faulted", "tmpfs files created+unlinked", "memory.stat reads",
	"leaves created+charged+removed",
};

/*
 * Memory shared with the children, and from one test to the next. Each
 * child adds to its own slots between calls of the kernel; the parent
 * reads them once the children are gone.
 */
struct shared {
	unsigned long ops[L_KINDS][PER_KIND_MAX];
	unsigned long errors[L_KINDS][PER_KIND_MAX];
	bool have_end;
	char end[NKNOBS][32];	/* the knob values the stress ended with */
};

static struct shared *sh;

struct load_arg {
	enum load_kind kind;
	int idx, cpu, per_kind;
};

static void leaf_path(char *buf, size_t size, const char *what, int idx)
{
	snprintf(buf, size, "%s/stress_%s%d", TEST_CG_ROOT, what, idx);
}

static int load_fault(struct load_arg *a)
{
	void *p;

	thp_disable();
	for (;;) {
		p = fault_anon(FAULT_PAGES);
		if (!p)
			return 2;
		munmap(p, FAULT_PAGES * PAGE_SZ);
		sh->ops[L_FAULT][a->idx] += FAULT_PAGES;
	}
}

/* a tmpfs inode and dentry (accounted slab objects) and one page */
static int tmpfs_file(const char *path, bool keep)
{
	int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC, 0600);

	if (fd < 0)
		return -errno;
	(void)!write(fd, "x", 1);
	close(fd);
	if (!keep)
		unlink(path);
	return 0;
}

static int load_slab(struct load_arg *a)
{
	char path[64];
	unsigned long i;

	for (i = 0;; i++) {
		snprintf(path, sizeof(path), "/tmp/mcs_stress.%d.%lu",
			 (int)getpid(), i % 16);
		if (tmpfs_file(path, false))
			return 2;
		sh->ops[L_SLAB][a->idx]++;
	}
}

/* a whole memory.stat read: what makes the kernel flush for a reader */
static int load_memstat(struct load_arg *a)
{
	char cg[256], file[300], buf[8192];
	unsigned long i;
	int k;

	for (i = 0;; i++) {
		k = i % (2 * a->per_kind);
		leaf_path(cg, sizeof(cg), k < a->per_kind ? "fault" : "slab",
			  k % a->per_kind);
		snprintf(file, sizeof(file), "%s/memory.stat", cg);
		if (read_file(file, buf, sizeof(buf)) <= 0)
			sh->errors[L_MEMSTAT][a->idx]++;
		else
			sh->ops[L_MEMSTAT][a->idx]++;
	}
	return 0;
}

/*
 * A short-lived leaf: its process faults anonymous pages (freed at exit)
 * and rewrites a tmpfs file that outlives the leaf, so that the leaf goes
 * offline still charged and the next round uncharges its page.
 */
static int churn_leaf(void *arg, struct child *c)
{
	const char *file = arg;

	(void)c;
	thp_disable();
	if (!fault_anon(CHURN_PAGES))
		return 2;
	return tmpfs_file(file, true) ? 3 : 0;
}

static int load_cgroup(struct load_arg *a)
{
	char name[32], cg[256], file[64];
	struct child g;
	int r;

	snprintf(name, sizeof(name), "stress_churn%d", a->idx);
	snprintf(file, sizeof(file), "/tmp/mcs_stress_churn.%d", a->idx);
	for (;;) {
		r = cg_create_leaf(name, cg, sizeof(cg));
		if (!r)
			r = child_start(&g, cg, churn_leaf, file);
		if (!r) {
			r = child_reap(&g, 60000);
			if (r < 0)
				child_kill(&g);
		}
		if (!r)
			r = cg_destroy(cg);
		if (r) {
			sh->errors[L_CGROUP][a->idx]++;
			sleep_ms(10);
			continue;
		}
		sh->ops[L_CGROUP][a->idx]++;
	}
	return 0;
}

static int load_fn(void *arg, struct child *c)
{
	struct load_arg *a = arg;

	pin_to_cpu(a->cpu);
	child_notify(c);
	switch (a->kind) {
	case L_FAULT:
		return load_fault(a);
	case L_SLAB:
		return load_slab(a);
	case L_MEMSTAT:
		return load_memstat(a);
	default:
		return load_cgroup(a);
	}
}

/* ---- the stress ------------------------------------------------------------- */

static char saved[NKNOBS][64];

static int knobs_save(void)
{
	size_t i;
	int r;

	for (i = 0; i < NKNOBS; i++) {
		r = statctl_read_line(knobs[i].name, saved[i], sizeof(saved[i]));
		if (r) {
			diag("%s unreadable: %d", knobs[i].name, r);
			return r;
		}
	}
	return 0;
}

/* flush_mode last: the others may queue work that it then governs */
static int knobs_set(char (*vals)[64])
{
	int r = 0;
	size_t i;

	for (i = NKNOBS; i-- > 0;) {
		if (!vals[i][0] || !knob_settable(&knobs[i]))
			continue;
		if (knob_write(knobs[i].name, vals[i])) {
			diag("cannot set %s to %s", knobs[i].name, vals[i]);
			r = -1;
		}
	}
	return r;
}

/* Every knob there; flush_ctl set from version's flush_control. */
static bool knobs_present(void)
{
	char fc[64], as[64];
	size_t i;

	for (i = 0; i < NKNOBS; i++) {
		if (!statctl_has(knobs[i].name)) {
			diag("knob %s does not exist", knobs[i].name);
			return false;
		}
	}
	if (version_get("flush_control", fc, sizeof(fc))) {
		diag("version has no flush_control");
		return false;
	}
	flush_ctl = !strcmp(fc, "available");
	attr_ok = attr_state(as, sizeof(as)) == 0 && strcmp(as, "missing");
	if (!attr_ok)
		diag("stock attribution is missing: its knob must refuse 1 (EOPNOTSUPP)");
	if (!flush_ctl)
		diag("flush control is %s: the flush knobs must refuse every write (EOPNOTSUPP), the flush invariant is not judged",
		     fc);
	return true;
}

static const char *const trio[] = {
	"flush.requests", "flush.performed", "flush.skipped",
};

/*
 * flush.requests = flush.performed + flush.skipped once no flush is in
 * flight: judged on two consecutive reads that agree on the three (a
 * flush that starts or ends during a read changes the next one); retried
 * while they do not agree or do not balance, since one flush may still
 * have been in flight through both. 0 balanced, 1 not, -1 never quiet.
 */

static int flush_balance(unsigned long long v[3])
{
	struct stats a, b;
	bool quiet = false;
	int i, k;

	for (i = 0; i < 100; i++) {
		bool same = true;

		if (stats_read(&a) || stats_read(&b))
			return -1;
		for (k = 0; k < 3; k++)
			same &= !stats_delta(&a, &b, trio[k]);
		if (same) {
			quiet = true;
			for (k = 0; k < 3; k++)
				v[k] = stat_must(&b, trio[k]);
			if (v[0] == v[1] + v[2])
				return 0;
		}
		sleep_ms(20);
	}
	return quiet ? 1 : -1;
}

/* Kernel log lines of a debug kernel's checkers, besides lib/kmsg.c's own. */
static const char *const klog_extra[] = {
	"lockdep", "possible circular locking", "possible recursive locking",
	"inconsistent lock state", "KASAN", "UBSAN", "sleeping function",
	"self-detected stall", "rcu: INFO", "soft lockup",
	"blocked for more than",
};

struct children {
	struct child c[L_KINDS * PER_KIND_MAX];
	struct load_arg a[L_KINDS * PER_KIND_MAX];
	int n;
};

static int load_start(struct children *ch, int per_kind, int ncpu)
{
	char name[32], cg[256];
	int kind, i, r;

	for (kind = 0; kind < L_KINDS; kind++) {
		for (i = 0; i < per_kind; i++) {
			struct load_arg *a = &ch->a[ch->n];
			const char *in = NULL;

			*a = (struct load_arg){
				.kind = kind, .idx = i, .per_kind = per_kind,
				.cpu = (kind * per_kind + i) % ncpu,
			};
			if (kind == L_FAULT || kind == L_SLAB) {
				snprintf(name, sizeof(name), "stress_%s%d",
					 kind == L_FAULT ? "fault" : "slab", i);
				r = cg_create_leaf(name, cg, sizeof(cg));
				if (r)
					return r;
				in = cg;
			}
			r = child_start(&ch->c[ch->n], in, load_fn, a);
			if (!r)
				r = child_wait_ready(&ch->c[ch->n], 30000);
			ch->n++;
			if (r) {
				diag("load child %s #%d: %d", load_names[kind],
				     i, r);
				return r;
			}
		}
	}
	return 0;
}

static void load_kill(struct children *ch)
{
	int i;

	for (i = 0; i < ch->n; i++)
		child_kill(&ch->c[i]);
}

static void load_cleanup(int per_kind)
{
	char cg[256], file[64];
	int i;

	for (i = 0; i < per_kind; i++) {
		leaf_path(cg, sizeof(cg), "fault", i);
		cg_destroy(cg);
		leaf_path(cg, sizeof(cg), "slab", i);
		cg_destroy(cg);
		leaf_path(cg, sizeof(cg), "churn", i);
		cg_destroy(cg);
		snprintf(file, sizeof(file), "/tmp/mcs_stress_churn.%d", i);
		unlink(file);
	}
}

/* A child that died early: its exit code says why (load_fn's returns). */
static int load_died(struct children *ch)
{
	int i, status, bad = 0;

	for (i = 0; i < ch->n; i++) {
		if (waitpid(ch->c[i].pid, &status, WNOHANG) <= 0)
			continue;
		diag("load child %s #%d ended early (status 0x%x)",
		     load_names[ch->a[i].kind], ch->a[i].idx, status);
		ch->c[i].pid = 0;
		bad++;
	}
	return bad;
}

static double per_s(unsigned long n, double s)
{
	return s > 0 ? n / s : 0;
}

struct run {
	struct writer w[NKNOBS + 1];	/* per knob, then `reset` */
	struct writer racers[NKNOBS];
	struct reader samplers[2], hooks_rd, knob_rd;
	double secs, load_secs, last_epoch_secs;
	unsigned long load_ops[L_KINDS], load_errors[L_KINDS];
};

static void thread_start(pthread_t *th, void *(*fn)(void *), void *arg)
{
	int r = pthread_create(th, NULL, fn, arg);

	/* the children die with this process (PR_SET_PDEATHSIG) */
	if (r)
		ksft_exit_fail_msg("pthread_create: %s\n", strerror(r));
}

static void threads_start(struct run *run, int ncpu)
{
	int t = 0;
	size_t i;

	for (i = 0; i <= NKNOBS; i++) {
		struct writer *w = &run->w[i];

		w->k = i < NKNOBS ? &knobs[i] : NULL;
		w->t.who = w->k ? w->k->name : "reset";
		w->cpu = t++ % ncpu;
		w->seed = seed + i;
		w->ki = i;
		if (w->k)
			w->next_good = rand_r(&w->seed) % count_of(w->k->good);
		thread_start(&w->th, writer_fn, w);
	}
	for (i = 0; i < NKNOBS; i++) {
		struct writer *w = &run->racers[i];

		w->k = &knobs[i];
		w->ki = i;
		w->racer = true;
		snprintf(w->name, sizeof(w->name), "%s racer", w->k->name);
		w->t.who = w->name;
		w->cpu = t++ % ncpu;
		w->seed = seed + NKNOBS + 1 + i;
		w->next_good = rand_r(&w->seed) % count_of(w->k->good);
		thread_start(&w->th, writer_fn, w);
	}
	for (i = 0; i < ARRAY_SIZE(run->samplers); i++) {
		run->samplers[i].t.who = "stats sampler";
		run->samplers[i].cpu = t++ % ncpu;
		thread_start(&run->samplers[i].th, stats_sampler_fn,
			     &run->samplers[i]);
	}
	run->hooks_rd.t.who = "hooks reader";
	run->hooks_rd.cpu = t++ % ncpu;
	thread_start(&run->hooks_rd.th, hooks_reader_fn, &run->hooks_rd);
	run->knob_rd.t.who = "knob reader";
	run->knob_rd.cpu = t++ % ncpu;
	thread_start(&run->knob_rd.th, knob_reader_fn, &run->knob_rd);
}

static void threads_join(struct run *run)
{
	size_t i;

	for (i = 0; i <= NKNOBS; i++)
		pthread_join(run->w[i].th, NULL);
	for (i = 0; i < NKNOBS; i++)
		pthread_join(run->racers[i].th, NULL);
	for (i = 0; i < ARRAY_SIZE(run->samplers); i++)
		pthread_join(run->samplers[i].th, NULL);
	pthread_join(run->hooks_rd.th, NULL);
	pthread_join(run->knob_rd.th, NULL);
}

/* How many of its knob's valid values the writer has written; and of how many. */
static int values_written(const struct writer *w, int *of)
{
	*of = w->k ? (int)count_of(w->k->good) : 0;
	return __builtin_popcountl(atomic_load(&w->done_good));
}

/*
 * Each knob has had each valid value and, where writes are accepted, one
 * read-back that no racing write could have changed.
 */
static bool coverage_done(struct run *run)
{
	size_t i;
	int of;

	for (i = 0; i < NKNOBS; i++) {
		if (values_written(&run->w[i], &of) < of)
			return false;
		if (knob_settable(&knobs[i]) && !atomic_load(&run->w[i].exact))
			return false;
	}
	return true;
}

/*
 * A writer that did not write each of its knob's valid values, or wrote
 * no invalid one, tested too little: the run was too short for it.
 */
static int writer_too_idle(const struct writer *w)
{
	int n, done = values_written(w, &n);

	/* a racer tests the race, not the values: its writer covers them */
	if (!w->racer && done < n) {
		diag("%s: %d of its %d valid values written: too few writes",
		     w->t.who, done, n);
		diag("(a longer run: MEMCG_STATCTL_STRESS_S)");
		return 1;
	}
	if (!w->rejected || (!w->accepted && (!w->k || knob_settable(w->k)))) {
		diag("%s: no valid or no invalid write done", w->t.who);
		return 1;
	}
	return 0;
}

/* The figures, and the count of violations and of idle workers. */
static int report(struct run *run, int ncpu)
{
	unsigned long v = 0, reads = 0, compared = 0, epochs = 0;
	double s = run->secs;
	int bad = 0, k;
	size_t i;

	diag("stress: %.1f s on %d cpus", s, ncpu);
	for (i = 0; i <= NKNOBS; i++) {
		struct writer *w = &run->w[i];

		v += w->t.violations;
		if (w->k && !knob_settable(w->k)) {
			diag("%-18s writes/s %.1f, all refused (%lu: EOPNOTSUPP, or EINVAL if invalid), %lu bad",
			     w->t.who, per_s(w->rejected, s), w->rejected,
			     w->t.violations);
			bad += writer_too_idle(w);
			continue;
		}
		diag("%-18s writes/s %.1f valid (%lu accepted), %.1f invalid (%lu EINVAL), %lu bad",
		     w->t.who, per_s(w->accepted, s), w->accepted,
		     per_s(w->rejected, s), w->rejected, w->t.violations);
		if (w->k)
			diag("%-18s read back %lu exact, %lu raced (allowed value)",
			     "", atomic_load(&w->exact), w->raced);
		bad += writer_too_idle(w);
	}
	for (i = 0; i < NKNOBS; i++) {
		struct writer *w = &run->racers[i];

		v += w->t.violations;
		diag("%-24s writes/s %.1f valid (%lu accepted), %.1f invalid (%lu %s), %lu bad",
		     w->t.who, per_s(w->accepted, s), w->accepted,
		     per_s(w->rejected, s), w->rejected,
		     knob_settable(w->k) ? "EINVAL" : "EINVAL or EOPNOTSUPP",
		     w->t.violations);
		bad += writer_too_idle(w);
		if (knob_settable(w->k) && !atomic_load(&run->w[i].exact)) {
			diag("%s: no read-back free of the racer: none judged exactly",
			     w->k->name);
			bad++;
		}
	}
	for (i = 0; i < ARRAY_SIZE(run->samplers); i++) {
		reads += run->samplers[i].reads;
		compared += run->samplers[i].compared;
		epochs += run->samplers[i].epochs;
		v += run->samplers[i].t.violations;
	}
	diag("reads/s: stats %.1f, hooks %.1f, knobs %.1f (files), version %.1f, stock_by_cgroup %.1f",
	     per_s(reads, s), per_s(run->hooks_rd.reads, s),
	     per_s(run->knob_rd.reads, s), per_s(run->knob_rd.reads2, s),
	     per_s(run->knob_rd.reads3, s));
	for (k = 0; k < L_KINDS; k++) {
		diag("load/s: %s %.1f (%lu errors)", load_names[k],
		     per_s(run->load_ops[k], run->load_secs),
		     run->load_errors[k]);
		if (!run->load_ops[k]) {
			diag("no %s at all", load_names[k]);
			bad++;
		}
		v += run->load_errors[k];
	}
	v += run->hooks_rd.t.violations + run->knob_rd.t.violations;
	diag("invariant: no counter down in an epoch: %lu compared, %lu epochs/%lu resets, %lu bad",
	     compared, epochs, run->w[NKNOBS].accepted,
	     run->samplers[0].t.violations + run->samplers[1].t.violations);
	diag("invariant: no hook's hits down: %lu comparisons, %lu violations",
	     run->hooks_rd.compared, run->hooks_rd.t.violations);
	diag("invariant: knobs allowed, version constant: %lu violations",
	     run->knob_rd.t.violations);
	if (!compared || !run->hooks_rd.compared || !run->knob_rd.reads ||
	    !run->knob_rd.reads3) {
		diag("too few reads to judge");
		bad++;
	}
	return bad + (v ? 1 : 0);
}

static int test_stress(void)
{
	int ncpu = online_cpus(), per_kind, bad = 0, r, k, i;
	struct children *ch = calloc(1, sizeof(*ch));
	struct run *run = calloc(1, sizeof(*run));
	pthread_rwlockattr_t attr;
	struct kmsg_mark mark;
	unsigned long long t0, t_last = 0, fl[3];
	unsigned long long run_ns = duration_s * 1000000000ULL;
	ssize_t len;

	if (!ch || !run || !knobs_present())
		return KSFT_FAIL;
	per_kind = ncpu < PER_KIND_MAX ? ncpu : PER_KIND_MAX;
	snprintf(threshold_kernel, sizeof(threshold_kernel), "%d",
		 CHARGE_BATCH * ncpu);
	if (kmsg_mark(&mark, "stress_test") || knobs_save())
		return KSFT_FAIL;
	len = statctl_read("version", first_version, sizeof(first_version));
	if (len < 0 || stats_read(&first_stats) || hooks_read(&first_hooks))
		return KSFT_FAIL;
	pthread_rwlockattr_init(&attr);
	pthread_rwlockattr_setkind_np(&attr,
				      PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
	pthread_rwlock_init(&epoch_lock, &attr);

	diag("%u s, seed %u, %d cpus, %d load children of each kind",
	     duration_s, seed, ncpu, per_kind);
	r = load_start(ch, per_kind, ncpu);
	if (r) {
		diag("cannot start the load: %d", r);
		bad++;
		goto out;
	}
	threads_start(run, ncpu);
	t0 = now_ns();
	/*
	 * A knob whose writes patch code (flush_mode, update_flush_every,
	 * stock_hooks) may take seconds a write under TCG: the run goes on, up
	 * to twice its duration, until each knob has had each valid value and
	 * an exact read-back (coverage_done()).
	 */
	while (now_ns() - t0 < run_ns ||
	       (now_ns() - t0 < 2 * run_ns && !coverage_done(run))) {
		sleep_ms(200);
		if (!t_last && now_ns() - t0 >= run_ns - run_ns / 4) {
			atomic_store(&last_epoch, 1);
			t_last = now_ns();
		}
		if (load_died(ch)) {
			bad++;
			break;
		}
	}
	load_kill(ch);
	run->load_secs = (now_ns() - t0) / 1e9;
	run->last_epoch_secs = t_last ? (now_ns() - t_last) / 1e9 : 0;
	if (run->load_secs > duration_s + 1)
		diag("ran %.0f s past its %u s, until coverage was complete",
		     run->load_secs - duration_s, duration_s);
	atomic_store(&stop, 1);
	threads_join(run);
	run->secs = (now_ns() - t0) / 1e9;
	for (k = 0; k < L_KINDS; k++) {
		for (i = 0; i < per_kind; i++) {
			run->load_ops[k] += sh->ops[k][i];
			run->load_errors[k] += sh->errors[k][i];
		}
	}
	for (i = 0; i < (int)NKNOBS; i++)
		if (statctl_read_line(knobs[i].name, sh->end[i], sizeof(sh->end[i])))
			sh->end[i][0] = 0;
	sh->have_end = true;
out:
	load_kill(ch);
	load_cleanup(per_kind);
	if (knobs_set(saved))
		bad++;
	if (run->secs)
		bad += report(run, ncpu);

	r = flush_ctl ? flush_balance(fl) : 0;
	if (!flush_ctl) {
		diag("no flush control: flush.* not judged");
	} else if (r < 0) {
		diag("flush.* never stood still for two reads");
		bad++;
	} else {
		diag("invariant when quiet, the last %.1f s of load in one epoch:",
		     run->last_epoch_secs);
		diag("  flush.requests %llu %s performed %llu + skipped %llu",
		     fl[0], r ? "!=" : "=", fl[1], fl[2]);
		bad += r;
		if (!fl[0]) {
			diag("no flush request since the last reset: nothing judged");
			bad++;
		}
	}
	r = kmsg_scan_with(&mark, klog_extra, ARRAY_SIZE(klog_extra));
	if (r) {
		diag("kernel log since the start: %d bad lines (or error)", r);
		bad++;
	} else {
		diag("kernel log since the start: clean");
	}
	free(ch);
	free(run);
	return bad ? KSFT_FAIL : KSFT_PASS;
}

/* ---- unload from where the stress ended -------------------------------------- */

static int test_unload(void)
{
	const char *ko = module_ko_path();
	const char *params = getenv("MEMCG_STATCTL_PARAMS");
	char end[NKNOBS][64] = { { 0 } };
	struct hook_targets targets;
	struct kmsg_mark mark;
	int bad = 0, i, r;

	if (!ko) {
		diag("MEMCG_STATCTL_KO is not set: cannot reload afterwards");
		return KSFT_SKIP;
	}
	if (!knobs_present() || kmsg_mark(&mark, "stress_test unload"))
		return KSFT_FAIL;
	if (sh->have_end) {
		for (i = 0; i < (int)NKNOBS; i++)
			snprintf(end[i], sizeof(end[i]), "%s", sh->end[i]);
		diag("unload from where the stress ended:");
		for (i = 0; i < (int)NKNOBS; i++)
			diag("  %s %s", knobs[i].name, end[i]);
		if (knobs_set(end))
			bad++;
	} else {
		diag("the stress did not run to its end: unload as it is");
	}
	r = hook_targets_read(&targets);
	if (!r)
		r = module_unload(MODULE_NAME, 5000);
	if (r) {
		diag("hooks or delete_module: %s", strerror(-r));
		return KSFT_FAIL;
	}
	if (!module_gone(MODULE_NAME)) {
		diag("module or %s still there after delete_module",
		     STATCTL_DIR);
		bad++;
	}
	bad += kernel_flush_restored(&targets);

	r = module_load(ko, params);
	if (r) {
		diag("finit_module(%s): %s", ko, strerror(-r));
		bad++;
	}
	if (kmsg_scan_with(&mark, klog_extra, ARRAY_SIZE(klog_extra)))
		bad++;
	return bad ? KSFT_FAIL : KSFT_PASS;
}

static const struct test tests[] = {
	{ test_stress, "stress" },
	{ test_unload, "unload_restores_kernel_flush" },
};

/* 1..MAX_S from @s, digits only; 0 when it is not that. */
static unsigned int parse_seconds(const char *s)
{
	unsigned long v;
	char *end;

	if (!s || *s < '0' || *s > '9')
		return 0;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v < 1 || v > MAX_S)
		return 0;
	return v;
}

int main(int argc, char **argv)
{
	const char *arg = argc > 1 ? argv[1] :
			  getenv("MEMCG_STATCTL_STRESS_S");
	const char *s = getenv("MEMCG_STATCTL_SEED");

	if (argc > 2 || (arg && *arg && !parse_seconds(arg))) {
		fprintf(stderr, "usage: %s [SECONDS] (1..%d, default %d, or $%s)\n",
			argv[0], MAX_S, DEFAULT_S, "MEMCG_STATCTL_STRESS_S");
		return KSFT_FAIL;
	}
	if (arg && *arg)
		duration_s = parse_seconds(arg);
	require_module();
	seed = s && *s ? (unsigned int)strtoul(s, NULL, 0) :
	       (unsigned int)(now_ns() ^ getpid());
	sh = shared_alloc(sizeof(*sh));
	if (!sh)
		ksft_exit_fail_msg("mmap: %s\n", strerror(errno));
	return run_test_table(tests, ARRAY_SIZE(tests));
}
