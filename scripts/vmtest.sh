#!/bin/bash
# vmtest.sh [KVER]: run the kernel-side tests of memcg_statctl in a guest
# booting Debian's stock kernel KVER (default 6.1), print their TAP, and
# fail on any failed or missing test or a kernel log that shows a bug.
source "$(dirname "$0")/lib.sh"

kver=${1:-6.1}
work=$MCS_BUILD/vm-$kver
mkdir -p "$work"
start=$(date +%s)

"$MCS_ROOT/scripts/guest-stage.sh" "$kver" "$MCS_ROOT/scripts/job-selftests.sh" \
	"$work/initramfs.cpio.gz"
"$MCS_ROOT/scripts/vm-boot.sh" "$kver" "$work/initramfs.cpio.gz" "$work/console.log" || true
rc=0
"$MCS_ROOT/scripts/tap-check.sh" "$work/console.log" || rc=$?
log "vmtest $kver: $(($(date +%s) - start))s in all, console log in $work/console.log"
exit "$rc"
