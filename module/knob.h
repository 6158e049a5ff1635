/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MCS_KNOB_H
#define MCS_KNOB_H

#include <linux/seq_file.h>
#include <linux/types.h>

/*
 * A debugfs knob: a file that reads back its value and parses writes
 * strictly. @set receives the written text without its one optional
 * trailing newline and returns 0 or -EINVAL; it changes nothing on error.
 */
struct mcs_knob {
	const char *name;
	int (*set)(const char *text);
	void (*show)(struct seq_file *m);
};

/* Longest text a knob accepts (a u64 in decimal, or a mode name). */
#define MCS_KNOB_MAX_LEN	24

/* A decimal in [min, max], digits only (no sign, no spaces). */
int mcs_knob_parse_u64(const char *text, u64 min, u64 max, u64 *out);

#endif /* MCS_KNOB_H */
