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

#endif
