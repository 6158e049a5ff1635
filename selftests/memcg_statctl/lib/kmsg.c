// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel log: a mark, then the bad lines logged after it.
 */
#define _GNU_SOURCE

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <unistd.h>

#include "include/kmsg.h"

static const char *const bad_patterns[] = {
	"WARNING:", "BUG:", "kernel BUG", "Oops", "general protection",
	"Call Trace",
};

static bool line_is_bad(const char *line, const char *const *extra,
			size_t n)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad_patterns); i++)
		if (strstr(line, bad_patterns[i]))
			return true;
	for (i = 0; i < n; i++)
		if (strstr(line, extra[i]))
			return true;
	return false;
}

/*
 * Walk /dev/kmsg from the oldest record; call fn for each record's
 * message with its sequence number. Returns the last seq or -errno.
 */
static int64_t kmsg_walk(void (*fn)(uint64_t seq, const char *msg, void *),
			 void *data)
{
	char rec[8192];
	int64_t last = -1;
	ssize_t r;
	int fd;

	fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (;;) {
		char *semi, *nl;
		uint64_t seq;

		r = read(fd, rec, sizeof(rec) - 1);
		if (r < 0) {
			if (errno == EPIPE)	/* overwritten: go on */
				continue;
			if (errno == EAGAIN)
				break;
			r = -errno;
			close(fd);
			return r;
		}
		if (!r)
			break;
		rec[r] = 0;
		/* "prio,seq,ts,flags[,..];message\n[ KEY=val\n]..." */
		semi = strchr(rec, ';');
		if (!semi || sscanf(rec, "%*u,%" SCNu64, &seq) != 1)
			continue;
		nl = strchr(semi, '\n');
		if (nl)
			*nl = 0;
		last = seq;
		if (fn)
			fn(seq, semi + 1, data);
	}
	close(fd);
	return last;
}

/*
 * One known kernel race is reported, not counted (docs/kernels.md, "A
 * debugfs warning at unload"; scripts/vm/klog-splats.sh recognises it the
 * same way): a debugfs file opened at the moment of delete_module(), after
 * try_stop_module() has dropped the module's references and before it
 * marks the module GOING, fails fops_get() in debugfs's open proxy, which
 * warns "debugfs file owner did not clean up at exit". The open fails
 * (ENXIO) and nothing leaks. A splat is taken for it only when it is that
 * warning (its message, then a WARNING in fs/debugfs/file.c's open proxy,
 * up to the end of its trace) and the module's unload is logged after it.
 */
#define RACE_MSG	"debugfs file owner did not clean up at exit: "
#define RACE_WHERE	"fs/debugfs/file.c:"
#define RACE_UNLOAD	"memcg_statctl: unloaded"

struct scan_state {
	uint64_t after;
	int bad;
	const char *const *extra;
	size_t n;
	int since_msg;		/* lines since RACE_MSG, or -1 */
	bool in_race;		/* inside the race's splat */
	int held;		/* the race's bad lines, until the unload */
	int excused;		/* those of splats followed by the unload */
	char first[256];	/* the race's message, for the report */
};

static bool is_race_warning(const char *line)
{
	return strstr(line, "WARNING:") && strstr(line, RACE_WHERE) &&
	       strstr(line, "proxy_open");
}

static void scan_line(struct scan_state *st, const char *line)
{
	bool bad = line_is_bad(line, st->extra, st->n);

	if (strstr(line, RACE_MSG)) {
		st->since_msg = 0;
		if (!st->held)
			snprintf(st->first, sizeof(st->first), "%s", line);
		return;
	}
	if (st->in_race && bad && !strstr(line, "Call Trace")) {
		/* another splat inside the race's: judge them all */
		diag("kernel log: %d line(s) of a debugfs owner warning with "
		     "another report inside it (%s)", st->held, st->first);
		st->bad += st->held;
		st->held = 0;
		st->in_race = false;
		st->since_msg = -1;
	} else if (!st->in_race && st->since_msg >= 0 &&
		   ++st->since_msg <= 2 && is_race_warning(line)) {
		st->in_race = true;
	}
	if (st->in_race) {
		st->held += bad;
		if (strstr(line, "---[ end trace")) {
			st->in_race = false;
			st->since_msg = -1;
		}
		return;
	}
	if (strstr(line, RACE_UNLOAD) && st->held) {
		st->excused += st->held;
		st->held = 0;
	}
	if (bad) {
		st->bad++;
		diag("kernel log: %s", line);
	}
}

static void scan_record(uint64_t seq, const char *msg, void *data)
{
	struct scan_state *st = data;

	if (seq > st->after)
		scan_line(st, msg);
}

/* The result of a scan: the race's lines count when no unload followed. */
static int scan_end(struct scan_state *st)
{
	if (st->excused)
		diag("kernel log: %d line(s) of the known debugfs unload race, "
		     "not counted (%s)", st->excused, st->first);
	if (st->held)
		diag("kernel log: %d line(s) of a debugfs owner warning with "
		     "no unload after it (%s)", st->held, st->first);
	return st->bad + st->held;
}

char *kmsg_read_all(void)
{
	int size = klogctl(10 /* SYSLOG_ACTION_SIZE_BUFFER */, NULL, 0);
	char *buf;
	int r;

	if (size <= 0)
		size = 1 << 20;
	buf = malloc(size + 1);
	if (!buf)
		return NULL;
	r = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, buf, size);
	if (r < 0) {
		free(buf);
		return NULL;
	}
	buf[r] = 0;
	return buf;
}

int kmsg_mark(struct kmsg_mark *m, const char *tag)
{
	static unsigned int nr;
	int64_t last;
	int fd;

	snprintf(m->line, sizeof(m->line),
		 "memcg_statctl selftest: mark %s pid %d #%u", tag, getpid(),
		 ++nr);
	fd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		if (write(fd, m->line, strlen(m->line)) < 0)
			diag("cannot write to /dev/kmsg: %s", strerror(errno));
		close(fd);
	}
	last = kmsg_walk(NULL, NULL);
	m->devkmsg = last >= 0;
	m->seq = last >= 0 ? (uint64_t)last : 0;
	if (!m->devkmsg) {
		char *all = kmsg_read_all();

		if (!all)
			return -errno;
		free(all);
	}
	return 0;
}

int kmsg_scan(const struct kmsg_mark *m)
{
	return kmsg_scan_with(m, NULL, 0);
}

int kmsg_scan_with(const struct kmsg_mark *m, const char *const *extra,
		   size_t n)
{
	struct scan_state st = {
		.after = m->seq, .extra = extra, .n = n, .since_msg = -1,
	};
	char *all, *p, *line, *save = NULL;

	if (m->devkmsg) {
		int64_t r = kmsg_walk(scan_record, &st);

		return r < 0 ? (int)r : scan_end(&st);
	}
	all = kmsg_read_all();
	if (!all)
		return -errno;
	/* the last occurrence of our marker; whole buffer when gone */
	p = all;
	for (line = strstr(all, m->line); line;
	     line = strstr(line + 1, m->line))
		p = line;
	for (line = strtok_r(p, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		scan_line(&st, line);
	free(all);
	return scan_end(&st);
}

bool kmsg_clean(const struct kmsg_mark *m)
{
	int r = kmsg_scan(m);

	if (r)
		diag("kernel log: %d bad lines (or error %d)", r > 0 ? r : 0,
		     r < 0 ? r : 0);
	return !r;
}
