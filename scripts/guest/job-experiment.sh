#!/bin/sh
# /job.sh of `make experiment NAME=...`: scripts/experiment.sh writes a copy of
# this file under build/ with EXP_NAME (the recipe), EXP_ARGS (extra
# options, from MCS_EXPERIMENT_ARGS) and EXP_INSN_TTY (the serial port on
# which QEMU's insn-marker plugin replies, when it runs) set in place of the
# lines below.
# Its result files go back to the host over the console at the end, also
# when the experiment failed (experiment.sh unpacks them).
EXP_NAME=${EXP_NAME:-update-flush}
EXP_ARGS=${EXP_ARGS:-}
EXP_INSN_TTY=${EXP_INSN_TTY:-}
set -e
insmod /lib/memcg_statctl.ko

# refault and readtwice need a block-device file system (tmpfs pages cannot be
# reclaimed without swap): ext4 on zram, or on a loop device over a file in
# /tmp when zram cannot start (its compressor missing from the initramfs).
fsdev=
if modprobe zram 2>/dev/null && echo 1G >/sys/block/zram0/disksize 2>/dev/null; then
	fsdev=/dev/zram0
else
	modprobe loop
	truncate -s 1G /tmp/experiment.img
	fsdev=$(losetup -f)
	losetup "$fsdev" /tmp/experiment.img
fi
# ext4's checksums: until 6.x it finds crc32c through the crypto API, which
# modprobe does not load with it: crc32c_generic first. 7.x calls the crc32c
# library, a dependency modprobe follows, and has no crc32c_generic.
modprobe crc32c_generic 2>/dev/null || [ "$(uname -r | cut -d. -f1)" -ge 7 ] ||
	modprobe crc32c_generic
modprobe ext4
# Inode tables and journal written now, not by ext4's lazy-init thread after
# mount: that thread paces itself by wall time, so its work would land in
# some runs' instruction counts and not in others'.
mke2fs -q -E lazy_itable_init=0,lazy_journal_init=0 "$fsdev" >/dev/null 2>&1 ||
	mke2fs "$fsdev" >/dev/null
mkdir -p /mnt/experiment
mount -t ext4 "$fsdev" /mnt/experiment
echo "scratch file system: ext4 on $fsdev at /mnt/experiment"

cd /tmp
if [ -n "$EXP_INSN_TTY" ]; then
	# The tool counts each run's window in guest instructions (insn_counter.h).
	export MEMCG_STATCTL_INSN_TTY="$EXP_INSN_TTY"
	echo "guest instructions: counted by QEMU, read back on $EXP_INSN_TTY; $(nproc) cpus"
fi
rc=0
# shellcheck disable=SC2086  # EXP_ARGS is a list of options
memcg-statctl experiment "$EXP_NAME" --dir /mnt/experiment \
	--output "/tmp/experiment-$EXP_NAME.json" --plot "/tmp/experiment-$EXP_NAME.svg" $EXP_ARGS ||
	rc=$?
# Every result file, /tmp/experiment-NAME*, goes to the host over the
# console (the guest shares no file system with it; experiment.sh unpacks
# them into build/experiments/NAME/), also when the experiment failed: what
# it wrote before failing is a partial result.
set -- /tmp/experiment-"$EXP_NAME"*
[ -e "$1" ] || set --
if [ $# -gt 0 ]; then ls -l "$@"; else echo "no result files"; fi
if ! mcs-send-files "experiment-$EXP_NAME" "$@"; then
	[ "$rc" -ne 0 ] || rc=1
fi
umount /mnt/experiment || true
exit "$rc"
