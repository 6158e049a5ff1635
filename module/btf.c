// SPDX-License-Identifier: GPL-2.0
/*
 * A minimal reader of the kernel's BTF: walk the type section for one
 * struct and one member. The format is the UAPI of <uapi/linux/btf.h>.
 * Reading the blob is plain memory access, no call into the BPF
 * subsystem (whose lookup helpers are not exported).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/btf.h>
#include <linux/errno.h>
#include <linux/string.h>

#include "btf.h"
#include "ksym.h"

/* Size of the data that follows a struct btf_type of this kind. */
static long mcs_btf_extra(const struct btf_type *t)
{
	u16 vlen = BTF_INFO_VLEN(t->info);

	switch (BTF_INFO_KIND(t->info)) {
	case BTF_KIND_INT:
		return sizeof(u32);
	case BTF_KIND_ARRAY:
		return sizeof(struct btf_array);
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		return (long)vlen * sizeof(struct btf_member);
	case BTF_KIND_ENUM:
		return (long)vlen * sizeof(struct btf_enum);
	case BTF_KIND_FUNC_PROTO:
		return (long)vlen * sizeof(struct btf_param);
	case BTF_KIND_VAR:
		return sizeof(struct btf_var);
	case BTF_KIND_DATASEC:
		return (long)vlen * sizeof(struct btf_var_secinfo);
	case BTF_KIND_DECL_TAG:
		return sizeof(struct btf_decl_tag);
	case BTF_KIND_ENUM64:
		return (long)vlen * sizeof(struct btf_enum64);
	case BTF_KIND_PTR:
	case BTF_KIND_FWD:
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_CONST:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_FUNC:
	case BTF_KIND_FLOAT:
	case BTF_KIND_TYPE_TAG:
		return 0;
	default:
		return -EINVAL;	/* a kind this reader does not know */
	}
}

int mcs_btf_member_offset(const char *type, const char *member)
{
	const struct btf_header *hdr;
	const char *start, *end, *types, *types_end, *strs;
	const struct btf_type *t;
	unsigned int i;

	start = (const char *)mcs_ksym("__start_BTF");
	end = (const char *)mcs_ksym("__stop_BTF");
	if (!start || !end || end - start < (long)sizeof(*hdr))
		return -ENOENT;
	hdr = (const struct btf_header *)start;
	if (hdr->magic != BTF_MAGIC ||
	    (u64)hdr->hdr_len + hdr->type_off + hdr->type_len > end - start ||
	    (u64)hdr->hdr_len + hdr->str_off + hdr->str_len > end - start)
		return -EINVAL;
	types = start + hdr->hdr_len + hdr->type_off;
	types_end = types + hdr->type_len;
	strs = start + hdr->hdr_len + hdr->str_off;

	for (t = (const void *)types; (const char *)(t + 1) <= types_end;) {
		long extra = mcs_btf_extra(t);
		const struct btf_member *m = (const void *)(t + 1);

		if (extra < 0 || (const char *)(t + 1) + extra > types_end)
			return -EINVAL;
		if (BTF_INFO_KIND(t->info) == BTF_KIND_STRUCT &&
		    t->name_off < hdr->str_len &&
		    !strcmp(strs + t->name_off, type)) {
			for (i = 0; i < BTF_INFO_VLEN(t->info); i++, m++) {
				u32 bits = BTF_INFO_KFLAG(t->info) ?
					   BTF_MEMBER_BIT_OFFSET(m->offset) :
					   m->offset;

				if (m->name_off < hdr->str_len &&
				    !strcmp(strs + m->name_off, member))
					return bits % 8 ? -EINVAL : bits / 8;
			}
			return -ENOENT;
		}
		t = (const void *)((const char *)(t + 1) + extra);
	}
	return -ENOENT;
}
