// SPDX-License-Identifier: GPL-2.0
/*
 * mcs-bench: the guest side of `make bench`. Runs one workload in a fresh
 * leaf cgroup: WARMUP unmeasured batches, then K measured batches of N
 * operations, each bracketed by the marker `xchg %bx,%bx` that the QEMU
 * plugin insn-marker.so counts instructions between (K + 1 markers). The
 * instructions of batch i are the plugin's delta at marker i (i = 1..K);
 * per operation: delta / N.
 *
 *   mcs-bench WORKLOAD N K WARMUP
 *   WORKLOAD: page-fault  mmap N anonymous pages (THP off), touch each, munmap
 *             slab        create+close, stat, unlink N files in a tmpfs (/tmp)
 *             stat-reader open, read to EOF, close memory.stat of its cgroup
 *             loop        N iterations of a 2-instruction loop (dec; jnz):
 *                         checks the plugin, expect 2 instructions per op
 *
 * Prints one line "BENCH wl=W n=N k=K marks=M" after the run (M markers).
 * Exit 0 on success, 1 on a failed system call, 2 on bad usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#define CGROOT "/sys/fs/cgroup"
#define PAGE 4096

static char cgdir[256];
static char tmpdir[256];
static int marks;

static inline void marker(void)
{
	/* 66 87 db: a no-op the plugin recognises. */
	asm volatile("xchg %%bx, %%bx" ::: "memory");
	marks++;
}

static void fail(const char *what)
{
	fprintf(stderr, "mcs-bench: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY);

	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		fail(path);
	close(fd);
}

static void enter_cgroup(void)
{
	char path[300], pid[32];

	snprintf(cgdir, sizeof(cgdir), CGROOT "/mcs-bench-%d", getpid());
	if (mkdir(cgdir, 0755))
		fail(cgdir);
	snprintf(path, sizeof(path), "%s/cgroup.procs", cgdir);
	snprintf(pid, sizeof(pid), "%d\n", getpid());
	write_file(path, pid);
}

static void leave_cgroup(void)
{
	char pid[32];

	snprintf(pid, sizeof(pid), "%d\n", getpid());
	write_file(CGROOT "/cgroup.procs", pid);
	if (rmdir(cgdir))
		fail(cgdir);
}

/* page-fault */
static void batch_page_fault(long n)
{
	size_t len = (size_t)n * PAGE;
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	long i;

	if (p == MAP_FAILED)
		fail("mmap");
	if (madvise(p, len, MADV_NOHUGEPAGE))
		fail("madvise");
	for (i = 0; i < n; i++)
		((volatile char *)p)[i * PAGE] = 1;
	if (munmap(p, len))
		fail("munmap");
}

/* slab */
static char (*names)[32];

static void batch_slab(long n)
{
	struct stat st;
	long i;
	int fd;

	for (i = 0; i < n; i++) {
		fd = open(names[i], O_CREAT | O_EXCL | O_WRONLY, 0600);
		if (fd < 0)
			fail(names[i]);
		close(fd);
		if (stat(names[i], &st))
			fail("stat");
		if (unlink(names[i]))
			fail("unlink");
	}
}

/* stat-reader */
static char statpath[300];
static char buf[65536];

static void batch_stat_reader(long n)
{
	long i;
	int fd;

	for (i = 0; i < n; i++) {
		fd = open(statpath, O_RDONLY);
		if (fd < 0)
			fail(statpath);
		while (read(fd, buf, sizeof(buf)) > 0)
			;
		close(fd);
	}
}

/* loop: a known instruction count, to check the plugin */
static void batch_loop(long n)
{
	asm volatile("1: dec %0\n\tjnz 1b" : "+r"(n) : : "cc");
}

int main(int argc, char **argv)
{
	void (*batch)(long n);
	long n, k, warmup, i;

	if (argc != 5) {
		fprintf(stderr, "usage: mcs-bench page-fault|slab|stat-reader|loop N K WARMUP\n");
		return 2;
	}
	n = atol(argv[2]);
	k = atol(argv[3]);
	warmup = atol(argv[4]);
	if (n <= 0 || k <= 0 || warmup < 0)
		return 2;

	enter_cgroup();
	if (!strcmp(argv[1], "page-fault")) {
		if (prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0))
			fail("PR_SET_THP_DISABLE");
		batch = batch_page_fault;
	} else if (!strcmp(argv[1], "slab")) {
		snprintf(tmpdir, sizeof(tmpdir), "/tmp/mcs-bench-%d", getpid());
		if (mkdir(tmpdir, 0700) || chdir(tmpdir))
			fail(tmpdir);
		names = calloc(n, sizeof(*names));
		if (!names)
			fail("calloc");
		for (i = 0; i < n; i++)
			snprintf(names[i], sizeof(names[i]), "f%ld", i);
		batch = batch_slab;
	} else if (!strcmp(argv[1], "stat-reader")) {
		snprintf(statpath, sizeof(statpath), "%s/memory.stat", cgdir);
		batch = batch_stat_reader;
	} else if (!strcmp(argv[1], "loop")) {
		batch = batch_loop;
	} else {
		fprintf(stderr, "mcs-bench: unknown workload %s\n", argv[1]);
		return 2;
	}

	for (i = 0; i < warmup; i++)
		batch(n);
	marker();
	for (i = 0; i < k; i++) {
		batch(n);
		marker();
	}

	if (names && (chdir("/") || rmdir(tmpdir)))
		fail(tmpdir);
	leave_cgroup();
	printf("BENCH wl=%s n=%ld k=%ld marks=%d\n", argv[1], n, k, marks);
	return 0;
}
