/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MCS_VERSION_H
#define MCS_VERSION_H

#define MCS_VERSION	"0.1.0"
/* Bumped when a debugfs file changes incompatibly (module/ABI.md). */
#define MCS_ABI		1

#endif /* MCS_VERSION_H */
