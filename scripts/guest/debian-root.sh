#!/bin/sh
# Sourced by the guest jobs that boot a Debian root from /dev/vda
# (job-readme.sh, job-deb.sh), staged as /debian-root.sh in their
# initramfs. The root gets the file systems a booted Debian 12 has (systemd
# mounts the same); scripts run in it as root, in a clean environment.

# root_mount DIR: /dev/vda on DIR, and the file systems inside it.
root_mount() {
	r=$1
	# ext4 needs crc32c through a soft dependency modprobe does not follow.
	for m in virtio_pci virtio_blk crc32c_generic ext4; do modprobe "$m" 2>/dev/null; done
	i=0
	while [ ! -b /dev/vda ] && [ "$i" -lt 30 ]; do sleep 1; i=$((i + 1)); done
	mkdir -p "$r"
	mount -t ext4 /dev/vda "$r" || { echo "# cannot mount /dev/vda"; return 1; }
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
}

# root_run DIR SCRIPT [ARG...]: bash SCRIPT in the root, as root; its status.
root_run() {
	r=$1
	shift
	chroot "$r" /usr/bin/env -i HOME=/root TERM=dumb \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		/bin/bash "$@"
}

# root_umount DIR: everything root_mount mounted, written back.
root_umount() {
	r=$1
	for m in sys/fs/cgroup sys/kernel/tracing sys/kernel/debug sys/kernel/security \
		run dev/shm dev/pts dev sys proc; do
		umount "$r/$m"
	done
	sync
	umount "$r"
}
