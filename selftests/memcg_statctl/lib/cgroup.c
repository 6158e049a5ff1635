// SPDX-License-Identifier: GPL-2.0
/*
 * Test cgroups under TEST_CG_ROOT.
 */
#define _GNU_SOURCE

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "include/cgroup.h"

int cg_test_root(void)
{
	char buf[1024];
	ssize_t r;

	if (mkdir(TEST_CG_ROOT, 0755) && errno != EEXIST)
		return -errno;
	r = read_file(TEST_CG_ROOT "/cgroup.subtree_control", buf,
		      sizeof(buf));
	if (r < 0)
		return r;
	if (!strstr(buf, "memory"))
		return write_str(TEST_CG_ROOT "/cgroup.subtree_control",
				 "+memory");
	return 0;
}

int cg_create_leaf(const char *name, char *path, size_t size)
{
	int r = cg_test_root();

	if (r) {
		diag("cannot prepare %s: %s", TEST_CG_ROOT, strerror(-r));
		return r;
	}
	snprintf(path, size, "%s/%s", TEST_CG_ROOT, name);
	if (path_exists(path)) {
		r = cg_destroy(path);
		if (r)
			return r;
	}
	if (mkdir(path, 0755)) {
		r = -errno;
		diag("mkdir %s: %s", path, strerror(errno));
		return r;
	}
	return 0;
}

static bool cg_empty(const char *path)
{
	char file[512], buf[4096];

	snprintf(file, sizeof(file), "%s/cgroup.procs", path);
	return read_file(file, buf, sizeof(buf)) == 0;
}

int cg_destroy(const char *path)
{
	char file[512], buf[4096], *line, *save = NULL;
	int i;

	for (i = 0; i < 200; i++) {
		if (!rmdir(path) || errno == ENOENT)
			return 0;
		if (errno != EBUSY)
			return -errno;
		/* cgroup.kill (5.14+) first, then one SIGKILL per pid */
		snprintf(file, sizeof(file), "%s/cgroup.kill", path);
		write_str(file, "1");
		snprintf(file, sizeof(file), "%s/cgroup.procs", path);
		if (read_file(file, buf, sizeof(buf)) > 0)
			for (line = strtok_r(buf, "\n", &save); line;
			     line = strtok_r(NULL, "\n", &save))
				kill(atoi(line), SIGKILL);
		if (!cg_empty(path))
			sleep_ms(10);
		else
			sleep_ms(1);
	}
	diag("cannot remove %s", path);
	return -EBUSY;
}

int cg_enter(const char *cg, pid_t pid)
{
	char file[512], buf[32];

	snprintf(file, sizeof(file), "%s/cgroup.procs", cg);
	snprintf(buf, sizeof(buf), "%d", pid);
	return write_str(file, buf);
}

int memstat_get(const char *cg, const char *key, uint64_t *val)
{
	char file[512], buf[8192], *line, *save = NULL;
	size_t klen = strlen(key);
	ssize_t r;

	snprintf(file, sizeof(file), "%s/memory.stat", cg);
	r = read_file(file, buf, sizeof(buf));
	if (r < 0)
		return r;
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(line, key, klen) && line[klen] == ' ')
			return parse_u64(line + klen + 1, val);
	}
	return -ENOENT;
}
