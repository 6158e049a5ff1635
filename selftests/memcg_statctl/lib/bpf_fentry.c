// SPDX-License-Identifier: GPL-2.0
/*
 * Lookups in vmlinux's BTF (a function's id, an enumerator's value) and
 * a BPF fentry program on a kernel function, without libbpf: the function's
 * BTF id from /sys/kernel/btf/vmlinux, a two-instruction program
 * (r0 = 0; exit) loaded as BPF_PROG_TYPE_TRACING / BPF_TRACE_FENTRY and
 * attached with BPF_RAW_TRACEPOINT_OPEN. What bpftrace's `kfunc:` probes
 * do, minus the counting: the kernel gives the function a BPF trampoline,
 * which takes the function's one direct-call slot.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <linux/btf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "include/bpf_fentry.h"

#define VMLINUX_BTF	"/sys/kernel/btf/vmlinux"

/* Bytes that follow struct btf_type for a type of @kind with @vlen. */
static long btf_extra(unsigned int kind, unsigned int vlen)
{
	switch (kind) {
	case 1:		/* INT */
	case 14:	/* VAR */
	case 17:	/* DECL_TAG */
		return 4;
	case 3:		/* ARRAY */
		return 12;
	case 4:		/* STRUCT */
	case 5:		/* UNION */
	case 15:	/* DATASEC */
	case 19:	/* ENUM64 */
		return 12L * vlen;
	case 6:		/* ENUM */
	case 13:	/* FUNC_PROTO */
		return 8L * vlen;
	case 2: case 7: case 8: case 9: case 10: case 11: case 12: case 16:
	case 18:	/* PTR FWD TYPEDEF VOLATILE CONST RESTRICT FUNC FLOAT TYPE_TAG */
		return 0;
	default:
		return -1;
	}
}

/* vmlinux's BTF, read whole, or NULL with *err set. free() it. */
static char *btf_read(int *err)
{
	struct stat st;
	ssize_t got = 0, r;
	size_t size;
	char *buf;
	int fd;

	fd = open(VMLINUX_BTF, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		*err = -errno;
		return NULL;
	}
	/* sysfs reports a size; read until EOF all the same */
	size = !fstat(fd, &st) && st.st_size ? st.st_size : 1 << 24;
	buf = malloc(size);
	if (!buf) {
		close(fd);
		*err = -ENOMEM;
		return NULL;
	}
	while ((r = read(fd, buf + got, size - got)) > 0)
		got += r;
	close(fd);
	if (got < (ssize_t)sizeof(struct btf_header) ||
	    ((struct btf_header *)buf)->magic != BTF_MAGIC) {
		free(buf);
		*err = -EPROTO;
		return NULL;
	}
	return buf;
}

/*
 * Call @fn(type, id, strings, arg) on every type of vmlinux's BTF until it
 * returns non-zero, and return that; -ENOENT when none did, -errno when
 * the BTF is unreadable.
 */
static int btf_each_type(int (*fn)(const struct btf_type *t, int id,
				   const char *strs, void *arg), void *arg)
{
	const struct btf_header *h;
	const char *strs, *p, *end;
	int id = 0, found = -ENOENT;
	char *buf;

	buf = btf_read(&found);
	if (!buf)
		return found;
	h = (const struct btf_header *)buf;
	strs = buf + h->hdr_len + h->str_off;
	p = buf + h->hdr_len + h->type_off;
	end = p + h->type_len;
	while (p < end) {
		const struct btf_type *t = (const struct btf_type *)p;
		long extra = btf_extra(BTF_INFO_KIND(t->info),
				       BTF_INFO_VLEN(t->info));
		int r;

		if (extra < 0) {
			found = -EPROTO;
			break;
		}
		r = fn(t, ++id, strs, arg);
		if (r) {
			found = r;
			break;
		}
		p += sizeof(*t) + extra;
	}
	free(buf);
	return found;
}

static int func_named(const struct btf_type *t, int id, const char *strs,
		      void *name)
{
	return BTF_INFO_KIND(t->info) == BTF_KIND_FUNC &&
	       !strcmp(strs + t->name_off, name) ? id : 0;
}

int btf_func_id(const char *name)
{
	return btf_each_type(func_named, (void *)name);
}

struct enum_query {
	const char *name;
	long val;
};

static int enumerator_named(const struct btf_type *t, int id,
			    const char *strs, void *arg)
{
	const struct btf_enum *e = (const struct btf_enum *)(t + 1);
	struct enum_query *q = arg;
	unsigned int i;

	(void)id;

	if (BTF_INFO_KIND(t->info) != BTF_KIND_ENUM)
		return 0;
	for (i = 0; i < BTF_INFO_VLEN(t->info); i++) {
		if (!strcmp(strs + e[i].name_off, q->name)) {
			q->val = e[i].val;
			return 1;
		}
	}
	return 0;
}

int btf_enum_value(const char *name, long *val)
{
	struct enum_query q = { .name = name };
	int r = btf_each_type(enumerator_named, &q);

	if (r < 0)
		return r;
	*val = q.val;
	return 0;
}

struct member_query {
	const char *type, *member;
	long off;
	unsigned int type_id;	/* the member's type */
};

static int member_named(const struct btf_type *t, int id, const char *strs,
			void *arg)
{
	const struct btf_member *m = (const struct btf_member *)(t + 1);
	struct member_query *q = arg;
	unsigned int i, bits;

	(void)id;

	if (BTF_INFO_KIND(t->info) != BTF_KIND_STRUCT ||
	    strcmp(strs + t->name_off, q->type))
		return 0;
	for (i = 0; i < BTF_INFO_VLEN(t->info); i++) {
		if (strcmp(strs + m[i].name_off, q->member))
			continue;
		bits = BTF_INFO_KFLAG(t->info) ?
		       BTF_MEMBER_BIT_OFFSET(m[i].offset) : m[i].offset;
		if (bits % 8)
			return -EPROTO;
		q->off = bits / 8;
		q->type_id = m[i].type;
		return 1;
	}
	return -ENOENT;		/* the first struct of that name decides */
}

int btf_member_offset(const char *type, const char *member, long *off)
{
	struct member_query q = { .type = type, .member = member };
	int r = btf_each_type(member_named, &q);

	if (r < 0)
		return r;
	*off = q.off;
	return 0;
}

struct array_query {
	unsigned int id;
	long nelems;
};

static int array_with_id(const struct btf_type *t, int id, const char *strs,
			 void *arg)
{
	struct array_query *q = arg;

	(void)strs;

	if ((unsigned int)id != q->id)
		return 0;
	if (BTF_INFO_KIND(t->info) != BTF_KIND_ARRAY)
		return -EPROTO;
	q->nelems = ((const struct btf_array *)(t + 1))->nelems;
	return 1;
}

int btf_member_array_len(const char *type, const char *member, long *n)
{
	struct member_query q = { .type = type, .member = member };
	struct array_query a = { 0 };
	int r = btf_each_type(member_named, &q);

	if (r < 0)
		return r;
	a.id = q.type_id;
	r = btf_each_type(array_with_id, &a);
	if (r < 0)
		return r;
	*n = a.nelems;
	return 0;
}

static long bpf(int cmd, union bpf_attr *attr)
{
	return syscall(SYS_bpf, cmd, attr, sizeof(*attr));
}

static int bpf_prog_attach(const struct bpf_insn *insns, unsigned int n,
			   int id, bool fexit, int *prog_fd)
{
	union bpf_attr a;
	int pfd, lfd;

	memset(&a, 0, sizeof(a));
	a.prog_type = BPF_PROG_TYPE_TRACING;
	a.expected_attach_type = fexit ? BPF_TRACE_FEXIT : BPF_TRACE_FENTRY;
	a.attach_btf_id = id;
	a.insns = (uintptr_t)insns;
	a.insn_cnt = n;
	a.license = (uintptr_t)"GPL";
	pfd = bpf(BPF_PROG_LOAD, &a);
	if (pfd < 0)
		return -errno;
	memset(&a, 0, sizeof(a));
	a.raw_tracepoint.prog_fd = pfd;
	lfd = bpf(BPF_RAW_TRACEPOINT_OPEN, &a);
	if (lfd < 0) {
		lfd = -errno;
		close(pfd);
		return lfd;
	}
	*prog_fd = pfd;
	return lfd;
}

int bpf_fentry_attach(const char *func, int *prog_fd)
{
	static const struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = 0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	int id = btf_func_id(func);

	if (id < 0)
		return id;
	return bpf_prog_attach(insns, 2, id, false, prog_fd);
}

int bpf_counter_attach(struct bpf_counter *c, const char *func, bool fexit)
{
	/* key = 0; v = lookup(map, &key); if (v) atomic v += 1; return 0 */
	struct bpf_insn insns[] = {
		{ .code = BPF_ST | BPF_MEM | BPF_W, .dst_reg = 10, .off = -4 },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_X, .dst_reg = 2,
		  .src_reg = 10 },
		{ .code = BPF_ALU64 | BPF_ADD | BPF_K, .dst_reg = 2, .imm = -4 },
		{ .code = BPF_LD | BPF_DW | BPF_IMM, .dst_reg = 1,
		  .src_reg = BPF_PSEUDO_MAP_FD },
		{ 0 },
		{ .code = BPF_JMP | BPF_CALL, .imm = BPF_FUNC_map_lookup_elem },
		{ .code = BPF_JMP | BPF_JEQ | BPF_K, .dst_reg = 0, .off = 2 },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = 1, .imm = 1 },
		{ .code = BPF_STX | BPF_ATOMIC | BPF_DW, .dst_reg = 0,
		  .src_reg = 1, .imm = BPF_ADD },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = 0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	union bpf_attr a;
	int id = btf_func_id(func), r;

	c->map_fd = c->prog_fd = c->link_fd = -1;
	if (id < 0)
		return id;
	memset(&a, 0, sizeof(a));
	a.map_type = BPF_MAP_TYPE_ARRAY;
	a.key_size = 4;
	a.value_size = 8;
	a.max_entries = 1;
	c->map_fd = bpf(BPF_MAP_CREATE, &a);
	if (c->map_fd < 0)
		return -errno;
	insns[3].imm = c->map_fd;
	r = bpf_prog_attach(insns, sizeof(insns) / sizeof(insns[0]), id, fexit,
			    &c->prog_fd);
	if (r < 0) {
		close(c->map_fd);
		c->map_fd = -1;
		return r;
	}
	c->link_fd = r;
	return 0;
}

int bpf_counter_read(const struct bpf_counter *c, uint64_t *val)
{
	union bpf_attr a;
	uint32_t key = 0;

	memset(&a, 0, sizeof(a));
	a.map_fd = c->map_fd;
	a.key = (uintptr_t)&key;
	a.value = (uintptr_t)val;
	return bpf(BPF_MAP_LOOKUP_ELEM, &a) < 0 ? -errno : 0;
}

int bpf_counter_misses(const struct bpf_counter *c, uint64_t *misses)
{
	struct bpf_prog_info info;
	union bpf_attr a;

	memset(&info, 0, sizeof(info));
	memset(&a, 0, sizeof(a));
	a.info.bpf_fd = c->prog_fd;
	a.info.info_len = sizeof(info);
	a.info.info = (uintptr_t)&info;
	if (bpf(BPF_OBJ_GET_INFO_BY_FD, &a) < 0)
		return -errno;
	*misses = info.recursion_misses;
	return 0;
}

void bpf_counter_detach(struct bpf_counter *c)
{
	if (c->link_fd >= 0)
		close(c->link_fd);
	if (c->prog_fd >= 0)
		close(c->prog_fd);
	if (c->map_fd >= 0)
		close(c->map_fd);
	c->map_fd = c->prog_fd = c->link_fd = -1;
}
