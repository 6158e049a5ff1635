#!/bin/bash
# top-cost.sh [KVER]: what `memcg-statctl top` itself costs (make bench-top).
# Boots Debian's kernel KVER (default 6.1, as make; MCS_FLAVOUR=F: the row KVER-F
# of scripts/kernels/kernels.tsv) with MCS_TOP_CPUS vCPUs (default 8) and
# runs scripts/guest/job-top-cost.sh: MCS_TOP_CGROUPS cgroups (default
# 100) with unflushed updates, MCS_TOP_REFRESHES refreshes (default 30) of
# top at a 1 s interval, and the CPU time the tool used. Under TCG every
# figure is the emulated machine's: compare them with each other (more
# cgroups, another kernel) more than with a real machine's.
source "$(dirname "$0")/../lib.sh"

kver=$(kernel_name "${1:-6.1}" "${MCS_FLAVOUR:-}")
cpus=${MCS_TOP_CPUS:-8}
cgroups=${MCS_TOP_CGROUPS:-100}
refreshes=${MCS_TOP_REFRESHES:-30}
for v in cpus:"$cpus" cgroups:"$cgroups" refreshes:"$refreshes"; do
	[[ "${v#*:}" =~ ^[1-9][0-9]{0,3}$ ]] ||
		die "MCS_TOP_${v%%:*} must be a number from 1 to 9999 (got '${v#*:}')"
done
[ "$cpus" -le 64 ] || die "MCS_TOP_CPUS must be at most 64 (got $cpus)"
work=$MCS_BUILD/bench-top-$kver
mkdir -p "$work"
hold_lock "$work.lock" "bench-top on $kver in $work"
[ -x "$MCS_BUILD/userspace/memcg-statctl" ] ||
	die "build the tool first: make userspace"
job=$work/job.sh
{
	echo '#!/bin/sh'
	echo "TOP_CGROUPS=$cgroups"
	echo "TOP_REFRESHES=$refreshes"
	grep -v -e '^#!' -e '^TOP_CGROUPS=' -e '^TOP_REFRESHES=' \
		"$MCS_ROOT/scripts/guest/job-top-cost.sh"
} >"$job"
"$MCS_ROOT/scripts/vm/guest-stage.sh" "$kver" "$job" "$work/initramfs.cpio.gz"
MCS_VM_SMP=$cpus "$MCS_ROOT/scripts/vm/vm-boot.sh" "$kver" "$work/initramfs.cpio.gz" \
	"$work/console.log" >/dev/null
console_job_output "$work/console.log"
grep -q '=== MCS-GUEST-DONE rc=0 ===' "$work/console.log" ||
	die "the top-cost job failed: see $work/console.log"
