#!/bin/bash
# demo.sh [KVER]: boot Debian's kernel KVER (default 6.1; MCS_FLAVOUR=F:
# the row KVER-F of scripts/kernels/kernels.tsv) with the
# module and the tool, and show the tool at work (job-demo.sh). Exits
# non-zero when the guest did not finish or the demo job failed.
source "$(dirname "$0")/lib.sh"

kver=$(kernel_name "${1:-6.1}" "${MCS_FLAVOUR:-}")
work=$MCS_BUILD/demo-$kver
mkdir -p "$work"
hold_lock "$work.lock" "demo on $kver in $work"
[ -x "$MCS_BUILD/userspace/memcg-statctl" ] ||
	die "build the tool first: make userspace"
"$MCS_ROOT/scripts/vm/guest-stage.sh" "$kver" "$MCS_ROOT/scripts/guest/job-demo.sh" \
	"$work/initramfs.cpio.gz"
"$MCS_ROOT/scripts/vm/vm-boot.sh" "$kver" "$work/initramfs.cpio.gz" \
	"$work/console.log" >/dev/null
# The job's own output, without the kernel log and the file block.
console_job_output "$work/console.log"
grep -q '=== MCS-GUEST-DONE rc=0 ===' "$work/console.log" ||
	die "the demo job failed: see $work/console.log"
for f in $(console_receive_files "$work/console.log" "$work/results" demo); do
	echo "results file: $work/results/$f"
done
