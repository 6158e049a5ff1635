/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MEMCG_STATCTL_BPF_FENTRY_H
#define MEMCG_STATCTL_BPF_FENTRY_H

/* BTF id of the kernel function @name in vmlinux's BTF, or -errno. */
int btf_func_id(const char *name);
/* The value of enumerator @name (of a 32-bit enum) in vmlinux's BTF. */
int btf_enum_value(const char *name, long *val);

/* The byte offset of @member in struct @type in vmlinux's BTF, or -errno. */
int btf_member_offset(const char *type, const char *member, long *off);
/* The element count of array member @member of struct @type, or -errno. */
int btf_member_array_len(const char *type, const char *member, long *n);
/*
 * Load and attach an empty BPF fentry program to @func. Returns the link
 * fd (close it, and *prog_fd, to detach) or -errno.
 */
int bpf_fentry_attach(const char *func, int *prog_fd);

#endif
