// SPDX-License-Identifier: GPL-2.0
/*
 * IBT-safe calls into unexported kernel functions: see kcall.h.
 *
 * Every stub shares one ftrace_ops, as kprobes share theirs
 * (__arm_kprobe_ftrace() in kernel/kprobes.c): the first attach registers
 * it, later ones add their stub to its filter, and the last detach
 * unregisters it. An ops of a module is "dynamic", and each unregister
 * waits for RCU Tasks grace periods; one ops for all the stubs makes an
 * unload wait once for them, not once per stub.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ftrace.h>
#include <linux/mutex.h>

#include "compat.h"
#include "kcall.h"
#include "unregister.h"

/* More than the module defines (ksym 3, caller 2, BPF 4, flush 1). */
#define MCS_KCALL_MAX		12
/*
 * Where a stub's fentry call is: its first instruction, or the one after
 * its 4-byte ENDBR. A stub is longer than that call, so no other stub
 * starts within this distance.
 */
#define MCS_KCALL_FENTRY_MAX	4

static DEFINE_MUTEX(mcs_kcall_lock);
/* The attached stubs, read locklessly by the callback. */
static struct mcs_kcall *mcs_kcall_slots[MCS_KCALL_MAX];
/* How many are attached; the ops is registered while this is not 0. */
static unsigned int mcs_kcall_nr;

static void notrace mcs_kcall_cb(unsigned long ip, unsigned long parent_ip,
				 struct ftrace_ops *op,
				 struct ftrace_regs *fregs)
{
	unsigned int i;

	for (i = 0; i < MCS_KCALL_MAX; i++) {
		struct mcs_kcall *kc = READ_ONCE(mcs_kcall_slots[i]);

		if (kc && ip - (unsigned long)kc->stub <= MCS_KCALL_FENTRY_MAX) {
			mcs_fregs_set_ip(fregs, kc->addr);
			return;
		}
	}
	/* a stub just detached: its body runs and says "not available" */
}

/*
 * PERMANENT, as livepatch does: with it registered, the kernel refuses
 * kernel.ftrace_enabled=0, which would turn every stub into its empty
 * body and every hook off while `hooks` says attached.
 */
static struct ftrace_ops mcs_kcall_ops = {
	.func = mcs_kcall_cb,
	.flags = FTRACE_OPS_FL_IPMODIFY | FTRACE_OPS_FL_RECURSION |
		 FTRACE_OPS_FL_PERMANENT,
};

static int mcs_kcall_free_slot(void)
{
	int i;

	for (i = 0; i < MCS_KCALL_MAX; i++)
		if (!mcs_kcall_slots[i])
			return i;
	return -1;
}

static int mcs_kcall_route(struct mcs_kcall *kc)
{
	unsigned long stub = (unsigned long)kc->stub;
	int ret = ftrace_set_filter_ip(&mcs_kcall_ops, stub, 0, 0);

	if (ret || mcs_kcall_nr)
		return ret;
	ret = register_ftrace_function(&mcs_kcall_ops);
	if (ret)
		ftrace_free_filter(&mcs_kcall_ops);
	return ret;
}

int mcs_kcall_attach(struct mcs_kcall *kc, unsigned long addr)
{
	int slot, ret = 0;

	mutex_lock(&mcs_kcall_lock);
	if (kc->attached)
		goto out;
	slot = mcs_kcall_free_slot();
	if (slot < 0) {
		pr_err("cannot route calls to %s: more stubs than MCS_KCALL_MAX\n",
		       kc->name);
		ret = -ENOSPC;
		goto out;
	}
	kc->addr = addr;
	kc->slot = slot;
	/* the callback finds the stub with its address set */
	smp_store_release(&mcs_kcall_slots[slot], kc);
	ret = mcs_kcall_route(kc);
	if (ret) {
		WRITE_ONCE(mcs_kcall_slots[slot], NULL);
		pr_err("cannot route calls to %s: %d%s\n", kc->name, ret,
		       ret == -EBUSY ? " (is sysctl kernel.ftrace_enabled 0?)" : "");
		goto out;
	}
	kc->attached = true;
	mcs_kcall_nr++;
out:
	mutex_unlock(&mcs_kcall_lock);
	return ret;
}

/* The last stub: unregister the ops and forget every stub. */
static void mcs_kcall_unregister(const char *name)
{
	unsigned int i;

	mcs_unregister_check(unregister_ftrace_function(&mcs_kcall_ops), name);
	ftrace_free_filter(&mcs_kcall_ops);
	for (i = 0; i < MCS_KCALL_MAX; i++)
		WRITE_ONCE(mcs_kcall_slots[i], NULL);
}

void mcs_kcall_detach(struct mcs_kcall *kc)
{
	int ret;

	mutex_lock(&mcs_kcall_lock);
	if (!kc->attached)
		goto out;
	kc->attached = false;
	if (!--mcs_kcall_nr) {
		mcs_kcall_unregister(kc->name);
		goto out;
	}
	ret = ftrace_set_filter_ip(&mcs_kcall_ops, (unsigned long)kc->stub,
				   1, 0);
	/*
	 * Left in the filter, the stub still reaches the kernel function
	 * until the last detach unregisters the ops: harmless.
	 */
	if (ret) {
		pr_warn("%s: stub stays routed until the last one goes (%d)\n",
			kc->name, ret);
		goto out;
	}
	WRITE_ONCE(mcs_kcall_slots[kc->slot], NULL);
out:
	mutex_unlock(&mcs_kcall_lock);
}

void mcs_kcall_exit(void)
{
	mutex_lock(&mcs_kcall_lock);
	if (WARN(mcs_kcall_nr, KBUILD_MODNAME ": %u stubs still routed at exit\n",
		 mcs_kcall_nr)) {
		mcs_kcall_nr = 0;
		mcs_kcall_unregister("kcall");
	}
	mutex_unlock(&mcs_kcall_lock);
}
