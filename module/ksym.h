/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MCS_KSYM_H
#define MCS_KSYM_H

#include <linux/types.h>

#include "compat.h"

/**
 * mcs_ksym_init() - find kallsyms_lookup_name() and the image bounds
 *
 * kallsyms_lookup_name() is found with a kprobe, as it is not exported.
 * kallsyms_on_each_symbol() and the bounds are optional (logged if absent).
 *
 * Context: module load, before any other lookup.
 * Return: 0, or a negative errno.
 */
int mcs_ksym_init(void);

/**
 * mcs_ksym_exit() - undo mcs_ksym_init()
 *
 * Context: module unload, after every other user.
 */
void mcs_ksym_exit(void);

/**
 * mcs_ksym() - the address of a kernel symbol
 * @name: the symbol
 *
 * Return: the address, or 0 when this kernel does not have it.
 */
unsigned long mcs_ksym(const char *name);

/**
 * mcs_ksym_in_text() - whether @addr lies in the kernel image's text
 * @addr: an address
 *
 * Return: true when it does; a module's text is not the kernel's.
 */
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
/**
 * mcs_ksym_function() - a function of the core kernel that the module calls
 * @what: the feature that needs it, for the message
 * @name: its symbol
 * @addr: where to store its address
 *
 * Like mcs_ksym_object(), but the symbol must lie in the kernel's text.
 *
 * Return: 0, or -ENOENT after one log line naming @what.
 */
int mcs_ksym_function(const char *what, const char *name,
		      unsigned long *addr);
/* Callback of kallsyms_on_each_symbol(): 0 to go on. */
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

/**
 * mcs_ksym_range() - the extent of a function of the kernel's text
 * @name: the function
 * @start: its first byte
 * @end: the byte after its last
 *
 * Return: 0, or -ENOENT when the kernel's text has no @name.
 */
int mcs_ksym_range(const char *name, unsigned long *start, unsigned long *end);

#endif /* MCS_KSYM_H */
