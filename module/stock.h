/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MCS_STOCK_H
#define MCS_STOCK_H

#include "hook.h"
#include "knob.h"

extern struct mcs_hook_table mcs_stock_hooks;
extern const struct mcs_knob mcs_stock_knobs[];
extern const unsigned int mcs_stock_nr_knobs;

/**
 * mcs_stock_init() - resolve the stock hooks and attach those switched on
 *
 * The stock_hooks and objcg_flush_hooks parameters choose the groups.
 *
 * Context: module load.
 * Return: 0, or a negative errno (nothing kept then).
 */
int mcs_stock_init(void);

/**
 * mcs_stock_exit() - detach the stock hooks and free their table
 *
 * Context: module unload.
 */
void mcs_stock_exit(void);

#endif /* MCS_STOCK_H */
