/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MEMCG_STATCTL_BPF_FENTRY_H
#define MEMCG_STATCTL_BPF_FENTRY_H

#include <stdbool.h>
#include <stdint.h>

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

/*
 * A counting BPF program on a kernel function: fentry (or fexit) adds one
 * to a one-slot array map per call (per return), as bpftrace's
 * `kfunc:F { @ = count(); }` does. Closing its fds detaches it.
 */
struct bpf_counter {
	int map_fd, prog_fd, link_fd;
};

/* Load and attach; 0 or -errno (nothing left open then). */
int bpf_counter_attach(struct bpf_counter *c, const char *func, bool fexit);
/* The count so far; 0 or -errno. */
int bpf_counter_read(const struct bpf_counter *c, uint64_t *val);
/*
 * Calls the program skipped: the kernel runs a tracing program at most
 * once per cpu at a time, and counts a call that finds it running (an
 * interrupt during the program) as a recursion miss. 0 or -errno.
 */
int bpf_counter_misses(const struct bpf_counter *c, uint64_t *misses);
/* Detach and free; a counter never attached (fds -1) is left alone. */
void bpf_counter_detach(struct bpf_counter *c);

#endif
