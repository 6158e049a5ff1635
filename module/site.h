/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MCS_SITE_H
#define MCS_SITE_H

#include <linux/ftrace.h>
#include <linux/types.h>

#include "site_abi.h"
#include "flush_tick.h"

/*
 * Counting sites. All counting rows (hook.h) that watch the same kernel
 * function share one site, so one ftrace registration, of one of two kinds:
 *   direct  a direct-call trampoline of site_tramp.S, called straight from
 *           the fentry site (or via ftrace_regs_caller when other ftrace
 *           users share the function).
 *   ftrace  an ordinary ftrace_ops whose C callback walks the same rows.
 *           Used while another direct user, such as a BPF trampoline, owns
 *           the function (-EBUSY); bpf_share.c moves a site here before a
 *           BPF trampoline takes its function, and back to direct once
 *           the function's direct slot is free again.
 * The first attached row registers the site, the last detached one
 * unregisters it. Changes in between move the direct call to the variant
 * that fits the attached rows with modify_ftrace_direct(), which counts
 * every call during the switch. All under the hook engine's mutex.
 */
/* Rows of one site at most (every generation has fewer than 4). */
#define MCS_SITE_ROWS_MAX	8

/* What a row counts, per cpu: read by `hooks` and summed into `stats`. */
struct mcs_row_pcpu {
	u64 hits;
	u64 amount;		/* update rows: the sum of the update sizes */
	/* Caller-filtered rows, when another tracer hid the caller: */
	u64 recovered;		/* calls counted after recovering it */
	u64 unattributed;	/* calls whose caller could not be recovered */
};

struct mcs_site_row {
	/* Read by the trampolines: the layout of site_abi.h. */
	unsigned long caller_start;
	unsigned long caller_end;
	struct mcs_row_pcpu __percpu *pcpu;
	unsigned long kind;
	struct mcs_site_row *next;

	/* The site's list of every resolved row, attached or not. */
	struct mcs_site_row *site_next;
	bool attached;
};

enum mcs_site_mech {
	MCS_SITE_NONE,		/* not registered */
	MCS_SITE_DIRECT,
	MCS_SITE_FTRACE,
};

struct mcs_site {
	unsigned long addr;		/* 0: a free slot */
	const char *target;
	unsigned int index;		/* in mcs_site_heads, mcs_site_tramps */
	unsigned int nr_rows, nr_attached;
	struct mcs_site_row *rows;	/* every resolved row, by site_next */
	enum mcs_site_mech mech;
	unsigned long tramp;		/* direct: the trampoline registered */
	bool shares_ipmodify;		/* with a livepatch or kprobe */
	/*
	 * ftrace because another direct user (a BPF trampoline) has or was
	 * about to take the function: back to direct when it leaves.
	 */
	bool yielded;
	struct ftrace_ops ops;		/* direct */
	struct ftrace_ops fops;		/* ftrace */
};

/**
 * mcs_site_get() - the counting site of a kernel function, for a new row
 * @addr: the function
 * @target: its name, for messages
 * @row: the row, linked into the site in caller order, not attached
 *
 * Return: the site, or NULL when every site or the site's rows are in use.
 */
struct mcs_site *mcs_site_get(unsigned long addr, const char *target,
			      struct mcs_site_row *row);

/**
 * mcs_site_put() - the row leaves its site
 * @s: the site
 * @row: the row, detached first if attached; the last row frees the site
 */
void mcs_site_put(struct mcs_site *s, struct mcs_site_row *row);

/**
 * mcs_site_attach() - count the calls that @row matches
 * @s: the row's site, registered with ftrace by its first attached row
 * @row: the row
 *
 * Return: 0, or the ftrace error (nothing changed then).
 */
int mcs_site_attach(struct mcs_site *s, struct mcs_site_row *row);

/**
 * mcs_site_detach() - stop counting for @row
 * @s: the row's site, unregistered with its last attached row
 * @row: the row
 */
void mcs_site_detach(struct mcs_site *s, struct mcs_site_row *row);

/**
 * mcs_sites_bpf_link_begin() - a BPF trampoline may take @addr's direct slot
 * @addr: the traced function, or 0 for every function (a link of one
 *	program to many functions)
 *
 * The site of @addr, if direct, moves to an ftrace_ops first. Until the
 * matching mcs_sites_bpf_link_end(), no site returns to direct and new
 * sites start on ftrace, so the link cannot find the slot taken.
 */
void mcs_sites_bpf_link_begin(unsigned long addr);

/**
 * mcs_sites_bpf_link_end() - the BPF link of mcs_sites_bpf_link_begin() ended
 * @ret: its result, for the log
 *
 * With no link left in progress, every yielded site tries its direct
 * trampoline again; those whose function a BPF trampoline holds stay.
 */
void mcs_sites_bpf_link_end(int ret);

/**
 * mcs_sites_reclaim() - yielded sites try their direct trampoline again
 * @why: for the log
 *
 * After a BPF program left a function. Nothing while a link is in progress.
 */
void mcs_sites_reclaim(const char *why);

/**
 * mcs_site_mech_name() - how calls reach the site now
 * @s: the site
 *
 * Return: "direct", "direct+ipmodify", "ftrace", or NULL when unregistered.
 */
const char *mcs_site_mech_name(const struct mcs_site *s);

/* site_tramp.S: the trampoline of each variant and site. */
extern const unsigned long mcs_site_tramps[MCS_NR_VARIANTS][MCS_SITES_MAX];

/**
 * mcs_site_recover() - count a call whose caller another tracer may hide
 * @index: the site
 * @slot: the stack slot of the call's return address
 * @arg0: the call's argument 0, for attribution rows
 * @arg1: the call's argument 1, for update rows (a stat item)
 * @arg2: the call's argument 2, for update rows (the update's size)
 *
 * Called by the walk trampoline of site @index when the caller it read may
 * be another tracer's return trampoline: if it is, recover the true caller
 * and count the caller-filtered rows.
 */
void mcs_site_recover(unsigned int index, unsigned long *slot, long arg0,
		      long arg1, long arg2);

#endif /* MCS_SITE_H */
