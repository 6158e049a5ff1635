/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers of the memcg_statctl selftests (in the spirit of
 * tools/testing/selftests/cgroup/lib/), one file per concern in lib/.
 * A test includes this header only.
 *
 * Conventions: functions returning int give 0 (or a count) on success and
 * -errno on failure, never print on the success path, and print one
 * diagnostic line ("# ...") on the failure path when it helps.
 */
#ifndef MEMCG_STATCTL_SELFTEST_LIB_H
#define MEMCG_STATCTL_SELFTEST_LIB_H

#include "lib/include/util.h"
#include "lib/include/statctl.h"
#include "lib/include/cgroup.h"
#include "lib/include/child.h"
#include "lib/include/module.h"
#include "lib/include/kmsg.h"
#include "lib/include/tracefs.h"
#include "lib/include/harness.h"
#include "lib/include/turns.h"

#endif
