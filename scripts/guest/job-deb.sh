#!/bin/sh
# /job.sh of the Debian package test guest (scripts/checks/deb-check.sh):
# mount the Debian root on /dev/vda with the file systems a booted Debian
# 12 has (as job-readme.sh does), run /root/mcs/deb-steps.sh in it as root,
# then send the transcripts it wrote (/root/mcs/out/) to the host.
for m in virtio_pci virtio_blk crc32c_generic ext4; do modprobe "$m" 2>/dev/null; done
i=0
while [ ! -b /dev/vda ] && [ "$i" -lt 30 ]; do sleep 1; i=$((i + 1)); done
r=/newroot
mkdir -p "$r"
mount -t ext4 /dev/vda "$r" || { echo "# cannot mount /dev/vda"; exit 1; }
mount -t proc proc "$r/proc"
mount -t sysfs sysfs "$r/sys"
mount -t devtmpfs devtmpfs "$r/dev"
# What udev adds to /dev and bash's process substitution (dkms) needs.
ln -s /proc/self/fd "$r/dev/fd"
ln -s /proc/self/fd/0 "$r/dev/stdin"
ln -s /proc/self/fd/1 "$r/dev/stdout"
ln -s /proc/self/fd/2 "$r/dev/stderr"
mkdir -p "$r/dev/pts" "$r/dev/shm"
mount -t devpts devpts "$r/dev/pts"
mount -t tmpfs tmpfs "$r/dev/shm"
mount -t tmpfs tmpfs "$r/run"
mount -t securityfs securityfs "$r/sys/kernel/security"
mount -t debugfs debugfs "$r/sys/kernel/debug"
mount -t tracefs tracefs "$r/sys/kernel/tracing"
mount -t cgroup2 cgroup2 "$r/sys/fs/cgroup"
chroot "$r" /usr/bin/env -i HOME=/root TERM=dumb \
	PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
	/bin/bash /root/mcs/deb-steps.sh
rc=$?
mcs-send-files deb-transcripts "$r"/root/mcs/out/*
for m in sys/fs/cgroup sys/kernel/tracing sys/kernel/debug sys/kernel/security \
	run dev/shm dev/pts dev sys proc; do
	umount "$r/$m"
done
sync
umount "$r"
exit "$rc"
