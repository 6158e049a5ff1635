/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MCS_KNOB_H
#define MCS_KNOB_H

#include <linux/seq_file.h>
#include <linux/types.h>

/*
 * A debugfs knob: a file that reads back its value and parses writes
 * strictly. @set gets the text without its one optional trailing newline.
 * It returns 0 or a negative errno (-EINVAL for bad text) and changes
 * nothing on error. @param, if set, is the module parameter that gives
 * the value at load (NULL text: the knob keeps its value).
 */
struct mcs_knob {
	const char *name;
	int (*set)(const char *text);
	void (*show)(struct seq_file *m);
	char **param;
	/*
	 * For @param: -EINVAL for text @set would reject, else 1 when the
	 * value changes the kernel's own behaviour, 0 if not.
	 */
	int (*check)(const char *text);
};

/*
 * A knob table row for the charp module parameter @var. The knob takes the
 * parameter's name, so the two cannot drift apart.
 */
#define MCS_KNOB_ROW(var, setter, shower, checker)			\
	{ .name = #var, .set = setter, .show = shower, .param = &(var),	\
	  .check = checker }

/* Longest text a knob accepts (a u64 in decimal, or a mode name). */
#define MCS_KNOB_MAX_LEN	24

/**
 * mcs_knob_parse_u64() - a decimal in [min, max], digits only
 * @text: the text, no sign, no spaces, no newline
 * @min: the least value allowed
 * @max: the greatest
 * @out: the value
 *
 * Return: 0, or -EINVAL (@out untouched).
 */
int mcs_knob_parse_u64(const char *text, u64 min, u64 max, u64 *out);

/**
 * mcs_knobs_apply_params() - set each knob from its module parameter
 * @knobs: the knob table, applied in order with each knob's own setter
 * @n: its length
 *
 * Return: 0, or the first error (logged with the parameter).
 */
int mcs_knobs_apply_params(const struct mcs_knob *knobs, unsigned int n);

/**
 * mcs_knobs_check_params() - check module parameters before anything is set
 * @knobs: the knob table
 * @n: its length
 * @unavailable: NULL, or why the knobs cannot be applied on this load
 *
 * Return: 0; -EINVAL for a parameter its knob would reject; -EOPNOTSUPP
 * when @unavailable and a parameter asks for a change. Each is logged.
 */
int mcs_knobs_check_params(const struct mcs_knob *knobs, unsigned int n,
			   const char *unavailable);

#endif /* MCS_KNOB_H */
