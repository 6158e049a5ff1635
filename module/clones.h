/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MCS_CLONES_H
#define MCS_CLONES_H

#include "hook.h"

/**
 * mcs_clones_scan() - find compiler clones of the tables' functions
 * @tables: resolved tables, attached or not
 * @n: how many
 *
 * One pass over kallsyms. A clone of a row's caller becomes another caller
 * range of the row (attached at once if the row is); a clone of a hooked
 * function other than its .cold part (or any clone of a redirect's
 * alt_caller) makes the hook `partial`. Each finding is one log line.
 */
void mcs_clones_scan(struct mcs_hook_table **tables, unsigned int n);

#endif /* MCS_CLONES_H */
