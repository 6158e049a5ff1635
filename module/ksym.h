/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MCS_KSYM_H
#define MCS_KSYM_H

#include <linux/types.h>

int mcs_ksym_init(void);
void mcs_ksym_exit(void);
/* Address of a kernel symbol, 0 when this kernel does not have it. */
unsigned long mcs_ksym(const char *name);
/* [start, end) of the function called @name; -ENOENT when absent. */
int mcs_ksym_range(const char *name, unsigned long *start, unsigned long *end);

#endif /* MCS_KSYM_H */
