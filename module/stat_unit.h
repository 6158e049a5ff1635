/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MCS_STAT_UNIT_H
#define MCS_STAT_UNIT_H

#include <linux/types.h>

#include "site_abi.h"

/*
 * The size of a memcg stat update in the unit the kernel counts pending
 * updates in (memcg_rstat_updated()'s val). 6.1 counts |val| as the stat
 * keeps it: pages, or bytes and KiB for a few items. 6.12 and 7.x
 * normalise those items to pages first (memcg_state_val_in_pages():
 * at least 1 for a non-zero update), so a slab update of 4 KiB counts
 * 1 there, not 4096.
 *
 * The update trampolines test the item against mcs_stat_subpage, a bitmap
 * of MCS_STAT_BITS bits set only on 6.12 and 7.x, and call C for the
 * marked items alone: most updates are in pages and cost one bit test.
 */
extern unsigned long mcs_stat_subpage[MCS_STAT_BITS / BITS_PER_LONG];

void mcs_stat_unit_init(void);

/**
 * mcs_stat_amount_kind() - the kernel's count of one update of an update row
 * @idx: the stat item (argument 1 of the hooked function)
 * @arg2: argument 2: the delta, or the count of an event
 * @kind: the row's MCS_KIND_UPDATE_*, which says how to read @arg2
 *
 * The trampolines' slow path, and the C paths' only one.
 *
 * Return: the count, the delta's magnitude in the kernel's unit.
 */
u64 mcs_stat_amount_kind(int idx, long arg2, unsigned long kind);

#endif /* MCS_STAT_UNIT_H */
