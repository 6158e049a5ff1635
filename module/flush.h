/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MCS_FLUSH_H
#define MCS_FLUSH_H

#include "hook.h"

extern struct mcs_hook_table mcs_flush_hooks;

int mcs_flush_init(void);
void mcs_flush_exit(void);

#endif /* MCS_FLUSH_H */
