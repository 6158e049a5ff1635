#!/bin/bash
# experiment.sh NAME [KVER]: boot Debian's stock kernel KVER (default 6.1)
# with the module and the tool, run `memcg-statctl experiment NAME` in it
# (job-experiment.sh) and print the experiment's output. Extra options for
# the tool come from MCS_EXPERIMENT_ARGS (e.g. "--runs 8 --duration 3").
# The result files the guest wrote (/tmp/experiment-NAME*: the JSON, the
# plots) come back over the console into build/experiments/NAME/, replacing
# the previous run's, also when the experiment failed part way (a run that
# wrote none leaves the previous run's files there).
# Exits non-zero when the guest did not finish, the experiment failed or its
# files did not arrive; a seed direction that was not reproduced is a
# result, not a failure.
source "$(dirname "$0")/lib.sh"

name=${1:?usage: experiment.sh NAME [KVER] (NAME: update-flush reader-flush flush-threshold objstock readtwice staleness)}
kver=${2:-6.1}
case "$name" in
update-flush | reader-flush | flush-threshold | objstock | readtwice | staleness) ;;
*) die "unknown experiment '$name' (update-flush reader-flush flush-threshold objstock readtwice staleness)" ;;
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
results=$MCS_BUILD/experiments/$name
booted=0
"$MCS_ROOT/scripts/vm-boot.sh" "$kver" "$work/initramfs-$name.cpio.gz" "$log" \
	>/dev/null || booted=$?
console_job_output "$log"
# job-experiment.sh sends its result files even when the experiment failed.
received=0
if files=$(console_receive_files "$log" "$results" "experiment-$name"); then
	received=1
	if [ -n "$files" ]; then
		log "result files in $results/:"
		while IFS= read -r f; do
			printf '  %s\n' "$results/$f"
		done <<<"$files" >&2
	else
		log "the experiment wrote no result files; $results/ is left as it was"
	fi
fi
[ "$booted" -eq 0 ] || die "the guest did not finish: see $log"
if ! grep -q '=== MCS-GUEST-DONE rc=0 ===' "$log"; then
	[ "$received" -eq 1 ] && [ -n "$files" ] &&
		log "the files in $results/ are what the experiment wrote before it failed"
	die "experiment $name failed in the guest: see $log"
fi
[ "$received" -eq 1 ] || die "the result files did not reach the host: see $log"
