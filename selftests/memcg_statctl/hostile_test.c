// SPDX-License-Identifier: GPL-2.0
/*
 * Hostile input and a reset race.
 *
 *  fuzz_writable_files  Every writable file of the debugfs directory (found
 *                       by its mode, so `reset` and any new knob are in)
 *                       gets FUZZ_WRITES writes: numbers at and past every
 *                       range boundary of ABI.md (also 2^64-1, 2^64, -0,
 *                       leading zeros, whitespace, embedded NULs), the mode
 *                       names and mutations of them, overlong strings (up
 *                       to 64 KiB), pwrite at odd offsets (ESPIPE from a
 *                       seq_file knob is a fine rejection), lseek to odd
 *                       offsets then write, two writes on one
 *                       fd, a write after a read on one fd, buffers that
 *                       fault (EFAULT), and random bytes and digit strings.
 *                       For the knobs an oracle of ABI.md judges each write
 *                       (one write at offset 0, digits only or a mode name,
 *                       one optional newline, at most 24 characters, in
 *                       range): valid ones must be accepted and read back
 *                       canonically, anything else must fail with EINVAL
 *                       (EFAULT for a bad buffer) and leave the value as it
 *                       was (a valid number with leading zeros may be
 *                       accepted or rejected: ABI.md says "digits only",
 *                       stock_hooks takes exactly 0 and 1); whatever
 *                       happens, the value read back is one
 *                       the knob allows. For `reset`: each write is rejected
 *                       with an error and resets nothing (no counter goes
 *                       down), or accepted and resets. The kernel log stays
 *                       clean; every knob is put back as it was (one not
 *                       in the list too, if it reads as one line).
 *  reset_abi_strictness No write that ABI.md says must fail is accepted by
 *                       `reset`: only "1" or "1\n" at offset 0 resets;
 *                       "+1", "01", "1\0...", a later offset and the
 *                       rest fail with EINVAL.
 *  reset_races_counting Workers on every cpu fault, read memory.stat and
 *                       create/unlink tmpfs files (moving the flush, stock
 *                       and objcg counters) for RACE_S seconds (times
 *                       KSFT_TIMEOUT_SCALE) while one thread writes
 *                       `reset` at random intervals (up to 60 ms plus
 *                       four `stats` reads) and readers read `stats`. The resetter makes a
 *                       generation counter odd around each reset write;
 *                       a reader compares two of its reads only when both
 *                       ran entirely inside the same even generation: then
 *                       no counter may go down. No value may look like a
 *                       wrapped negative number. Final check, quiet: a
 *                       reset brings every counter to (near) zero,
 *                       flush.requests = performed + skipped, and counting
 *                       works after the storm.
 *
 * The fuzz runs with no load (a random update_flush_every=1 or
 * flush_period_ms=10 is valid and costly; nothing runs that would pay it).
 * MEMCG_STATCTL_SEED fixes the random seed (printed either way).
 */
#define _GNU_SOURCE

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib.h"

#define FUZZ_WRITES	1000
#define KNOB_MAX_LEN	24	/* ABI.md: at most 24 characters */
#define RACE_S		10
#define MAX_FILES	16
#define SHOW_MAX	12	/* violations printed per file */

/* ---- what each file allows (ABI.md) ------------------------------------ */

enum kind { K_NUM, K_MODE, K_RESET, K_UNKNOWN };

struct spec {
	const char *name;
	enum kind kind;
	uint64_t min, max;
	uint64_t hole_lo, hole_hi;	/* invalid sub-range, when hole_hi */
};

static const char *const modes[] = { "kernel", "threshold", "always",
				     "never" };

static const struct spec specs[] = {
	{ "flush_mode", K_MODE, 0, 0, 0, 0 },
	{ "flush_threshold", K_NUM, 0, 1ULL << 62, 0, 0 },
	{ "flush_period_ms", K_NUM, 0, 3600000, 1, 9 },
	{ "update_flush_every", K_NUM, 0, 1ULL << 24, 0, 0 },
	{ "stock_hooks", K_NUM, 0, 1, 0, 0 },
	{ "objcg_flush_hooks", K_NUM, 0, 1, 0, 0 },
	{ "stock_attribution", K_NUM, 0, 1, 0, 0 },
	{ "reset", K_RESET, 0, 0, 0, 0 },
};

static const struct spec *spec_of(const char *name)
{
	static struct spec unknown = { NULL, K_UNKNOWN, 0, 0, 0, 0 };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(specs); i++)
		if (!strcmp(specs[i].name, name))
			return &specs[i];
	unknown.name = name;
	return &unknown;
}

static bool num_allowed(const struct spec *k, uint64_t v)
{
	if (v < k->min || v > k->max)
		return false;
	return !(k->hole_hi && v >= k->hole_lo && v <= k->hole_hi);
}

/* Decimal digits only, no overflow. */
static bool parse_dec(const char *s, size_t n, uint64_t *v)
{
	uint64_t x = 0;
	size_t i;

	if (!n)
		return false;
	for (i = 0; i < n; i++) {
		if (!isdigit((unsigned char)s[i]))
			return false;
		if (x > (UINT64_MAX - (s[i] - '0')) / 10)
			return false;
		x = x * 10 + (s[i] - '0');
	}
	*v = x;
	return true;
}

/* Is the read-back value (newline stripped) one the knob allows? */
static bool value_allowed(const struct spec *k, const char *val)
{
	uint64_t v;
	size_t i;

	switch (k->kind) {
	case K_MODE:
		for (i = 0; i < ARRAY_SIZE(modes); i++)
			if (!strcmp(val, modes[i]))
				return true;
		return false;
	case K_NUM:
		return parse_dec(val, strlen(val), &v) && num_allowed(k, v) &&
		       (val[0] != '0' || !val[1]);	/* canonical */
	default:
		return true;
	}
}

/*
 * ABI.md's verdict on one write of buf[0..len) at offset off: true and the
 * canonical value it sets, or false (must fail with EINVAL). *either is
 * set for a valid number spelled with leading zeros ("007"): ABI.md says
 * "digits only", and the knobs differ (stock_hooks takes exactly "0" and
 * "1", the others any digits), so such a write may also fail with EINVAL.
 */
static bool either;

static bool oracle(const struct spec *k, const char *buf, size_t len,
		   off_t off, char *canon, size_t csize)
{
	size_t n = len, i;
	uint64_t v;

	if (k->kind == K_RESET)
		return off == 0 && ((len == 1 && buf[0] == '1') ||
				    (len == 2 && !memcmp(buf, "1\n", 2)));
	if (off != 0 || !len)
		return false;
	if (buf[n - 1] == '\n')
		n--;
	if (!n || n > KNOB_MAX_LEN || memchr(buf, 0, n))
		return false;
	if (k->kind == K_MODE) {
		for (i = 0; i < ARRAY_SIZE(modes); i++) {
			if (strlen(modes[i]) == n && !memcmp(buf, modes[i], n)) {
				snprintf(canon, csize, "%s", modes[i]);
				return true;
			}
		}
		return false;
	}
	if (!parse_dec(buf, n, &v) || !num_allowed(k, v))
		return false;
	snprintf(canon, csize, "%" PRIu64, v);
	either = n > 1 && buf[0] == '0';
	return true;
}

/* ---- reading and describing -------------------------------------------- */

/* printable, shortened description of a buffer */
static void describe(const char *buf, size_t len, char *out, size_t size)
{
	size_t i, o = 0;

	o += snprintf(out + o, size - o, "%zu bytes '", len);
	for (i = 0; i < len && o + 8 < size; i++) {
		unsigned char c = buf[i];

		if (i == 40 && len > 48) {
			o += snprintf(out + o, size - o, "...");
			i = len - 4;
			c = buf[i];
		}
		if (c == '\n')
			o += snprintf(out + o, size - o, "\\n");
		else if (isprint(c))
			out[o++] = c;
		else
			o += snprintf(out + o, size - o, "\\x%02x", c);
	}
	snprintf(out + o, size - o, "'");
}

/* ---- the cases ----------------------------------------------------------- */

enum how {
	H_WRITE,	/* one write() on a fresh fd */
	H_PWRITE,	/* pwrite() at off */
	H_SEEKWRITE,	/* lseek() to off, then write() */
	H_TWICE,	/* two write()s on one fd: buf, then buf2 */
	H_AFTER_READ,	/* O_RDWR, read() first, then write() */
	H_BADPTR,	/* write() from an unmapped address */
	H_STRADDLE,	/* buf ends in an inaccessible page */
};

struct fcase {
	enum how how;
	char *buf;
	size_t len;
	char *buf2;
	size_t len2;
	off_t off;
};

static struct fcase cases[FUZZ_WRITES];
static int ncases;
static unsigned int seed;

static char *dupmem(const void *p, size_t n)
{
	char *b = malloc(n + 1);

	if (!b)
		ksft_exit_fail_msg("out of memory\n");
	memcpy(b, p, n);
	b[n] = 0;
	return b;
}

static void add(enum how how, const void *p, size_t n, off_t off)
{
	if (ncases >= FUZZ_WRITES)
		return;
	cases[ncases++] = (struct fcase){ .how = how, .buf = dupmem(p, n),
					  .len = n, .off = off };
}

static void adds(const char *s)
{
	add(H_WRITE, s, strlen(s), 0);
}

static void addn(const char *s, size_t n)
{
	add(H_WRITE, s, n, 0);
}

static void addu(uint64_t v)
{
	char b[32];

	snprintf(b, sizeof(b), "%" PRIu64, v);
	adds(b);
}

static void add_twice(const char *a, const char *b)
{
	if (ncases >= FUZZ_WRITES)
		return;
	cases[ncases++] = (struct fcase){
		.how = H_TWICE, .buf = dupmem(a, strlen(a)), .len = strlen(a),
		.buf2 = dupmem(b, strlen(b)), .len2 = strlen(b),
	};
}

static void add_repeat(char c, size_t n, const char *tail)
{
	size_t t = strlen(tail);
	char *b = malloc(n + t + 1);

	if (!b)
		ksft_exit_fail_msg("out of memory\n");
	memset(b, c, n);
	memcpy(b + n, tail, t);
	addn(b, n + t);
	free(b);
}

/* A valid value of the knob (for offset and sequence cases). */
static const char *some_valid(const struct spec *k, int i)
{
	static const char *const nums[] = { "0", "1" };

	if (k->kind == K_MODE)
		return modes[i % 4];
	if (k->kind == K_NUM && k->hole_hi)
		return i % 2 ? "500" : "0";
	return nums[i % 2];
}

static void build_cases(const struct spec *k)
{
	static const char *const common[] = {
		"", "\n", "\n\n", "-0", "-1", "+0", "+1", "00", "01", "0x1",
		"0X10", "0b1", "1e3", "1.0", "1,0", "1_000", " 1", "1 ", "\t1",
		"1\t", "\n1", "1\r\n", "1\r", "1\n\n", " ", "\t", "\r\n",
		"kernel", "never", "always", "threshold", "KERNEL", "Never",
		"kernel\n", "never\n", "never\n\n", " never", "never ",
		"\tkernel", "kerne", "kernell", "alwaysnever", "threshold2",
		"on", "off", "true", "yes", "y", "n", "-", "+", "0-", "1-1",
		"18446744073709551615", "18446744073709551616",
		"18446744073709551617", "99999999999999999999",
		"4611686018427387904", "4611686018427387905",
		"9223372036854775807", "9223372036854775808",
		"4294967295", "4294967296", "16777216", "16777217",
		"3600000", "3600001", "9", "10", "11", "2", "64", "500",
		"2000", "-18446744073709551615", "0000000000000000000000001",
		"000000000000000000000001", "000000000000000000000000",
		"0000000000000000000000000", "000000000000000000003600000",
		"00000000000000016777216", "%s%s%s%n", "\x80\xff",
		"\xef\xbb\xbf" "1", "１",
	};
	static const char nuls[][4] = { "1\0", "\0", "\0" "1", "1\0" "2",
					"0\0\n", "1\n\0" };
	static const size_t nul_len[] = { 2, 1, 2, 3, 3, 3 };
	static const off_t offsets[] = { 1, 7, 13, 2, 24, 25, 4095, 4096,
					 65537, 1 << 20 };
	char b[128];
	size_t i;
	int j;

	ncases = 0;
	/* boundaries of this knob */
	if (k->kind == K_NUM) {
		uint64_t edges[] = { k->min, k->max, k->hole_lo, k->hole_hi };

		for (i = 0; i < ARRAY_SIZE(edges); i++) {
			uint64_t e = edges[i];

			if (!e && i >= 2)
				continue;
			if (e)
				addu(e - 1);
			addu(e);
			if (e != UINT64_MAX)
				addu(e + 1);
			snprintf(b, sizeof(b), "%" PRIu64 "\n", e);
			adds(b);
			snprintf(b, sizeof(b), "000%" PRIu64, e);
			adds(b);
			snprintf(b, sizeof(b), "%" PRIu64 " ", e);
			adds(b);
			snprintf(b, sizeof(b), "-%" PRIu64, e);
			adds(b);
		}
		if (k->max < UINT64_MAX / 10)
			addu(k->max * 10);
		/* the longest accepted spelling, and one more */
		snprintf(b, sizeof(b), "%024" PRIu64, k->max);
		adds(b);
		snprintf(b, sizeof(b), "%024" PRIu64 "\n", k->max);
		adds(b);
		snprintf(b, sizeof(b), "%025" PRIu64, k->max);
		adds(b);
	}
	for (i = 0; i < ARRAY_SIZE(common); i++)
		adds(common[i]);
	for (i = 0; i < ARRAY_SIZE(nuls); i++)
		addn(nuls[i], nul_len[i]);
	for (i = 0; i < ARRAY_SIZE(modes); i++) {
		char m[40];

		snprintf(m, sizeof(m), "%s", modes[i]);
		addn(m, strlen(m) + 1);		/* with its NUL */
		m[0] ^= 0x20;
		adds(m);
	}
	/* overlong */
	add_repeat('1', 24, "");
	add_repeat('1', 24, "\n");
	add_repeat('1', 25, "");
	add_repeat('0', 24, "\n");
	add_repeat('0', 25, "\n");
	add_repeat('0', 23, "1\n");
	add_repeat('9', 100, "");
	add_repeat('a', 4096, "");
	add_repeat('1', 65536, "");
	add_repeat('\0', 1000, "");
	add_repeat(' ', 4095, "1");
	{
		char *big = malloc(70000);

		if (!big)
			ksft_exit_fail_msg("out of memory\n");
		memcpy(big, "1", 1);
		memset(big + 1, 0, 69999);	/* "1" then NULs */
		addn(big, 70000);
		memcpy(big, "never", 5);
		addn(big, 5 + 1000);
		free(big);
	}
	/* valid values at odd offsets */
	for (i = 0; i < ARRAY_SIZE(offsets); i++) {
		const char *v = some_valid(k, i);

		add(H_PWRITE, v, strlen(v), offsets[i]);
		add(H_SEEKWRITE, v, strlen(v), offsets[i]);
	}
	add(H_PWRITE, some_valid(k, 0), strlen(some_valid(k, 0)), 0);
	/* sequences on one fd */
	add_twice(some_valid(k, 0), some_valid(k, 1));
	add_twice("1", "2");
	add_twice("ne", "ver");
	add_twice("12", "3\n");
	for (j = 0; j < 2; j++) {
		const char *v = some_valid(k, j);

		if (ncases < FUZZ_WRITES)
			cases[ncases++] = (struct fcase){
				.how = H_AFTER_READ, .buf = dupmem(v, strlen(v)),
				.len = strlen(v) };
	}
	/* buffers that fault */
	add(H_BADPTR, "1", 1, 0);
	add(H_STRADDLE, "1", 1, 0);
	add(H_STRADDLE, "never", 5, 0);

	/* the rest: random */
	while (ncases < FUZZ_WRITES) {
		int what = rand_r(&seed) % 4;
		size_t n;

		if (what == 0) {		/* random bytes */
			n = rand_r(&seed) % (rand_r(&seed) % 8 ? 32 : 300);
			for (i = 0; i < n && i < sizeof(b); i++)
				b[i] = rand_r(&seed);
			addn(b, n < sizeof(b) ? n : sizeof(b));
		} else if (what == 1) {		/* digit strings */
			n = 1 + rand_r(&seed) % 26;
			for (i = 0; i < n; i++)
				b[i] = '0' + rand_r(&seed) % 10;
			if (rand_r(&seed) % 3 == 0)
				b[n++] = '\n';
			addn(b, n);
		} else if (what == 2) {		/* short numbers, often valid */
			uint64_t v = rand_r(&seed) % 3 ?
				     (uint64_t)(rand_r(&seed) % 20) :
				     ((uint64_t)rand_r(&seed) << 31 |
				      rand_r(&seed)) >> (rand_r(&seed) % 62);

			snprintf(b, sizeof(b), "%" PRIu64 "%s", v,
				 rand_r(&seed) % 2 ? "\n" : "");
			adds(b);
		} else {			/* mutated mode names */
			const char *m = modes[rand_r(&seed) % 4];
			size_t p;

			n = strlen(m);
			memcpy(b, m, n);
			p = rand_r(&seed) % (n + 1);
			switch (rand_r(&seed) % 5) {
			case 0:
				b[p % n] = rand_r(&seed);
				break;
			case 1:
				memmove(b + p + 1, b + p, n - p);
				b[p] = rand_r(&seed) % 2 ? '\n' : ' ';
				n++;
				break;
			case 2:
				memmove(b + (p % n), b + (p % n) + 1,
					n - (p % n) - 1);
				n--;
				break;
			case 3:
				b[n++] = '\n';
				break;
			default:
				break;		/* as is: valid */
			}
			addn(b, n);
		}
	}
}

static void free_cases(void)
{
	int i;

	for (i = 0; i < ncases; i++) {
		free(cases[i].buf);
		free(cases[i].buf2);
	}
	ncases = 0;
}

/* ---- running one write ---------------------------------------------------- */

struct tally {
	int writes, accepted, rejected, violations, deviations;
};

static void violation(struct tally *t, const char *file, const char *what,
		      const char *desc)
{
	if (t->violations++ < SHOW_MAX)
		diag("%s: %s: %s", file, desc, what);
}

static void deviation(struct tally *t, const char *file, const char *desc)
{
	if (t->deviations++ < SHOW_MAX)
		diag("%s: ABI deviation: accepted %s", file, desc);
}

/* for `reset`: a child in a leaf cgroup that faults a few pages on demand */
static struct child toucher;
static char toucher_cg[256];
static bool toucher_up;

static int touch_pages(void *arg, struct child *c)
{
	(void)arg;
	thp_disable();
	child_notify(c);
	for (;;) {
		void *p;

		if (child_wait(c))
			return 0;
		p = fault_anon(8);
		if (p)
			munmap(p, 8 * PAGE_SZ);
		child_notify(c);
	}
	return 0;
}

static void touch(void)
{
	if (toucher_up && !child_release(&toucher))
		child_wait_ready(&toucher, 10000);
}

static char *fault_page;	/* PROT_NONE page after an accessible one */

static ssize_t issue(const char *path, const struct fcase *fc, int which,
		     int fd, off_t *pos)
{
	const char *buf = which ? fc->buf2 : fc->buf;
	size_t len = which ? fc->len2 : fc->len;
	ssize_t r;

	*pos = lseek(fd, 0, SEEK_CUR);
	if (*pos < 0)
		*pos = 0;
	(void)path;
	switch (fc->how) {
	case H_PWRITE:
		*pos = fc->off;
		r = pwrite(fd, buf, len, fc->off);
		break;
	case H_SEEKWRITE:
		/* where the file lets us go: the verdict uses that offset */
		*pos = lseek(fd, fc->off, SEEK_SET);
		if (*pos < 0)
			*pos = lseek(fd, 0, SEEK_CUR);
		r = write(fd, buf, len);
		break;
	case H_BADPTR:
		r = write(fd, (void *)16, len);
		break;
	case H_STRADDLE:
		/* the first bytes readable, the rest in the PROT_NONE page */
		memcpy(fault_page - 1, buf, 1);
		r = write(fd, fault_page - 1, len + 4);
		break;
	default:
		r = write(fd, buf, len);
	}
	return r < 0 ? -errno : r;
}

/* Judge one write of a knob; prev is the value before, updated. */
static void judge_knob(const struct spec *k, const struct fcase *fc,
		       int which, ssize_t r, off_t pos, char *prev,
		       struct tally *t)
{
	const char *buf = which ? fc->buf2 : fc->buf;
	size_t len = which ? fc->len2 : fc->len;
	char canon[64], cur[128], desc[200], what[300];
	bool valid, faulty = fc->how == H_BADPTR || fc->how == H_STRADDLE;

	describe(buf, len, desc, sizeof(desc));
	if (fc->how == H_PWRITE || fc->how == H_SEEKWRITE || pos) {
		size_t o = strlen(desc);

		snprintf(desc + o, sizeof(desc) - o, " at offset %lld",
			 (long long)pos);
	}
	if (faulty)
		snprintf(desc, sizeof(desc), "%s buffer",
			 fc->how == H_BADPTR ? "unmapped" : "half-mapped");
	either = false;
	valid = !faulty && oracle(k, buf, len, pos, canon, sizeof(canon));
	t->writes++;
	if (statctl_read_line(k->name, cur, sizeof(cur))) {
		violation(t, k->name, "value unreadable after the write", desc);
		return;
	}
	if (!value_allowed(k, cur)) {
		snprintf(what, sizeof(what), "reads back '%s', not allowed",
			 cur);
		violation(t, k->name, what, desc);
	}
	if (r >= 0 && (size_t)r == len && len) {
		t->accepted++;
		if (!valid) {
			snprintf(what, sizeof(what), "accepted (now '%s'), "
				 "ABI.md says EINVAL", cur);
			violation(t, k->name, what, desc);
		} else if (strcmp(cur, canon)) {
			snprintf(what, sizeof(what), "accepted but reads '%s', "
				 "want '%s'", cur, canon);
			violation(t, k->name, what, desc);
		}
	} else if (r < 0 || (r == 0 && !len)) {
		t->rejected++;
		if (fc->how == H_PWRITE && r == -ESPIPE) {
			/* seq_file knobs have no pwrite: fine */
		} else if (valid && !(either && r == -EINVAL)) {
			snprintf(what, sizeof(what), "rejected (%s), ABI.md "
				 "says valid", strerror(-r));
			violation(t, k->name, what, desc);
		} else if (!valid && r < 0 && r != -EINVAL &&
			   !(faulty && r == -EFAULT)) {
			snprintf(what, sizeof(what), "failed with %s, want "
				 "EINVAL", strerror(-r));
			violation(t, k->name, what, desc);
		}
		if (strcmp(cur, prev)) {
			snprintf(what, sizeof(what), "rejected but changed "
				 "'%s' to '%s'", prev, cur);
			violation(t, k->name, what, desc);
		}
	} else {
		snprintf(what, sizeof(what), "partial write: %zd of %zu", r,
			 len);
		violation(t, k->name, what, desc);
	}
	snprintf(prev, 64, "%s", cur);
}

static bool decreased(const struct stats *a, const struct stats *b,
		      char *which, size_t size)
{
	uint64_t v;
	int i;

	for (i = 0; i < a->n; i++) {
		if (stats_get(b, a->name[i], &v))
			continue;
		if (v < a->val[i]) {
			snprintf(which, size, "%s %" PRIu64 " -> %" PRIu64,
				 a->name[i], a->val[i], v);
			return true;
		}
	}
	return false;
}

static void judge_reset(const struct fcase *fc, int which, ssize_t r,
			off_t pos, const struct stats *s0,
			const struct stats *s1, struct tally *t)
{
	const char *buf = which ? fc->buf2 : fc->buf;
	size_t len = which ? fc->len2 : fc->len;
	char desc[200], what[300], dec[160];
	bool faulty = fc->how == H_BADPTR || fc->how == H_STRADDLE;
	uint64_t a0 = 0, a1 = 0;

	describe(buf, len, desc, sizeof(desc));
	if (pos) {
		size_t o = strlen(desc);

		snprintf(desc + o, sizeof(desc) - o, " at offset %lld",
			 (long long)pos);
	}
	if (faulty)
		snprintf(desc, sizeof(desc), "%s buffer",
			 fc->how == H_BADPTR ? "unmapped" : "half-mapped");
	t->writes++;
	if (r >= 0 && (size_t)r == len && len) {
		t->accepted++;
		if (faulty || !oracle(spec_of("reset"), buf, len, pos, NULL, 0))
			deviation(t, "reset", desc);
		/* it must have reset: attempts were >= 8 before */
		if (!stats_get(s0, "charge_stock.attempts", &a0) &&
		    !stats_get(s1, "charge_stock.attempts", &a1) &&
		    a0 >= 8 && a1 >= a0) {
			snprintf(what, sizeof(what), "accepted but nothing "
				 "reset (charge_stock.attempts %" PRIu64 " -> %"
				 PRIu64 ")", a0, a1);
			violation(t, "reset", what, desc);
		}
	} else if (r < 0 || (r == 0 && !len)) {
		t->rejected++;
		if (decreased(s0, s1, dec, sizeof(dec))) {
			snprintf(what, sizeof(what), "rejected (%s) but reset "
				 "(%s)", r < 0 ? strerror(-r) : "0 bytes", dec);
			violation(t, "reset", what, desc);
		}
	} else {
		snprintf(what, sizeof(what), "partial write: %zd of %zu", r,
			 len);
		violation(t, "reset", what, desc);
	}
}

static int open_file(const char *path, enum how how)
{
	return open(path, (how == H_AFTER_READ ? O_RDWR : O_WRONLY) |
		    O_CLOEXEC);
}

static int fuzz_file(const char *file, struct tally *t)
{
	const struct spec *k = spec_of(file);
	char path[256], prev[64] = "", orig[64] = "";
	struct stats s0, s1;
	int i, w, fd;

	snprintf(path, sizeof(path), "%s/%s", STATCTL_DIR, file);
	memset(t, 0, sizeof(*t));
	if (k->kind == K_UNKNOWN)
		diag("%s: writable but not in ABI.md's list: fuzzed for a "
		     "clean log and a readable value only", file);
	if (k->kind == K_UNKNOWN) {
		/* one line read back is put back too, so the fuzz leaves no knob changed */
		if (statctl_read_line(file, orig, sizeof(orig)))
			orig[0] = 0;
	} else if (k->kind != K_RESET) {
		if (statctl_read_line(file, orig, sizeof(orig))) {
			diag("%s: unreadable", file);
			return 1;
		}
		snprintf(prev, sizeof(prev), "%s", orig);
	}
	build_cases(k);
	for (i = 0; i < ncases; i++) {
		const struct fcase *fc = &cases[i];
		int nw = fc->how == H_TWICE ? 2 : 1;

		fd = open_file(path, fc->how);
		if (fd < 0) {
			violation(t, file, strerror(errno), "open");
			continue;
		}
		if (fc->how == H_AFTER_READ) {
			char rb[64];

			(void)!read(fd, rb, sizeof(rb));	/* reset: EINVAL */
		}
		for (w = 0; w < nw; w++) {
			off_t pos;
			ssize_t r;

			if (k->kind == K_RESET) {
				touch();	/* attempts >= 8 */
				if (stats_read(&s0)) {
					close(fd);
					return 1;
				}
			}
			r = issue(path, fc, w, fd, &pos);
			if (k->kind == K_RESET) {
				if (stats_read(&s1)) {
					close(fd);
					return 1;
				}
				judge_reset(fc, w, r, pos, &s0, &s1, t);
			} else if (k->kind == K_UNKNOWN) {
				t->writes++;
			} else {
				judge_knob(k, fc, w, r, pos, prev, t);
			}
		}
		close(fd);
	}
	free_cases();
	if (orig[0]) {
		char now[64];

		statctl_write(file, orig, strlen(orig));
		if (statctl_read_line(file, now, sizeof(now)) || strcmp(now, orig)) {
			/* a file not in the list may not read back what it takes */
			diag("%s: cannot restore '%s'%s", file, orig,
			     k->kind == K_UNKNOWN ? " (not judged: unknown)" : "");
			t->violations += k->kind != K_UNKNOWN;
			orig[0] = 0;
		}
	}
	diag("%s: %d writes, %d accepted, %d rejected, %d violations%s", file,
	     t->writes, t->accepted, t->rejected, t->violations,
	     orig[0] ? "; restored" : "");
	return 0;
}

static int writable_files(char names[][64], int max)
{
	struct dirent *de;
	int n = 0;
	DIR *d = opendir(STATCTL_DIR);

	if (!d)
		return -errno;
	while ((de = readdir(d)) && n < max) {
		char path[320];
		struct stat st;

		snprintf(path, sizeof(path), "%s/%s", STATCTL_DIR, de->d_name);
		if (stat(path, &st) || !S_ISREG(st.st_mode) ||
		    !(st.st_mode & 0222))
			continue;
		snprintf(names[n++], 64, "%.63s", de->d_name);
	}
	closedir(d);
	return n;
}

/* shared between the two fuzz subtests (the second reads the first's) */
struct fuzz_result {
	int done;
	int reset_accepted, reset_deviations;
};
static struct fuzz_result *fres;

static int test_fuzz(void)
{
	char names[MAX_FILES][64];
	struct kmsg_mark mark;
	struct tally t;
	int n, i, bad = 0, r, reset_seen = 0;
	void *pages;

	n = writable_files(names, MAX_FILES);
	if (n <= 0) {
		diag("no writable file in %s (%d)", STATCTL_DIR, n);
		return KSFT_FAIL;
	}
	pages = mmap(NULL, 2 * PAGE_SZ, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (pages == MAP_FAILED ||
	    mprotect((char *)pages + PAGE_SZ, PAGE_SZ, PROT_NONE))
		return KSFT_FAIL;
	fault_page = (char *)pages + PAGE_SZ;
	if (kmsg_mark(&mark, "hostile_fuzz"))
		return KSFT_FAIL;
	if (cg_create_leaf("hostile", toucher_cg, sizeof(toucher_cg)))
		return KSFT_FAIL;
	r = child_start(&toucher, toucher_cg, touch_pages, NULL);
	if (!r)
		r = child_wait_ready(&toucher, 10000);
	toucher_up = !r;
	if (r)
		diag("no page-touching child (%d): reset verdicts weaker", r);

	diag("seed %u (MEMCG_STATCTL_SEED reproduces); %d writable files",
	     seed, n);
	for (i = 0; i < n; i++) {
		uint64_t t0 = now_ns();

		if (fuzz_file(names[i], &t)) {
			bad++;
			continue;
		}
		diag("%s: %.1f s", names[i], (now_ns() - t0) / 1e9);
		bad += t.violations;
		if (!strcmp(names[i], "reset")) {
			reset_seen = 1;
			fres->reset_accepted = t.accepted;
			fres->reset_deviations = t.deviations;
		}
	}
	child_kill(&toucher);
	cg_destroy(toucher_cg);
	if (!reset_seen) {
		diag("reset is not among the writable files");
		bad++;
	}
	if (!kmsg_clean(&mark))
		bad++;
	fres->done = 1;
	return bad ? KSFT_FAIL : KSFT_PASS;
}

static int test_reset_strict(void)
{
	if (!fres->done) {
		diag("the fuzz did not run");
		return KSFT_SKIP;
	}
	diag("reset accepted %d writes, %d of them not '1' or '1\\n' at "
	     "offset 0 (listed above as ABI deviations)",
	     fres->reset_accepted, fres->reset_deviations);
	if (fres->reset_deviations) {
		diag("reset accepted writes that ABI.md says fail with EINVAL");
		return KSFT_FAIL;
	}
	return KSFT_PASS;
}

/* ---- reset racing with counting ------------------------------------------ */

static atomic_uint gen;
static atomic_int race_stop;
/*
 * How long the last `stats` read took, in ms: the resetter leaves gaps of
 * a few reads, so that two reads fit between resets on a slow kernel too
 * (a debug kernel's read takes some 200 ms under TCG, a stock one's a
 * few).
 */
static atomic_uint read_ms;

struct reader {
	pthread_t th;
	unsigned long reads, compared, backwards, wrapped, errors;
};

static void *reader_fn(void *arg)
{
	struct reader *rd = arg;
	struct stats *prev = malloc(sizeof(*prev)), *cur = malloc(sizeof(*cur));
	unsigned int prev_gen = 1;	/* odd: nothing to compare with */

	if (!prev || !cur)
		return NULL;
	while (!atomic_load(&race_stop)) {
		unsigned int g1 = atomic_load(&gen), g2;
		uint64_t t0 = now_ns();
		int i;

		if (stats_read(cur)) {
			rd->errors++;
			continue;
		}
		atomic_store(&read_ms, (now_ns() - t0) / 1000000);
		g2 = atomic_load(&gen);
		rd->reads++;
		for (i = 0; i < cur->n; i++) {
			if (cur->val[i] >> 62 && rd->wrapped++ < 5)
				diag("%s = %" PRIu64 ": a wrapped negative?",
				     cur->name[i], cur->val[i]);
		}
		if (g1 != g2 || (g1 & 1))
			continue;	/* a reset overlapped this read */
		if (g1 == prev_gen) {
			char which[160];

			rd->compared++;
			if (decreased(prev, cur, which, sizeof(which)) &&
			    rd->backwards++ < 10)
				diag("generation %u: %s with no reset in "
				     "between", g1 / 2, which);
		}
		*prev = *cur;
		prev_gen = g1;
	}
	free(prev);
	free(cur);
	return NULL;
}

struct resetter {
	pthread_t th;
	unsigned long resets, errors;
};

static void *resetter_fn(void *arg)
{
	struct resetter *rs = arg;
	unsigned int s = seed ^ 0x5eed;

	while (!atomic_load(&race_stop)) {
		ssize_t r;

		sleep_ms(rand_r(&s) % (60 + 4 * atomic_load(&read_ms)));
		atomic_fetch_add(&gen, 1);	/* odd: resetting */
		r = statctl_write("reset", "1\n", 2);
		atomic_fetch_add(&gen, 1);	/* even: a new generation */
		if (r == 2)
			rs->resets++;
		else
			rs->errors++;
	}
	return NULL;
}

struct worker_arg {
	const char *cg;
	int cpu;
};

static int worker(void *arg, struct child *c)
{
	struct worker_arg *a = arg;
	char path[64];
	uint64_t v;
	int i = 0, fd;

	pin_to_cpu(a->cpu);
	thp_disable();
	child_notify(c);
	for (;;) {
		void *p = fault_anon(64);

		if (p)
			munmap(p, 64 * PAGE_SZ);
		memstat_get(a->cg, "anon", &v);
		snprintf(path, sizeof(path), "/tmp/mcs_race.%d.%d",
			 (int)getpid(), i++ % 16);
		fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
		if (fd >= 0) {
			(void)!write(fd, "x", 1);
			close(fd);
			unlink(path);
		}
	}
	return 0;
}

/*
 * A snapshot two consecutive reads agree on, with no flush in flight
 * (flush_settled()).
 */
static int stats_quiet(struct stats *s)
{
	struct stats t;
	int i, k;

	if (stats_read(s))
		return -1;
	for (i = 0; i < 50; i++) {
		bool same;

		sleep_ms(20);
		if (stats_read(&t))
			return -1;
		same = t.n == s->n;
		for (k = 0; same && k < s->n; k++)
			same = s->val[k] == t.val[k];
		*s = t;
		if (same && flush_settled(s))
			return 0;
	}
	return 0;	/* the periodic flusher never stops: close enough */
}

static int test_reset_race(void)
{
	struct worker_arg wa[64];
	struct child workers[64];
	struct reader rd[2] = { 0 };
	struct resetter rs = { 0 };
	struct kmsg_mark mark;
	struct stats before, after;
	unsigned long reads = 0, compared = 0, backwards = 0, wrapped = 0;
	char cg[256];
	int ncpu = online_cpus(), n = 0, i, r, bad = 0;
	int race_s = RACE_S * timeout_scale();
	uint64_t v, a0, a1;

	if (ncpu > 64)
		ncpu = 64;
	if (kmsg_mark(&mark, "reset_race"))
		return KSFT_FAIL;
	if (cg_create_leaf("reset_race", cg, sizeof(cg)))
		return KSFT_FAIL;
	for (i = 0; i < ncpu; i++) {
		wa[i] = (struct worker_arg){ .cg = cg, .cpu = i };
		r = child_start(&workers[i], cg, worker, &wa[i]);
		if (!r)
			r = child_wait_ready(&workers[i], 10000);
		if (r) {
			diag("worker %d: %d", i, r);
			bad++;
			goto out;
		}
		n++;
	}
	atomic_store(&gen, 0);
	atomic_store(&race_stop, 0);
	for (i = 0; i < 2; i++)
		if (pthread_create(&rd[i].th, NULL, reader_fn, &rd[i]))
			ksft_exit_fail_msg("pthread_create\n");
	if (pthread_create(&rs.th, NULL, resetter_fn, &rs))
		ksft_exit_fail_msg("pthread_create\n");
	sleep_ms(race_s * 1000);
	atomic_store(&race_stop, 1);
	pthread_join(rs.th, NULL);
	for (i = 0; i < 2; i++) {
		pthread_join(rd[i].th, NULL);
		reads += rd[i].reads;
		compared += rd[i].compared;
		backwards += rd[i].backwards;
		wrapped += rd[i].wrapped;
		if (rd[i].errors) {
			diag("reader %d: %lu failed reads", i, rd[i].errors);
			bad++;
		}
	}
	diag("%d workers, %d s: %lu resets, %lu stats reads, %lu same-"
	     "generation comparisons, %lu went backwards, %lu wrapped",
	     n, race_s, rs.resets, reads, compared, backwards, wrapped);
	if (rs.errors) {
		diag("%lu reset writes failed", rs.errors);
		bad++;
	}
	if (rs.resets < 20 || compared < 20) {
		diag("too few resets or comparisons to judge");
		bad++;
	}
	if (backwards || wrapped)
		bad++;
out:
	for (i = 0; i < n; i++)
		child_kill(&workers[i]);

	/* final check, quiet */
	if (stats_quiet(&before))
		return KSFT_FAIL;
	if (statctl_write("reset", "1", 1) != 1) {
		diag("final reset failed");
		return KSFT_FAIL;
	}
	if (stats_quiet(&after))
		return KSFT_FAIL;
	for (i = 0; i < after.n; i++) {
		const char *name = after.name[i];

		if (!strcmp(name, "flush.ns_total") ||
		    !strcmp(name, "flush.ns_max"))
			continue;	/* durations: one flush is enough */
		if (after.val[i] > 256) {
			diag("after the final reset %s = %" PRIu64, name,
			     after.val[i]);
			bad++;
		}
	}
	if (stat_must(&after, "flush.requests") !=
	    stat_must(&after, "flush.performed") +
	    stat_must(&after, "flush.skipped")) {
		diag("after the final reset: requests %" PRIu64 " != performed "
		     "%" PRIu64 " + skipped %" PRIu64,
		     stat_must(&after, "flush.requests"),
		     stat_must(&after, "flush.performed"),
		     stat_must(&after, "flush.skipped"));
		bad++;
	}
	if (stat_must(&after, "flush.ns_max") >
	    stat_must(&after, "flush.ns_total")) {
		diag("flush.ns_max > flush.ns_total after the final reset");
		bad++;
	}
	/* counting still works */
	if (!stats_get(&after, "charge_stock.attempts", &a0)) {
		size_t pages = 256;
		struct child c;

		if (!child_start(&c, cg, fault_and_hold, &pages) &&
		    !child_wait_ready(&c, 30000)) {
			memstat_get(cg, "anon", &v);
			stat_get("charge_stock.attempts", &a1);
			diag("after the storm: 256 pages, charge_stock.attempts "
			     "%" PRIu64 " -> %" PRIu64, a0, a1);
			if (a1 < a0 + 256) {
				diag("counting does not work after the storm");
				bad++;
			}
		} else {
			bad++;
		}
		child_kill(&c);
	}
	cg_destroy(cg);
	if (!kmsg_clean(&mark))
		bad++;
	return bad ? KSFT_FAIL : KSFT_PASS;
}

static const struct test tests[] = {
	{ test_fuzz, "fuzz_writable_files" },
	{ test_reset_strict, "reset_abi_strictness" },
	{ test_reset_race, "reset_races_counting" },
};

int main(void)
{
	const char *s = getenv("MEMCG_STATCTL_SEED");

	require_module();
	require_flush_control();
	seed = s && *s ? (unsigned int)strtoul(s, NULL, 0) :
	       (unsigned int)(now_ns() ^ getpid());
	fres = shared_alloc(sizeof(*fres));
	if (!fres)
		ksft_exit_fail_msg("mmap: %s\n", strerror(errno));
	return run_test_table(tests, ARRAY_SIZE(tests));
}
