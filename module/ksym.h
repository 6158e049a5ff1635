/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MCS_KSYM_H
#define MCS_KSYM_H

#include <linux/types.h>

#include "compat.h"

int mcs_ksym_init(void);
void mcs_ksym_exit(void);
/* Address of a kernel symbol, 0 when this kernel does not have it. */
unsigned long mcs_ksym(const char *name);
/* @addr lies in the kernel image's text (not in a module). */
bool mcs_ksym_in_text(unsigned long addr);
/**
 * mcs_ksym_object() - a variable of the core kernel that the module writes
 * @what: the feature that needs it, for the message
 * @name: its symbol
 * @addr: where to store its address
 * @size: the size the module will access there
 *
 * The symbol must lie in the kernel image, never in a module that happens
 * to have one of that name, and kallsyms must give it at least @size bytes.
 *
 * Return: 0, or -ENOENT after one log line naming @what.
 */
int mcs_ksym_object(const char *what, const char *name, void *addr,
		    size_t size);
/* The same for a function of the core kernel that the module calls. */
int mcs_ksym_function(const char *what, const char *name,
		      unsigned long *addr);
/* kallsyms_on_each_symbol()'s callback: 0 to go on. */
typedef int (*mcs_ksym_each_fn)(void *data, const char *name,
				MCS_KSYM_EACH_MOD unsigned long addr);

/**
 * mcs_ksym_each() - call @fn for every symbol of the kernel image
 * @fn: the callback
 * @data: its first argument
 *
 * Return: what the last callback returned, or -ENOENT when this kernel has
 * no kallsyms_on_each_symbol().
 */
int mcs_ksym_each(mcs_ksym_each_fn fn, void *data);

/**
 * mcs_ksym_size() - the size of the symbol that starts at @addr
 * @addr: a symbol's address
 * @size: its size
 *
 * Return: 0, or -ENOENT when no symbol starts there.
 */
int mcs_ksym_size(unsigned long addr, unsigned long *size);

/* [start, end) of the function called @name; -ENOENT when absent. */
int mcs_ksym_range(const char *name, unsigned long *start, unsigned long *end);

#endif /* MCS_KSYM_H */
