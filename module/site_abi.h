/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MCS_SITE_ABI_H
#define MCS_SITE_ABI_H

/*
 * The counting rows as the direct trampolines (site_tramp.S) read them.
 * Included by C and assembly. site.c checks the offsets against struct
 * mcs_site_row and struct mcs_row_pcpu with static_assert.
 *
 * A site is one hooked kernel function. mcs_site_heads[site] heads the
 * list of its attached rows. With exactly one row attached,
 * mcs_site_single[site] points at it too. When the first row takes every
 * caller and only counts, mcs_site_single[site] points at it and
 * mcs_site_rest[site] at the rows after it.
 *
 * Per row and call, when the caller (parent ip) lies in [start, end):
 * - add one to the row's per-cpu hits;
 * - update rows add |argument 2| (as is, for an unsigned count) to the
 *   per-cpu amount, and call mcs_flush_update_tick() while
 *   update_flush_every is set. The int and long kinds are memcg stat
 *   updates of item argument 1: for the items of the bitmap
 *   mcs_stat_subpage (MCS_STAT_BITS items) they add what
 *   mcs_stat_amount_kind() returns instead, the kernel's count in pages;
 * - attribution rows (kind MCS_KIND_ATTR + event) call
 *   mcs_attr_event(kind, argument 0, argument 1) (attribution.h), which
 *   counts the event for the cgroup it finds there.
 * The `stats` counters are sums of these (counters.c).
 */
#define MCS_ROW_START		0	/* caller range, 0 .. ~0UL: any caller */
#define MCS_ROW_END		8
#define MCS_ROW_PCPU		16	/* struct mcs_row_pcpu __percpu * */
#define MCS_ROW_KIND		24
#define MCS_ROW_NEXT		32	/* next attached row of the site */

#define MCS_PCPU_HITS		0
#define MCS_PCPU_AMOUNT		8

/* Row kinds: what a matching call adds besides one to hits. */
#define MCS_KIND_COUNT		0	/* nothing */
#define MCS_KIND_UPDATE_INT	1	/* |(int)arg2| to amount */
#define MCS_KIND_UPDATE_LONG	2	/* |(long)arg2| to amount */
#define MCS_KIND_UPDATE_ULONG	3	/* (unsigned long)arg2 to amount */
#define MCS_NR_KINDS		4	/* the kinds with a single-row variant */
#define MCS_KIND_ATTR		4	/* + an attribution event: walked only */

/*
 * Trampoline variants of a site (mcs_site_tramps[variant][site]). The walk
 * serves any set of rows. One attached row that takes every caller uses
 * the short variant of its kind. A first row that takes every caller and
 * only counts, followed by others, uses the head-walk: that row counted,
 * the rest walked.
 */
#define MCS_VARIANT_WALK	0
#define MCS_VARIANT_HEADWALK	1
#define MCS_VARIANT_SINGLE	2	/* + the row's kind */
#define MCS_NR_VARIANTS		(MCS_VARIANT_SINGLE + MCS_NR_KINDS)

/* Stat items the trampolines look up in mcs_stat_subpage (stat_unit.h). */
#define MCS_STAT_BITS		128

/* Functions hooked for counting at once, over every table. */
#define MCS_SITES_MAX		16

#endif /* MCS_SITE_ABI_H */
