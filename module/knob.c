// SPDX-License-Identifier: GPL-2.0
/* Strict parsing shared by every knob and module parameter. */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ctype.h>
#include <linux/errno.h>
#include <linux/kernel.h>

#include "knob.h"

int mcs_knob_parse_u64(const char *text, u64 min, u64 max, u64 *out)
{
	u64 v;

	/* kstrtoull() would take a leading '+' and a trailing newline. */
	if (!isdigit(text[0]) || kstrtoull(text, 10, &v) ||
	    text[strlen(text) - 1] == '\n')
		return -EINVAL;
	if (v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

int mcs_knobs_apply_params(const struct mcs_knob *knobs, unsigned int n)
{
	unsigned int i;
	int ret;

	for (i = 0; i < n; i++) {
		if (!knobs[i].param || !*knobs[i].param)
			continue;
		ret = knobs[i].set(*knobs[i].param);
		if (ret) {
			pr_err("invalid module parameter %s=%s\n",
			       knobs[i].name, *knobs[i].param);
			return ret;
		}
	}
	return 0;
}

int mcs_knobs_check_params(const struct mcs_knob *knobs, unsigned int n,
			   const char *unavailable)
{
	unsigned int i;
	int ret;

	for (i = 0; i < n; i++) {
		if (!knobs[i].param || !*knobs[i].param || !knobs[i].check)
			continue;
		ret = knobs[i].check(*knobs[i].param);
		if (ret < 0) {
			pr_err("invalid module parameter %s=%s\n",
			       knobs[i].name, *knobs[i].param);
			return -EINVAL;
		}
		if (ret && unavailable) {
			pr_err("module parameter %s=%s needs flush control, which is %s\n",
			       knobs[i].name, *knobs[i].param, unavailable);
			return -EOPNOTSUPP;
		}
	}
	return 0;
}
