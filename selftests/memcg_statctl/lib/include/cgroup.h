/* SPDX-License-Identifier: GPL-2.0 */
/* Test cgroups under TEST_CG_ROOT. */
#ifndef MEMCG_STATCTL_CGROUP_H
#define MEMCG_STATCTL_CGROUP_H

#include "util.h"

#define CG_ROOT		"/sys/fs/cgroup"
#define TEST_CG_ROOT	CG_ROOT "/memcg_statctl_test"

/* MEMCG_CHARGE_BATCH of every supported kernel (include/linux/memcontrol.h) */
#define CHARGE_BATCH	64

/* Make TEST_CG_ROOT with +memory for its children. */
int cg_test_root(void);
/* Fresh leaf TEST_CG_ROOT/NAME (an old one is destroyed first). */
int cg_create_leaf(const char *name, char *path, size_t size);
/* Kill its processes, wait until empty, rmdir. */
int cg_destroy(const char *path);
int cg_enter(const char *cg, pid_t pid);
/* A key of memory.stat: 0 and *val, -ENOENT, or -errno. */
int memstat_get(const char *cg, const char *key, uint64_t *val);

#endif
