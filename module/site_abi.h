/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MCS_SITE_ABI_H
#define MCS_SITE_ABI_H

/*
 * The counting rows as the direct trampolines (site_tramp.S) read them.
 * Included by C and by assembly: the offsets below are checked against
 * struct mcs_site_row in site.c with static_assert.
 *
 * A site is one hooked kernel function; its counting rows form a singly
 * linked list of the rows that are attached now, headed by
 * mcs_site_heads[site index]. Per row and call: when the caller (parent ip)
 * lies in [start, end), add one to the row's hits and to its counter; an
 * update row also adds |argument 2| (or argument 2, for an unsigned count)
 * to its amount counter and, while update_flush_every is set, calls
 * mcs_flush_update_tick().
 */
#define MCS_ROW_START		0	/* caller range, 0 .. ~0UL: any caller */
#define MCS_ROW_END		8
#define MCS_ROW_HITS		16	/* __percpu unsigned long * */
#define MCS_ROW_COUNTER		24	/* __percpu u64 * (mcs_counters) */
#define MCS_ROW_AMOUNT		32	/* __percpu u64 *, update rows */
#define MCS_ROW_KIND		40
#define MCS_ROW_NEXT		48	/* next attached row of the site */
#define MCS_ROW_SIZE		56

/* Row kinds: what a matching call adds besides one to hits and counter. */
#define MCS_KIND_COUNT		0	/* nothing */
#define MCS_KIND_UPDATE_INT	1	/* |(int)arg2| to amount */
#define MCS_KIND_UPDATE_LONG	2	/* |(long)arg2| to amount */
#define MCS_KIND_UPDATE_ULONG	3	/* (unsigned long)arg2 to amount */

/* Functions hooked for counting at once, over every table. */
#define MCS_SITES_MAX		16

#endif /* MCS_SITE_ABI_H */
