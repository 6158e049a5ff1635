#!/bin/bash
# experiment.sh NAME [KVER]: boot Debian's stock kernel KVER (default 6.1)
# with the module and the tool, run `memcg-statctl experiment NAME` in it
# (job-experiment.sh) and print the experiment's output. Extra options for
# the tool come from MCS_EXPERIMENT_ARGS (e.g. "--runs 8 --duration 3").
# Exits non-zero when the guest did not finish or the experiment failed; a
# seed direction that was not reproduced is a result, not a failure.
source "$(dirname "$0")/lib.sh"

name=${1:?usage: experiment.sh NAME [KVER] (NAME: update-flush reader-flush flush-threshold objstock readtwice)}
kver=${2:-6.1}
case "$name" in
update-flush | reader-flush | flush-threshold | objstock | readtwice) ;;
*) die "unknown experiment '$name' (update-flush reader-flush flush-threshold objstock readtwice)" ;;
esac
args=${MCS_EXPERIMENT_ARGS:-}
case "$args" in
*\'* | *\\*) die "MCS_EXPERIMENT_ARGS must not contain quotes or backslashes" ;;
esac
[ -x "$MCS_BUILD/userspace/memcg-statctl" ] ||
	die "build the tool first: make userspace"

work=$MCS_BUILD/experiment-$kver
mkdir -p "$work"
job=$work/job-$name.sh
# The guest job with the recipe's name filled in.
{
	echo '#!/bin/sh'
	echo "EXP_NAME='$name'"
	echo "EXP_ARGS='$args'"
	grep -v -e '^#!' -e '^EXP_NAME=' -e '^EXP_ARGS=' "$MCS_ROOT/scripts/job-experiment.sh"
} >"$job"
# Debian's /usr/bin/gnuplot is an alternatives symlink, which the initramfs
# would carry as a dangling link: offer guest-stage.sh the real binary.
if gp=$(command -v gnuplot); then
	mkdir -p "$work/bin"
	cp -L "$gp" "$work/bin/gnuplot"
	PATH=$work/bin:$PATH
fi
# ext4 checksums its metadata with crc32c, a module it does not depend on.
MCS_GUEST_KMODS="loop ext4 zram crc32c_generic" \
	"$MCS_ROOT/scripts/guest-stage.sh" "$kver" "$job" "$work/initramfs-$name.cpio.gz"
log="$work/console-$name.log"
booted=0
"$MCS_ROOT/scripts/vm-boot.sh" "$kver" "$work/initramfs-$name.cpio.gz" "$log" \
	>/dev/null || booted=$?
# The job's own output, without the kernel log.
sed -n '/=== MCS-GUEST-START/,/=== MCS-DMESG-BEGIN/p' "$log" | sed '1d;$d'
[ "$booted" -eq 0 ] || die "the guest did not finish: see $log"
grep -q '=== MCS-GUEST-DONE rc=0 ===' "$log" ||
	die "experiment $name failed in the guest: see $log"
