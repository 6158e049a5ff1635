/* SPDX-License-Identifier: GPL-2.0 */
/* A test program made of a table of tests, each in its own process. */
#ifndef MEMCG_STATCTL_HARNESS_H
#define MEMCG_STATCTL_HARNESS_H

#include "util.h"

struct test {
	int (*fn)(void);
	const char *name;
};

/*
 * Run the table, print TAP, exit 0 / 1 (any failure) / 4 (all skipped).
 * $MEMCG_STATCTL_TESTS (comma-separated names) runs only those.
 */
int run_test_table(const struct test *t, int n);

/*
 * One measurement against an oracle: run LOAD (its cg is set here) in a
 * fresh leaf NAME of the test cgroup, and read both sides around it:
 *   oracle(ctx, 0), module(ctx, 0), oracle(ctx, 1), the workload,
 *   oracle(ctx, 2), module(ctx, 1), oracle(ctx, 3).
 * A call is seen by the oracle and by the module one after the other, and
 * under single-threaded TCG the vCPU making it can be held between the two
 * for a time slice: every vCPU runs (100 ms) before the other side is
 * read. 0, or the first nonzero result (said in a diagnostic).
 */
struct mixed_load;
int oracle_window(const char *name, struct mixed_load *load,
		  int (*oracle)(void *ctx, int i),
		  int (*module)(void *ctx, int i), void *ctx);
/* 0 when lo <= v <= hi; else 1, said as "WHAT: module +V, oracle +LO..HI". */
int bracket(const char *what, uint64_t v, uint64_t lo, uint64_t hi);

#endif
