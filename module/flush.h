/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MCS_FLUSH_H
#define MCS_FLUSH_H

#include "flush_backend.h"
#include "knob.h"

/* The update-side hooks (attached only while a knob needs them). */
extern struct mcs_hook_table mcs_update_hooks;
extern const struct mcs_knob mcs_flush_knobs[];
extern const unsigned int mcs_flush_nr_knobs;

/**
 * mcs_flush_state() - whether flush control works on this load
 *
 * Return: "available"; "off" (flush_hooks=0); "missing" (a kernel object
 * or choke point not found); "failed" (a redirect could not attach).
 */
const char *mcs_flush_state(void);

/**
 * mcs_flush_init() - resolve the flush tables, attach the redirects
 *
 * Without flush control the module still loads and counts, unless a flush
 * parameter asks for a change it cannot make.
 *
 * Context: module load.
 * Return: 0, or a negative errno: -EINVAL for a bad parameter,
 * -EOPNOTSUPP for one that needs flush control this load lacks.
 */
int mcs_flush_init(void);

/**
 * mcs_flush_exit() - give flushing back to the kernel
 *
 * Detaches every flush hook and waits for calls still inside a
 * replacement.
 *
 * Context: process context; sleeps.
 */
void mcs_flush_exit(void);

#endif /* MCS_FLUSH_H */
