// SPDX-License-Identifier: GPL-2.0
/*
 * mark_delegated: mark a cgroup the way systemd marks one it delegates
 * (Delegate=yes): the extended attribute trusted.delegate = "1". The guest
 * has no systemd and busybox has no setfattr; tool_test.sh uses this to
 * check that memcg-statctl builds its groups below a delegated cgroup it
 * runs in.
 *
 * usage: mark_delegated CGROUP_DIR
 */
#include <stdio.h>
#include <sys/xattr.h>

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: mark_delegated CGROUP_DIR\n");
		return 2;
	}
	if (setxattr(argv[1], "trusted.delegate", "1", 1, 0)) {
		perror(argv[1]);
		return 1;
	}
	return 0;
}
