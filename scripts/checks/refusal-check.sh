#!/bin/bash
# refusal-check.sh [KVER]: the module refuses to load on a kernel without
# what it needs, cleanly: boot Debian's kernel KVER (default 6.1) with the
# memory controller disabled (cgroup_disable=memory, a real configuration
# of a supported kernel) and run scripts/guest/job-refusal.sh there: insmod
# must fail with one kernel log line naming what is missing. tap-check.sh
# judges the TAP and the rest of the kernel log.
source "$(dirname "$0")/../lib.sh"

kver=$(kernel_name "${1:-6.1}" "${MCS_FLAVOUR:-}")
work=$MCS_BUILD/refusal-$kver
mkdir -p "$work"
hold_lock "$work.lock" "refusal check on $kver in $work"
"$MCS_ROOT/scripts/vm/guest-stage.sh" "$kver" "$MCS_ROOT/scripts/guest/job-refusal.sh" \
	"$work/initramfs.cpio.gz"
MCS_VM_APPEND="cgroup_disable=memory ${MCS_VM_APPEND:-}" \
	"$MCS_ROOT/scripts/vm/vm-boot.sh" "$kver" "$work/initramfs.cpio.gz" \
	"$work/console.log" || true
rc=0
"$MCS_ROOT/scripts/vm/tap-check.sh" "$work/console.log" || rc=$?
log "refusal-check $kver: ${SECONDS}s in all"
exit "$rc"
