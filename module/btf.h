/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MCS_BTF_H
#define MCS_BTF_H

/*
 * Byte offset of @member in struct @type, read from the running kernel's
 * own BTF (the blob between __start_BTF and __stop_BTF that backs
 * /sys/kernel/btf/vmlinux). For structs private to a .c file, whose layout
 * no header shows. Negative errno when BTF or the member is absent.
 */
int mcs_btf_member_offset(const char *type, const char *member);

#endif /* MCS_BTF_H */
