#!/bin/sh
# /job.sh of the install-doc test guest (readme-check.sh): mount the Debian
# root on /dev/vda (debian-root.sh) and run readme-steps.sh in it as root.
# /readme.env gives MCS_SRC, the repository's path inside the root.
. /readme.env
. /debian-root.sh
r=/newroot
root_mount "$r" || exit 1
root_run "$r" "$MCS_SRC/scripts/guest/readme-steps.sh" "$MCS_SRC"
rc=$?
root_umount "$r"
exit "$rc"
