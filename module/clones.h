/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MCS_CLONES_H
#define MCS_CLONES_H

#include "hook.h"

/**
 * mcs_clones_scan() - find compiler clones of @t's functions in kallsyms
 * @t: a resolved table, none of its hooks attached
 *
 * A clone of a row's caller becomes a second caller range of the row; a
 * clone of a hooked function (or of a redirect's alt_caller) makes the
 * hook `partial`. Each finding is one log line.
 */
void mcs_clones_scan(struct mcs_hook_table *t);

#endif /* MCS_CLONES_H */
