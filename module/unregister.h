/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MCS_UNREGISTER_H
#define MCS_UNREGISTER_H

#include <linux/bug.h>
#include <linux/module.h>

/**
 * mcs_unregister_check() - handle the result of an ftrace unregister
 * @ret: what the unregister returned
 * @what: the ops, for the warning
 *
 * An ops that failed to unregister may still call into the module. Warn,
 * and pin the module so its code is not freed under those calls. At
 * unload it is too late to pin; the warning is all there is.
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
