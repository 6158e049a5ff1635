// SPDX-License-Identifier: GPL-2.0
/*
 * fault_loop: a small page-fault benchmark, the "user's command" of
 * tool_test.sh's `run`/`sweep ... -- CMD` tests. Maps MIB MiB of anonymous
 * memory, touches every page (one fault and one memcg charge each: no
 * transparent huge pages, which Debian's kernels enable always), unmaps,
 * ITERATIONS times; then prints what it did and its rate the way
 * will-it-scale does ("average: N"), for `--metric`.
 *
 * usage: fault_loop MIB ITERATIONS
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	long page = sysconf(_SC_PAGESIZE);
	unsigned long mib, iterations, i, faults = 0;
	double start, seconds;
	size_t len, off;
	char *p;

	if (argc != 3 || (mib = strtoul(argv[1], NULL, 10)) == 0 ||
	    (iterations = strtoul(argv[2], NULL, 10)) == 0) {
		fprintf(stderr, "usage: fault_loop MIB ITERATIONS\n");
		return 2;
	}
	len = mib << 20;
	start = now();
	for (i = 0; i < iterations; i++) {
		p = mmap(NULL, len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED) {
			perror("mmap");
			return 1;
		}
		madvise(p, len, MADV_NOHUGEPAGE);
		for (off = 0; off < len; off += page, faults++)
			p[off] = 1;
		munmap(p, len);
	}
	seconds = now() - start;
	printf("faults: %lu\n", faults);
	printf("seconds: %.3f\n", seconds);
	printf("average: %.1f\n", seconds > 0 ? faults / seconds : 0.0);
	return 0;
}
