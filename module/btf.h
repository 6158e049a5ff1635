/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MCS_BTF_H
#define MCS_BTF_H

#include <linux/types.h>

/*
 * The running kernel's own BTF (the blob between __start_BTF and
 * __stop_BTF that backs /sys/kernel/btf/vmlinux), for structs private to a
 * .c file, whose layout no header shows.
 */
/**
 * mcs_btf_member() - the offset of a member the module accesses
 * @type: the struct
 * @member: the member
 * @member_type: the name its type must have (a typedef, a base type or a
 *	struct), or "NAME *" for a pointer to struct NAME
 * @size: the size that type must have
 *
 * Return: the byte offset, or a negative errno when BTF lacks the member or
 * its type is not @member_type of @size bytes (said in one log line).
 */
int mcs_btf_member(const char *type, const char *member,
		   const char *member_type, u32 size);

/**
 * mcs_btf_member_array() - the offset of an array member the module reads
 * @type: the struct
 * @member: the member, an array
 * @elem_type: its elements' type, named as for mcs_btf_member()
 * @elem_size: the size of an element
 * @nelems: set to the number of elements
 *
 * Return: the byte offset, or a negative errno (said in one log line).
 */
int mcs_btf_member_array(const char *type, const char *member,
			 const char *elem_type, u32 elem_size, u32 *nelems);

/**
 * mcs_btf_member_in() - the offset of a member of a struct member
 * @type: the outer struct
 * @outer: its member, a struct or union held in place (may be anonymous)
 * @member: the member of @outer the module reads
 * @member_type: as for mcs_btf_member(), or "void *"
 * @size: the size that type must have
 *
 * Return: the byte offset of @type.@outer.@member from the start of
 * @type, or a negative errno (said in one log line).
 */
int mcs_btf_member_in(const char *type, const char *outer, const char *member,
		      const char *member_type, u32 size);

/**
 * mcs_btf_func_nargs() - how many arguments a kernel function takes
 * @func: the function's name
 *
 * Return: the count from its BTF prototype, or a negative errno (-ENOENT:
 * no BTF function of that name).
 */
int mcs_btf_func_nargs(const char *func);

#endif /* MCS_BTF_H */
