/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MCS_UNREGISTER_H
#define MCS_UNREGISTER_H

#include <linux/bug.h>
#include <linux/module.h>

/*
 * An ftrace ops that fails to unregister may still send calls into this
 * module: warn, and pin the module so that its code is never freed under
 * them. At unload it is too late to pin; the warning is all there is.
 */
static inline void mcs_unregister_check(int ret, const char *what)
{
	if (likely(!ret))
		return;
	WARN(1, KBUILD_MODNAME ": %s: ftrace unregister failed (%d): module pinned\n",
	     what, ret);
	__module_get(THIS_MODULE);
}

#endif /* MCS_UNREGISTER_H */
