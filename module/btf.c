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

/* The kernel's BTF blob: its header, types and strings. */
struct mcs_btf {
	const struct btf_header *hdr;
	const char *types, *types_end, *strs;
};

static int mcs_btf_open(struct mcs_btf *b)
{
	const char *start, *end;

	start = (const char *)mcs_ksym("__start_BTF");
	end = (const char *)mcs_ksym("__stop_BTF");
	if (!start || !end || end - start < (long)sizeof(*b->hdr))
		return -ENOENT;
	b->hdr = (const struct btf_header *)start;
	if (b->hdr->magic != BTF_MAGIC ||
	    (u64)b->hdr->hdr_len + b->hdr->type_off + b->hdr->type_len >
	    end - start ||
	    (u64)b->hdr->hdr_len + b->hdr->str_off + b->hdr->str_len >
	    end - start)
		return -EINVAL;
	b->types = start + b->hdr->hdr_len + b->hdr->type_off;
	b->types_end = b->types + b->hdr->type_len;
	b->strs = start + b->hdr->hdr_len + b->hdr->str_off;
	return 0;
}

static const char *mcs_btf_name(const struct mcs_btf *b, u32 off)
{
	return off < b->hdr->str_len ? b->strs + off : "";
}

/*
 * The type of id @id (ids count from 1 in blob order), or the first struct
 * named @name when @name is set; NULL when there is none.
 */
static const struct btf_type *mcs_btf_find(const struct mcs_btf *b, u32 id,
					   const char *name)
{
	const struct btf_type *t;
	u32 n = 1;

	for (t = (const void *)b->types; (const char *)(t + 1) <= b->types_end;
	     n++) {
		long extra = mcs_btf_extra(t);

		if (extra < 0 || (const char *)(t + 1) + extra > b->types_end)
			return NULL;
		if (!name && n == id)
			return t;
		if (name && BTF_INFO_KIND(t->info) == BTF_KIND_STRUCT &&
		    !strcmp(mcs_btf_name(b, t->name_off), name))
			return t;
		t = (const void *)((const char *)(t + 1) + extra);
	}
	return NULL;
}

/* The size of type @id, through typedefs and qualifiers; 0 if unknown. */
static u32 mcs_btf_size(const struct mcs_btf *b, u32 id)
{
	const struct btf_type *t;
	int depth;

	for (depth = 0; depth < 16; depth++) {
		t = mcs_btf_find(b, id, NULL);
		if (!t)
			return 0;
		switch (BTF_INFO_KIND(t->info)) {
		case BTF_KIND_TYPEDEF:
		case BTF_KIND_VOLATILE:
		case BTF_KIND_CONST:
		case BTF_KIND_RESTRICT:
		case BTF_KIND_TYPE_TAG:
			id = t->type;
			continue;
		case BTF_KIND_PTR:
			return sizeof(void *);
		case BTF_KIND_INT:
		case BTF_KIND_STRUCT:
		case BTF_KIND_UNION:
		case BTF_KIND_ENUM:
		case BTF_KIND_ENUM64:
		case BTF_KIND_FLOAT:
			return t->size;
		default:
			return 0;
		}
	}
	return 0;
}

static const struct btf_member *mcs_btf_find_member(const struct mcs_btf *b,
						    const char *type,
						    const char *member)
{
	const struct btf_type *t = mcs_btf_find(b, 0, type);
	const struct btf_member *m;
	unsigned int i;

	if (!t)
		return NULL;
	m = (const void *)(t + 1);
	for (i = 0; i < BTF_INFO_VLEN(t->info); i++, m++)
		if (!strcmp(mcs_btf_name(b, m->name_off), member))
			return m;
	return NULL;
}

static int mcs_btf_offset(const struct mcs_btf *b, const char *type,
			  const struct btf_member *m)
{
	const struct btf_type *t = mcs_btf_find(b, 0, type);
	u32 bits = BTF_INFO_KFLAG(t->info) ? BTF_MEMBER_BIT_OFFSET(m->offset) :
					     m->offset;

	return bits % 8 ? -EINVAL : bits / 8;
}

/*
 * Whether type @id is @want of @size bytes: a type named @want (a typedef,
 * a base type or a struct), or with @want "NAME *", a pointer to struct
 * NAME. Qualifiers are looked through. Sets @name to what it found.
 */
static bool mcs_btf_type_is(const struct mcs_btf *b, u32 id, const char *want,
			    u32 size, const char **name)
{
	size_t len = strlen(want);
	const struct btf_type *t = mcs_btf_find(b, id, NULL);

	*name = t ? mcs_btf_name(b, t->name_off) : "";
	if (!t || mcs_btf_size(b, id) != size)
		return false;
	if (len < 2 || strcmp(want + len - 2, " *"))
		return !strcmp(*name, want);
	if (BTF_INFO_KIND(t->info) != BTF_KIND_PTR)
		return false;
	if (!strcmp(want, "void *")) {
		*name = t->type ? "a typed pointer" : "void *";
		return !t->type;
	}
	t = mcs_btf_find(b, t->type, NULL);
	while (t && (BTF_INFO_KIND(t->info) == BTF_KIND_CONST ||
		     BTF_INFO_KIND(t->info) == BTF_KIND_VOLATILE))
		t = mcs_btf_find(b, t->type, NULL);
	*name = t ? mcs_btf_name(b, t->name_off) : "";
	return t && BTF_INFO_KIND(t->info) == BTF_KIND_STRUCT &&
	       strlen(*name) == len - 2 && !strncmp(*name, want, len - 2);
}

/* Open the BTF and find @type.@member, saying why not in one log line. */
static const struct btf_member *mcs_btf_lookup(struct mcs_btf *b,
					       const char *type,
					       const char *member, int *err)
{
	const struct btf_member *m;

	*err = mcs_btf_open(b);
	if (*err) {
		pr_err("no usable BTF in this kernel (%d)\n", *err);
		return NULL;
	}
	m = mcs_btf_find_member(b, type, member);
	if (!m) {
		pr_err("BTF: no %s.%s in this kernel\n", type, member);
		*err = -ENOENT;
	}
	return m;
}

int mcs_btf_member(const char *type, const char *member,
		   const char *member_type, u32 size)
{
	const struct btf_member *m;
	struct mcs_btf b;
	const char *name;
	int ret;

	m = mcs_btf_lookup(&b, type, member, &ret);
	if (!m)
		return ret;
	if (!mcs_btf_type_is(&b, m->type, member_type, size, &name)) {
		pr_err("BTF: %s.%s is '%s' of %u bytes, not '%s' of %u\n",
		       type, member, name, mcs_btf_size(&b, m->type),
		       member_type, size);
		return -EINVAL;
	}
	return mcs_btf_offset(&b, type, m);
}

int mcs_btf_member_array(const char *type, const char *member,
			 const char *elem_type, u32 elem_size, u32 *nelems)
{
	const struct btf_array *a;
	const struct btf_type *t;
	const struct btf_member *m;
	struct mcs_btf b;
	const char *name;
	int ret;

	m = mcs_btf_lookup(&b, type, member, &ret);
	if (!m)
		return ret;
	t = mcs_btf_find(&b, m->type, NULL);
	if (!t || BTF_INFO_KIND(t->info) != BTF_KIND_ARRAY) {
		pr_err("BTF: %s.%s is not an array\n", type, member);
		return -EINVAL;
	}
	a = (const void *)(t + 1);
	if (!a->nelems ||
	    !mcs_btf_type_is(&b, a->type, elem_type, elem_size, &name)) {
		pr_err("BTF: %s.%s is an array of %u '%s' of %u bytes, not of '%s' of %u\n",
		       type, member, a->nelems, name, mcs_btf_size(&b, a->type),
		       elem_type, elem_size);
		return -EINVAL;
	}
	*nelems = a->nelems;
	return mcs_btf_offset(&b, type, m);
}

int mcs_btf_member_in(const char *type, const char *outer, const char *member,
		      const char *member_type, u32 size)
{
	const struct btf_member *m;
	const struct btf_type *t;
	struct mcs_btf b;
	const char *name;
	unsigned int i;
	int ret, base;
	u32 bits;

	m = mcs_btf_lookup(&b, type, outer, &ret);
	if (!m)
		return ret;
	base = mcs_btf_offset(&b, type, m);
	t = mcs_btf_find(&b, m->type, NULL);
	if (base < 0 || !t || (BTF_INFO_KIND(t->info) != BTF_KIND_STRUCT &&
			       BTF_INFO_KIND(t->info) != BTF_KIND_UNION)) {
		pr_err("BTF: %s.%s is not a struct in place\n", type, outer);
		return -EINVAL;
	}
	m = (const void *)(t + 1);
	for (i = 0; i < BTF_INFO_VLEN(t->info); i++, m++)
		if (!strcmp(mcs_btf_name(&b, m->name_off), member))
			break;
	if (i == BTF_INFO_VLEN(t->info)) {
		pr_err("BTF: no %s.%s.%s in this kernel\n", type, outer, member);
		return -ENOENT;
	}
	if (!mcs_btf_type_is(&b, m->type, member_type, size, &name)) {
		pr_err("BTF: %s.%s.%s is '%s' of %u bytes, not '%s' of %u\n",
		       type, outer, member, name, mcs_btf_size(&b, m->type),
		       member_type, size);
		return -EINVAL;
	}
	bits = BTF_INFO_KFLAG(t->info) ? BTF_MEMBER_BIT_OFFSET(m->offset) :
					 m->offset;
	return bits % 8 ? -EINVAL : base + bits / 8;
}

int mcs_btf_func_nargs(const char *func)
{
	const struct btf_type *t, *proto;
	struct mcs_btf b;
	u32 n = 1;
	int ret = mcs_btf_open(&b);

	if (ret)
		return ret;
	for (t = (const void *)b.types; (const char *)(t + 1) <= b.types_end;
	     n++) {
		long extra = mcs_btf_extra(t);

		if (extra < 0 || (const char *)(t + 1) + extra > b.types_end)
			break;
		if (BTF_INFO_KIND(t->info) == BTF_KIND_FUNC &&
		    !strcmp(mcs_btf_name(&b, t->name_off), func)) {
			proto = mcs_btf_find(&b, t->type, NULL);
			if (!proto || BTF_INFO_KIND(proto->info) != BTF_KIND_FUNC_PROTO)
				return -EINVAL;
			return BTF_INFO_VLEN(proto->info);
		}
		t = (const void *)((const char *)(t + 1) + extra);
	}
	return -ENOENT;
}
