/* SPDX-License-Identifier: GPL-2.0 */
/* A ring of memcgs taking turns to charge on one cpu: stock misses, drains, evictions. */
#ifndef MEMCG_STATCTL_TURNS_H
#define MEMCG_STATCTL_TURNS_H

#include <stdbool.h>
#include <stdint.h>

#include "statctl.h"

/* 7.x's NR_MEMCG_STOCK: the memcgs a cpu's charge stock holds */
#define NR_MEMCG_STOCK_MULTI	7
#define RING_MAX		32

/* A ring of @k memcgs, each a child faulting one page per turn on cpu 0. */
struct turns {
	int k, turns;
	char cg[RING_MAX][256];
	uint64_t id[RING_MAX];		/* cgroup ids, for stock_by_cgroup */
	struct stats s0, s1;
	struct attr_row a0[RING_MAX], a1[RING_MAX];
	bool attr;			/* a0, a1 were read */
};

/*
 * Create @t->k leaf cgroups, run the ring for @t->turns turns each, read
 * `stats` (and, with @t->attr, each cgroup's stock_by_cgroup row) just
 * before the first turn and after the last, then remove the cgroups.
 * 0 or -errno.
 */
int turns_run(struct turns *t);

/* The stock_model of `version`: 1 single, 2 multi, 0 (said) unknown. */
int model_of_stock(void);

#endif
