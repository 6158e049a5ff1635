/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MCS_DEBUGFS_H
#define MCS_DEBUGFS_H

/**
 * mcs_debugfs_init() - create the module's debugfs directory and files
 *
 * Context: module load, after the tables are resolved.
 * Return: 0, or a negative errno.
 */
int mcs_debugfs_init(void);

/**
 * mcs_debugfs_exit() - remove the debugfs directory
 *
 * Context: module unload, before the tables are freed.
 */
void mcs_debugfs_exit(void);

#endif /* MCS_DEBUGFS_H */
