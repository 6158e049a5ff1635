#!/bin/sh
# /job.sh of scripts/checks/refusal-check.sh: the guest was booted with
# cgroup_disable=memory. insmod must fail, leave no module behind and add
# one line of the module's own to the kernel log, naming the disabled
# memory controller (TAP 13).
ko=/lib/memcg_statctl.ko
n=0
failed=0
t() { # t STATUS DESCRIPTION
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		failed=$((failed + 1))
	fi
}

echo "TAP version 13"
grep -qw memory /sys/fs/cgroup/cgroup.controllers
t $((! $?)) "the memory controller is disabled (not in cgroup.controllers)"

before=$(dmesg | wc -l)
insmod "$ko" 2>/tmp/insmod.err
rc=$?
sed 's/^/# insmod: /' /tmp/insmod.err
[ "$rc" -ne 0 ]
t $? "insmod fails (exit $rc)"
[ ! -e /sys/module/memcg_statctl ]
t $? "no memcg_statctl in /sys/module"
[ ! -e /sys/kernel/debug/memcg_statctl ]
t $? "no memcg_statctl in debugfs"

# The new kernel log lines, less the kernel's own notices on loading an
# unsigned out-of-tree module (printed before the module's code runs).
dmesg | tail -n +$((before + 1)) | sed 's/^\[[ 0-9.]*\] //' |
	grep -v -e 'loading out-of-tree module taints kernel' \
		-e 'module verification failed: signature' >/tmp/new
sed 's/^/# new kernel log line: /' /tmp/new
# busybox's insmod tries finit_module() and, when that fails for any
# reason, init_module() with the same file: the module's init runs twice,
# so one line of its own per attempt, the same line.
[ "$(sort -u /tmp/new | wc -l)" -eq 1 ] && [ "$(wc -l </tmp/new)" -le 2 ]
t $? "one kernel log line per load attempt ($(wc -l </tmp/new) for busybox's two)"
grep -q '^memcg_statctl: .*memory controller is disabled' /tmp/new
t $? "it is the module's and names the disabled memory controller"

echo "1..$n"
[ "$failed" -eq 0 ]
