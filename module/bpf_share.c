// SPDX-License-Identifier: GPL-2.0
/*
 * BPF trampolines beside the counting sites (bpf_share.h).
 *
 * bpf_trampoline_link_prog() and bpf_trampoline_unlink_prog() are where
 * every fentry, fexit and fmod_ret program (bpftrace's kfunc and kretfunc
 * too) joins or leaves the trampoline of a kernel function, and where the
 * trampoline registers or drops its direct call. Both are redirected here
 * (ftrace IPMODIFY, as the flush redirects) and call the original through
 * a kcall stub. 6.1 passes (link, tr), later kernels (link, tr, tgt_prog):
 * the wrappers take three and pass three, the third unused on 6.1.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/rcupdate.h>
#include <linux/wait_bit.h>

#include "bpf_share.h"
#include "btf.h"
#include "compat.h"
#include "flush_backend.h"
#include "kcall.h"
#include "ksym.h"
#include "site.h"

/* What every wrapper takes and passes on, checked against BTF at load. */
#define MCS_BPF_WRAPPER_ARGS	3

/* Of bpf_trampoline.func.addr: the traced function, read through BTF. */
static int mcs_tr_addr_off = -ENOENT;
static bool mcs_bpf_on;
static atomic_t mcs_bpf_inflight = ATOMIC_INIT(0);

static __noipa noinline int mcs_call_link(void *link, void *tr, void *tgt)
{
	return -EBUSY;	/* runs only while the kcall is detached: never */
}

static __noipa noinline int mcs_call_unlink(void *link, void *tr, void *tgt)
{
	return -EBUSY;
}

static __noipa noinline int mcs_call_multi_attach(void *a, void *b, void *c)
{
	return -EBUSY;
}

static __noipa noinline int mcs_call_multi_detach(void *a, void *b, void *c)
{
	return -EBUSY;
}

static struct mcs_kcall mcs_kc_link = {
	.name = "bpf_trampoline_link_prog",
	.stub = mcs_call_link,
};

static struct mcs_kcall mcs_kc_unlink = {
	.name = "bpf_trampoline_unlink_prog",
	.stub = mcs_call_unlink,
};

static struct mcs_kcall mcs_kc_multi_attach = {
	.name = "bpf_trampoline_multi_attach",
	.stub = mcs_call_multi_attach,
};

static struct mcs_kcall mcs_kc_multi_detach = {
	.name = "bpf_trampoline_multi_detach",
	.stub = mcs_call_multi_detach,
};

static void mcs_bpf_enter(void)
{
	atomic_inc(&mcs_bpf_inflight);
}

static void mcs_bpf_leave(void)
{
	if (atomic_dec_and_test(&mcs_bpf_inflight))
		wake_up_var(&mcs_bpf_inflight);
}

static unsigned long mcs_tr_addr(void *tr)
{
	return (unsigned long)*(void **)((char *)tr + mcs_tr_addr_off);
}

static void mcs_bpf_link_begin(unsigned long addr)
{
	mcs_bpf_enter();
	mcs_hooks_lock();
	mcs_sites_bpf_link_begin(addr);
	mcs_hooks_unlock();
}

static int mcs_bpf_link_end(int ret)
{
	mcs_hooks_lock();
	mcs_sites_bpf_link_end(ret);
	mcs_hooks_unlock();
	mcs_bpf_leave();
	return ret;
}

static int mcs_bpf_unlinked(int ret)
{
	mcs_hooks_lock();
	mcs_sites_reclaim("a BPF program left a trampoline");
	mcs_hooks_unlock();
	mcs_bpf_leave();
	return ret;
}

/*
 * A trampoline whose first programs were all fentry does not record that
 * it shares its function with an IPMODIFY user (6.1's
 * bpf_tramp_ftrace_ops_func() sets BPF_TRAMP_F_SHARE_IPMODIFY only for a
 * trampoline that calls the original). An fexit program joining it later
 * then fails half-way with -EAGAIN inside modify_ftrace_direct(), and
 * 6.1 clears the func of the ftrace_ops it leaves registered: ftrace warns
 * on the next call and switches itself off. So after every link to a
 * function the module redirects, the redirect registers again, and ftrace
 * tells the trampoline it shares (ENABLE_SHARE_IPMODIFY_PEER).
 */
static void mcs_bpf_share_redirect(unsigned long addr)
{
	if (mcs_hooks_renotify(&mcs_backend_hooks, addr))
		pr_info("%ps: flush redirect registered again so that the new BPF trampoline knows it shares the function\n",
			(void *)addr);
}

/* The replacement of bpf_trampoline_link_prog(). */
static int mcs_bpf_link(void *link, void *tr, void *tgt)
{
	unsigned long addr = mcs_tr_addr(tr);
	int ret;

	mcs_bpf_link_begin(addr);
	ret = mcs_call_link(link, tr, tgt);
	if (!ret)
		mcs_bpf_share_redirect(addr);
	return mcs_bpf_link_end(ret);
}

/* The replacement of bpf_trampoline_unlink_prog(). */
static int mcs_bpf_unlink(void *link, void *tr, void *tgt)
{
	mcs_bpf_enter();
	return mcs_bpf_unlinked(mcs_call_unlink(link, tr, tgt));
}

/*
 * 7.x's links of one program to many functions (fentry.multi and the
 * like) take their trampolines in one batch, past the two above. Every
 * site yields while one attaches.
 */
static int mcs_bpf_multi_attach(void *prog, void *ids, void *link)
{
	mcs_bpf_link_begin(0);
	return mcs_bpf_link_end(mcs_call_multi_attach(prog, ids, link));
}

static int mcs_bpf_multi_detach(void *a, void *b, void *c)
{
	mcs_bpf_enter();
	return mcs_bpf_unlinked(mcs_call_multi_detach(a, b, c));
}

/* The first two are needed, the multi pair where the kernel has it. */
static struct mcs_hook mcs_bpf_rows[] = {
	MCS_REDIRECT_ROW("bpf.link", "bpf_trampoline_link_prog", mcs_bpf_link),
	MCS_REDIRECT_ROW("bpf.unlink", "bpf_trampoline_unlink_prog",
			 mcs_bpf_unlink),
	/* 7.x's multi links (no 6.x kernel has them) */
	MCS_REDIRECT_ON_ROW(MCS_ON_7X, "bpf.multi_attach",
			    "bpf_trampoline_multi_attach", mcs_bpf_multi_attach,
			    NULL, NULL),
	MCS_REDIRECT_ON_ROW(MCS_ON_7X, "bpf.multi_detach",
			    "bpf_trampoline_multi_detach", mcs_bpf_multi_detach,
			    NULL, NULL),
};

static struct mcs_kcall *mcs_bpf_kcalls[] = {
	&mcs_kc_link, &mcs_kc_unlink, &mcs_kc_multi_attach,
	&mcs_kc_multi_detach,
};

static_assert(ARRAY_SIZE(mcs_bpf_kcalls) == ARRAY_SIZE(mcs_bpf_rows));

/* The multi pair: both or neither. */
static bool mcs_bpf_multi_resolved(void)
{
	return mcs_bpf_rows[2].state == MCS_HOOK_OFF &&
	       mcs_bpf_rows[3].state == MCS_HOOK_OFF;
}

static void mcs_bpf_kcalls_detach(void)
{
	unsigned int i;

	for (i = ARRAY_SIZE(mcs_bpf_kcalls); i-- > 0;)
		mcs_kcall_detach(mcs_bpf_kcalls[i]);
}

struct mcs_hook_table mcs_bpf_hooks = {
	.hooks = mcs_bpf_rows,
	.n = ARRAY_SIZE(mcs_bpf_rows),
};

const char *mcs_bpf_share_state(void)
{
	return mcs_bpf_on ? "on" : "missing";
}

int mcs_bpf_share_init(void)
{
	int ret = mcs_hook_table_init(&mcs_bpf_hooks);
	unsigned int i;

	if (ret)
		return ret;
	if (!IS_ENABLED(CONFIG_BPF_JIT) || mcs_bpf_rows[0].state != MCS_HOOK_OFF ||
	    mcs_bpf_rows[1].state != MCS_HOOK_OFF)
		goto missing;
	if (!mcs_bpf_multi_resolved()) {
		mcs_bpf_rows[2].state = MCS_HOOK_OTHER_GEN;
		mcs_bpf_rows[3].state = MCS_HOOK_OTHER_GEN;
	}
	mcs_tr_addr_off = mcs_btf_member_in("bpf_trampoline", "func", "addr",
					    "void *", sizeof(void *));
	if (mcs_tr_addr_off < 0)
		goto missing;
	/* the wrappers pass three arguments on: no function may take more */
	for (i = 0; i < ARRAY_SIZE(mcs_bpf_rows); i++) {
		int n;

		if (mcs_bpf_rows[i].state != MCS_HOOK_OFF)
			continue;
		n = mcs_btf_func_nargs(mcs_bpf_rows[i].target);
		if (n < 0 || n > MCS_BPF_WRAPPER_ARGS) {
			pr_info("BPF trampolines: %s takes %d arguments (BTF), the wrapper %d\n",
				mcs_bpf_rows[i].target, n, MCS_BPF_WRAPPER_ARGS);
			if (i < 2)
				goto missing;
			mcs_bpf_rows[2].state = MCS_HOOK_OTHER_GEN;
			mcs_bpf_rows[3].state = MCS_HOOK_OTHER_GEN;
		}
	}
	for (i = 0; i < ARRAY_SIZE(mcs_bpf_kcalls); i++)
		if (mcs_bpf_rows[i].state == MCS_HOOK_OFF &&
		    mcs_kcall_attach(mcs_bpf_kcalls[i], mcs_bpf_rows[i].addr))
			goto missing;
	if (mcs_hooks_attach(&mcs_bpf_hooks, MCS_GRP_REDIRECT)) {
		pr_warn("BPF trampolines: cannot redirect their link functions (another IPMODIFY user?)\n");
		goto missing;
	}
	mcs_bpf_on = true;
	return 0;
missing:
	mcs_bpf_kcalls_detach();
	mcs_hooks_set_missing(&mcs_bpf_hooks, MCS_GRP_REDIRECT);
	pr_info("BPF trampolines: sharing unavailable in this kernel: a BPF program cannot attach to a function counted directly\n");
	return 0;
}

void mcs_bpf_share_exit(void)
{
	mcs_hooks_detach(&mcs_bpf_hooks, MCS_GRP_REDIRECT);
	/*
	 * No new call reaches a wrapper now. Wait for the calls inside, then
	 * for a voluntary switch of every task, so none is left between the
	 * redirect and the wrapper's first line, or after its last.
	 */
	wait_var_event(&mcs_bpf_inflight, !atomic_read(&mcs_bpf_inflight));
	synchronize_rcu_tasks();
	mcs_bpf_kcalls_detach();
	mcs_bpf_on = false;
	mcs_hook_table_exit(&mcs_bpf_hooks);
}
