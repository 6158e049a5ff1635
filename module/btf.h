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
 * @member_type: the name its type must have (a typedef, or the struct)
 * @size: the size that type must have
 *
 * Return: the byte offset, or a negative errno when BTF lacks the member or
 * its type is not @member_type of @size bytes (said in one log line).
 */
int mcs_btf_member(const char *type, const char *member,
		   const char *member_type, u32 size);

#endif /* MCS_BTF_H */
