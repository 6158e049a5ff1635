/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MCS_DEBUGFS_H
#define MCS_DEBUGFS_H

int mcs_debugfs_init(void);
void mcs_debugfs_exit(void);

#endif /* MCS_DEBUGFS_H */
