// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's tracing (tracefs): workqueue events, ftrace callbacks.
 */
#define _GNU_SOURCE

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "include/tracefs.h"

const char *tracefs(void)
{
	if (path_exists("/sys/kernel/tracing/trace"))
		return "/sys/kernel/tracing";
	if (path_exists("/sys/kernel/debug/tracing/trace"))
		return "/sys/kernel/debug/tracing";
	return NULL;
}

static int trace_write(const char *t, const char *file, const char *val)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", t, file);
	return write_str(path, val);
}

static int trace_clear(const char *t)
{
	char path[256];
	int fd;

	snprintf(path, sizeof(path), "%s/trace", t);
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

/* occurrences of needle in the file, read in chunks */
static int count_in_file(const char *path, const char *needle)
{
	size_t nlen = strlen(needle), have = 0;
	char buf[65536 + 256];
	int fd, count = 0;
	ssize_t r;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (;;) {
		char *p;

		r = read(fd, buf + have, sizeof(buf) - 1 - have);
		if (r <= 0)
			break;
		have += r;
		buf[have] = 0;
		for (p = strstr(buf, needle); p; p = strstr(p + nlen, needle))
			count++;
		/* keep a tail shorter than the needle for the next chunk */
		if (have >= nlen) {
			memmove(buf, buf + have - (nlen - 1), nlen - 1);
			have = nlen - 1;
		}
	}
	close(fd);
	return r < 0 ? -errno : count;
}

int wq_fn_runs(const char *fn, unsigned int ms)
{
	const char *t = tracefs();
	char path[256], needle[128];
	int r;

	if (!t)
		return -ENOENT;
	snprintf(needle, sizeof(needle), "function %s", fn);
	r = trace_write(t, "tracing_on", "0");
	if (!r)
		r = trace_clear(t);
	if (!r)
		r = trace_write(t, "events/workqueue/workqueue_execute_start/enable",
				"1");
	if (!r)
		r = trace_write(t, "tracing_on", "1");
	if (r)
		return r;
	sleep_ms(ms);
	trace_write(t, "tracing_on", "0");
	trace_write(t, "events/workqueue/workqueue_execute_start/enable", "0");
	snprintf(path, sizeof(path), "%s/trace", t);
	r = count_in_file(path, needle);
	trace_clear(t);
	trace_write(t, "tracing_on", "1");
	return r;
}

int ftrace_enabled_match(bool (*match)(const char *line, const void *arg),
			 const void *arg)
{
	char path[256], line[1024];
	const char *t = tracefs();
	int n = 0;
	FILE *f;

	if (!t)
		return -ENOENT;
	snprintf(path, sizeof(path), "%s/enabled_functions", t);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (match && !match(line, arg))
			continue;
		if (n < 5)
			diag("enabled_functions: %s", line);
		n++;
	}
	fclose(f);
	return n;
}

/* SYM (LEN bytes) is CALLER, or CALLER.<suffix>: a compiler clone. */
static bool caller_is(const char *sym, size_t len, const char *caller)
{
	size_t n = strlen(caller);

	return len >= n && !strncmp(sym, caller, n) &&
	       (len == n || sym[n] == '.');
}

int hist_caller_sum(const char *path, const char *key, const char *caller,
		    uint64_t *sum)
{
	static char buf[1 << 20];
	char prefix[80], *line, *save;
	ssize_t n;

	n = read_file(path, buf, sizeof(buf));
	if (n < 0)
		return n;
	snprintf(prefix, sizeof(prefix), "%s: [", key);
	*sum = 0;
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *sym = strstr(line, prefix), *hc = strstr(line, "hitcount:");
		size_t len;

		if (!sym || !hc || !strchr(sym, ']'))
			continue;
		sym = strchr(sym, ']') + 1;
		sym += strspn(sym, " ");
		len = strcspn(sym, " }");
		if (strcmp(caller, "-") && !caller_is(sym, len, caller))
			continue;
		*sum += strtoull(hc + 9, NULL, 10);
	}
	return 0;
}

/* Append @val to tracefs FILE (a trigger or synthetic_events: no truncation). */
static int trace_append(const char *t, const char *file, const char *val)
{
	char path[256];
	ssize_t r;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", t, file);
	fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	r = write(fd, val, strlen(val));
	r = r < 0 ? -errno : 0;
	close(fd);
	if (r)
		diag("%s <- '%s': %s", path, val, strerror((int)-r));
	return (int)r;
}

#define RSTAT_EV	"events/cgroup/cgroup_rstat_"
#define RSTAT_SYNTH	"mcs_rstat_hold"
#define RSTAT_HIST	"hist:keys=lat:vals=hitcount:size=4096"

/*
 * How a flush takes the rstat lock. Up to 6.15 cgroup_rstat_flush() holds
 * it throughout, taken and released with cpu -1 (and dropped and retaken
 * with the cpu of its loop only to reschedule). Later kernels take and
 * release it once per possible cpu, in order: the flush is from the lock
 * taken for the first cpu to its release for the last. Told apart by the
 * cpu field of one flush's events, not by the version.
 */
struct rstat_marks {
	char ts[160], lat[320];
};

/* Only this process's flushes: a kworker's (cgroup offlining) are not. */
static void rstat_marks_make(struct rstat_marks *m, int first, int last)
{
	snprintf(m->ts, sizeof(m->ts),
		 "hist:keys=common_pid:mcs_ts0=common_timestamp if cpu == %d "
		 "&& common_pid == %d", first, (int)getpid());
	snprintf(m->lat, sizeof(m->lat),
		 "hist:keys=common_pid:mcs_lat=common_timestamp-$mcs_ts0:"
		 "onmatch(cgroup.cgroup_rstat_locked).trace(" RSTAT_SYNTH
		 ",$mcs_lat) if cpu == %d && common_pid == %d", last,
		 (int)getpid());
}

static void rstat_triggers_remove(const char *t, const struct rstat_marks *m)
{
	char path[256], cmd[400];

	trace_append(t, "events/synthetic/" RSTAT_SYNTH "/trigger", "!" RSTAT_HIST);
	snprintf(cmd, sizeof(cmd), "!%s", m->lat);
	trace_append(t, RSTAT_EV "unlock/trigger", cmd);
	snprintf(cmd, sizeof(cmd), "!%s", m->ts);
	trace_append(t, RSTAT_EV "locked/trigger", cmd);
	trace_append(t, "synthetic_events", "!" RSTAT_SYNTH);
	snprintf(path, sizeof(path), "%s/events/synthetic/" RSTAT_SYNTH, t);
	if (path_exists(path))
		diag("%s is still there", path);
}

/* Numbers after @key in the lines of a hist file: the keys, or the counts. */
static int hist_numbers(const char *path, const char *key, uint64_t *val,
			int64_t *keyval, int max)
{
	static char buf[1 << 18];
	char *line, *save = NULL;
	int n = 0;
	ssize_t r = read_file(path, buf, sizeof(buf));

	if (r < 0)
		return (int)r;
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *k = strstr(line, key), *hc = strstr(line, "hitcount:");

		if (line[0] == '#' || !k || !hc)
			continue;
		if (n == max)
			return -E2BIG;
		keyval[n] = strtoll(k + strlen(key), NULL, 10);
		val[n++] = strtoull(hc + 9, NULL, 10);
	}
	return n;
}

/* The last possible cpu (/sys/devices/system/cpu/possible: "0-N"). */
static int last_possible_cpu(void)
{
	char buf[64], *dash;

	if (read_file("/sys/devices/system/cpu/possible", buf, sizeof(buf)) <= 0)
		return -1;
	dash = strrchr(buf, '-');
	return atoi(dash ? dash + 1 : buf);
}

/*
 * This process's cgroup_rstat_locked events while fn(arg) runs, counted
 * per value of @field (a hist keyed on it): the values in @keyval, their
 * counts in @count. Returns how many values, fn's error, or -errno.
 */
static int rstat_locked_by(const char *t, const char *field,
			   int (*fn)(void *arg), void *arg, uint64_t *count,
			   int64_t *keyval, int max)
{
	/* cmd + 1 installs the trigger, cmd ("!...") removes it */
	char path[256], key[32], cmd[128] = "!";
	int r, n;

	snprintf(cmd + 1, sizeof(cmd) - 1,
		 "hist:keys=%s:vals=hitcount if common_pid == %d", field,
		 (int)getpid());
	r = trace_append(t, RSTAT_EV "locked/trigger", cmd + 1);
	if (r)
		return r;
	r = fn(arg);
	snprintf(path, sizeof(path), "%s/" RSTAT_EV "locked/hist", t);
	snprintf(key, sizeof(key), "%s:", field);
	n = r ? r : hist_numbers(path, key, count, keyval, max);
	trace_append(t, RSTAT_EV "locked/trigger", cmd);
	return n;
}

/* Which cpu values open and close a flush on this kernel (see above). */
static int rstat_detect(const char *t, int (*flush_once)(void *arg),
			void *arg, struct rstat_marks *m)
{
	uint64_t count[256];
	int64_t cpu[256];
	int n, i;

	n = rstat_locked_by(t, "cpu", flush_once, arg, count, cpu, 256);
	if (n < 0)
		return n;
	for (i = 0; i < n; i++)
		if (cpu[i] == -1) {
			rstat_marks_make(m, -1, -1);
			return 0;
		}
	if (!n) {
		diag("cgroup_rstat_locked: no event in a flush");
		return -ENODATA;
	}
	diag("the kernel takes the rstat lock once per cpu: a flush is from "
	     "cpu 0's lock to cpu %d's unlock", last_possible_cpu());
	rstat_marks_make(m, 0, last_possible_cpu());
	return 0;
}

/* tracefs, if it has the rstat lock tracepoint (6.10+) and hist triggers */
static const char *rstat_tracefs(void)
{
	const char *t = tracefs();
	char path[256];

	if (!t)
		return NULL;
	snprintf(path, sizeof(path), "%s/" RSTAT_EV "locked/hist", t);
	return path_exists(path) ? t : NULL;
}

int rstat_locks_taken(int (*fn)(void *arg), void *arg, uint64_t *n)
{
	const char *t = rstat_tracefs();
	uint64_t count[8];
	int64_t pid[8];
	int k, i;

	if (!t)
		return -ENOENT;
	k = rstat_locked_by(t, "common_pid", fn, arg, count, pid, 8);
	if (k < 0)
		return k;
	for (*n = 0, i = 0; i < k; i++)
		*n += count[i];
	return 0;
}

int rstat_flush_spans(int (*flush_once)(void *arg), int (*fn)(void *arg),
		      void *arg, uint64_t *ns, int max)
{
	const char *t = rstat_tracefs();
	char clock[256] = "", path[256], *b, *e;
	struct rstat_marks m;
	uint64_t count[4096];
	int64_t lat[4096];
	int r, n, i, k = 0;

	if (!t)
		return -ENOENT;
	r = rstat_detect(t, flush_once, arg, &m);
	if (r)
		return r;
	/* the module times flushes with ktime_get_ns(): CLOCK_MONOTONIC too */
	snprintf(path, sizeof(path), "%s/trace_clock", t);
	if (read_file(path, clock, sizeof(clock)) > 0) {
		b = strchr(clock, '[');
		e = b ? strchr(b, ']') : NULL;
		if (b && e) {
			*e = 0;
			memmove(clock, b + 1, strlen(b + 1) + 1);
		}
	}
	r = trace_write(t, "trace_clock", "mono");
	if (!r)
		r = trace_append(t, "synthetic_events", RSTAT_SYNTH " u64 lat");
	if (!r)
		r = trace_append(t, RSTAT_EV "locked/trigger", m.ts);
	if (!r)
		r = trace_append(t, RSTAT_EV "unlock/trigger", m.lat);
	if (!r)
		r = trace_append(t, "events/synthetic/" RSTAT_SYNTH "/trigger",
				 RSTAT_HIST);
	if (!r)
		r = fn(arg);
	snprintf(path, sizeof(path), "%s/events/synthetic/" RSTAT_SYNTH "/hist", t);
	n = r ? r : hist_numbers(path, "lat:", count, lat, 4096);
	rstat_triggers_remove(t, &m);
	if (clock[0] && !strchr(clock, ' '))
		trace_write(t, "trace_clock", clock);
	for (i = 0; i < n; i++)
		for (; count[i]; count[i]--) {
			if (k == max)
				return -E2BIG;
			ns[k++] = (uint64_t)lat[i];
		}
	return n < 0 ? n : k;
}
