// SPDX-License-Identifier: GPL-2.0
/*
 * The module's debugfs files: stats, hooks, version.
 */
#define _GNU_SOURCE

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "include/statctl.h"

static void statctl_path(const char *file, char *path, size_t size)
{
	snprintf(path, size, "%s/%s", STATCTL_DIR, file);
}

ssize_t statctl_read(const char *file, char *buf, size_t size)
{
	char path[256];

	statctl_path(file, path, sizeof(path));
	return read_file(path, buf, size);
}

ssize_t statctl_write(const char *file, const void *buf, size_t len)
{
	char path[256];

	statctl_path(file, path, sizeof(path));
	return write_file(path, buf, len);
}

int statctl_read_line(const char *file, char *buf, size_t size)
{
	ssize_t r = statctl_read(file, buf, size);
	char *nl;

	if (r < 0)
		return r;
	nl = strchr(buf, '\n');
	if (!nl || nl[1])
		return -EPROTO;
	*nl = 0;
	return 0;
}

int statctl_set(const char *file, const char *val)
{
	ssize_t r = statctl_write(file, val, strlen(val));

	if (r == (ssize_t)strlen(val))
		return 0;
	diag("write %s to %s: %zd (%s)", val, file, r,
	     r < 0 ? strerror(-r) : "short");
	return r < 0 ? (int)r : -EIO;
}

static char objcg_flush_saved[8];

static void objcg_flush_restore(void)
{
	statctl_write("objcg_flush_hooks", objcg_flush_saved,
		      strlen(objcg_flush_saved));
}

int objcg_flush_hooks_on(void)
{
	int r;

	if (!statctl_has("objcg_flush_hooks"))
		return -ENOENT;
	r = statctl_read_line("objcg_flush_hooks", objcg_flush_saved,
			      sizeof(objcg_flush_saved));
	if (!r)
		r = statctl_set("objcg_flush_hooks", "1");
	if (r)
		return r;
	atexit(objcg_flush_restore);
	return 0;
}

static char attr_saved[8];

static void attr_restore(void)
{
	if (attr_saved[0])
		statctl_set("stock_attribution", attr_saved);
}

int stock_attribution_keep(void)
{
	int r;

	if (!statctl_has("stock_attribution"))
		return -ENOENT;
	r = statctl_read_line("stock_attribution", attr_saved,
			      sizeof(attr_saved));
	if (!r)
		atexit(attr_restore);
	return r;
}

int stock_attribution_on(void)
{
	ssize_t w;

	if (!statctl_has("stock_attribution"))
		return -ENOENT;
	w = statctl_write("stock_attribution", "1", 1);
	return w < 0 ? (int)w : 0;
}

/* One numeric field of `stock_by_cgroup`, or "-" (-1). */
static int attr_field(const char *tok, int64_t *v)
{
	uint64_t u;

	if (tok && !strcmp(tok, "-")) {
		*v = -1;
		return 0;
	}
	if (!tok || parse_u64(tok, &u) || u > INT64_MAX)
		return -EPROTO;
	*v = (int64_t)u;
	return 0;
}

int attr_get(uint64_t id, struct attr_row *row)
{
	static char buf[1 << 18];
	char *line, *save, *tok, *ts;
	ssize_t n = statctl_read("stock_by_cgroup", buf, sizeof(buf));
	bool on = false;
	uint64_t got;
	int e;

	memset(row, 0, sizeof(*row));
	row->id = id;
	if (n < 0)
		return (int)n;
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		tok = strtok_r(line, " ", &ts);
		if (tok && !strcmp(tok, "state")) {
			tok = strtok_r(NULL, " ", &ts);
			on = tok && !strcmp(tok, "on");
			continue;
		}
		if (tok && !strcmp(tok, "cgroup")) {
			tok = strtok_r(NULL, " ", &ts);
			if (!tok || parse_u64(tok, &got))
				goto bad;
		} else if (tok && !strcmp(tok, "other")) {
			got = 0;
		} else {
			continue;	/* occupancy lines, and keys to come */
		}
		if (got != id)
			continue;
		for (e = 0; e < ATTR_NR; e++)
			if (attr_field(strtok_r(NULL, " ", &ts), &row->ev[e]))
				goto bad;
		return on ? 0 : -EPROTO;
	}
	return on ? -ENOENT : -ENODATA;
bad:
	diag("stock_by_cgroup: malformed line for %" PRIu64, id);
	return -EPROTO;
}

bool statctl_has(const char *file)
{
	char path[256];

	statctl_path(file, path, sizeof(path));
	return path_exists(path);
}

/* Call fn for each line of FILE until it returns non-zero; that, or 0. */
static int statctl_each_line(const char *file,
			     int (*fn)(const char *line, void *arg), void *arg)
{
	char buf[16384], *line, *save = NULL;
	ssize_t len;
	int r;

	len = statctl_read(file, buf, sizeof(buf));
	if (len < 0)
		return len;
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		r = fn(line, arg);
		if (r)
			return r;
	}
	return 0;
}

static int stats_line(const char *line, void *arg)
{
	char name[NAME_LEN], val[32], extra[2];
	struct stats *s = arg;
	uint64_t v;

	if (sscanf(line, "%63s %31s %1s", name, val, extra) != 2 ||
	    parse_u64(val, &v)) {
		diag("malformed stats line: '%s'", line);
		return -EPROTO;
	}
	if (s->n == STATS_MAX)
		return -E2BIG;
	strcpy(s->name[s->n], name);
	s->val[s->n++] = v;
	return 0;
}

int stats_read(struct stats *s)
{
	s->n = 0;
	return statctl_each_line("stats", stats_line, s);
}

int stats_get(const struct stats *s, const char *name, uint64_t *val)
{
	int i;

	for (i = 0; i < s->n; i++) {
		if (!strcmp(s->name[i], name)) {
			*val = s->val[i];
			return 0;
		}
	}
	return -ENOENT;
}

int stat_get(const char *name, uint64_t *val)
{
	struct stats s;
	int r = stats_read(&s);

	return r ? r : stats_get(&s, name, val);
}

uint64_t stat_must(const struct stats *s, const char *name)
{
	uint64_t v;

	if (stats_get(s, name, &v)) {
		diag("counter %s is missing from stats", name);
		exit(KSFT_FAIL);
	}
	return v;
}

uint64_t stats_delta(const struct stats *a, const struct stats *b,
		     const char *name)
{
	uint64_t va, vb;

	if (stats_get(a, name, &va) || stats_get(b, name, &vb))
		return 0;
	return vb - va;
}

bool flush_settled(const struct stats *s)
{
	return stat_must(s, "flush.requests") ==
	       stat_must(s, "flush.performed") + stat_must(s, "flush.skipped");
}

bool counters_present(const char *const *names, size_t n)
{
	struct stats s;
	uint64_t v;
	size_t i;

	if (stats_read(&s))
		return false;
	for (i = 0; i < n; i++) {
		if (stats_get(&s, names[i], &v)) {
			diag("counter %s not in stats: %s", names[i],
			     "not implemented, or its hook is missing on this kernel");
			return false;
		}
	}
	return true;
}

static int hooks_line(const char *line, void *arg)
{
	struct hooks *hs = arg;
	char hits[32], extra[2];
	struct hook *h;

	if (hs->n == HOOKS_MAX)
		return -E2BIG;
	h = &hs->h[hs->n];
	if (sscanf(line, "%63s %127s %127s %31s %31s %31s %1s",
		   h->name, h->target, h->caller, h->mech, h->state,
		   hits, extra) != 6 || parse_u64(hits, &h->hits)) {
		diag("malformed hooks line: '%s'", line);
		return -EPROTO;
	}
	hs->n++;
	return 0;
}

int hooks_read(struct hooks *hs)
{
	hs->n = 0;
	return statctl_each_line("hooks", hooks_line, hs);
}

const struct hook *hook_find(const struct hooks *hs, const char *name)
{
	int i;

	for (i = 0; i < hs->n; i++)
		if (!strcmp(hs->h[i].name, name))
			return &hs->h[i];
	return NULL;
}

static int hooks_state_check(const char *const *prefixes, size_t n,
			     const char *want, bool missing_ok)
{
	struct hooks hs;
	int i, seen = 0, bad = 0;
	size_t k;

	if (hooks_read(&hs))
		return 1;
	for (i = 0; i < hs.n; i++) {
		for (k = 0; k < n; k++) {
			if (strncmp(hs.h[i].name, prefixes[k],
				    strlen(prefixes[k])))
				continue;
			seen++;
			if (missing_ok && !strcmp(hs.h[i].state, "missing")) {
				diag("hook %s is missing on this kernel",
				     hs.h[i].name);
				continue;
			}
			if (strcmp(hs.h[i].state, want)) {
				diag("hook %s is %s, want %s", hs.h[i].name,
				     hs.h[i].state, want);
				bad++;
			}
		}
	}
	if (!seen) {
		diag("no hook named %s... in hooks", prefixes[0]);
		bad++;
	}
	return bad;
}

int hooks_state_is(const char *const *prefixes, size_t n, const char *want)
{
	return hooks_state_check(prefixes, n, want, false);
}

int hooks_present_state_is(const char *const *prefixes, size_t n,
			   const char *want)
{
	return hooks_state_check(prefixes, n, want, true);
}

bool hook_is_flush_redirect(const struct hook *h)
{
	return !strcmp(h->mech, "redirect") && strncmp(h->name, "bpf.", 4);
}

bool hook_is_counting(const struct hook *h)
{
	return strcmp(h->mech, "redirect") && !strcmp(h->state, "attached");
}

int hooks_mechs_are(const char *mech, const char *target,
		    const char *target_mech)
{
	struct hooks hs;
	int i, bad = 0;

	if (hooks_read(&hs))
		return 1;
	for (i = 0; i < hs.n; i++) {
		const struct hook *h = &hs.h[i];
		const char *want = target && !strcmp(h->target, target) ?
				   target_mech : mech;

		if (!hook_is_counting(h) || !want || !strcmp(h->mech, want))
			continue;
		diag("hook %s on %s: mechanism %s, want %s", h->name, h->target,
		     h->mech, want);
		bad++;
	}
	return bad;
}

int hook_targets_read(struct hook_targets *t)
{
	struct hooks hs;
	int i, j, r;

	t->n = 0;
	r = hooks_read(&hs);
	if (r)
		return r;
	for (i = 0; i < hs.n; i++) {
		if (!strcmp(hs.h[i].state, "missing"))
			continue;
		for (j = 0; j < t->n && strcmp(t->name[j], hs.h[i].target); j++)
			;
		if (j == t->n)
			snprintf(t->name[t->n++], sizeof(t->name[0]), "%s",
				 hs.h[i].target);
	}
	return 0;
}

int version_get(const char *key, char *val, size_t size)
{
	char buf[4096], *line, *save = NULL;
	size_t klen = strlen(key);
	ssize_t len;

	len = statctl_read("version", buf, sizeof(buf));
	if (len < 0)
		return len;
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(line, key, klen) && line[klen] == ' ') {
			snprintf(val, size, "%s", line + klen + 1);
			return 0;
		}
	}
	return -ENOENT;
}

/* A text symbol NAME of the kernel proper (not of a module). */
static bool kallsyms_has(const char *name)
{
	char line[512], sym[256], type;
	bool found = false;
	FILE *f = fopen("/proc/kallsyms", "r");

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = sscanf(line, "%*s %c %255s", &type, sym) == 2 &&
			(type == 't' || type == 'T') && !strcmp(sym, name) &&
			!strchr(line, '[');
	fclose(f);
	return found;
}

int flush_control_state(void)
{
	struct hooks hs;
	char v[64];
	int i, absent = 0;

	if (version_get("flush_control", v, sizeof(v))) {
		diag("no flush_control in version");
		return KSFT_FAIL;
	}
	if (!strcmp(v, "available"))
		return KSFT_PASS;
	if (hooks_read(&hs))
		return KSFT_FAIL;
	for (i = 0; i < hs.n; i++) {
		if (!hook_is_flush_redirect(&hs.h[i]) ||
		    kallsyms_has(hs.h[i].target))
			continue;
		diag("flush control %s: %s is not in /proc/kallsyms (inlined)",
		     v, hs.h[i].target);
		absent++;
	}
	if (absent)
		return KSFT_SKIP;
	diag("flush control %s, yet every flush point is in /proc/kallsyms",
	     v);
	return KSFT_FAIL;
}

void require_flush_control(void)
{
	switch (flush_control_state()) {
	case KSFT_PASS:
		return;
	case KSFT_SKIP:
		ksft_exit_skip("no flush control on this kernel\n");
		break;
	default:
		ksft_exit_fail_msg("flush control not available\n");
	}
}
