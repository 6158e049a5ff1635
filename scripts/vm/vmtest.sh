#!/bin/bash
# vmtest.sh [KVER]: run the kernel-side tests of memcg_statctl in a guest
# booting Debian's kernel KVER (a row of scripts/kernels/kernels.tsv;
# default 6.1), print their TAP, and fail on any failed or missing test or a
# kernel log that shows a bug.
# MCS_FLAVOUR=F boots the row KVER-F instead (make vmtest FLAVOUR=F; empty:
# the stock kernel). MCS_TESTS="NAME..." runs only those programs of the
# suite (make vmtest TESTS=...), for working on one test. The selftests'
# MEMCG_STATCTL_* settings in the environment reach the guest's tests.
# MCS_VM_PART: see below.
source "$(dirname "$0")/../lib.sh"

kver=$(kernel_name "${1:-6.1}" "${MCS_FLAVOUR:-}")
# MCS_VM_PART=P: a guest of its own (build/vm-KVER-P), so that two parts of
# one kernel's suite run side by side (make check-quick).
part=${MCS_VM_PART:-}
[[ "$part" =~ ^[a-z0-9]*$ ]] || die "MCS_VM_PART must be letters and digits (got '$part')"
work=$MCS_BUILD/vm-$kver${part:+-$part}
mkdir -p "$work"
hold_lock "$work.lock" "vmtest $kver in $work"
start=$(date +%s)

# The subset goes to the guest as a file, /selftests-args: run_tests.sh's
# arguments (job-selftests.sh); without it the guest runs tests.list.
extra=()
if [ -n "${MCS_TESTS:-}" ]; then
	echo "$MCS_TESTS" >"$work/selftests-args"
	extra+=("$work/selftests-args=/selftests-args")
fi
# The selftests' own settings (MEMCG_STATCTL_STRESS_S, ...) set here reach
# the guest's tests too, as /selftests-env.
selftests_env "$work/selftests-env"
extra+=("$work/selftests-env=/selftests-env")
MCS_GUEST_BPFTRACE=1 "$MCS_ROOT/scripts/vm/guest-stage.sh" "$kver" "$MCS_ROOT/scripts/guest/job-selftests.sh" \
	"$work/initramfs.cpio.gz" "${extra[@]}"
# The whole suite takes 15 to 25 minutes under TCG beside another guest
# (bpf_share_test's storm alone 10 to 15 of `make vmtest`'s): a watchdog of
# an hour, against vm-boot.sh's default of 25 minutes.
MCS_VM_TIMEOUT=${MCS_VM_TIMEOUT:-3600} \
	"$MCS_ROOT/scripts/vm/vm-boot.sh" "$kver" "$work/initramfs.cpio.gz" "$work/console.log" || true
rc=0
"$MCS_ROOT/scripts/vm/tap-check.sh" "$work/console.log" || rc=$?
"$MCS_ROOT/scripts/vm/kmemleak-check.sh" "$work/console.log" "$kver" || rc=1
log "vmtest $kver${part:+ part $part}: $(($(date +%s) - start))s in all, console log in $work/console.log"
exit "$rc"
