// SPDX-License-Identifier: GPL-2.0
/*
 * The benchmark's control module: loaded in place of memcg_statctl, it
 * does nothing at all, and occupies as much module memory as memcg_statctl
 * does (MCS_PAD_BYTES, measured from the memcg_statctl.ko of the same
 * run). A cost that this module shows too comes from loading a module,
 * not from anything memcg_statctl does.
 */
#include <linux/module.h>

#include "pad.h"	/* MCS_PAD_BYTES, written by scripts/bench/bench.sh */

/* Written once at load, so that it is not merged away or left in .bss. */
static char mcs_pad[MCS_PAD_BYTES] = { 1 };

static int __init mcs_control_init(void)
{
	pr_info("control module loaded: %zu bytes of padding at %p\n",
		sizeof(mcs_pad), mcs_pad);
	return 0;
}

static void __exit mcs_control_exit(void)
{
}

module_init(mcs_control_init);
module_exit(mcs_control_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("memcg-statctl benchmark control: a module that does nothing");
