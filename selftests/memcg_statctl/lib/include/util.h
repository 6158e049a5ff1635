/* SPDX-License-Identifier: GPL-2.0 */
/* File I/O, time and the machine the tests run on. */
#ifndef MEMCG_STATCTL_UTIL_H
#define MEMCG_STATCTL_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "kselftest.h"

#define PAGE_SZ		4096UL
#define MiB		(1024UL * 1024UL)

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif

#define diag(fmt, ...)	ksft_print_msg(fmt "\n", ##__VA_ARGS__)

/* Read a whole (small) file; NUL-terminates. Returns length or -errno. */
ssize_t read_file(const char *path, char *buf, size_t size);
/* One write(2) of exactly len bytes. Returns bytes written or -errno. */
ssize_t write_file(const char *path, const void *buf, size_t len);
int write_str(const char *path, const char *s);	/* 0 or -errno */
bool path_exists(const char *path);
/* A decimal number and nothing else: 0, or -EINVAL. */
int parse_u64(const char *s, uint64_t *v);

uint64_t now_ns(void);
void sleep_ms(unsigned int ms);
/* |a - b| <= (a + b) / 100 * err_pct, as in cgroup_util.c */
bool values_close(uint64_t a, uint64_t b, int err_pct);
int online_cpus(void);
/*
 * KSFT_TIMEOUT_SCALE (run_tests.sh; the harness sets it from the kernel
 * table's timeout factor): how many times slower than a stock kernel this
 * one may be. Tests with a time budget of their own scale it by this.
 */
int timeout_scale(void);
/*
 * True under QEMU's TCG (CPUID hypervisor signature "TCGTCGTCGTCG"),
 * where the guest is many times slower than a machine. Multi-threaded TCG
 * can run stale code after ftrace patches a function that another vCPU
 * runs hot; the project's guests run TCG single-threaded (the vCPUs take
 * turns), which does not, so tests keep their load on every cpu there too.
 */
bool under_tcg(void);

#endif
