#!/bin/busybox sh
# shellcheck shell=dash  # busybox ash, as close to dash as shellcheck knows
# /init of the test guest: mount what the module and the tests need, run
# /job.sh, print the kernel log between markers the host parses, power off.
/bin/busybox --install -s /bin
export PATH=/bin:/sbin:/usr/bin:/usr/sbin

mkdir -p /proc /sys /dev /tmp /run
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t debugfs debugfs /sys/kernel/debug
mount -t tracefs tracefs /sys/kernel/tracing
mount -t cgroup2 cgroup2 /sys/fs/cgroup
mount -t tmpfs tmpfs /tmp
echo +memory > /sys/fs/cgroup/cgroup.subtree_control
# Keep the console for the job's output: only errors and worse go to it
# while the job runs; the whole kernel log is printed at the end.
echo 4 > /proc/sys/kernel/printk

echo "=== MCS-GUEST-START $(uname -r) nproc=$(nproc) ==="
sh /job.sh
rc=$?
echo "=== MCS-DMESG-BEGIN ==="
dmesg
echo "=== MCS-DMESG-END ==="
echo "=== MCS-GUEST-DONE rc=$rc ==="
sync
poweroff -f
