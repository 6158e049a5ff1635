#!/bin/sh
# /job.sh of the Debian package test guest (scripts/checks/deb-check.sh):
# mount the Debian root on /dev/vda (debian-root.sh), run
# /root/mcs/deb-steps.sh in it as root, then send the transcripts it wrote
# (/root/mcs/out/) to the host.
. /debian-root.sh
r=/newroot
root_mount "$r" || exit 1
root_run "$r" /root/mcs/deb-steps.sh
rc=$?
mcs-send-files deb-transcripts "$r"/root/mcs/out/*
root_umount "$r"
exit "$rc"
