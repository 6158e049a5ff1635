// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's unit of a pending memcg stat update (stat_unit.h). The
 * rounding is the kernel's own, copied per generation from
 * memcg_state_val_in_pages() in mm/memcontrol.c, and so is the list of
 * items that memcg_page_state_unit() keeps in bytes or KiB (the same in
 * 6.12 and 7.3).
 */
#include <linux/bitmap.h>
#include <linux/build_bug.h>
#include <linux/kernel.h>
#include <linux/math.h>
#include <linux/memcontrol.h>
#include <linux/minmax.h>
#include <linux/mmzone.h>
#include <linux/sizes.h>

#include "compat.h"
#include "stat_unit.h"

unsigned long mcs_stat_subpage[MCS_STAT_BITS / BITS_PER_LONG];

#ifndef MCS_GEN_61
static int mcs_stat_unit(int idx)
{
	switch (idx) {
	case MEMCG_PERCPU_B:
	case MEMCG_ZSWAP_B:
	case NR_SLAB_RECLAIMABLE_B:
	case NR_SLAB_UNRECLAIMABLE_B:
		return 1;
	case NR_KERNEL_STACK_KB:
		return SZ_1K;
	default:
		return PAGE_SIZE;
	}
}
#endif

/* The items mcs_stat_unit() does not count in pages. */
void mcs_stat_unit_init(void)
{
#ifndef MCS_GEN_61
	int i;

	BUILD_BUG_ON(MEMCG_NR_STAT > MCS_STAT_BITS);
	BUILD_BUG_ON(MCS_STAT_BITS % BITS_PER_LONG);
	for (i = 0; i < MEMCG_NR_STAT; i++)
		if (mcs_stat_unit(i) != PAGE_SIZE)
			__set_bit(i, mcs_stat_subpage);
#endif
}

/* |val| normalised as this kernel generation normalises it */
static u64 notrace mcs_stat_amount(int idx, long val)
{
#if defined(MCS_GEN_61)
	return abs(val);
#elif defined(MCS_GEN_612)
	/* 6.12: int arithmetic, then an unsigned division */
	int v = val, unit = mcs_stat_unit(idx);

	if (v && unit != PAGE_SIZE)
		v = max(v * unit / PAGE_SIZE, 1UL);
	return abs(v);
#else
	int unit = mcs_stat_unit(idx);
	long res;

	if (!val || unit == PAGE_SIZE)
		return abs(val);
	res = mult_frac(abs(val), unit, PAGE_SIZE);
	return res ?: 1;
#endif
}

u64 notrace mcs_stat_amount_kind(int idx, long arg2, unsigned long kind)
{
	if (kind == MCS_KIND_UPDATE_ULONG)
		return arg2;
	return mcs_stat_amount(idx, kind == MCS_KIND_UPDATE_INT ?
				    (int)arg2 : arg2);
}
