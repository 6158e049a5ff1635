// SPDX-License-Identifier: GPL-2.0
/*
 * Shared helpers of the memcg_statctl selftests; see lib.h.
 */
#define _GNU_SOURCE

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib.h"

/* ---- files ---------------------------------------------------------- */

ssize_t read_file(const char *path, char *buf, size_t size)
{
	size_t len = 0;
	ssize_t r;
	int fd;

	if (!size)
		return -EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (len < size - 1) {
		r = read(fd, buf + len, size - 1 - len);
		if (r < 0) {
			r = -errno;
			close(fd);
			return r;
		}
		if (!r)
			break;
		len += r;
	}
	buf[len] = 0;
	close(fd);
	return len;
}

ssize_t write_file(const char *path, const void *buf, size_t len)
{
	ssize_t r;
	int fd;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	r = write(fd, buf, len);
	if (r < 0)
		r = -errno;
	close(fd);
	return r;
}

int write_str(const char *path, const char *s)
{
	ssize_t r = write_file(path, s, strlen(s));

	if (r < 0)
		return r;
	return (size_t)r == strlen(s) ? 0 : -EIO;
}

bool path_exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

static void statctl_path(const char *file, char *path, size_t size)
{
	snprintf(path, size, "%s/%s", STATCTL_DIR, file);
}

ssize_t statctl_read(const char *file, char *buf, size_t size)
{
	char path[256];

	statctl_path(file, path, sizeof(path));
	return read_file(path, buf, size);
}

ssize_t statctl_write(const char *file, const void *buf, size_t len)
{
	char path[256];

	statctl_path(file, path, sizeof(path));
	return write_file(path, buf, len);
}

int statctl_read_line(const char *file, char *buf, size_t size)
{
	ssize_t r = statctl_read(file, buf, size);
	char *nl;

	if (r < 0)
		return r;
	nl = strchr(buf, '\n');
	if (!nl || nl[1])
		return -EPROTO;
	*nl = 0;
	return 0;
}

bool statctl_has(const char *file)
{
	char path[256];

	statctl_path(file, path, sizeof(path));
	return path_exists(path);
}

/* ---- stats ---------------------------------------------------------- */

static int parse_u64(const char *s, uint64_t *v)
{
	char *end;

	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	*v = strtoull(s, &end, 10);
	if (errno || *end)
		return -EINVAL;
	return 0;
}

int stats_read(struct stats *s)
{
	char buf[16384], *line, *save = NULL;
	ssize_t len;

	s->n = 0;
	len = statctl_read("stats", buf, sizeof(buf));
	if (len < 0)
		return len;
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char name[NAME_LEN], val[32], extra[2];
		uint64_t v;

		if (sscanf(line, "%63s %31s %1s", name, val, extra) != 2 ||
		    parse_u64(val, &v)) {
			diag("malformed stats line: '%s'", line);
			return -EPROTO;
		}
		if (s->n == STATS_MAX)
			return -E2BIG;
		strcpy(s->name[s->n], name);
		s->val[s->n++] = v;
	}
	return 0;
}

int stats_get(const struct stats *s, const char *name, uint64_t *val)
{
	int i;

	for (i = 0; i < s->n; i++) {
		if (!strcmp(s->name[i], name)) {
			*val = s->val[i];
			return 0;
		}
	}
	return -ENOENT;
}

int stat_get(const char *name, uint64_t *val)
{
	struct stats s;
	int r = stats_read(&s);

	return r ? r : stats_get(&s, name, val);
}

uint64_t stat_must(const struct stats *s, const char *name)
{
	uint64_t v;

	if (stats_get(s, name, &v)) {
		diag("counter %s is missing from stats", name);
		exit(KSFT_FAIL);
	}
	return v;
}

uint64_t stats_delta(const struct stats *a, const struct stats *b,
		     const char *name)
{
	uint64_t va, vb;

	if (stats_get(a, name, &va) || stats_get(b, name, &vb))
		return 0;
	return vb - va;
}

/* ---- hooks / version ------------------------------------------------ */

int hooks_read(struct hooks *hs)
{
	char buf[16384], *line, *save = NULL;
	ssize_t len;

	hs->n = 0;
	len = statctl_read("hooks", buf, sizeof(buf));
	if (len < 0)
		return len;
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		struct hook *h;
		char hits[32], extra[2];

		if (hs->n == HOOKS_MAX)
			return -E2BIG;
		h = &hs->h[hs->n];
		if (sscanf(line, "%63s %127s %127s %31s %31s %31s %1s",
			   h->name, h->target, h->caller, h->mech, h->state,
			   hits, extra) != 6 || parse_u64(hits, &h->hits)) {
			diag("malformed hooks line: '%s'", line);
			return -EPROTO;
		}
		hs->n++;
	}
	return 0;
}

const struct hook *hook_find(const struct hooks *hs, const char *name)
{
	int i;

	for (i = 0; i < hs->n; i++)
		if (!strcmp(hs->h[i].name, name))
			return &hs->h[i];
	return NULL;
}

int version_get(const char *key, char *val, size_t size)
{
	char buf[4096], *line, *save = NULL;
	size_t klen = strlen(key);
	ssize_t len;

	len = statctl_read("version", buf, sizeof(buf));
	if (len < 0)
		return len;
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(line, key, klen) && line[klen] == ' ') {
			snprintf(val, size, "%s", line + klen + 1);
			return 0;
		}
	}
	return -ENOENT;
}

/* ---- cgroups -------------------------------------------------------- */

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

/* ---- child processes ------------------------------------------------ */

int child_start(struct child *c, const char *cg, child_fn fn, void *arg)
{
	pid_t ppid = getpid();
	int r;

	c->pid = 0;	/* child_kill() is a no-op until the fork */
	if (pipe2(c->to_child, O_CLOEXEC) || pipe2(c->to_parent, O_CLOEXEC))
		return -errno;
	fflush(stdout);
	fflush(stderr);
	c->pid = fork();
	if (c->pid < 0) {
		c->pid = 0;
		return -errno;
	}
	if (!c->pid) {
		close(c->to_child[1]);
		close(c->to_parent[0]);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != ppid)
			_exit(1);
		if (cg) {
			r = cg_enter(cg, getpid());
			if (r) {
				diag("child: cannot enter %s: %s", cg,
				     strerror(-r));
				_exit(1);
			}
		}
		r = fn(arg, c);
		fflush(stdout);
		fflush(stderr);
		_exit(r);
	}
	close(c->to_child[0]);
	close(c->to_parent[1]);
	return 0;
}

int child_notify(struct child *c)
{
	return write(c->to_parent[1], "r", 1) == 1 ? 0 : -errno;
}

int child_wait(struct child *c)
{
	char b;

	return read(c->to_child[0], &b, 1) == 1 ? 0 : -EPIPE;
}

int child_wait_ready(struct child *c, int timeout_ms)
{
	struct pollfd p = { .fd = c->to_parent[0], .events = POLLIN };
	char b;
	int r;

	r = poll(&p, 1, timeout_ms);
	if (r < 0)
		return -errno;
	if (!r)
		return -ETIMEDOUT;
	return read(c->to_parent[0], &b, 1) == 1 ? 0 : -EPIPE;
}

int child_release(struct child *c)
{
	return write(c->to_child[1], "g", 1) == 1 ? 0 : -errno;
}

int child_reap(struct child *c, int timeout_ms)
{
	int status, waited = 0;
	pid_t r;

	for (;;) {
		r = waitpid(c->pid, &status, timeout_ms < 0 ? 0 : WNOHANG);
		if (r < 0)
			return -errno;
		if (r)
			break;
		if (waited >= timeout_ms)
			return -ETIMEDOUT;
		sleep_ms(5);
		waited += 5;
	}
	close(c->to_child[1]);
	close(c->to_parent[0]);
	c->pid = 0;
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128 + WTERMSIG(status);
}

void child_kill(struct child *c)
{
	if (c->pid <= 0)
		return;
	kill(c->pid, SIGKILL);
	child_reap(c, -1);
}

int thp_disable(void)
{
	return prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0) ? -errno : 0;
}

void *fault_anon(size_t pages)
{
	size_t len = pages * PAGE_SZ, off;
	char *p;

	p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	/* one fault = one 4 KiB page charged: no THP for this range */
	madvise(p, len, MADV_NOHUGEPAGE);
	for (off = 0; off < len; off += PAGE_SZ)
		p[off] = 1;
	return p;
}

int pin_to_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set) ? -errno : 0;
}

int fault_and_hold(void *arg, struct child *c)
{
	size_t pages = *(size_t *)arg;

	thp_disable();
	if (!fault_anon(pages))
		return 2;
	if (child_notify(c))
		return 3;
	child_wait(c);
	return 0;
}

int fault_loop(void *arg, struct child *c)
{
	const char *cg = arg;
	size_t len = 8 * MiB, off;
	uint64_t v;
	char *p;

	thp_disable();
	child_notify(c);
	for (;;) {
		p = mmap(NULL, len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return 2;
		madvise(p, len, MADV_NOHUGEPAGE);
		for (off = 0; off < len; off += PAGE_SZ)
			p[off] = 1;
		munmap(p, len);
		if (cg)
			memstat_get(cg, "anon", &v);
	}
	return 0;
}

static int spin(void *arg, struct child *c)
{
	volatile unsigned long n = 0;

	(void)arg;
	setpriority(PRIO_PROCESS, 0, 19);
	child_notify(c);
	for (;;)
		n++;
	return 0;
}

int spinners_start(struct child *cs, int max)
{
	int i, n = online_cpus(), r;

	if (n > max)
		n = max;
	for (i = 0; i < n; i++) {
		r = child_start(&cs[i], NULL, spin, NULL);
		if (!r)
			r = child_wait_ready(&cs[i], 5000);
		if (r) {
			spinners_stop(cs, i + 1);
			return r;
		}
	}
	return n;
}

void spinners_stop(struct child *cs, int n)
{
	int i;

	for (i = 0; i < n; i++)
		child_kill(&cs[i]);
}

/* ---- module --------------------------------------------------------- */

int module_load(const char *ko, const char *params)
{
	int fd, r = 0;

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
 * The file modules.dep of the running kernel names for NAME. With
 * @compressed, a NAME.ko.xz (or .gz, .zst) counts too: finit_module()
 * cannot load those here, but they show the module is installed.
 */
static int installed_ko(const char *name, bool compressed, char *path,
			size_t size)
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
		    (base[wl] && (!compressed || base[wl] != '.')))
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
	    !installed_ko(name, false, path, PATH_MAX))
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
	/* installed (compressed, say) but not loadable: not a skip */
	if (!installed_ko(MODULE_NAME, true, path, sizeof(path)))
		ksft_exit_fail_msg("modprobe %s failed (status %d) with %s installed\n",
				   MODULE_NAME, r, path);
	ksft_exit_skip("module %s not loaded and not found (%s, modprobe)\n",
		       MODULE_NAME, KO_SOURCES);
}

/* ---- kernel log ----------------------------------------------------- */

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

static char *klog_all(void)
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
		char *all = klog_all();

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
	all = klog_all();
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

/* ---- tracing -------------------------------------------------------- */

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
		r = trace_write(t, "events/workqueue/workqueue_execute_start/"
				"enable", "1");
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

/* ---- misc ----------------------------------------------------------- */

uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

void sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

bool values_close(uint64_t a, uint64_t b, int err_pct)
{
	uint64_t d = a > b ? a - b : b - a;

	return d <= (a + b) / 100 * err_pct;
}

int timeout_scale(void)
{
	const char *s = getenv("KSFT_TIMEOUT_SCALE");
	char *end;
	long n;

	if (!s || !*s)
		return 1;
	errno = 0;
	n = strtol(s, &end, 10);
	if (errno || *end || n < 1 || n > 100) {
		diag("KSFT_TIMEOUT_SCALE='%s' is not a whole number 1..100: 1", s);
		return 1;
	}
	return (int)n;
}

int online_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > 0 ? (int)n : 1;
}

bool under_tcg(void)
{
	unsigned int a, b, c, d;
	char sig[13];

	__cpuid_count(1, 0, a, b, c, d);
	if (!(c & (1U << 31)))		/* no hypervisor */
		return false;
	__cpuid_count(0x40000000, 0, a, b, c, d);
	memcpy(sig, &b, 4);
	memcpy(sig + 4, &c, 4);
	memcpy(sig + 8, &d, 4);
	sig[12] = 0;
	return !strcmp(sig, "TCGTCGTCGTCG");
}

void require_module(void)
{
	if (!module_loaded(MODULE_NAME))
		module_autoload();
	if (!path_exists(STATCTL_DIR))
		ksft_exit_fail_msg("%s missing (debugfs not mounted at "
				   "/sys/kernel/debug?)\n", STATCTL_DIR);
}

/* A text symbol NAME of the kernel proper (not of a module). */
static bool kallsyms_has(const char *name)
{
	char line[512], sym[256], type;
	bool found = false;
	FILE *f = fopen("/proc/kallsyms", "r");

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = sscanf(line, "%*s %c %255s", &type, sym) == 2 &&
			(type == 't' || type == 'T') && !strcmp(sym, name) &&
			!strchr(line, '[');
	fclose(f);
	return found;
}

int flush_control_state(void)
{
	struct hooks hs;
	char v[64];
	int i, absent = 0;

	if (version_get("flush_control", v, sizeof(v))) {
		diag("no flush_control in version");
		return KSFT_FAIL;
	}
	if (!strcmp(v, "available"))
		return KSFT_PASS;
	if (hooks_read(&hs))
		return KSFT_FAIL;
	for (i = 0; i < hs.n; i++) {
		if (strcmp(hs.h[i].mech, "redirect") ||
		    kallsyms_has(hs.h[i].target))
			continue;
		diag("flush control %s: %s is not in /proc/kallsyms (inlined)",
		     v, hs.h[i].target);
		absent++;
	}
	if (absent)
		return KSFT_SKIP;
	diag("flush control %s, yet every flush point is in /proc/kallsyms",
	     v);
	return KSFT_FAIL;
}

void require_flush_control(void)
{
	switch (flush_control_state()) {
	case KSFT_PASS:
		return;
	case KSFT_SKIP:
		ksft_exit_skip("no flush control on this kernel\n");
		break;
	default:
		ksft_exit_fail_msg("flush control not available\n");
	}
}

/* $MEMCG_STATCTL_TESTS: comma-separated test names to run (debugging) */
static bool selected(const char *name)
{
	const char *sel = getenv("MEMCG_STATCTL_TESTS");
	size_t len = strlen(name);
	const char *p;

	if (!sel || !*sel)
		return true;
	for (p = strstr(sel, name); p; p = strstr(p + 1, name))
		if ((p == sel || p[-1] == ',') && (!p[len] || p[len] == ','))
			return true;
	return false;
}

int run_test_table(const struct test *t, int n)
{
	int i, fails = 0, skips = 0, status, ret;
	pid_t pid;

	setvbuf(stdout, NULL, _IOLBF, 0);
	ksft_print_header();
	ksft_set_plan(n);
	for (i = 0; i < n; i++) {
		if (!selected(t[i].name)) {
			skips++;
			ksft_test_result_skip("%s (not in MEMCG_STATCTL_TESTS)\n",
					      t[i].name);
			continue;
		}
		fflush(stdout);
		fflush(stderr);
		/* each test in its own process: its children die with it */
		pid = fork();
		if (pid < 0)
			ksft_exit_fail_msg("fork: %s\n", strerror(errno));
		if (!pid) {
			/* die with the runner (e.g. killed by a timeout) */
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			_exit(t[i].fn());
		}
		if (waitpid(pid, &status, 0) < 0)
			ksft_exit_fail_msg("waitpid: %s\n", strerror(errno));
		if (WIFEXITED(status))
			ret = WEXITSTATUS(status);
		else {
			diag("%s killed by signal %d", t[i].name,
			     WTERMSIG(status));
			ret = KSFT_FAIL;
		}
		switch (ret) {
		case KSFT_PASS:
			ksft_test_result_pass("%s\n", t[i].name);
			break;
		case KSFT_SKIP:
			skips++;
			ksft_test_result_skip("%s\n", t[i].name);
			break;
		case KSFT_XFAIL:	/* a known, reported deviation */
			ksft_test_result_xfail("%s\n", t[i].name);
			break;
		default:
			fails++;
			ksft_test_result_fail("%s\n", t[i].name);
		}
	}
	ksft_print_cnts();
	if (fails)
		exit(KSFT_FAIL);
	exit(skips == n ? KSFT_SKIP : KSFT_PASS);
}

/* ---- additions: module references, shared memory, kernel ftrace ------ */

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

void *shared_alloc(size_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
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


int set_nice(pid_t pid, int nice)
{
	return setpriority(PRIO_PROCESS, pid, nice) ? -errno : 0;
}

bool kmsg_clean(const struct kmsg_mark *m)
{
	int r = kmsg_scan(m);

	if (r)
		diag("kernel log: %d bad lines (or error %d)", r > 0 ? r : 0,
		     r < 0 ? r : 0);
	return !r;
}

static int hooks_state_check(const char *const *prefixes, size_t n,
			     const char *want, bool missing_ok)
{
	struct hooks hs;
	int i, seen = 0, bad = 0;
	size_t k;

	if (hooks_read(&hs))
		return 1;
	for (i = 0; i < hs.n; i++) {
		for (k = 0; k < n; k++) {
			if (strncmp(hs.h[i].name, prefixes[k],
				    strlen(prefixes[k])))
				continue;
			seen++;
			if (missing_ok && !strcmp(hs.h[i].state, "missing")) {
				diag("hook %s is missing on this kernel",
				     hs.h[i].name);
				continue;
			}
			if (strcmp(hs.h[i].state, want)) {
				diag("hook %s is %s, want %s", hs.h[i].name,
				     hs.h[i].state, want);
				bad++;
			}
		}
	}
	if (!seen) {
		diag("no hook named %s... in hooks", prefixes[0]);
		bad++;
	}
	return bad;
}

int hooks_state_is(const char *const *prefixes, size_t n, const char *want)
{
	return hooks_state_check(prefixes, n, want, false);
}

int hooks_present_state_is(const char *const *prefixes, size_t n,
			   const char *want)
{
	return hooks_state_check(prefixes, n, want, true);
}

int memstat_read_loop(void *arg, struct child *c)
{
	const char *cg = arg;
	uint64_t v;

	child_notify(c);
	for (;;)
		memstat_get(cg, "anon", &v);
	return 0;
}

bool counters_present(const char *const *names, size_t n)
{
	struct stats s;
	uint64_t v;
	size_t i;

	if (stats_read(&s))
		return false;
	for (i = 0; i < n; i++) {
		if (stats_get(&s, names[i], &v)) {
			diag("counter %s not in stats: not implemented, or its "
			     "hook is missing on this kernel", names[i]);
			return false;
		}
	}
	return true;
}

/* ---- additions: the kernel's flushing after unload (fault_test, stress) -- */

#define RESTORED_PAGES		(20 * MiB / PAGE_SZ)
#define KERNEL_PERIODIC_FN	"flush_memcg_stats_dwork"

int hook_targets_read(struct hook_targets *t)
{
	struct hooks hs;
	int i, j, r;

	t->n = 0;
	r = hooks_read(&hs);
	if (r)
		return r;
	for (i = 0; i < hs.n; i++) {
		if (!strcmp(hs.h[i].state, "missing"))
			continue;
		for (j = 0; j < t->n && strcmp(t->name[j], hs.h[i].target); j++)
			;
		if (j == t->n)
			snprintf(t->name[t->n++], sizeof(t->name[0]), "%s",
				 hs.h[i].target);
	}
	return 0;
}

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
		diag("tracefs workqueue events unavailable (%d): periodic "
		     "work not checked", runs);
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
