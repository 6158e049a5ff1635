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
