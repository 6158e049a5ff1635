#!/bin/bash
# klog-splats-check.sh: scripts/vm/klog-splats.sh, the judge of every
# guest's kernel log, on made-up logs in the kernels' own formats (6.x's
# "WARNING: CPU: N PID: N at FILE:LINE FN" and 7.x's "WARNING: FILE:LINE
# at FN, CPU#N: COMM/PID"):
# - a clean log passes; any WARNING, BUG, Oops or bare call trace fails;
# - the known debugfs unload race (a debugfs open failing fops_get() while
#   delete_module() runs: docs/kernels.md) is reported but not counted,
#   only when it is exactly that splat and the module's unload follows it;
# - a real splat beside that race still fails.
# Runs on the host in a second. Part of `make check`. Output: TAP 13.
source "$(dirname "$0")/../lib.sh"
TAP_NAME=klog-splats-check
# shellcheck source=scripts/checks/tap.sh
source "$MCS_ROOT/scripts/checks/tap.sh"

judge=$MCS_ROOT/scripts/vm/klog-splats.sh
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
TAP_CAPTURE=$work/out	# the judge's words: shown when a check fails

loaded='[   10.000001] memcg_statctl: loaded v0.1.0 on 6.1.0-57-amd64 (generation 6.1, flush model global)'
unloaded='[   12.000001] memcg_statctl: unloaded'
# race FORMAT: the debugfs owner warning's splat, in 6.x or 7.x format
race() {
	echo '[   11.000001] ------------[ cut here ]------------'
	echo '[   11.000002] debugfs file owner did not clean up at exit: stats'
	if [ "$1" = 7 ]; then
		echo '[   11.000003] WARNING: fs/debugfs/file.c:461 at full_proxy_open_regular+0x1a1/0x1f0, CPU#1: fault_test/345'
	else
		echo '[   11.000003] WARNING: CPU: 1 PID: 345 at fs/debugfs/file.c:417 full_proxy_open+0x1a1/0x1f0'
	fi
	echo '[   11.000004] Modules linked in: memcg_statctl(OE) loop'
	echo '[   11.000005] RIP: 0010:full_proxy_open+0x1a1/0x1f0'
	echo '[   11.000006] Call Trace:'
	echo '[   11.000007]  <TASK>'
	echo '[   11.000008]  do_dentry_open+0x14f/0x430'
	echo '[   11.000009]  </TASK>'
	echo '[   11.000010] ---[ end trace 0000000000000000 ]---'
}
other_warn='[   11.500000] WARNING: CPU: 0 PID: 12 at kernel/workqueue.c:1234 __queue_work+0x1/0x2'
# log NAME LINE...: a console log whose kernel log section holds the lines
log_of() {
	local f=$work/$1
	shift
	{
		echo '=== MCS-GUEST-START ==='
		echo '=== MCS-DMESG-BEGIN ==='
		printf '%s\n' "$@"
		echo '=== MCS-DMESG-END ==='
	} >"$f"
	echo "$f"
}
# passes NAME FILE / fails NAME FILE: the judge's verdict on FILE
passes() { check "$1" "$judge" "$2"; }
fails() { if "$judge" "$2" >"$work/verdict" 2>&1; then notok "$1"; else ok "$1"; fi; }

mapfile -t r6 < <(race 6)
mapfile -t r7 < <(race 7)

passes "a clean log passes" "$(log_of clean "$loaded" "$unloaded")"
fails "a WARNING fails" "$(log_of warn "$loaded" "$other_warn" "$unloaded")"
fails "a bare call trace fails" \
	"$(log_of trace "$loaded" '[   11.1] Call Trace:' '[   11.2]  dump_stack+0x1/0x2' "$unloaded")"
passes "the debugfs unload race (6.x format), then the unload, is not counted" \
	"$(log_of race6 "$loaded" "${r6[@]}" "$unloaded")"
passes "the debugfs unload race (7.x format), then the unload, is not counted" \
	"$(log_of race7 "$loaded" "${r7[@]}" "$unloaded")"
passes "two races in two unload cycles are not counted" \
	"$(log_of race2 "$loaded" "${r7[@]}" "$unloaded" "$loaded" "${r6[@]}" "$unloaded")"
fails "the race's warning with no unload after it fails" \
	"$(log_of race_noexit "$unloaded" "$loaded" "${r7[@]}")"
fails "a real WARNING beside the race fails" \
	"$(log_of race_other "$loaded" "${r6[@]}" "$other_warn" "$unloaded")"
check "and it names the real one" grep -q workqueue.c "$work/verdict"
fails "the owner message before a WARNING elsewhere in debugfs fails" \
	"$(log_of race_elsewhere "$loaded" "${r6[@]:0:2}" \
		'[   11.000003] WARNING: CPU: 1 PID: 345 at fs/debugfs/inode.c:700 debugfs_remove+0x1/0x2' \
		'[   11.000010] ---[ end trace 0000000000000000 ]---' "$unloaded")"
fails "a WARNING inside the race's trace fails" \
	"$(log_of race_inner "$loaded" "${r6[@]:0:7}" "$other_warn" "${r6[@]:7}" "$unloaded")"
passes "the report names the race" "$(log_of race_report "$loaded" "${r6[@]}" "$unloaded")"
"$judge" "$work/race_report" 2>"$work/err" >/dev/null
check "on stderr" grep -q 'known unload race' "$work/err"
finish
