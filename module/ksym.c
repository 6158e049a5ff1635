// SPDX-License-Identifier: GPL-2.0
/*
 * Symbol resolution. kallsyms_lookup_name() is not exported since 5.7; a
 * kprobe on it tells us its address (the kprobe is registered and removed at
 * once, it never fires). Everything else is looked up through it, once, at
 * init. Static functions and variables are in kallsyms (KALLSYMS_ALL).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kprobes.h>

#include "ksym.h"

typedef unsigned long (*mcs_lookup_name_t)(const char *name);
typedef int (*mcs_lookup_size_offset_t)(unsigned long addr,
					unsigned long *size,
					unsigned long *offset);

static mcs_lookup_name_t mcs_lookup_name;
static mcs_lookup_size_offset_t mcs_lookup_size_offset;

int mcs_ksym_init(void)
{
	struct kprobe kp = { .symbol_name = "kallsyms_lookup_name" };
	int ret;

	ret = register_kprobe(&kp);
	if (ret) {
		pr_err("cannot find kallsyms_lookup_name (kprobe: %d)\n", ret);
		return ret;
	}
	/* kp.addr includes kp.offset (0): the function's probe point. */
	mcs_lookup_name = (mcs_lookup_name_t)kp.addr;
	unregister_kprobe(&kp);

	mcs_lookup_size_offset = (mcs_lookup_size_offset_t)
		mcs_lookup_name("kallsyms_lookup_size_offset");
	if (!mcs_lookup_size_offset) {
		pr_err("kallsyms_lookup_size_offset not found\n");
		return -ENOENT;
	}
	return 0;
}

unsigned long mcs_ksym(const char *name)
{
	return mcs_lookup_name(name);
}

int mcs_ksym_range(const char *name, unsigned long *start, unsigned long *end)
{
	unsigned long addr = mcs_lookup_name(name);
	unsigned long size, offset;

	if (!addr || !mcs_lookup_size_offset(addr, &size, &offset))
		return -ENOENT;
	*start = addr - offset;
	*end = *start + size;
	return 0;
}
