/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MCS_STOCK_H
#define MCS_STOCK_H

#include "hook.h"
#include "knob.h"

extern struct mcs_hook_table mcs_stock_hooks;
extern const struct mcs_knob mcs_stock_knobs[];
extern const unsigned int mcs_stock_nr_knobs;

int mcs_stock_init(void);
void mcs_stock_exit(void);

#endif /* MCS_STOCK_H */
