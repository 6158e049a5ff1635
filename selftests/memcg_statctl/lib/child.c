// SPDX-License-Identifier: GPL-2.0
/*
 * Child processes and the memory they fault in.
 */
#define _GNU_SOURCE

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "include/child.h"
#include "include/cgroup.h"

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

void *shared_alloc(size_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

int set_nice(pid_t pid, int nice)
{
	return setpriority(PRIO_PROCESS, pid, nice) ? -errno : 0;
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

int mixed_load_child(void *arg, struct child *c)
{
	const struct mixed_load *l = arg;
	char dir[] = "/tmp/memcg_statctl_load.XXXXXX", path[300];
	uint64_t v;
	int i, fd;

	thp_disable();
	child_notify(c);
	child_wait(c);
	if (!fault_anon(l->pages) || !mkdtemp(dir))
		return 2;
	for (i = 0; i < l->files; i++) {
		snprintf(path, sizeof(path), "%s/f%d", dir, i);
		fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
		if (fd < 0 || write(fd, "x", 1) != 1)
			return 3;
		close(fd);
	}
	for (i = 0; i < l->files; i++) {
		snprintf(path, sizeof(path), "%s/f%d", dir, i);
		unlink(path);
	}
	rmdir(dir);
	for (i = 0; i < l->reads; i++)
		memstat_get(l->cg, "anon", &v);
	child_notify(c);
	child_wait(c);
	return 0;
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
	(void)arg;
	setpriority(PRIO_PROCESS, 0, 19);
	child_notify(c);
	for (;;)
		__asm__ __volatile__("" ::: "memory");	/* a loop the compiler keeps */
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
