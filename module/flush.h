/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MCS_FLUSH_H
#define MCS_FLUSH_H

#include "flush_backend.h"
#include "knob.h"

/* The update-side hooks (attached only while a knob needs them). */
extern struct mcs_hook_table mcs_update_hooks;
extern const struct mcs_knob mcs_flush_knobs[];
extern const unsigned int mcs_flush_nr_knobs;

/* "available", "off" (flush_hooks=0) or "missing" (objects not found) */
const char *mcs_flush_state(void);

int mcs_flush_init(void);
void mcs_flush_exit(void);

#endif /* MCS_FLUSH_H */
