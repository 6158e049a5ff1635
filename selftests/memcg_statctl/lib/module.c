// SPDX-License-Identifier: GPL-2.0
/*
 * Loading and unloading the module, and the kernel after its unload.
 */
#define _GNU_SOURCE

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "include/module.h"
#include "include/cgroup.h"
#include "include/child.h"
#include "include/tracefs.h"

/* The decompressor of each suffix DKMS or kbuild compresses modules with. */
static const char *ko_decompressor(const char *ko)
{
	static const char *const tools[][2] = {
		{ ".xz", "xz" }, { ".gz", "gzip" }, { ".zst", "zstd" },
	};
	size_t i, n = strlen(ko);

	for (i = 0; i < sizeof(tools) / sizeof(tools[0]); i++) {
		size_t m = strlen(tools[i][0]);

		if (n > m && !strcmp(ko + n - m, tools[i][0]))
			return tools[i][1];
	}
	return NULL;
}

/*
 * @ko decompressed by `TOOL -dc` into a malloc'd buffer (*@len bytes), as
 * kmod's insmod does it. Not the kernel's own decompression
 * (MODULE_INIT_COMPRESSED_FILE): its xz decoder takes only CRC32 checks,
 * and DKMS compresses with xz's default, CRC64 (EINVAL). 0 or -errno.
 */
static int ko_decompress(const char *ko, const char *tool, char **buf,
			 size_t *len)
{
	size_t cap = 1 << 20;
	int pipefd[2], status;
	ssize_t r = 0;
	pid_t pid;

	if (pipe2(pipefd, O_CLOEXEC))
		return -errno;
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		close(pipefd[0]);
		close(pipefd[1]);
		return -errno;
	}
	if (!pid) {
		dup2(pipefd[1], STDOUT_FILENO);
		execlp(tool, tool, "-dc", ko, (char *)NULL);
		_exit(127);
	}
	close(pipefd[1]);
	*len = 0;
	*buf = malloc(cap);
	while (*buf) {
		if (*len == cap) {
			char *bigger = realloc(*buf, cap *= 2);

			if (!bigger) {
				free(*buf);
				*buf = NULL;
				break;
			}
			*buf = bigger;
		}
		r = read(pipefd[0], *buf + *len, cap - *len);
		if (r <= 0)
			break;
		*len += r;
	}
	r = r < 0 ? -errno : *buf ? 0 : -ENOMEM;
	close(pipefd[0]);
	if (waitpid(pid, &status, 0) < 0 && !r)
		r = -errno;
	if (!r && (!WIFEXITED(status) || WEXITSTATUS(status))) {
		diag("%s -dc %s: exit status %d", tool, ko,
		     WIFEXITED(status) ? WEXITSTATUS(status) : 128);
		r = -ENOEXEC;
	}
	if (r) {
		free(*buf);
		*buf = NULL;
	}
	return (int)r;
}

/*
 * finit_module() of a .ko; a compressed one (as DKMS installs it on
 * kernels that compress their modules) is decompressed here and loaded
 * with init_module().
 */
int module_load(const char *ko, const char *params)
{
	const char *tool = ko_decompressor(ko);
	int fd, r = 0;

	if (tool) {
		size_t len = 0;
		char *buf = NULL;

		r = ko_decompress(ko, tool, &buf, &len);
		if (r)
			return r;
		if (syscall(SYS_init_module, buf, len, params ? params : ""))
			r = -errno;
		free(buf);
		return r;
	}
	fd = open(ko, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (syscall(SYS_finit_module, fd, params ? params : "", 0))
		r = -errno;
	close(fd);
	return r;
}

int module_unload(const char *name, int timeout_ms)
{
	int waited = 0;

	for (;;) {
		if (!syscall(SYS_delete_module, name, O_NONBLOCK))
			return 0;
		/* EWOULDBLOCK: still referenced (an open debugfs file) */
		if ((errno != EAGAIN && errno != EBUSY) ||
		    waited >= timeout_ms)
			return -errno;
		sleep_ms(20);
		waited += 20;
	}
}

bool module_loaded(const char *name)
{
	char path[256], buf[64];

	snprintf(path, sizeof(path), "/sys/module/%s/initstate", name);
	if (read_file(path, buf, sizeof(buf)) < 0)
		return false;
	return !strncmp(buf, "live", 4);
}

int module_refcnt(const char *name)
{
	char path[256], buf[32];
	ssize_t r;

	snprintf(path, sizeof(path), "/sys/module/%s/refcnt", name);
	r = read_file(path, buf, sizeof(buf));
	if (r < 0)
		return r;
	return atoi(buf);
}

bool module_gone(const char *name)
{
	char path[256];

	snprintf(path, sizeof(path), "/sys/module/%s", name);
	return !path_exists(path) && !path_exists(STATCTL_DIR);
}

/* FILE in the directory of the running program: 0 when it exists. */
static int beside_self(const char *file, char *path, size_t size)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char *slash;

	if (n <= 0)
		return -ENOENT;
	exe[n] = 0;
	slash = strrchr(exe, '/');
	if (!slash)
		return -ENOENT;
	*slash = 0;
	if (snprintf(path, size, "%s/%s", exe, file) >= (int)size)
		return -ENAMETOOLONG;
	return path_exists(path) ? 0 : -ENOENT;
}

/*
 * The file modules.dep of the running kernel names for NAME: NAME.ko, or
 * NAME.ko.xz (.gz, .zst), which module_load() decompresses.
 */
static int installed_ko(const char *name, char *path, size_t size)
{
	char dep[PATH_MAX], line[4096], want[NAME_LEN + 8];
	struct utsname u;
	size_t wl;
	FILE *f;
	int r = -ENOENT;

	if (uname(&u))
		return -errno;
	snprintf(dep, sizeof(dep), "/lib/modules/%s/modules.dep", u.release);
	snprintf(want, sizeof(want), "%s.ko", name);
	wl = strlen(want);
	f = fopen(dep, "re");
	if (!f)
		return -errno;
	while (r && fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':'), *base;

		if (!colon)
			continue;
		*colon = 0;
		base = strrchr(line, '/');
		base = base ? base + 1 : line;
		if (strncmp(base, want, wl) ||
		    (base[wl] && !ko_decompressor(base)))
			continue;
		if (snprintf(path, size, "%s%s/%s",
			     line[0] == '/' ? "" : "/lib/modules/",
			     line[0] == '/' ? "" : u.release, line) < (int)size)
			r = 0;
	}
	fclose(f);
	return r;
}

const char *ko_find(const char *name, const char *env)
{
	/* one buffer per caller: the module and a helper module */
	static char paths[2][PATH_MAX];
	char *path = paths[strcmp(name, MODULE_NAME) != 0];
	const char *ko = getenv(env);
	char file[NAME_LEN + 4];

	if (ko && *ko)
		return ko;
	snprintf(file, sizeof(file), "%s.ko", name);
	if (!beside_self(file, path, PATH_MAX) ||
	    !installed_ko(name, path, PATH_MAX))
		return path;
	return NULL;
}

const char *module_ko_path(void)
{
	return ko_find(MODULE_NAME, "MEMCG_STATCTL_KO");
}

/* modprobe NAME [PARAMS...] (kmod's or busybox's): its exit status. */
static int modprobe(const char *name, const char *params)
{
	char buf[512], *argv[32], *save = NULL, *tok;
	int argc = 0, status;
	pid_t pid;

	argv[argc++] = "modprobe";
	argv[argc++] = (char *)name;
	snprintf(buf, sizeof(buf), "%s", params ? params : "");
	for (tok = strtok_r(buf, " ", &save); tok && argc < 31;
	     tok = strtok_r(NULL, " ", &save))
		argv[argc++] = tok;
	argv[argc] = NULL;
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (!pid) {
		execvp("modprobe", argv);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0)
		return -errno;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

/* Errors of finit_module() that say this machine cannot take the file. */
static bool load_refused(int err)
{
	return err == -ENOEXEC || err == -EKEYREJECTED || err == -ENOKEY ||
	       err == -EPERM || err == -EACCES;
}

/* Load the module for require_module(); exits with a skip where it cannot. */
static void module_autoload(void)
{
	const char *params = getenv("MEMCG_STATCTL_PARAMS");
	const char *ko = module_ko_path();
	char path[PATH_MAX];
	int r;

	if (ko) {
		r = module_load(ko, params);
		if (!r || r == -EEXIST)
			return;
		if (load_refused(r))
			ksft_exit_skip("the kernel refuses %s: %s\n", ko,
				       strerror(-r));
		ksft_exit_fail_msg("loading %s: %s\n", ko, strerror(-r));
	}
	r = modprobe(MODULE_NAME, params);
	if (!r && module_loaded(MODULE_NAME))
		return;
	/* installed but not loadable: not a skip */
	if (!installed_ko(MODULE_NAME, path, sizeof(path)))
		ksft_exit_fail_msg("modprobe %s failed (status %d) with %s installed\n",
				   MODULE_NAME, r, path);
	ksft_exit_skip("module %s not loaded and not found (%s, modprobe)\n",
		       MODULE_NAME, KO_SOURCES);
}

void require_module(void)
{
	if (!module_loaded(MODULE_NAME))
		module_autoload();
	if (!path_exists(STATCTL_DIR))
		ksft_exit_fail_msg("%s missing (debugfs not mounted at /sys/kernel/debug?)\n",
				   STATCTL_DIR);
}

/* The kernel after the module's unload (fault_test, stress_test). */

#define RESTORED_PAGES		(20 * MiB / PAGE_SZ)
#define KERNEL_PERIODIC_FN	"flush_memcg_stats_dwork"

/* an enabled_functions line of one of the functions the module hooked */
static bool line_is_target(const char *line, const void *arg)
{
	const struct hook_targets *t = arg;
	char fn[256];
	int i;

	if (sscanf(line, "%255s", fn) != 1)
		return false;
	for (i = 0; i < t->n; i++)
		if (!strcmp(fn, t->name[i]))
			return true;
	return false;
}

int kernel_flush_restored(const struct hook_targets *targets)
{
	struct child c, spin[64];
	size_t big = RESTORED_PAGES;
	uint64_t t0, t, anon = 0;
	char cg[256];
	int bad = 0, n, runs, r;

	r = ftrace_enabled_match(line_is_target, targets);
	if (r < 0) {
		diag("enabled_functions unavailable (%d): not checked", r);
	} else {
		diag("after unload: %d of the %d functions the module hooked still traced",
		     r, targets->n);
		if (r)
			bad++;
	}

	if (cg_create_leaf("flush_restored", cg, sizeof(cg)))
		return bad + 1;
	r = child_start(&c, cg, fault_and_hold, &big);
	if (!r)
		r = child_wait_ready(&c, 60000);
	if (r) {
		diag("20 MiB child: %d", r);
		bad++;
	} else {
		t0 = now_ns();
		do {
			anon = 0;
			memstat_get(cg, "anon", &anon);
			t = now_ns() - t0;
			if (anon >= RESTORED_PAGES * PAGE_SZ)
				break;
			sleep_ms(50);
		} while (t < 4000000000ULL);
		diag("after unload: 20 MiB fault, anon %" PRIu64
		     " KiB after %.2f s", anon / 1024, t / 1e9);
		if (anon < RESTORED_PAGES * PAGE_SZ) {
			diag("memory.stat did not show it within 4 s");
			bad++;
		}
	}
	child_kill(&c);
	cg_destroy(cg);

	n = spinners_start(spin, ARRAY_SIZE(spin));
	runs = wq_fn_runs(KERNEL_PERIODIC_FN, 5000);
	if (n > 0)
		spinners_stop(spin, n);
	if (runs < 0) {
		diag("tracefs workqueue events unavailable (%d): periodic work not checked",
		     runs);
	} else {
		diag("%s ran %d times in 5 s after unload",
		     KERNEL_PERIODIC_FN, runs);
		if (runs < 1) {
			diag("the kernel's periodic flush work is not back");
			bad++;
		}
	}
	return bad;
}

int module_reload(const char *params)
{
	const char *ko = module_ko_path();
	int r;

	if (!ko) {
		diag("no module file (" KO_SOURCES ")");
		return -ENOENT;
	}
	if (module_loaded(MODULE_NAME)) {
		r = module_unload(MODULE_NAME, 20000);
		if (r) {
			diag("unload: %s", strerror(-r));
			return r;
		}
	}
	if (!params)
		return 0;
	r = module_load(ko, params);
	if (r)
		diag("load %s: %s", params, strerror(-r));
	return r;
}
