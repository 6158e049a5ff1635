#!/bin/bash
# experiment.sh NAME [KVER]: boot Debian's kernel KVER (default 6.1;
# MCS_FLAVOUR=F: the row KVER-F of scripts/kernels/kernels.tsv)
# with the module and the tool, run `memcg-statctl experiment NAME` in it
# (job-experiment.sh) and print the experiment's output. Extra options for
# the tool come from MCS_EXPERIMENT_ARGS (e.g. "--runs 8 --duration 3").
# The guest has MCS_EXPERIMENT_CPUS vCPUs (default 8; single-threaded TCG
# runs them in turn, so more vCPUs cost boot time, not run time) so that the
# per-cpu work of flushing shows. Unless MCS_EXPERIMENT_INSNS=0, QEMU runs
# with the insn-marker plugin (scripts/bench/plugin-build.sh) under
# single-threaded TCG (MCS_TCG_ACCEL, scripts/lib.sh; also where KVM works,
# since no plugin runs under KVM), whose instruction counts reach the guest
# on its second serial port (ttyS1, a FIFO pair under build/): the tool
# counts every run's window in guest instructions and a verdict on a
# throughput rests on those counts.
# The result files the guest wrote (/tmp/experiment-NAME*: the JSON, the
# plots) come back over the console into MCS_EXPERIMENT_OUT (default
# build/experiments/NAME/), replacing the previous run's, also when the
# experiment failed part way (a run that wrote none leaves the previous
# run's files there).
# Exits non-zero when the guest did not finish, the experiment failed or its
# files did not arrive; a report's direction (docs/background.md) that was
# not reproduced is a result, not a failure.
source "$(dirname "$0")/lib.sh"

name=${1:?usage: experiment.sh NAME [KVER] (NAME: update-flush reader-flush flush-threshold objstock readtwice staleness)}
kver=$(kernel_name "${2:-6.1}" "${MCS_FLAVOUR:-}")
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
cpus=${MCS_EXPERIMENT_CPUS:-8}
[[ "$cpus" =~ ^[0-9]+$ ]] && [ "$cpus" -ge 1 ] && [ "$cpus" -le 64 ] ||
	die "MCS_EXPERIMENT_CPUS must be a number of vCPUs, 1..64 (got '$cpus')"
results=${MCS_EXPERIMENT_OUT:-$MCS_BUILD/experiments/$name}
[[ "$results" == /* ]] || die "MCS_EXPERIMENT_OUT must be an absolute directory (got '$results')"
count_insns=${MCS_EXPERIMENT_INSNS:-1}
case "$count_insns" in
0 | 1) ;;
*) die "MCS_EXPERIMENT_INSNS must be 0 or 1 (got '$count_insns')" ;;
esac

work=$MCS_BUILD/experiment-$kver
mkdir -p "$work"
hold_lock "$work/$name.lock" "experiment $name on $kver in $work"
job=$work/job-$name.sh
# The guest job with the recipe's name filled in.
{
	echo '#!/bin/sh'
	echo "EXP_NAME='$name'"
	echo "EXP_ARGS='$args'"
	[ "$count_insns" = 1 ] && echo "EXP_INSN_TTY='/dev/ttyS1'"
	grep -v -e '^#!' -e '^EXP_NAME=' -e '^EXP_ARGS=' -e '^EXP_INSN_TTY=' \
		"$MCS_ROOT/scripts/guest/job-experiment.sh"
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
	"$MCS_ROOT/scripts/vm/guest-stage.sh" "$kver" "$job" "$work/initramfs-$name.cpio.gz"
log="$work/console-$name.log"
qemu_extra=
accel=${MCS_VM_ACCEL:-}
if [ "$count_insns" = 1 ]; then
	accel=$MCS_TCG_ACCEL
	plugin=$("$MCS_ROOT/scripts/bench/plugin-build.sh")
	# QEMU reads the guest's ttyS1 input from PORT.in (where the plugin
	# writes its replies) and writes its output to PORT.out.
	port=$work/insn-$name
	rm -f "$port.in" "$port.out"
	mkfifo "$port.in" "$port.out"
	qemu_extra="-serial pipe:$port -plugin $plugin,out=$work/marks-$name.txt,reply=$port.in"
fi
booted=0
MCS_VM_SMP=$cpus MCS_VM_QEMU_EXTRA=$qemu_extra MCS_VM_ACCEL=$accel \
	"$MCS_ROOT/scripts/vm/vm-boot.sh" "$kver" "$work/initramfs-$name.cpio.gz" "$log" \
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
