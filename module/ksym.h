/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MCS_KSYM_H
#define MCS_KSYM_H

#include <linux/types.h>

int mcs_ksym_init(void);
void mcs_ksym_exit(void);
/* Address of a kernel symbol, 0 when this kernel does not have it. */
unsigned long mcs_ksym(const char *name);
/*
 * Store the address of @name in *@addr; -ENOENT, with a message naming
 * @what needs it, when this kernel does not have it.
 */
int mcs_ksym_need(const char *what, const char *name, void *addr);
/* [start, end) of the function called @name; -ENOENT when absent. */
int mcs_ksym_range(const char *name, unsigned long *start, unsigned long *end);

#endif /* MCS_KSYM_H */
