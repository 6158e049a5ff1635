// SPDX-License-Identifier: GPL-2.0
/*
 * The turn-taking workload. K leaf cgroups, one process each, all pinned
 * to cpu 0, pass a token round a ring of pipes; each faults one page per
 * turn, so that the
 * memcg whose turn it is must have been evicted from the cpu's charge
 * stock since its last turn: every turn misses and drains.
 * stock_model single (6.1, 6.12: one memcg per cpu): K = 2.
 * stock_model multi (7.x: NR_MEMCG_STOCK = 7 slots): K = 2 * (NR_MEMCG_STOCK
 * + 1) = 16. 7.x evicts with a rotating pointer (drain_idx), not by age,
 * and fills an empty slot first; once anything else empties a slot (a
 * cached memcg running out of pages, an uncharge or drain from elsewhere)
 * the rotation no longer follows the ring, and with K = NR_MEMCG_STOCK + 1
 * = 8 it can pass over the slot of the memcg that comes next: measured on
 * 7.3.4 under TCG, 8 memcgs hit 67% and 80% of their turns in two boots
 * (misses = drains = refills), as a model of refill_stock/consume_stock
 * also gives when 1% of turns lose a slot. With K >= 2 * NR_MEMCG_STOCK + 1
 * the pointer sweeps every slot between two turns of a memcg: measured 16
 * memcgs, hit 1.2%, drains = turns. (stock_test: MEMCG_STATCTL_RING=K
 * overrides K, for debugging.)
 */
#define _GNU_SOURCE

#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "include/cgroup.h"
#include "include/child.h"
#include "include/harness.h"
#include "include/statctl.h"
#include "include/turns.h"
#include "include/util.h"

struct pp_arg {
	int in, out;		/* token pipe ends */
	bool first;
	int turns;
};

static int pingpong(void *arg, struct child *c)
{
	struct pp_arg *a = arg;
	char *p, tok = 't';
	int i;

	if (pin_to_cpu(0))
		return 2;
	thp_disable();
	p = mmap(NULL, a->turns * PAGE_SZ, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return 3;
	madvise(p, a->turns * PAGE_SZ, MADV_NOHUGEPAGE);
	child_notify(c);
	child_wait(c);
	for (i = 0; i < a->turns; i++) {
		if ((!a->first || i) && read(a->in, &tok, 1) != 1)
			return 4;
		p[i * PAGE_SZ] = 1;	/* one fault, one charge */
		if (write(a->out, &tok, 1) != 1)
			return 5;
	}
	child_notify(c);
	child_wait(c);
	return 0;
}


static int attr_snap(struct turns *t, struct attr_row *rows)
{
	int i, r;

	for (i = 0; i < t->k; i++) {
		r = attr_get(t->id[i], &rows[i]);
		if (r && r != -ENOENT)
			return r;
	}
	return 0;
}

int turns_run(struct turns *t)
{
	struct pp_arg arg[RING_MAX];
	struct child ch[RING_MAX] = { 0 };
	int pipes[RING_MAX][2], i, r = 0, started = 0;
	char name[32];
	struct stat st;

	for (i = 0; i < t->k; i++) {
		snprintf(name, sizeof(name), "turns_%d", i);
		r = cg_create_leaf(name, t->cg[i], sizeof(t->cg[i]));
		if (!r && stat(t->cg[i], &st))
			r = -errno;
		if (r)
			goto out;
		t->id[i] = st.st_ino;
		if (pipe(pipes[i])) {
			r = -errno;
			goto out;
		}
	}
	/* child i reads pipe i-1 and writes pipe i; child 0 starts */
	for (i = 0; i < t->k; i++) {
		arg[i] = (struct pp_arg){ .in = pipes[(i + t->k - 1) % t->k][0],
					  .out = pipes[i][1], .first = !i,
					  .turns = t->turns };
		r = child_start(&ch[i], t->cg[i], pingpong, &arg[i]);
		if (r)
			break;
		started++;
	}
	for (i = 0; !r && i < t->k; i++)
		r = child_wait_ready(&ch[i], 10000);
	if (!r)
		r = stats_read(&t->s0);
	if (!r && t->attr)
		r = attr_snap(t, t->a0);
	for (i = 0; !r && i < t->k; i++)
		r = child_release(&ch[i]);
	for (i = 0; !r && i < t->k; i++)
		r = child_wait_ready(&ch[i], 120000);
	if (!r)
		r = stats_read(&t->s1);
	if (!r && t->attr)
		r = attr_snap(t, t->a1);
	if (r)
		diag("turn-taking workload failed: %d", r);
out:
	for (i = 0; i < started; i++)
		child_kill(&ch[i]);
	for (i = 0; i < t->k; i++)
		if (t->cg[i][0])
			cg_destroy(t->cg[i]);
	return r;
}

int model_of_stock(void)
{
	char model[64];

	if (version_get("stock_model", model, sizeof(model))) {
		diag("no stock_model in version");
		return 0;
	}
	if (!strcmp(model, "single"))
		return 1;
	if (!strcmp(model, "multi"))
		return 2;
	diag("stock_model '%s' unknown to this test", model);
	return 0;
}
