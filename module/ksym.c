// SPDX-License-Identifier: GPL-2.0
/*
 * Symbol resolution. kallsyms_lookup_name() is not exported since 5.7. A
 * kprobe on it, registered and removed at once, gives its address. It and
 * kallsyms_lookup_size_offset() are called through kcall stubs (kcall.h),
 * as IBT may seal them. Symbols are looked up once, at init. Static
 * functions and variables are in kallsyms (KALLSYMS_ALL).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kprobes.h>

#include "kcall.h"
#include "ksym.h"

static __noipa noinline unsigned long mcs_call_lookup_name(const char *name)
{
	return 0;
}

static __noipa noinline int mcs_call_size_offset(unsigned long addr,
						 unsigned long *size,
						 unsigned long *offset)
{
	return 0;
}

static __noipa noinline int mcs_call_each_symbol(mcs_ksym_each_fn fn,
						 void *data)
{
	return -ENOENT;
}

static struct mcs_kcall mcs_kc_each_symbol = {
	.name = "kallsyms_on_each_symbol",
	.stub = mcs_call_each_symbol,
};

static struct mcs_kcall mcs_kc_lookup_name = {
	.name = "kallsyms_lookup_name",
	.stub = mcs_call_lookup_name,
};

static struct mcs_kcall mcs_kc_size_offset = {
	.name = "kallsyms_lookup_size_offset",
	.stub = mcs_call_size_offset,
};

/* The kernel image: its text, and all of it up to the end of its bss. */
static unsigned long mcs_stext, mcs_etext, mcs_end;

int mcs_ksym_init(void)
{
	struct kprobe kp = { .symbol_name = "kallsyms_lookup_name" };
	unsigned long addr;
	int ret;

	ret = register_kprobe(&kp);
	if (ret) {
		pr_err("cannot find kallsyms_lookup_name (kprobe: %d)\n", ret);
		return ret;
	}
	/* The probe point: the function, or just past its ENDBR on IBT. */
	addr = (unsigned long)kp.addr;
	unregister_kprobe(&kp);

	ret = mcs_kcall_attach(&mcs_kc_lookup_name, addr);
	if (ret)
		return ret;
	addr = mcs_call_lookup_name("kallsyms_lookup_size_offset");
	if (!addr) {
		pr_err("kallsyms_lookup_size_offset not found\n");
		ret = -ENOENT;
		goto fail;
	}
	ret = mcs_kcall_attach(&mcs_kc_size_offset, addr);
	if (ret)
		goto fail;
	/* Optional: without it, compiler clones go unnoticed (clones.c). */
	addr = mcs_call_lookup_name("kallsyms_on_each_symbol");
	if (!addr || mcs_kcall_attach(&mcs_kc_each_symbol, addr))
		pr_warn("no kallsyms_on_each_symbol(): compiler clones of hooked functions go unnoticed\n");
	mcs_stext = mcs_call_lookup_name("_stext");
	mcs_etext = mcs_call_lookup_name("_etext");
	mcs_end = mcs_call_lookup_name("_end");
	if (!mcs_stext || mcs_etext <= mcs_stext || mcs_end <= mcs_etext)
		pr_warn("no kernel image bounds (_stext, _etext, _end) in kallsyms: features that write kernel data stay off\n");
	return 0;
fail:
	mcs_kcall_detach(&mcs_kc_lookup_name);
	return ret;
}

void mcs_ksym_exit(void)
{
	mcs_kcall_detach(&mcs_kc_each_symbol);
	mcs_kcall_detach(&mcs_kc_size_offset);
	mcs_kcall_detach(&mcs_kc_lookup_name);
}

unsigned long mcs_ksym(const char *name)
{
	return mcs_call_lookup_name(name);
}

int mcs_ksym_each(mcs_ksym_each_fn fn, void *data)
{
	return mcs_call_each_symbol(fn, data);
}

int mcs_ksym_size(unsigned long addr, unsigned long *size)
{
	unsigned long off;

	if (!mcs_call_size_offset(addr, size, &off) || off)
		return -ENOENT;
	return 0;
}

bool mcs_ksym_in_text(unsigned long addr)
{
	return addr >= mcs_stext && addr < mcs_etext;
}

static int mcs_ksym_core(const char *what, const char *name,
			 unsigned long *addr, unsigned long end, size_t size)
{
	unsigned long a = mcs_call_lookup_name(name), sz, off;

	if (!a) {
		pr_err("%s: %s not in this kernel\n", what, name);
		return -ENOENT;
	}
	if (a < mcs_stext || a >= end) {
		pr_err("%s: %s is not in the kernel image (a module's symbol?)\n",
		       what, name);
		return -ENOENT;
	}
	if (!mcs_call_size_offset(a, &sz, &off) || off || sz < size) {
		pr_err("%s: %s has %lu bytes in kallsyms, %zu needed\n", what,
		       name, off ? 0 : sz, size);
		return -ENOENT;
	}
	*addr = a;
	return 0;
}

int mcs_ksym_object(const char *what, const char *name, void *addr,
		    size_t size)
{
	return mcs_ksym_core(what, name, addr, mcs_end, size);
}

int mcs_ksym_function(const char *what, const char *name,
		      unsigned long *addr)
{
	return mcs_ksym_core(what, name, addr, mcs_etext, 1);
}

int mcs_ksym_range(const char *name, unsigned long *start, unsigned long *end)
{
	unsigned long addr = mcs_call_lookup_name(name);
	unsigned long size, offset;

	if (!addr || !mcs_ksym_in_text(addr) ||
	    !mcs_call_size_offset(addr, &size, &offset))
		return -ENOENT;
	*start = addr - offset;
	*end = *start + size;
	return 0;
}
