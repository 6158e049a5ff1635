// SPDX-License-Identifier: GPL-2.0
/*
 * File I/O, time and the machine the tests run on.
 */
#define _GNU_SOURCE

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "include/util.h"

ssize_t read_file(const char *path, char *buf, size_t size)
{
	size_t len = 0;
	ssize_t r;
	int fd;

	if (!size)
		return -EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (len < size - 1) {
		r = read(fd, buf + len, size - 1 - len);
		if (r < 0) {
			r = -errno;
			close(fd);
			return r;
		}
		if (!r)
			break;
		len += r;
	}
	buf[len] = 0;
	close(fd);
	return len;
}

ssize_t write_file(const char *path, const void *buf, size_t len)
{
	ssize_t r;
	int fd;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	r = write(fd, buf, len);
	if (r < 0)
		r = -errno;
	close(fd);
	return r;
}

int write_str(const char *path, const char *s)
{
	ssize_t r = write_file(path, s, strlen(s));

	if (r < 0)
		return r;
	return (size_t)r == strlen(s) ? 0 : -EIO;
}

bool path_exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

int parse_u64(const char *s, uint64_t *v)
{
	char *end;

	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	*v = strtoull(s, &end, 10);
	if (errno || *end)
		return -EINVAL;
	return 0;
}

uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

void sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

bool values_close(uint64_t a, uint64_t b, int err_pct)
{
	uint64_t d = a > b ? a - b : b - a;

	return d <= (a + b) / 100 * err_pct;
}

int timeout_scale(void)
{
	const char *s = getenv("KSFT_TIMEOUT_SCALE");
	char *end;
	long n;

	if (!s || !*s)
		return 1;
	errno = 0;
	n = strtol(s, &end, 10);
	if (errno || *end || n < 1 || n > 100) {
		diag("KSFT_TIMEOUT_SCALE='%s' is not a whole number 1..100: 1", s);
		return 1;
	}
	return (int)n;
}

int online_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > 0 ? (int)n : 1;
}

bool under_tcg(void)
{
	unsigned int a, b, c, d;
	char sig[13];

	__cpuid_count(1, 0, a, b, c, d);
	if (!(c & (1U << 31)))		/* no hypervisor */
		return false;
	__cpuid_count(0x40000000, 0, a, b, c, d);
	memcpy(sig, &b, 4);
	memcpy(sig + 4, &c, 4);
	memcpy(sig + 8, &d, 4);
	sig[12] = 0;
	return !strcmp(sig, "TCGTCGTCGTCG");
}
