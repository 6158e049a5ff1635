// SPDX-License-Identifier: GPL-2.0
/*
 * A test program made of a table of tests, each in its own process.
 */
#define _GNU_SOURCE

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "include/child.h"
#include "include/cgroup.h"
#include "include/harness.h"

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
	struct timespec t0, t1;
	double secs;
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
		clock_gettime(CLOCK_MONOTONIC, &t0);
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
		if (WIFEXITED(status)) {
			ret = WEXITSTATUS(status);
		} else {
			diag("%s killed by signal %d", t[i].name,
			     WTERMSIG(status));
			ret = KSFT_FAIL;
		}
		/* where a program's time goes: the suite runs for long under TCG */
		clock_gettime(CLOCK_MONOTONIC, &t1);
		secs = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
		if (secs >= 2)
			diag("%s took %.1fs", t[i].name, secs);
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

static int settle(void)
{
	sleep_ms(100);
	return 0;
}

int oracle_window(const char *name, struct mixed_load *load,
		  int (*oracle)(void *ctx, int i),
		  int (*module)(void *ctx, int i), void *ctx)
{
	char cg[256];
	struct child ch;
	int r;

	if (cg_create_leaf(name, cg, sizeof(cg)))
		return -1;
	load->cg = cg;
	r = child_start(&ch, cg, mixed_load_child, load);
	if (!r)
		r = child_wait_ready(&ch, 10000);
	if (!r)
		r = oracle(ctx, 0) ?: settle() ?: module(ctx, 0) ?: settle() ?:
		    oracle(ctx, 1);
	if (!r)
		r = child_release(&ch) ?: child_wait_ready(&ch, 120000);
	if (!r)
		r = oracle(ctx, 2) ?: settle() ?: module(ctx, 1) ?: settle() ?:
		    oracle(ctx, 3);
	child_kill(&ch);
	cg_destroy(cg);
	if (r)
		diag("workload failed: %d", r);
	return r;
}

int bracket(const char *what, uint64_t v, uint64_t lo, uint64_t hi)
{
	if (v >= lo && v <= hi)
		return 0;
	diag("%s: module +%" PRIu64 ", oracle +%" PRIu64 "..%" PRIu64, what, v,
	     lo, hi);
	return 1;
}
