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

struct scan_state {
	uint64_t after;
	int bad;
	const char *const *extra;
	size_t n;
};

static void scan_record(uint64_t seq, const char *msg, void *data)
{
	struct scan_state *st = data;

	if (seq > st->after && line_is_bad(msg, st->extra, st->n)) {
		st->bad++;
		diag("kernel log: %s", msg);
	}
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
	struct scan_state st = { .after = m->seq, .extra = extra, .n = n };
	char *all, *p, *line, *save = NULL;

	if (m->devkmsg) {
		int64_t r = kmsg_walk(scan_record, &st);

		return r < 0 ? (int)r : st.bad;
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
	     line = strtok_r(NULL, "\n", &save)) {
		if (line_is_bad(line, extra, n)) {
			st.bad++;
			diag("kernel log: %s", line);
		}
	}
	free(all);
	return st.bad;
}

bool kmsg_clean(const struct kmsg_mark *m)
{
	int r = kmsg_scan(m);

	if (r)
		diag("kernel log: %d bad lines (or error %d)", r > 0 ? r : 0,
		     r < 0 ? r : 0);
	return !r;
}
