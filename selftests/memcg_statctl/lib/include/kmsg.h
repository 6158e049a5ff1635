/* SPDX-License-Identifier: GPL-2.0 */
/* The kernel log: a mark, then the bad lines logged after it. */
#ifndef MEMCG_STATCTL_KMSG_H
#define MEMCG_STATCTL_KMSG_H

#include "util.h"

struct kmsg_mark {
	bool devkmsg;		/* /dev/kmsg usable, else klogctl */
	uint64_t seq;		/* last record seen (/dev/kmsg) */
	char line[256];		/* marker line (klogctl fallback) */
};

/* Write a marker into the log and remember where the log ends. */
int kmsg_mark(struct kmsg_mark *m, const char *tag);
/*
 * Lines logged after the mark that contain WARNING:, BUG:, Oops,
 * general protection or Call Trace; each is printed as a diagnostic.
 * Those of the known debugfs unload race (lib/kmsg.c) are reported, not
 * counted. Returns their number, or -errno.
 */
int kmsg_scan(const struct kmsg_mark *m);
/* kmsg_scan(), where a line containing one of @extra (@n) counts too. */
int kmsg_scan_with(const struct kmsg_mark *m, const char *const *extra,
		   size_t n);
/* kmsg_scan() == 0; otherwise says so in a diagnostic. */
bool kmsg_clean(const struct kmsg_mark *m);
/* The whole kernel log buffer (klogctl), NUL-terminated; free() it. */
char *kmsg_read_all(void);

#endif
