#!/bin/bash
# kselftest-check.sh [KVER]: the selftests as a kselftest package, in a
# guest booting Debian's KVER (default 6.1). Builds the package on the host
# (scripts/kernels/ksft-package.sh: a kernel tree's `make TARGETS=memcg_statctl
# gen_tar`, with the module built for KVER inside), boots it with the
# guest job scripts/guest/job-kselftest.sh, and judges what kselftest's own
# run_kselftest.sh printed:
#   - without the module (the package's .ko removed, no DKMS): every test
#     "ok ... # SKIP" (the runner says so only for exit status 4), one
#     program run on its own exits 4;
#   - with it: every test "ok", none skipped, none failed, as many results
#     as the plan, and a kernel log without a bug (scripts/vm/tap-check.sh);
#   - each program's own TAP (its plan) in the runner's output;
#   - run_kselftest.sh's exit status 0 both times (the 6.1 runner exits 0
#     whatever the tests did: the TAP lines are the verdict).
# The guest has /usr/bin/timeout (GNU, the runner uses it for `settings`),
# the memcg-statctl tool (build/userspace, as a machine would have it
# installed) and jq, for tool_test.sh.
# MCS_TESTS="NAME..." runs only those tests (run_kselftest.sh -t).
# MCS_KSFT_RUNS="nomod" makes only the run without the module (`make
# check`, whose 6.1 run with the module is the installed kselftests of the
# Debian packages, scripts/checks/deb-check.sh); default "nomod full".
source "$(dirname "$0")/../lib.sh"

kver=$(kernel_name "${1:-6.1}")
# Without jq in the guest tool_test.sh's JSON tests would skip, and the run
# with the module would still count tool_test.sh as passed.
jq=$(command -v jq) || die "jq is not installed: the guest's tool_test.sh needs it (make deps installs it)"
work=$MCS_BUILD/kselftest-$kver
mkdir -p "$work"
hold_lock "$work.lock" "kselftest check on $kver in $work"
start=$(date +%s)

pkg=$("$MCS_ROOT/scripts/kernels/ksft-package.sh" "$kver")
list=$(tar -xzOf "$pkg" ./kselftest-list.txt)
args=()
for t in ${MCS_TESTS:-}; do
	grep -qx "memcg_statctl:$t" <<<"$list" ||
		die "MCS_TESTS: no test '$t' in the package ($(cut -d: -f2 <<<"$list" | paste -sd' '))"
	args+=(-t "memcg_statctl:$t")
done
echo "${args[*]}" >"$work/ksft-args"
runs=${MCS_KSFT_RUNS:-nomod full}
for run in $runs; do
	case $run in nomod | full) ;; *) die "MCS_KSFT_RUNS: '$run' is not nomod or full" ;; esac
done
echo "$runs" >"$work/ksft-runs"
expected=$(if [ ${#args[@]} -gt 0 ]; then echo $((${#args[@]} / 2)); else wc -l <<<"$list"; fi)

files=("$pkg=/kselftest.tar.gz" "$work/ksft-args=/ksft-args" "$work/ksft-runs=/ksft-runs")
files+=("$(command -v timeout)=/usr/bin/timeout")
tool=$MCS_BUILD/userspace/memcg-statctl
if [ -x "$tool" ]; then
	files+=("$tool=/usr/bin/memcg-statctl")
else
	log "no $tool ('make userspace' builds it): tool_test.sh will skip, and so fail the check"
fi
files+=("$jq=/usr/bin/jq")
"$MCS_ROOT/scripts/kernels/kernel-fetch.sh" "$kver" >&2
MCS_GUEST_KMODS=${MCS_GUEST_KMODS-"loop ext4 zram crc32c_generic"} \
	"$MCS_ROOT/scripts/vm/initramfs.sh" "$work/initramfs.cpio.gz" \
	"$MCS_ROOT/scripts/guest/job-kselftest.sh" "$kver" "${files[@]}"
"$MCS_ROOT/scripts/vm/vm-boot.sh" "$kver" "$work/initramfs.cpio.gz" "$work/console.log" >/dev/null || true

fail=0
bad() { log "FAIL: $*"; fail=1; }
job=$(console_job_output "$work/console.log" | tr -d '\r')
# section RUN: the top-level lines run_kselftest.sh printed in run RUN
section() {
	sed -n "/^=== KSFT-RUN-BEGIN $1 ===\$/,/^=== KSFT-RUN-END $1 /p" <<<"$job" |
		grep -v '^#'
}
for run in $runs; do
	s=$(section "$run")
	rc=$(sed -n "s/^=== KSFT-RUN-END $run rc=\([0-9]*\) ===\$/\1/p" <<<"$s")
	plan=$(grep -E '^1\.\.[0-9]+$' <<<"$s" | sed 's/^1\.\.//')
	ok=$(grep -cE '^ok [0-9]+ selftests: memcg_statctl: ' <<<"$s" || true)
	skip=$(grep -cE '^ok [0-9]+ selftests: memcg_statctl: .* # SKIP$' <<<"$s" || true)
	notok=$(grep -cE '^not ok [0-9]+ ' <<<"$s" || true)
	log "run $run: plan 1..${plan:-?}, $((ok - skip)) ok, $skip skipped, $notok not ok, run_kselftest.sh exit ${rc:-none}"
	[ -n "$rc" ] || { bad "run $run did not finish"; continue; }
	[ "$rc" = 0 ] || bad "run $run: run_kselftest.sh exited $rc"
	[ "${plan:-0}" = "$expected" ] || bad "run $run: plan 1..${plan:-?}, expected 1..$expected"
	[ $((ok + notok)) = "$expected" ] || bad "run $run: $((ok + notok)) results, expected $expected"
	# each program's own TAP plan, which the runner prefixes with "# "
	inner=$(sed -n "/^=== KSFT-RUN-BEGIN $run ===\$/,/^=== KSFT-RUN-END $run /p" <<<"$job" |
		grep -cE '^# 1\.\.[0-9]+' || true)
	[ "$inner" = "$expected" ] || bad "run $run: the output of $inner of $expected programs reached the console"
	if [ "$run" = nomod ] && { [ "$skip" != "$expected" ] || [ "$notok" != 0 ]; }; then
		bad "without the module every test must skip: $(grep -E '^(not )?ok ' <<<"$s" | grep -v '# SKIP$' | paste -sd';')"
	elif [ "$run" = full ] && { [ "$skip" != 0 ] || [ "$notok" != 0 ]; }; then
		bad "with the module every test must pass: $(grep -E '^(not )?ok ' <<<"$s" | grep -E '^not|# SKIP' | paste -sd';')"
	fi
done
if [[ " $runs " == *" nomod "* ]]; then
	prc=$(sed -n 's/^=== KSFT-PROGRAM debugfs_test without the module rc=\([0-9]*\) ===$/\1/p' <<<"$job")
	log "debugfs_test on its own without the module: exit ${prc:-none}"
	[ "$prc" = 4 ] || bad "debugfs_test without the module exited ${prc:-nothing}, expected 4 (skip)"
fi
# The kernel log, the guest's end, and the counts over the runs.
"$MCS_ROOT/scripts/vm/tap-check.sh" "$work/console.log" >/dev/null || fail=1
log "kselftest-check $kver: $(($(date +%s) - start))s in all, console log in $work/console.log"
[ "$fail" = 0 ] && log "kselftest-check $kver: OK"
exit "$fail"
