#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# tool_test.sh: the memcg-statctl tool against the real module, in the guest.
# busybox sh compatible. Prints TAP 13 (the "TAP version 13" line only when
# it is not run under run_tests.sh, which sets KSFT_TAP_LEVEL, as kselftest's
# own helpers do). Exit: 0 all passed, 1 a test failed, 4 skipped (no tool,
# no module, not root).
#
# Environment: MEMCG_STATCTL (the tool, default: memcg-statctl on PATH,
# else /usr/bin/memcg-statctl), MEMCG_STATCTL_KO (the module file, to load
# it and reload it after the unload test; default: memcg_statctl.ko beside
# this script, as a kselftest package carries it, else the file modinfo
# names, else none and modprobe loads it), MCS_PEER_KO (the IPMODIFY peer
# module of oracle_test, default: beside this script, else
# /lib/mcs_ipmodify_peer.ko, where scripts/vm/guest-stage.sh puts it).
#
# Under QEMU TCG, ftrace patching a function that another vCPU runs hot
# stalls TCG (see reload_test.c). So no hook is attached or detached while a
# workload runs: the knobs this program sets (flush_mode kernel/always,
# flush_threshold) attach nothing, stock_hooks and update_flush_every
# (which attach hooks) only by a sweep, between its runs (stock_hooks where
# flush control is missing: sweep_knob), and the module is unloaded and loaded only after every
# workload task is gone, except in the *_during_* tests, which unload it
# under a workload on purpose: there the tool, its tasks and rmmod all run
# on cpu 0 (as fault_test.c does it).

HERE=$(cd "$(dirname "$0")" && pwd)
TOOL=${MEMCG_STATCTL:-$(command -v memcg-statctl || echo /usr/bin/memcg-statctl)}
KO=${MEMCG_STATCTL_KO:-}
if [ -z "$KO" ] && [ -r "$HERE/memcg_statctl.ko" ]; then
	KO=$HERE/memcg_statctl.ko
elif [ -z "$KO" ]; then
	# kmod's modinfo names the installed file (DKMS); kmod's insmod loads
	# it compressed too (memcg_statctl.ko.xz on 6.12)
	KO=$(modinfo -n memcg_statctl 2>/dev/null | grep '\.ko\(\.[a-z]*\)\?$')
fi
PEER_KO=${MCS_PEER_KO:-}
[ -n "$PEER_KO" ] || PEER_KO=$HERE/mcs_ipmodify_peer.ko
[ -r "$PEER_KO" ] || PEER_KO=${MCS_PEER_KO:-/lib/mcs_ipmodify_peer.ko}
PEER=mcs_ipmodify_peer
DEBUGFS=/sys/kernel/debug
DBG=$DEBUGFS/memcg_statctl
CGROOT=/sys/fs/cgroup
WORK=${TMPDIR:-/tmp}/tool_test.$$
# Seconds any one tool invocation may take, times KSFT_TIMEOUT_SCALE on a
# slower kernel (run_tests.sh sets it from the kernel table's factor).
T_SCALE=${KSFT_TIMEOUT_SCALE:-1}
case $T_SCALE in
*[!0-9]* | 0*) T_SCALE=1 ;;
esac
T_LIMIT=$((120 * T_SCALE))

KSFT_PASS=0
KSFT_FAIL=1
KSFT_SKIP=4

n=0
fails=0
passes=0
skips=0

diag() { echo "# $*"; }

# diag_head FILE: the first 40 lines of FILE, as diagnostics.
diag_head() {
	[ -s "$1" ] || return 0
	sed -e 's/^/#   /' -e '40q' "$1"
}

# skip WHY...: a test's reason to skip, said now and on its "ok N NAME # SKIP WHY"
# line; the test then returns $KSFT_SKIP.
skip() {
	skip_why=$*
	diag "$*"
}

skip_all() {
	[ -n "$KSFT_TAP_LEVEL" ] || echo "TAP version 13"
	echo "1..0 # SKIP $*"
	exit $KSFT_SKIP
}

# ---- helpers -----------------------------------------------------------------

# flush_control: as flush_control_state() of lib/statctl.c: 0 when the module has
# flush control; KSFT_SKIP when it has not and a flush point it redirects is
# indeed not in /proc/kallsyms (inlined by this kernel's compiler); 1 else.
flush_control() {
	_v=$(sed -n 's/^flush_control //p' "$DBG/version")
	[ "$_v" = available ] && return 0
	_absent=$(awk '$4 == "redirect" { print $2 }' "$DBG/hooks" | while read -r _s; do
		in_kallsyms "$_s" || echo "$_s"
	done)
	if [ -n "$_absent" ]; then
		skip "flush control $_v: $(echo $_absent) not in /proc/kallsyms (inlined)"
		return "$KSFT_SKIP"
	fi
	diag "flush control $_v, yet every flush point is in /proc/kallsyms"
	return 1
}

# sweep_knob: the knob, and two of its values, that the tests of the sweep's
# mechanics (plot, interrupts, unload) go over: flush_threshold, or, where
# flush control is missing and every flush knob refuses its writes
# (PREEMPT_RT 6.1), stock_hooks. Sets SWEEP_KNOB, SWEEP_A and SWEEP_B.
sweep_knob() {
	if [ "$(sed -n 's/^flush_control //p' "$DBG/version")" = available ]; then
		SWEEP_KNOB=flush_threshold SWEEP_A=128 SWEEP_B=4096
	else
		SWEEP_KNOB=stock_hooks SWEEP_A=0 SWEEP_B=1
	fi
}

# t OUT ERR ARGS...: run the tool, stdout to OUT, stderr to ERR; sets RC.
t() {
	_out=$1
	_err=$2
	shift 2
	timeout "$T_LIMIT" "$TOOL" "$@" >"$_out" 2>"$_err"
	RC=$?
}

# tool_ok ARGS...: run the tool (output in $WORK/out, $WORK/err), fail on rc!=0.
tool_ok() {
	t "$WORK/out" "$WORK/err" "$@"
	if [ "$RC" -ne 0 ]; then
		diag "memcg-statctl $*: exit $RC, expected 0"
		diag_head "$WORK/err"
		diag_head "$WORK/out"
		return 1
	fi
	return 0
}

module_loaded() { [ -r "$DBG/version" ]; }

# knob NAME: the module's value of a knob (read from debugfs, not the tool)
knob() { cat "$DBG/$1" 2>/dev/null; }

# counter NAME: the module's counter value (empty when the module lacks it)
counter() { sed -n "s/^$(echo "$1" | sed 's/\./\\./g') \([0-9]*\)\$/\1/p" "$DBG/stats"; }

# json_num FILE KEY: the integer of a '"KEY": N' line of a pretty-printed JSON;
# a module counter's name is its JSON key (dots matched literally).
json_num() {
	sed -n "s/^ *\"$(echo "$2" | sed 's/\./\\./g')\": \([0-9][0-9]*\),\{0,1\}\$/\1/p" "$1" |
		head -n 1
}

# json_float FILE KEY: the number of a '"KEY": N' line (integer part)
json_float() {
	sed -n "s/^ *\"$2\": \([0-9][0-9]*\)[.0-9e+-]*,\{0,1\}\$/\1/p" "$1" | head -n 1
}

# The tool's cgroups (memcg-statctl.PID top groups), one per line.
tool_groups() {
	for g in "$CGROOT"/memcg-statctl.*; do
		[ -d "$g" ] && echo "$g"
	done
}

# Remove what a test may have left: groups (tasks killed first, leaves first).
remove_groups() {
	for top in $(tool_groups); do
		find "$top" -depth -type d | while read -r g; do
			for p in $(cat "$g/cgroup.procs" 2>/dev/null); do
				kill -KILL "$p" 2>/dev/null
			done
		done
		sleep 1
		find "$top" -depth -type d -exec rmdir {} \; 2>/dev/null
	done
}

# JSON sanity for busybox: one object, braces and brackets balanced, quotes even.
json_sane() {
	_f=$1
	[ "$(head -c 1 "$_f")" = "{" ] || { diag "$_f: does not start with {"; return 1; }
	[ "$(tr -d ' \n' <"$_f" | tail -c 1)" = "}" ] || { diag "$_f: does not end with }"; return 1; }
	_o=$(tr -cd '{' <"$_f" | wc -c)
	_c=$(tr -cd '}' <"$_f" | wc -c)
	[ "$_o" -eq "$_c" ] || { diag "$_f: $_o '{' but $_c '}'"; return 1; }
	_o=$(tr -cd '[' <"$_f" | wc -c)
	_c=$(tr -cd ']' <"$_f" | wc -c)
	[ "$_o" -eq "$_c" ] || { diag "$_f: $_o '[' but $_c ']'"; return 1; }
	_q=$(tr -cd '"' <"$_f" | wc -c)
	[ $((_q % 2)) -eq 0 ] || { diag "$_f: odd number of quotes"; return 1; }
	return 0
}

# wait_exit PID SECONDS: wait until PID is gone (reaped by `wait`); sets RC
# to its exit status; returns 1 (and kills it) when it outlives SECONDS.
wait_exit() {
	_pid=$1
	_i=0
	while kill -0 "$_pid" 2>/dev/null; do
		# a zombie still answers kill -0: check its state
		case "$(sed -n 's/^State:[[:space:]]*\(.\).*/\1/p' /proc/"$_pid"/status 2>/dev/null)" in
		Z) break ;;
		esac
		_i=$((_i + 1))
		if [ "$_i" -gt $(($2 * 10)) ]; then
			kill -KILL "$_pid" 2>/dev/null
			wait "$_pid" 2>/dev/null
			RC=137
			return 1
		fi
		sleep 0.1
	done
	wait "$_pid"
	RC=$?
	WAITED_MS=$((_i * 100))
	return 0
}

# wait_group PID SECONDS: wait until the tool PID has put a task into a leaf
# of its memcg-statctl.PID group (the workload is running).
wait_group() {
	_i=0
	while [ "$_i" -lt $(($2 * 10)) ]; do
		[ -n "$(find "$CGROOT/memcg-statctl.$1" -name cgroup.procs -exec cat {} + 2>/dev/null)" ] &&
			return 0
		sleep 0.1
		_i=$((_i + 1))
	done
	return 1
}

# start_workload SECONDS CMD...: start CMD (the tool, maybe under taskset)
# in the background, output in $WORK/out and $WORK/err, and wait until its
# workload runs; then let it run SECONDS more. Sets $pid, and $tasks to the
# workload tasks then in its group. Fails (CMD killed) when no task shows.
start_workload() {
	_secs=$1
	shift
	"$@" >"$WORK/out" 2>"$WORK/err" &
	pid=$!
	if ! wait_group "$pid" 30; then
		diag "no workload task in a memcg-statctl.$pid group after 30 s"
		kill -KILL "$pid"; wait "$pid"; diag_head "$WORK/err"; return 1
	fi
	sleep "$_secs"
	tasks=$(find "$CGROOT/memcg-statctl.$pid" -name cgroup.procs -exec cat {} + | tr '\n' ' ')
}

# no_groups_left: no memcg-statctl.* group remains (else says which).
no_groups_left() {
	[ -z "$(tool_groups)" ] || { diag "groups left: $(tool_groups)"; return 1; }
}

# nothing_left: no group, and none of $tasks (start_workload) alive.
nothing_left() {
	_r=0
	no_groups_left || _r=1
	for p in $tasks; do
		[ -d "/proc/$p" ] && { diag "workload task $p still alive"; _r=1; }
	done
	return $_r
}

# ---- block device for readtwice / refault -------------------------------------

FSDIR=$WORK/mnt
FSDEV=

# An ext4 (or ext2 through the ext4 driver) file system on a block device:
# a loop device over a file in tmpfs, else zram.
setup_fs() {
	[ -n "$FSDEV" ] && return 0
	mkdir -p "$FSDIR"
	: >"$WORK/mkfs.log"
	# ext4 asks the crypto API for crc32c on every mount; the kernel's own
	# request_module() calls /sbin/modprobe, which this guest may not have,
	# and busybox modprobe ignores ext4's softdep on crc32c: load it here.
	modprobe crc32c_generic 2>>"$WORK/mkfs.log" || modprobe crc32c 2>>"$WORK/mkfs.log"
	modprobe ext4 2>>"$WORK/mkfs.log"
	if modprobe loop 2>>"$WORK/mkfs.log" || [ -e /dev/loop-control ]; then
		FSDEV=$(losetup -f 2>>"$WORK/mkfs.log")
		if [ -n "$FSDEV" ] && truncate -s 96M "$WORK/fs.img" &&
			mke2fs -q -F -b 4096 "$WORK/fs.img" >>"$WORK/mkfs.log" 2>&1 &&
			losetup "$FSDEV" "$WORK/fs.img" 2>>"$WORK/mkfs.log"; then
			if mount -t ext4 "$FSDEV" "$FSDIR" 2>>"$WORK/mkfs.log"; then
				diag "file system: ext2 image on $FSDEV, ext4 driver, at $FSDIR"
				return 0
			fi
			losetup -d "$FSDEV" 2>/dev/null
		fi
	fi
	if modprobe zram 2>>"$WORK/mkfs.log" && [ -e /sys/block/zram0/disksize ]; then
		FSDEV=/dev/zram0
		if { [ "$(cat /sys/block/zram0/disksize)" != 0 ] ||
			echo 96M >/sys/block/zram0/disksize; } &&
			mke2fs -q -F -b 4096 /dev/zram0 >>"$WORK/mkfs.log" 2>&1 &&
			mount -t ext4 /dev/zram0 "$FSDIR" 2>>"$WORK/mkfs.log"; then
			diag "file system: ext2 on /dev/zram0, ext4 driver, at $FSDIR"
			return 0
		fi
	fi
	FSDEV=
	diag "no file system on a block device (loop and zram both failed):"
	diag_head "$WORK/mkfs.log"
	dmesg | grep -i 'ext4\|loop\|zram' | tail -n 5 | sed 's/^/#   /'
	return 1
}

teardown_fs() {
	[ -n "$FSDEV" ] || return 0
	umount "$FSDIR" 2>/dev/null
	case "$FSDEV" in
	/dev/loop*) losetup -d "$FSDEV" 2>/dev/null ;;
	/dev/zram*) echo 1 >/sys/block/zram0/reset 2>/dev/null ;;
	esac
	FSDEV=
}

# ---- tests -------------------------------------------------------------------

# Every subcommand's --help exits 0 and prints a usage line.
test_help() {
	for c in "" status get set reset stats run sweep; do
		tool_ok $c --help || return 1
		grep -q '^Usage: memcg-statctl' "$WORK/out" || {
			diag "memcg-statctl $c --help: no Usage line"
			return 1
		}
	done
}

# status: the version keys, every hook and every knob of the module.
# in_kallsyms SYMBOL: SYMBOL is a function of the running kernel.
in_kallsyms() {
	awk -v s="$1" '$3 == s && NF == 3 && ($2 == "t" || $2 == "T") { f = 1 }
		END { exit !f }' /proc/kallsyms
}

# status_ok ARGS...: `status ARGS` exits 0 on a module with every hook; 4
# where some are `missing`, saying so: flush control as a whole (flush_control
# not available), or each other missing hook by name, whose target or caller
# must then really be absent from /proc/kallsyms (a kernel built otherwise,
# such as the debug kernel, can inline one).
status_ok() {
	_fc=$(sed -n 's/^flush_control //p' "$DBG/version")
	_missing=$(awk '$5 == "missing" && $1 != "flush" && $1 !~ /^update\./ { print $1, $2, $3 }' "$DBG/hooks")
	if [ "$_fc" = available ] && [ -z "$_missing" ]; then
		tool_ok status "$@"
		return
	fi
	t "$WORK/out" "$WORK/err" status "$@"
	[ "$RC" -eq 4 ] || {
		diag "status $*: exit $RC, expected 4 (flush control $_fc; missing: $(echo $_missing))"
		diag_head "$WORK/err"; return 1; }
	if [ "$_fc" != available ] && ! grep -q 'flush control is missing' "$WORK/err" "$WORK/out"; then
		diag "status $*: flush control $_fc, not said"; diag_head "$WORK/err"; return 1
	fi
	while read -r _n _t _c; do
		[ -n "$_n" ] || continue
		grep -q "hook $_n is missing" "$WORK/err" || {
			diag "status $*: does not say that hook $_n is missing"; diag_head "$WORK/err"; return 1; }
		if in_kallsyms "$_t" && { [ "$_c" = - ] || in_kallsyms "$_c"; }; then
			diag "hook $_n missing, yet $_t and $_c are in /proc/kallsyms"; return 1
		fi
		diag "hook $_n missing: $_t or $_c not in /proc/kallsyms"
	done <<EOF
$_missing
EOF
}

test_status() {
	flush_control
	[ $? -eq 1 ] && return 1
	status_ok || return 1
	grep -q "^memcg_statctl: loaded ($DBG)" "$WORK/out" || {
		diag "no 'loaded' line"; diag_head "$WORK/out"; return 1; }
	abi=$(sed -n 's/^abi \(.*\)/\1/p' "$DBG/version")
	grep -Eq "^ +abi +$abi\$" "$WORK/out" || { diag "abi $abi not shown"; return 1; }
	while read -r name target _caller mech state _hits; do
		grep -Eq "^ +$name +$target +[^ ]+ +$mech +$state +[0-9]+\$" "$WORK/out" || {
			diag "hook $name $target $mech $state not shown"; diag_head "$WORK/out"; return 1; }
	done <"$DBG/hooks"
	for k in $KNOBS; do
		grep -Eq "^ +$k +$(knob "$k")\$" "$WORK/out" || {
			diag "knob $k=$(knob "$k") not shown"; return 1; }
	done
	status_ok --json || return 1
	json_sane "$WORK/out" || return 1
	grep -q '"loaded": true' "$WORK/out" || { diag "status --json: no loaded:true"; return 1; }
	grep -q "\"abi\": $abi,\{0,1\}\$" "$WORK/out" || { diag "status --json: no abi $abi (a number)"; diag_head "$WORK/out"; return 1; }
}

# A hook that really fails: an IPMODIFY ftrace user (the peer module, as a
# livepatch or a kprobe with a post_handler would) holds the function that
# the module's first redirect hook replaces, and two IPMODIFY users cannot
# share a function, so the redirect cannot register when the module loads
# after the peer. The module must then load with that hook `failed`, and
# status must exit 4 naming it. Afterwards the peer goes and the module is
# loaded as before, healthy (status exits 0) for the tests that follow.
test_status_hook_failed() {
	need_ko || return $KSFT_SKIP
	flush_control || return
	[ -r "$PEER_KO" ] || { skip "$PEER_KO not staged: no IPMODIFY peer to hold a function"; return $KSFT_SKIP; }
	name=$(awk '$4 == "redirect" { print $1; exit }' "$DBG/hooks")
	target=$(awk '$4 == "redirect" { print $2; exit }' "$DBG/hooks")
	[ -n "$target" ] || { diag "no redirect hook in $DBG/hooks"; return 1; }
	rmmod_retry || return 1
	r=0
	if ! insmod "$PEER_KO" func="$target" 2>"$WORK/insmod.err"; then
		diag "insmod $PEER_KO func=$target: $(cat "$WORK/insmod.err")"
		r=1
	elif ! insmod "$KO" 2>"$WORK/insmod.err"; then
		diag "memcg_statctl refuses to load while $PEER holds $target (it should load without flush control):"
		diag "  insmod: $(cat "$WORK/insmod.err")"
		dmesg | grep 'memcg_statctl\|mcs_ipmodify_peer' | tail -n 4 | sed 's/^/#   /'
		r=1
	else
		t "$WORK/out" "$WORK/err" status
		diag "status: exit $RC; stderr: $(cat "$WORK/err")"
		[ "$RC" -eq 4 ] || { diag "status: exit $RC, expected 4"; r=1; }
		grep -q "^memcg-statctl: hook $name on $target failed to attach (see dmesg)" "$WORK/err" || {
			diag "stderr does not name hook $name on $target"; r=1; }
		grep -Eq "^ +$name +$target +[^ ]+ +redirect +failed +[0-9]+\$" "$WORK/out" || {
			diag "status does not show $name failed"; diag_head "$WORK/out"; r=1; }
		t "$WORK/out" "$WORK/err" status --json
		[ "$RC" -eq 4 ] || { diag "status --json: exit $RC, expected 4"; r=1; }
		json_sane "$WORK/out" && grep -q '"kind": "hook_failed"' "$WORK/out" || {
			diag "status --json: no hook_failed problem"; diag_head "$WORK/out"; r=1; }
		# loaded without flush control: the version says so, its knobs refuse
		# writes with one line, counting goes on
		grep -q '^flush_control failed$' "$DBG/version" || {
			diag "version: $(grep flush_control "$DBG/version"), expected failed"; r=1; }
		t "$WORK/out" "$WORK/err" set flush_mode always
		[ "$RC" -eq 1 ] && grep -q 'flush control is not available' "$WORK/err" || {
			diag "set flush_mode without flush control: exit $RC"; diag_head "$WORK/err"; r=1; }
		rmmod_retry || r=1
	fi
	grep -q "^$PEER " /proc/modules && { rmmod "$PEER" || { diag "rmmod $PEER failed"; r=1; }; }
	module_loaded || insmod "$KO" || { diag "insmod $KO failed"; return 1; }
	status_ok || return 1
	# healthy again: status_ok allows only hooks this kernel lacks
	status_ok --json || return 1
	! grep -q '"kind": "hook_failed"' "$WORK/out" || {
		diag "the reloaded module still has a failed hook:"; diag_head "$WORK/out"; return 1; }
	return $r
}

# get: all knobs (exactly the module's), then each one alone, and --json.
test_get() {
	tool_ok get || return 1
	mv "$WORK/out" "$WORK/get_all"
	[ "$(wc -l <"$WORK/get_all")" -eq "$(echo $KNOBS | wc -w)" ] || {
		diag "get printed $(wc -l <"$WORK/get_all") lines for knobs: $KNOBS"
		diag_head "$WORK/get_all"; return 1; }
	for k in $KNOBS; do
		v=$(knob "$k")
		grep -Eq "^$k +$v\$" "$WORK/get_all" || {
			diag "get: '$k $v' missing"; diag_head "$WORK/get_all"; return 1; }
		tool_ok get "$k" || return 1
		grep -Eq "^$k +$v\$" "$WORK/out" && [ "$(wc -l <"$WORK/out")" -eq 1 ] || {
			diag "get $k: expected '$k $v'"; diag_head "$WORK/out"; return 1; }
	done
	tool_ok get flush_mode --json || return 1
	json_sane "$WORK/out" && grep -q "\"flush_mode\": \"$(knob flush_mode)\"" "$WORK/out" || {
		diag "get flush_mode --json"; diag_head "$WORK/out"; return 1; }
	t "$WORK/out" "$WORK/err" get no_such_knob
	[ "$RC" -ne 0 ] || { diag "get no_such_knob: exit 0"; return 1; }
}

# set: good values read back (through debugfs and through get); restored.
test_set_good() {
	flush_control
	case $? in
	0) ;;
	"$KSFT_SKIP")
		# without flush control its knobs refuse writes with one line
		t "$WORK/out" "$WORK/err" set flush_mode always
		[ "$RC" -eq 1 ] && grep -q 'flush control is not available' "$WORK/err" || {
			diag "set flush_mode without flush control: exit $RC"; diag_head "$WORK/err"; return 1; }
		return 0 ;;
	*) return 1 ;;
	esac
	old_mode=$(knob flush_mode)
	old_thr=$(knob flush_threshold)
	r=0
	tool_ok set flush_mode always || r=1
	[ "$(knob flush_mode)" = always ] || { diag "flush_mode reads $(knob flush_mode)"; r=1; }
	tool_ok get flush_mode && grep -Eq '^flush_mode +always$' "$WORK/out" || {
		diag "get flush_mode after set: $(cat "$WORK/out")"; r=1; }
	new_thr=$((old_thr + 1000))
	tool_ok set flush_threshold "$new_thr" || r=1
	[ "$(knob flush_threshold)" = "$new_thr" ] || {
		diag "flush_threshold reads $(knob flush_threshold), set $new_thr"; r=1; }
	tool_ok set flush_mode "$old_mode" || r=1
	tool_ok set flush_threshold "$old_thr" || r=1
	[ "$(knob flush_mode)" = "$old_mode" ] && [ "$(knob flush_threshold)" = "$old_thr" ] || {
		diag "not restored: flush_mode $(knob flush_mode) flush_threshold $(knob flush_threshold)"
		r=1
	}
	return $r
}

# bad_value KNOB VALUE: `set` exits 1 with a message, the knob unchanged.
bad_value() {
	before=$(knob "$1")
	t "$WORK/out" "$WORK/err" set "$1" "$2"
	after=$(knob "$1")
	if [ "$RC" -ne 1 ]; then
		diag "set $1 '$2': exit $RC, expected 1"; diag_head "$WORK/err"; return 1
	elif [ ! -s "$WORK/err" ]; then
		diag "set $1 '$2': no message on stderr"; return 1
	fi
	[ "$before" = "$after" ] || { diag "set $1 '$2' changed $before -> $after"; return 1; }
	return 0
}

# set with a bad value: exit 1, a message, the knob unchanged.
test_set_bad() {
	r=0
	bad_value flush_mode bogus || r=1
	bad_value flush_mode "" || r=1
	bad_value flush_threshold -1 || r=1
	bad_value flush_threshold 12abc || r=1
	bad_value flush_period_ms 5 || r=1
	diag "message: $(cat "$WORK/err")"
	t "$WORK/out" "$WORK/err" set no_such_knob 1
	[ "$RC" -ne 0 ] || { diag "set no_such_knob 1: exit 0"; r=1; }
	return $r
}

# reset: counters with values drop to (near) zero.
test_reset() {
	flush_control || return
	# reading memory.stat requests flushes on every kernel generation
	i=0
	while [ $i -lt 20 ]; do
		cat "$CGROOT/memory.stat" >/dev/null
		i=$((i + 1))
	done
	before=$(counter flush.requests)
	[ "${before:-0}" -ge 20 ] || { diag "flush.requests $before after 20 memory.stat reads"; return 1; }
	tool_ok reset || return 1
	after=$(counter flush.requests)
	diag "flush.requests $before -> $after"
	[ "$after" -lt 20 ] && [ "$after" -lt "$before" ] || {
		diag "flush.requests did not drop"; return 1; }
	# a counter that cannot move by itself in between is exactly 0
	[ "$(counter flush.async_queued)" = 0 ] || { diag "flush.async_queued $(counter flush.async_queued)"; return 1; }
}

# stats: every counter of the module, with its name.
test_stats() {
	tool_ok stats || return 1
	grep -Eq '^COUNTER +VALUE$' "$WORK/out" || { diag "no header"; diag_head "$WORK/out"; return 1; }
	while read -r name _value; do
		grep -Eq "^$name +[0-9]+\$" "$WORK/out" || { diag "counter $name missing"; return 1; }
	done <"$DBG/stats"
}

# stats --json: valid JSON with the counters object (every module counter) and derived.
test_stats_json() {
	tool_ok stats --json || return 1
	json_sane "$WORK/out" || { diag_head "$WORK/out"; return 1; }
	grep -q '^  "counters": {' "$WORK/out" && grep -q '^  "derived": {' "$WORK/out" || {
		diag "no counters/derived objects"; diag_head "$WORK/out"; return 1; }
	while read -r name _value; do
		[ -n "$(json_num "$WORK/out" "$name")" ] || { diag "\"$name\" missing"; return 1; }
	done <"$DBG/stats"
}

# stats --json: flush_latency has the file's buckets, the last unbounded, and
# their counts sum to flush.performed (the two files are read one after the
# other: a flush in between differs by one, so up to 5 tries); without the
# file (no flush control) it is null.
test_stats_flush_latency() {
	command -v jq >/dev/null 2>&1 || { skip "jq not installed"; return $KSFT_SKIP; }
	tool_ok stats --json || return 1
	if [ ! -e "$DBG/flush_latency" ]; then
		jq_true "$WORK/out" '.flush_latency == null' || return 1
		skip "no $DBG/flush_latency (no flush control)"
		return $KSFT_SKIP
	fi
	jq_true "$WORK/out" "(.flush_latency | length) == $(wc -l <"$DBG/flush_latency") and
		.flush_latency[-1].hi == null" || return 1
	for _try in 1 2 3 4 5; do
		tool_ok stats --json || return 1
		[ "$(jq -r '(.flush_latency | map(.count) | add) == .counters["flush.performed"]' \
			"$WORK/out")" = true ] && return 0
	done
	diag "flush_latency's counts do not sum to flush.performed"
	diag_head "$WORK/out"
	return 1
}

# stats shows flush_reasons: every class in JSON, the classes summing to the
# flush counters at a quiet moment, and the table in text.
test_stats_flush_reasons() {
	command -v jq >/dev/null 2>&1 || { skip "jq not installed"; return $KSFT_SKIP; }
	tool_ok stats --json || return 1
	if [ ! -e "$DBG/flush_reasons" ]; then
		jq_true "$WORK/out" '.flush_reasons == null' || return 1
		skip "no $DBG/flush_reasons (no flush control)"
		return $KSFT_SKIP
	fi
	jq_true "$WORK/out" "(.flush_reasons.classes | length) == $(grep -c '^class ' "$DBG/flush_reasons")" ||
		return 1
	# from a reset on (a request ending during the reset itself may be
	# counted on one side only, module/ABI.md: reset again)
	for _try in 1 2 3 4 5; do
		tool_ok reset && tool_ok stats --json || return 1
		[ "$(jq -r '(.flush_reasons.classes | map(.performed) | add) == .counters["flush.performed"]' \
			"$WORK/out")" = true ] && break
		[ "$_try" -lt 5 ] || { diag "flush_reasons' classes do not sum to flush.performed"
			diag_head "$WORK/out"; return 1; }
	done
	tool_ok stats || return 1
	grep -q '^FLUSH REQUESTS BY  *REQUESTS  *PERFORMED  *SKIPPED$' "$WORK/out" || {
		diag "no reasons table in stats"; diag_head "$WORK/out"; return 1; }
}

# stats --watch 1 --count 2: two intervals of about a second each, text and JSON.
test_stats_watch() {
	start=$(date +%s)
	tool_ok stats --watch 1 --count 2 || return 1
	took=$(($(date +%s) - start))
	n_int=$(grep -c '^\[interval [0-9]*: [0-9.]* s\]$' "$WORK/out")
	[ "$n_int" -eq 2 ] && grep -q '^\[interval 1: ' "$WORK/out" && grep -q '^\[interval 2: ' "$WORK/out" || {
		diag "expected intervals 1 and 2, got $n_int"; diag_head "$WORK/out"; return 1; }
	[ "$(grep -c '^COUNTER  *DELTA  *PER-SEC$' "$WORK/out")" -eq 2 ] || {
		diag "expected two rate tables"; return 1; }
	[ "$took" -ge 2 ] && [ "$took" -le 10 ] || { diag "took $took s for 2 x 1 s"; return 1; }
	# a maximum is a value, never a rate
	if grep -q '^flush\.ns_max ' "$WORK/out"; then
		[ "$(grep -c '^flush\.ns_max  *[0-9][0-9]*  *(max)$' "$WORK/out")" -eq 2 ] || {
			diag "flush.ns_max shown as a rate"; diag_head "$WORK/out"; return 1; }
	fi
	t "$WORK/out" "$WORK/err" stats --watch 0.001 --count 1
	[ "$RC" -eq 2 ] && grep -q "at least 0.01" "$WORK/err" || {
		diag "--watch 0.001: exit $RC, want 2 and 'at least 0.01'"; diag_head "$WORK/err"; return 1; }
	tool_ok stats --watch 1 --count 2 --json || return 1
	[ "$(wc -l <"$WORK/out")" -eq 2 ] || { diag "--json: $(wc -l <"$WORK/out") lines"; return 1; }
	sed -n 1p "$WORK/out" >"$WORK/l1"
	sed -n 2p "$WORK/out" >"$WORK/l2"
	json_sane "$WORK/l1" && json_sane "$WORK/l2" || return 1
	grep -q '"interval":1,' "$WORK/l1" && grep -q '"interval":2,' "$WORK/l2" &&
		grep -q '"per_second":{' "$WORK/l1" || {
		diag "--json lines"; diag_head "$WORK/out"; return 1; }
	if grep -q '"flush\.ns_max":' "$WORK/l1"; then
		sed 's/.*"per_second":{\([^}]*\)}.*/\1/' "$WORK/l1" | grep -q 'flush\.ns_max' && {
			diag "--json: flush.ns_max has a per-second rate"; diag_head "$WORK/l1"; return 1; }
	fi
	return 0
}

# top: with stdout no terminal, one JSON line per refresh (--json or not);
# the root cgroup and a cgroup with a task in it are named by their paths,
# every row's pending is handed + cpus, and the counts are the module's
# `pending` (the trigger, batch x online cpus). 6.1 (scope global): one row
# for all memcgs under flush_mode kernel. Without the file: exit 1, said.
test_top() {
	command -v jq >/dev/null 2>&1 || { skip "jq not installed"; return $KSFT_SKIP; }
	if [ ! -e "$DBG/pending" ]; then
		t "$WORK/out" "$WORK/err" top -n 1
		[ "$RC" -eq 1 ] && grep -q 'no `pending` file' "$WORK/err" || {
			diag "top without pending: exit $RC"; diag_head "$WORK/err"; return 1; }
		skip "no $DBG/pending (version: $(sed -n 's/^pending //p' "$DBG/version"))"
		return $KSFT_SKIP
	fi
	mkdir -p "$CGROOT/mcs_top" || return 1
	sleep 1000 &
	_pid=$!
	echo "$_pid" >"$CGROOT/mcs_top/cgroup.procs"
	# 6.1 shows its count under the kernel's policy once a flush handed it
	# back (module/ABI.md): a memory.stat read flushes past the limit
	tool_ok set flush_mode kernel || { kill "$_pid"; rmdir "$CGROOT/mcs_top"; return 1; }
	cat "$CGROOT/mcs_top/memory.stat" >/dev/null
	tool_ok top --json -n 2 -d 0.2 || { kill "$_pid"; rmdir "$CGROOT/mcs_top"; return 1; }
	cp "$WORK/out" "$WORK/top"
	tool_ok top -n 1
	_rc=$?
	kill "$_pid"
	wait "$_pid" 2>/dev/null
	rmdir "$CGROOT/mcs_top"
	[ "$_rc" -eq 0 ] || return 1
	[ "$(wc -l <"$WORK/top")" -eq 2 ] && [ "$(wc -l <"$WORK/out")" -eq 1 ] || {
		diag "want 2 and 1 JSON lines"; diag_head "$WORK/top"; diag_head "$WORK/out"
		return 1; }
	sed -n 2p "$WORK/top" >"$WORK/l2"
	jq_true "$WORK/l2" ".trigger == $(sed -n 's/^trigger //p' "$DBG/pending") and
		.trigger == 64 * $(grep -c '^processor' /proc/cpuinfo) and .seconds > 0 and
		(.rows | all(.pending == .handed + .cpus))" || return 1
	if [ "$(sed -n 's/^scope //p' "$DBG/pending")" = memcg ]; then
		jq_true "$WORK/l2" '.scope == "memcg" and (.rows | map(.cgroup) | index("/") != null)
			and (.rows | map(.cgroup) | index("/mcs_top") != null) and
			.cgroups == (.rows | length)' || return 1
	else
		jq_true "$WORK/l2" '.scope == "global" and .flush_mode == "kernel" and
			.rows[0].cgroup == "(all memcgs)"' || return 1
	fi
	json_sane "$WORK/out"
}

# top with stock attribution: with the knob stock_attribution at 1 and
# fault_loop charging pages in a cgroup, every `top --json` line has that
# cgroup's row (6.1, scope global: a row of its own beside the one of all
# memcgs) with numbers in stock_misses and stock_drains, its misses of the
# two intervals add up to more than 0 (fault_loop charges 16 MiB a loop, one
# page counter charge per batch of pages), and stock_evicted is a number
# where the stock holds several memcgs (stock_model multi, 7.x) and null
# elsewhere; on a terminal (tmux) the screen has the ST-MISS column and a
# line of the cgroup with numbers in it. The knob attaches hooks: set before
# the workload starts and restored after it is gone (see the top). Skipped
# on a module without the knob; where the kernel lacks what the counting
# needs (`state missing`), `set stock_attribution 1` must say so.
test_top_stock_attribution() {
	needs_helpers || return $KSFT_SKIP
	if [ ! -e "$DBG/stock_attribution" ]; then
		skip "no $DBG/stock_attribution (a module older than stock attribution)"
		return $KSFT_SKIP
	fi
	[ -e "$DBG/pending" ] || { skip "no $DBG/pending: no top"; return $KSFT_SKIP; }
	if [ "$(sed -n 1p "$DBG/stock_by_cgroup")" = "state missing" ]; then
		t "$WORK/out" "$WORK/err" set stock_attribution 1
		[ "$RC" -eq 1 ] && grep -q 'stock attribution is not available' "$WORK/err" || {
			diag "set stock_attribution 1 while missing: exit $RC"; diag_head "$WORK/err"
			return 1; }
		skip "stock attribution missing on this kernel (see dmesg)"
		return $KSFT_SKIP
	fi
	g=$CGROOT/mcs_stock
	old=$(knob stock_attribution)
	tool_ok set stock_attribution 1 || return 1
	r=0
	[ "$(sed -n 1p "$DBG/stock_by_cgroup")" = "state on" ] || {
		diag "stock_by_cgroup after set 1: $(sed -n 1p "$DBG/stock_by_cgroup")"; r=1; }
	mkdir -p "$g"
	grep -qw memory "$CGROOT/cgroup.subtree_control" || echo +memory >"$CGROOT/cgroup.subtree_control"
	sh -c "echo \$\$ >$g/cgroup.procs && exec $FAULT_LOOP 16 1000000" &
	ext=$!
	sleep "$T_SCALE"
	tool_ok top --json -n 3 -d 0.5 || r=1
	cp "$WORK/out" "$WORK/top"
	if command -v tmux >/dev/null 2>&1; then
		tmux -f /dev/null new-session -d -s mcs_stock_top -x 200 -y 50 \
			"$TOOL top -d 0.5 --sort stock_misses; sleep 600"
		sleep $((2 * T_SCALE))
		tmux capture-pane -p -t mcs_stock_top >"$WORK/screen" || r=1
		tmux kill-session -t mcs_stock_top
	else
		diag "tmux not installed: the screen is not checked"
	fi
	kill -0 "$ext" 2>/dev/null || { diag "fault_loop died during top"; r=1; }
	kill -KILL "$ext"
	wait "$ext" 2>/dev/null
	sleep 0.2
	rmdir "$g" || r=1
	tool_ok set stock_attribution "$old" || r=1
	[ "$r" -eq 0 ] || return 1
	[ "$(wc -l <"$WORK/top")" -eq 3 ] || {
		diag "want 3 JSON lines"; diag_head "$WORK/top"; return 1; }
	evicted=null
	grep -q '^stock_model multi$' "$DBG/version" && evicted=number
	for _l in 1 2 3; do
		sed -n "${_l}p" "$WORK/top" >"$WORK/l$_l"
		jq_true "$WORK/l$_l" '.stock_attribution == "on" and
			([.rows[] | select(.cgroup == "/mcs_stock")] | length) == 1 and
			([.rows[] | select(.cgroup == "/mcs_stock") |
				(.stock_misses | type) == "number" and (.stock_drains | type) == "number" and
				(.stock_evicted | type) == "'"$evicted"'"] | all)' || r=1
	done
	[ "$r" -eq 0 ] || { diag_head "$WORK/l2"; return 1; }
	misses=$(jq -s '[.[1:][] | .rows[] | select(.cgroup == "/mcs_stock") | .stock_misses] | add' \
		"$WORK/top")
	diag "/mcs_stock: $misses stock misses in 2 intervals of 0.5 s"
	[ "${misses:-0}" -gt 0 ] || { diag_head "$WORK/l2"; return 1; }
	[ -s "$WORK/screen" ] || return 0
	grep -q ' ST-MISS ST-DRAIN ' "$WORK/screen" &&
		grep -Eq ' [0-9]+ +[0-9]+( +[0-9]+)?  /mcs_stock *$' "$WORK/screen" || {
		diag "no ST-MISS column or no /mcs_stock line with numbers on the screen"
		diag_head "$WORK/screen"; return 1; }
}

# run_workload NAME COUNTERS ARGS...: `run NAME ARGS --json` exits 0, reports
# ops > 0, no group left, and at least one of COUNTERS (space-separated,
# those the module has; flush.requests without the periodic ones) has a
# delta > 0. COUNTERS "" asserts no counter.
run_workload() {
	w=$1
	want=$2
	shift 2
	# 2 s, longer on a slower kernel: the slab workload completed no
	# operation in 2 s on the debug kernel under TCG
	tool_ok run "$w" --duration $((2 * T_SCALE)) --json "$@" || return 1
	json_sane "$WORK/out" || { diag_head "$WORK/out"; return 1; }
	grep -q "\"workload\": \"$w\"" "$WORK/out" || { diag "no workload $w"; return 1; }
	ops=$(json_float "$WORK/out" ops_per_sec)
	[ "${ops:-0}" -gt 0 ] || { diag "ops_per_sec ${ops:-missing}"; diag_head "$WORK/out"; return 1; }
	deltas=
	moved=
	have=
	for c in $want; do
		[ -n "$(counter "$c")" ] || continue
		have="$have $c"
		d=$(json_num "$WORK/out" "$c")
		# the kernel's own periodic flush is no sign of the workload
		if [ "$c" = flush.requests ] && [ -n "$d" ]; then
			d=$((d - $(json_num "$WORK/out" flush.periodic)))
			c="flush.requests-flush.periodic"
		fi
		deltas="$deltas $c=+${d:-?}"
		[ "${d:-0}" -gt 0 ] && moved="$moved $c"
	done
	diag "$w $*: $ops ops/s;$deltas"
	diag "  all non-zero deltas:$(sed -n '/"counters": {/,/}/p' "$WORK/out" |
		sed -n 's/^ *"\([^"]*\)": \([1-9][0-9]*\),\{0,1\}$/ \1=+\2/p' | tr -d '\n')"
	no_groups_left || return 1
	[ -n "$want" ] || return 0
	[ -n "$have" ] || { diag "the module has none of: $want"; return 1; }
	[ -n "$moved" ] || { diag "none of$have moved"; diag_head "$WORK/out"; return 1; }
}

test_run_pf_anon() { run_workload page-fault charge_stock.attempts --mode anon --cgroups 2; }
test_run_pf_private() { run_workload page-fault charge_stock.attempts --mode file-private --dir "$WORK"; }
test_run_pf_shared() { run_workload page-fault charge_stock.attempts --mode file-shared --dir "$WORK"; }
test_run_slab() {
	d=/dev/shm
	[ -d "$d" ] || d=$WORK
	run_workload slab "obj_stock.attempts objcg_vmstat.updates" --dir "$d"
}
# stat-reader with flush_mode=always (no hook attached: see the top), where
# every memory.stat read requests a flush; with `kernel` the kernel decides.
test_run_stat_reader() {
	flush_control
	fc=$?
	[ "$fc" -eq 1 ] && return 1
	if [ "$fc" -eq 0 ]; then
		old=$(knob flush_mode)
		tool_ok set flush_mode always || return 1
		run_workload stat-reader flush.requests --cgroups 2 --depth 2
		r=$?
		reqs=$(json_num "$WORK/out" flush.requests)
		tool_ok set flush_mode "$old" || r=1
		[ "$r" -ne 0 ] && return $r
		[ "${reqs:-0}" -ge 100 ] || { diag "only ${reqs:-0} flush requests in 2 s of reads"; return 1; }
	fi
	run_workload stat-reader "" --cgroups 1
}
test_run_refault() {
	setup_fs || return 1
	run_workload refault charge_stock.attempts --dir "$FSDIR" --size 4 || return 1
	# A page read back after memory.reclaim pushed it out is charged again,
	# once per folio: one charge per page on 6.1 and 6.12 (measured: at
	# least half the pages read), one per large folio of up to 512 pages
	# on 7.x, whose ext4 caches large folios (measured: a tenth). Charge
	# attempts below pages / 512 would mean nothing was reclaimed.
	# (Flushes are no proof: 6.1 flushes in reclaim, 6.12 only ratelimited.)
	[ -n "$(counter charge_stock.attempts)" ] || return 0
	pages=$(($(json_float "$WORK/out" ops_per_sec) * $(json_float "$WORK/out" seconds)))
	charged=$(json_num "$WORK/out" charge_stock.attempts)
	diag "refault: about $pages pages read, $charged charge attempts"
	[ "$charged" -ge $((pages / 512)) ] && [ "$charged" -gt 0 ] || {
		diag "fewer charges than pages / 512: nothing was reclaimed?"; return 1; }
}
test_run_readtwice() {
	setup_fs || return 1
	run_workload readtwice charge_stock.attempts --dir "$FSDIR" --size 16 || return 1
	ls "$FSDIR"/memcg-statctl-readtwice.* >/dev/null 2>&1 && {
		diag "readtwice left its files in $FSDIR"; return 1; }
	return 0
}

# sweep of 2 values x 2 runs: a table with both values, the knob restored.
test_sweep() {
	flush_control || return
	old=$(knob flush_mode)
	tool_ok sweep --knob flush_mode --values kernel,always --workload stat-reader \
		--runs 2 --duration 1 || return 1
	diag_head "$WORK/out"
	grep -q '^stat-reader ops_per_sec (ops/s) by flush_mode (2 runs per value)$' "$WORK/out" || {
		diag "no table title"; return 1; }
	grep -Eq '^flush_mode +n +mean ops/s +median +stddev +%change +sig$' "$WORK/out" || {
		diag "no table header"; return 1; }
	grep -Eq '^kernel +2 +[0-9.]+ +[0-9.]+ +[0-9.]+ +- *$' "$WORK/out" || {
		diag "no baseline row"; return 1; }
	grep -Eq '^always +2 +[0-9.]+ +[0-9.]+ +[0-9.]+ +[+-][0-9.]+% *\*?$' "$WORK/out" || {
		diag "no 'always' row with %change"; return 1; }
	grep -Eq '^flush\.requests +[0-9]+ +[0-9]+$' "$WORK/out" || {
		diag "no counter row"; return 1; }
	[ "$(knob flush_mode)" = "$old" ] || { diag "flush_mode left at $(knob flush_mode)"; return 1; }
	no_groups_left || return 1
	# --csv: a header and one line per value
	tool_ok sweep --knob flush_threshold --values 128,4096 --workload stat-reader \
		--runs 2 --duration 1 --csv || return 1
	grep -q '^knob,value,n,mean,median,stddev,' "$WORK/out" &&
		[ "$(grep -c '^flush_threshold,128,2,\|^flush_threshold,4096,2,' "$WORK/out")" -eq 2 ] || {
		diag "--csv rows"; diag_head "$WORK/out"; return 1; }
}

# sweep checks every value before its first run: a typo in the second value
# exits 2 at once, with no cgroup made; a flush knob on a kernel without
# flush control is refused (exit 1) before any run.
test_sweep_checks_first() {
	t "$WORK/out" "$WORK/err" sweep --knob flush_mode --values kernel,nevr \
		--workload stat-reader --runs 1 --duration 1
	[ "$RC" -eq 2 ] && grep -q "flush_mode rejects 'nevr'" "$WORK/err" || {
		diag "--values kernel,nevr: exit $RC, want 2"; diag_head "$WORK/err"; return 1; }
	no_groups_left || return 1
	[ "$(sed -n 's/^flush_control //p' "$DBG/version")" = available ] && return 0
	t "$WORK/out" "$WORK/err" sweep --knob flush_mode --values kernel,never \
		--workload stat-reader --runs 1 --duration 1
	[ "$RC" -eq 1 ] && grep -q 'needs flush control' "$WORK/err" || {
		diag "flush_mode never without flush control: exit $RC, want 1"
		diag_head "$WORK/err"; return 1; }
	no_groups_left
}

# sweep --plot: a table and a non-empty SVG file (through gnuplot).
test_sweep_plot() {
	# `command -v` finds a dangling symlink too: check that it runs
	if ! echo 'print 1' | gnuplot >/dev/null 2>&1; then
		skip "gnuplot does not run here: $(command -v gnuplot || echo 'not in PATH')$(
			[ -L /usr/bin/gnuplot ] && echo "; /usr/bin/gnuplot -> $(readlink /usr/bin/gnuplot)")"
		return $KSFT_SKIP
	fi
	rm -f "$WORK/sweep.svg"
	sweep_knob
	tool_ok sweep --knob "$SWEEP_KNOB" --values "$SWEEP_A,$SWEEP_B" --workload stat-reader \
		--runs 2 --duration 1 --plot "$WORK/sweep.svg" || return 1
	grep -Eq "^$SWEEP_KNOB +n +mean ops/s +median +stddev +%change +sig\$" "$WORK/out" &&
		grep -Eq "^$SWEEP_A " "$WORK/out" && grep -Eq "^$SWEEP_B " "$WORK/out" || {
		diag "no table"; diag_head "$WORK/out"; return 1; }
	[ -s "$WORK/sweep.svg" ] || { diag "no plot file"; return 1; }
	head -c 5 "$WORK/sweep.svg" | grep -q '^<?xml\|^<svg' || {
		diag "plot starts with: $(head -c 40 "$WORK/sweep.svg")"; return 1; }
	grep -q '</svg>' "$WORK/sweep.svg" || { diag "plot not complete"; return 1; }
	grep -q "$SWEEP_KNOB" "$WORK/sweep.svg" || { diag "no axis label in the plot"; return 1; }
	diag "plot: $(wc -c <"$WORK/sweep.svg") bytes"
}

# interrupt ARGS...: start the tool in the background, let the workload run,
# SIGINT it: prompt exit with 130 (128 + SIGINT, after cleaning up), message,
# no group, no task left.
interrupt() {
	start_workload 2 "$TOOL" "$@" || return 1
	kill -INT "$pid"
	if ! wait_exit "$pid" 10; then
		diag "still running 10 s after SIGINT"; return 1
	fi
	diag "exit $RC ${WAITED_MS} ms after SIGINT; stderr: $(head -n 1 "$WORK/err")"
	r=0
	[ "$RC" -eq 130 ] || { diag "exit $RC after SIGINT, expected 130"; r=1; }
	grep -qi 'interrupt' "$WORK/err" || { diag "no message about the interrupt"; r=1; }
	nothing_left || r=1
	return $r
}

test_sigint_run() { interrupt run page-fault --duration 30 --cgroups 2 --depth 2; }
test_sigint_sweep() {
	sweep_knob
	old=$(knob "$SWEEP_KNOB")
	interrupt sweep --knob "$SWEEP_KNOB" --values "$SWEEP_A,$SWEEP_B" --workload page-fault \
		--runs 5 --duration 5 || return 1
	[ "$(knob "$SWEEP_KNOB")" = "$old" ] || {
		diag "$SWEEP_KNOB left at $(knob "$SWEEP_KNOB"), was $old"; return 1; }
}

# ---- a user's command, existing cgroups and processes, results files ---------

FAULT_LOOP=$(cd "$(dirname "$0")" && pwd)/fault_loop
MARK_DELEGATED=$(cd "$(dirname "$0")" && pwd)/mark_delegated

# jq_true FILE FILTER: the JSON FILE satisfies the jq FILTER (else says so).
jq_true() {
	[ "$(jq -r "$2" "$1" 2>"$WORK/jq.err")" = true ] && return 0
	diag "$1: not ($2)"
	diag_head "$WORK/jq.err"
	return 1
}

# needs_helpers: jq and the helper programs are there (else SKIP with why).
needs_helpers() {
	command -v jq >/dev/null 2>&1 || { skip "jq not installed"; return 1; }
	[ -x "$FAULT_LOOP" ] && [ -x "$MARK_DELEGATED" ] || {
		skip "$FAULT_LOOP or $MARK_DELEGATED not built"; return 1; }
}

# sweep over a user's command (fault_loop, a static page-fault program), with
# a results file: the comparison table, and a JSON document with every run,
# every parameter, the versions and the host.
test_sweep_command() {
	needs_helpers || return $KSFT_SKIP
	flush_control || return
	old=$(knob update_flush_every)
	rm -f "$WORK/sweep.json"
	tool_ok sweep --knob update_flush_every --values 0,32 --runs 3 \
		--output "$WORK/sweep.json" -- "$FAULT_LOOP" 16 20 || return 1
	diag_head "$WORK/out"
	r=0
	grep -q '^command seconds (s) by update_flush_every (3 runs per value)$' "$WORK/out" &&
		grep -Eq '^0 +3 +[0-9.]+ +[0-9.]+ +[0-9.]+ +- *$' "$WORK/out" &&
		grep -Eq '^32 +3 +[0-9.]+ +[0-9.]+ +[0-9.]+ +[+-][0-9.]+% *\*?$' "$WORK/out" || {
		diag "no comparison table"; r=1; }
	[ "$(knob update_flush_every)" = "$old" ] || {
		diag "update_flush_every left at $(knob update_flush_every)"; r=1; }
	no_groups_left || r=1
	f=$WORK/sweep.json
	mod=$(sed -n 's/^module //p' "$DBG/version")
	jq_true "$f" '.schema == "memcg-statctl/sweep" and .complete and .interrupted_by == null' || r=1
	jq_true "$f" ".knob == \"update_flush_every\" and .metric == \"seconds\" and .parameters.runs == 3 and .parameters.values == [\"0\",\"32\"] and .parameters.command == [\"$FAULT_LOOP\",\"16\",\"20\"] and .parameters.cgroups == 1" || r=1
	jq_true "$f" ".environment.kernel == \"$(uname -r)\"" || r=1
	jq_true "$f" ".environment.module_version == \"$mod\"" || r=1
	jq_true "$f" '.environment.cpus >= 1 and .environment.memory_bytes > 0' || r=1
	jq_true "$f" '(.environment.tool_version | length) > 0 and .environment.abi == 1' || r=1
	diag "environment: $(jq -c .environment "$f")"
	jq_true "$f" '(.runs | length) == 6 and all(.runs[]; .exit_statuses == [0] and .seconds > 0)' || r=1
	jq_true "$f" '[.runs[].value] == ["0","32","0","32","0","32"]' || r=1
	# 16 MiB touched 20 times: 81920 faults, charged to the run's cgroups;
	# memory.stat is exact to within the kernel's flush threshold (64 updates
	# per cpu) and the per-cpu batches below it (64 each): 256 on 2 cpus
	jq_true "$f" "all(.rows[]; .n == 3 and .memory_stat.pgfault >= 81920 - 128 * $(nproc))" || r=1
	# update_flush_every=32 attaches the update hooks, which count every update
	if [ -n "$(counter stat_updates)" ]; then
		jq_true "$f" '.rows[1].counters.stat_updates > 0' || r=1
	fi
	diag "JSON: $(jq -c '{metric, rows: [.rows[] | {value, n, mean, percent_change, pgfault: .memory_stat.pgfault}]}' "$f")"
	return $r
}

# run --metric: the figure a command prints (will-it-scale's "average:" line).
test_run_metric() {
	needs_helpers || return $KSFT_SKIP
	tool_ok run --tasks 2 --metric 'average:\s*([0-9.]+)' --json -- "$FAULT_LOOP" 8 10 || return 1
	f=$WORK/out
	r=0
	jq_true "$f" '.schema == "memcg-statctl/run" and .workload == "command" and .complete' || r=1
	jq_true "$f" '.result.exit_statuses == [0,0] and .result.metric > 0 and .result.ops_per_sec == null' || r=1
	jq_true "$f" '.parameters.metric == "average:\\s*([0-9.]+)" and .parameters.tasks == 2' || r=1
	grep -q '^\[copy 1\] average: ' "$WORK/err" || { diag "no command output on stderr"; diag_head "$WORK/err"; r=1; }
	diag "metric: $(jq .result.metric "$f") faults/s over 2 copies"
	# a pattern that matches nothing: the run is reported, then exit 1
	t "$WORK/out" "$WORK/err" run --metric 'tps = ([0-9.]+)' -- "$FAULT_LOOP" 1 1
	[ "$RC" -eq 1 ] && grep -q "matched --metric" "$WORK/err" || {
		diag "unmatched --metric: exit $RC"; diag_head "$WORK/err"; r=1; }
	no_groups_left || r=1
	return $r
}

# sweep of two knobs: every combination of their values, interleaved in
# rounds, a warm-up run before each combination's first run (made, not
# kept), --prepare and --cleanup around every run; the rows name every knob's
# value, both knobs are restored, and compare reads the file. A --prepare
# that fails stops the sweep naming it, and keeps the run that finished.
# run --warmup-runs with --prepare and --cleanup too.
test_sweep_knobs() {
	needs_helpers || return $KSFT_SKIP
	flush_control || return
	old_mode=$(knob flush_mode)
	old_every=$(knob update_flush_every)
	log=$WORK/hooks.log
	f=$WORK/knobs.json
	rm -f "$log" "$f"
	tool_ok sweep --knob flush_mode --values kernel,always \
		--knob update_flush_every --values 0,32 --runs 2 --warmup-runs 1 \
		--prepare "echo prepare >> $log" --cleanup "echo cleanup >> $log" \
		--output "$f" -- "$FAULT_LOOP" 4 2 || return 1
	diag_head "$WORK/out"
	r=0
	grep -q '^command seconds (s) by flush_mode,update_flush_every (2 runs per value)$' "$WORK/out" &&
		grep -Eq '^flush_mode=always update_flush_every=32 +2 +[0-9.]+ ' "$WORK/out" || {
		diag "no comparison table of the combinations"; r=1; }
	# 4 combinations: 8 measured runs and 4 warm-up runs, each between the two
	hooks=$(paste -sd' ' - <"$log")
	want=$(for _ in 1 2 3 4 5 6 7 8 9 10 11 12; do printf 'prepare cleanup '; done)
	[ "$hooks " = "$want" ] || { diag "hooks ran: $hooks"; r=1; }
	[ "$(knob flush_mode)" = "$old_mode" ] && [ "$(knob update_flush_every)" = "$old_every" ] || {
		diag "knobs left at $(knob flush_mode) $(knob update_flush_every)"; r=1; }
	no_groups_left || r=1
	jq_true "$f" '.knob == "flush_mode,update_flush_every" and .complete' || r=1
	jq_true "$f" '.parameters.knobs == {"flush_mode": ["kernel","always"], "update_flush_every": ["0","32"]}' || r=1
	jq_true "$f" ".parameters.warmup_runs == 1 and .parameters.prepare == \"echo prepare >> $log\" and .parameters.cleanup == \"echo cleanup >> $log\"" || r=1
	jq_true "$f" '[.runs[].value] == ([range(2)] | map("flush_mode=kernel update_flush_every=0", "flush_mode=kernel update_flush_every=32", "flush_mode=always update_flush_every=0", "flush_mode=always update_flush_every=32"))' || r=1
	jq_true "$f" '(.rows | length) == 4 and all(.rows[]; .n == 2) and .rows[0].value == "flush_mode=kernel update_flush_every=0"' || r=1
	t "$WORK/cmp" "$WORK/err" compare "$f" "$f"
	[ "$RC" -eq 0 ] && grep -q '^  flush_mode=always update_flush_every=32: seconds on ' "$WORK/cmp" || {
		diag "compare: exit $RC"; diag_head "$WORK/err"; diag_head "$WORK/cmp"; r=1; }
	# a --prepare that fails on its second call: one run kept, exit 1
	once=$WORK/prepared-once
	rm -f "$once" "$f"
	t "$WORK/out" "$WORK/err" sweep --knob flush_mode --values kernel,always \
		--knob update_flush_every --values 0,32 --runs 1 \
		--prepare "[ ! -e $once ] && touch $once" --output "$f" -- "$FAULT_LOOP" 1 1
	[ "$RC" -eq 1 ] &&
		grep -q "^memcg-statctl: --prepare '\[ ! -e $once \] && touch $once' exited with status 1 before flush_mode=kernel update_flush_every=32 run 1$" "$WORK/err" &&
		grep -q '^sweep stopped: the results of the runs that finished' "$WORK/err" || {
		diag "failing --prepare: exit $RC"; diag_head "$WORK/err"; r=1; }
	jq_true "$f" '.complete == false and (.runs | length) == 1' || r=1
	[ "$(knob flush_mode)" = "$old_mode" ] && [ "$(knob update_flush_every)" = "$old_every" ] || {
		diag "knobs left at $(knob flush_mode) $(knob update_flush_every) after the failure"; r=1; }
	no_groups_left || r=1
	# run: two warm-up runs, then the measured one
	rm -f "$log"
	tool_ok run --warmup-runs 2 --prepare "echo p >> $log" --cleanup "echo c >> $log" \
		--json -- "$FAULT_LOOP" 1 1 || r=1
	[ "$(paste -sd' ' - <"$log")" = "p c p c p c" ] || { diag "run hooks: $(paste -sd' ' - <"$log")"; r=1; }
	jq_true "$WORK/out" '.parameters.warmup_runs == 2 and .result.exit_statuses == [0]' || r=1
	no_groups_left || r=1
	return $r
}

# run --cgroup and run --pid on a task started outside the tool: measured for
# --duration, nothing started, memory.stat deltas of that task's group.
test_run_observe() {
	needs_helpers || return $KSFT_SKIP
	g=$CGROOT/mcs_ext
	mkdir -p "$g"
	grep -qw memory "$CGROOT/cgroup.subtree_control" || echo +memory >"$CGROOT/cgroup.subtree_control"
	sh -c "echo \$\$ >$g/cgroup.procs && exec $FAULT_LOOP 8 1000000" &
	ext=$!
	sleep 1
	r=0
	tool_ok run --cgroup "$g" --duration 1 --json || r=1
	cp "$WORK/out" "$WORK/cgroup.json"
	jq_true "$WORK/cgroup.json" ".workload == \"cgroup\" and .parameters.cgroups == [\"$g\"] and .result.memory_stat[0].cgroup == \"$g\" and .result.memory_stat[0].delta.pgfault > 0 and .result.seconds >= 1" || r=1
	tool_ok run --pid "$ext" --duration 1 --json || r=1
	cp "$WORK/out" "$WORK/pid.json"
	jq_true "$WORK/pid.json" ".workload == \"pid\" and .parameters.pids == [$ext] and .result.memory_stat[0].cgroup == \"$g\" and .result.memory_stat[0].delta.pgfault > 0" || r=1
	diag "pgfault in 1 s: --cgroup $(jq '.result.memory_stat[0].delta.pgfault' "$WORK/cgroup.json"), --pid $(jq '.result.memory_stat[0].delta.pgfault' "$WORK/pid.json")"
	kill -0 "$ext" 2>/dev/null || { diag "the outside task died during the runs"; r=1; }
	kill -KILL "$ext"
	wait "$ext" 2>/dev/null
	sleep 0.2
	rmdir "$g" || r=1
	no_groups_left || r=1
	return $r
}

# SIGINT in the middle of a sweep with --output: exit 130, the runs that
# finished in the file (complete false) and in a table on stdout, no group
# left, the knob restored.
test_sigint_sweep_partial() {
	needs_helpers || return $KSFT_SKIP
	sweep_knob
	old=$(knob "$SWEEP_KNOB")
	f=$WORK/partial.json
	rm -f "$f"
	"$TOOL" sweep --knob "$SWEEP_KNOB" --values "$SWEEP_A,$SWEEP_B" --workload page-fault \
		--runs 5 --duration 2 --output "$f" >"$WORK/out" 2>"$WORK/err" &
	pid=$!
	_i=0
	while [ ! -s "$f" ] && [ "$_i" -lt 600 ]; do
		sleep 0.1
		_i=$((_i + 1))
	done
	[ -s "$f" ] || { diag "no results file after 60 s"; kill -KILL "$pid"; wait "$pid"; return 1; }
	wait_group "$pid" 30 # in the middle of the next run
	sleep 0.5
	kill -INT "$pid"
	wait_exit "$pid" 20 || { diag "still running 20 s after SIGINT"; return 1; }
	r=0
	[ "$RC" -eq 130 ] || { diag "exit $RC, expected 130"; diag_head "$WORK/err"; r=1; }
	jq_true "$f" '.complete == false and .interrupted_by == "SIGINT" and (.runs | length) >= 1 and (.rows | length) == 2' || r=1
	grep -q "by $SWEEP_KNOB (.*, stopped before the end)\$" "$WORK/out" || {
		diag "no partial table on stdout"; diag_head "$WORK/out"; r=1; }
	[ "$(knob "$SWEEP_KNOB")" = "$old" ] || {
		diag "$SWEEP_KNOB left at $(knob "$SWEEP_KNOB")"; r=1; }
	no_groups_left || r=1
	diag "kept $(jq '.runs | length' "$f") runs; stderr: $(tr '\n' ' ' <"$WORK/err")"
	return $r
}

# The cgroups go below a cgroup that systemd delegated to the tool's own
# (marked trusted.delegate=1, as Delegate=yes does), or below --parent; the
# tool steps aside into a leaf of its own while it runs and leaves the
# delegated group as it found it.
test_parent_delegated() {
	needs_helpers || return $KSFT_SKIP
	d=$CGROOT/mcs_deleg
	p=$CGROOT/mcs_parent
	mkdir -p "$d" "$p"
	grep -qw memory "$CGROOT/cgroup.subtree_control" || echo +memory >"$CGROOT/cgroup.subtree_control"
	"$MARK_DELEGATED" "$d" || { rmdir "$d" "$p"; return 1; }
	r=0
	timeout "$T_LIMIT" sh -c "echo \$\$ >$d/cgroup.procs && exec $TOOL run page-fault --duration 1 --json" \
		>"$WORK/out" 2>"$WORK/err" || { diag "exit $?"; diag_head "$WORK/err"; r=1; }
	jq_true "$WORK/out" ".parameters.parent == \"$d\" and .parameters.parent_from == \"delegated\" and (.result.memory_stat[0].cgroup | startswith(\"$d/memcg-statctl.\")) and .result.ops_per_sec > 0" || r=1
	[ -z "$(find "$d" -mindepth 1 -type d)" ] || { diag "left in $d: $(find "$d" -mindepth 1 -type d)"; r=1; }
	[ -z "$(cat "$d/cgroup.subtree_control")" ] || { diag "$d subtree_control: $(cat "$d/cgroup.subtree_control")"; r=1; }
	tool_ok run page-fault --duration 1 --json --parent "$p" || r=1
	jq_true "$WORK/out" ".parameters.parent == \"$p\" and .parameters.parent_from == \"--parent\"" || r=1
	[ -z "$(find "$p" -mindepth 1 -type d)" ] || { diag "left in $p: $(find "$p" -mindepth 1 -type d)"; r=1; }
	t "$WORK/out" "$WORK/err" run page-fault --duration 1 --parent "$CGROOT/no_such_group"
	[ "$RC" -eq 2 ] && grep -q "is not a cgroup" "$WORK/err" || {
		diag "--parent of a missing group: exit $RC"; diag_head "$WORK/err"; r=1; }
	rmdir "$d" "$p" || r=1
	no_groups_left || r=1
	return $r
}

# running PID: PID is alive and not a zombie (the shell reaps it only at `wait`).
running() {
	[ -d "/proc/$1" ] && [ "$(sed 's/.*) //; s/ .*//' "/proc/$1/stat" 2>/dev/null)" != Z ]
}

# experiment --parent: the groups go below the given cgroup (seen while it
# runs), a dead run's group there is removed at the start, and nothing stays.
test_experiment_parent() {
	needs_helpers || return $KSFT_SKIP
	flush_control || return # update-flush writes update_flush_every
	p=$CGROOT/mcs_parent
	mkdir -p "$p"
	grep -qw memory "$CGROOT/cgroup.subtree_control" || echo +memory >"$CGROOT/cgroup.subtree_control"
	sh -c 'exit 0' &
	dead=$!
	wait "$dead"
	mkdir "$p/memcg-statctl.$dead" || return 1 # as a run killed earlier leaves it
	old=$(knob update_flush_every)
	# An explicit --plot needs gnuplot, checked before anything runs (exit 2).
	set -- --output "$WORK/exp.json"
	echo 'print 1' | gnuplot >/dev/null 2>&1 && set -- "$@" --plot "$WORK/exp.svg"
	"$TOOL" experiment update-flush --runs 2 --duration 0.5 --parent "$p" \
		"$@" >"$WORK/out" 2>"$WORK/err" &
	pid=$!
	seen=0
	_i=0
	while running "$pid" && [ "$_i" -lt $((T_LIMIT * 10)) ]; do
		[ -d "$p/memcg-statctl.$pid" ] && seen=1
		sleep 0.1
		_i=$((_i + 1))
	done
	running "$pid" && { diag "experiment still running after $T_LIMIT s"; kill -KILL "$pid"; }
	wait "$pid"
	rc=$?
	r=0
	[ "$rc" -eq 0 ] || { diag "experiment: exit $rc"; diag_head "$WORK/err"; r=1; }
	[ "$seen" -eq 1 ] || { diag "no $p/memcg-statctl.$pid while the experiment ran"; r=1; }
	grep -q "removed leftover cgroup $p/memcg-statctl.$dead of dead process $dead\$" "$WORK/err" || {
		diag "the dead run's group below $p was not reported as removed"; diag_head "$WORK/err"; r=1; }
	jq_true "$WORK/exp.json" ".complete and .parameters.parent == \"$p\" and .parameters.parent_from == \"--parent\"" || r=1
	[ -z "$(find "$p" -mindepth 1 -type d)" ] || { diag "left in $p: $(find "$p" -mindepth 1 -type d)"; r=1; }
	[ "$(knob update_flush_every)" = "$old" ] || {
		diag "update_flush_every left at $(knob update_flush_every)"; r=1; }
	rmdir "$p" || r=1
	no_groups_left || r=1
	return $r
}

# SIGKILL during run leaves its groups; the next run reports and removes them.
test_sigkill_leftover() {
	start_workload 1 "$TOOL" run page-fault --duration 30 --cgroups 2 || return 1
	kill -KILL "$pid"
	{ wait "$pid"; } 2>/dev/null
	[ -d "$CGROOT/memcg-statctl.$pid" ] || {
		diag "SIGKILL left no group (nothing to test)"; return 1; }
	diag "left after SIGKILL: $(find "$CGROOT/memcg-statctl.$pid" -type d | tr '\n' ' ')"
	tool_ok run stat-reader --duration 1 || return 1
	diag "next run said: $(grep leftover "$WORK/err")"
	grep -q "removed leftover cgroup $CGROOT/memcg-statctl.$pid of dead process $pid\$" "$WORK/err" || {
		diag "the next run did not report memcg-statctl.$pid as removed"; diag_head "$WORK/err"; return 1; }
	no_groups_left || return 1
}

# rmmod_retry: unload the module (on cpu 0), retrying while a debugfs file
# of it is open (EBUSY/EAGAIN) for up to 10 s.
rmmod_retry() {
	_i=0
	while ! taskset 1 rmmod memcg_statctl 2>"$WORK/rmmod.err"; do
		_i=$((_i + 1))
		if [ "$_i" -ge 50 ]; then
			diag "rmmod: $(cat "$WORK/rmmod.err")"
			return 1
		fi
		sleep 0.2
	done
}

# vanish_during rmmod|umount ARGS...: start the tool with ARGS in the
# background (on cpu 0), wait until its workload runs, then unload the
# module (rmmod) or lazily unmount debugfs (umount -l). The tool must exit
# within 30 s with status 3 and one line on stderr naming what disappeared,
# leaving no cgroup and no workload task. The module and debugfs are back
# afterwards either way.
vanish_during() {
	what=$1
	shift
	start_workload 1 taskset 1 "$TOOL" "$@" || return 1
	r=0
	case $what in
	rmmod)
		want="memcg_statctl module was unloaded during the run"
		rmmod_retry || r=1
		;;
	umount)
		want="debugfs is no longer mounted at $DEBUGFS"
		umount -l "$DEBUGFS" || { diag "umount -l $DEBUGFS failed"; r=1; }
		;;
	esac
	if wait_exit "$pid" 30; then
		diag "exit $RC ${WAITED_MS} ms after $what; stderr: $(cat "$WORK/err")"
		[ "$RC" -eq 3 ] || { diag "exit $RC, expected 3"; r=1; }
		grep -q "$want" "$WORK/err" || { diag "stderr does not say: $want"; r=1; }
		# One line, and a sweep whose first runs had finished (a slow
		# kernel) first says that it keeps their results.
		[ "$(grep -vc '^sweep stopped: the results of the runs that finished' "$WORK/err")" -eq 1 ] || {
			diag "stderr has $(wc -l <"$WORK/err") lines, expected one (after a sweep's partial results):"
			diag_head "$WORK/err"; r=1; }
	else
		diag "still running 30 s after $what (killed)"; diag_head "$WORK/err"; r=1
	fi
	nothing_left || r=1
	case $what in
	rmmod) module_loaded || insmod "$KO" || { diag "insmod $KO failed"; r=1; } ;;
	umount) mount -t debugfs debugfs "$DEBUGFS" || { diag "cannot remount debugfs"; r=1; } ;;
	esac
	module_loaded || { diag "module not back at $DBG"; r=1; }
	return $r
}

need_ko() {
	[ -n "$KO" ] && [ -r "$KO" ] && return 0
	skip "no module file (MEMCG_STATCTL_KO, beside this script, modinfo): cannot reload the module afterwards"
	return 1
}

# The module unloaded while `run` measures: exit 3 at once, groups removed.
test_unload_during_run() {
	need_ko || return $KSFT_SKIP
	vanish_during rmmod run page-fault --duration 60 --cgroups 2 --depth 2
}

# debugfs unmounted (lazily) while `run` measures: the same.
test_unmount_during_run() {
	vanish_during umount run stat-reader --duration 60 --cgroups 2
}

# The module unloaded during a sweep (which writes the knob between runs):
# the same, and the reloaded module has its own value of the knob (nothing
# of the sweep written into it).
test_unload_during_sweep() {
	need_ko || return $KSFT_SKIP
	sweep_knob
	old=$(knob "$SWEEP_KNOB")
	vanish_during rmmod sweep --knob "$SWEEP_KNOB" --values "$SWEEP_A,$SWEEP_B" \
		--workload page-fault --runs 5 --duration 2 || return 1
	[ "$(knob "$SWEEP_KNOB")" = "$old" ] || {
		diag "$SWEEP_KNOB $(knob "$SWEEP_KNOB") after the reload, was $old"; return 1; }
}

# Without the module: exit 3 and say how to load it.
test_no_module() {
	need_ko || return $KSFT_SKIP
	rmmod memcg_statctl || { diag "rmmod failed"; return 1; }
	r=0
	for c in status stats get reset "set flush_mode always" "sweep --knob flush_mode --values kernel,always --workload stat-reader"; do
		t "$WORK/out" "$WORK/err" $c
		if [ "$RC" -ne 3 ]; then
			diag "$c without the module: exit $RC, expected 3"; diag_head "$WORK/err"; r=1
		elif ! grep -q 'not loaded' "$WORK/err" || ! grep -q 'insmod\|modprobe' "$WORK/err"; then
			diag "$c: message does not say what to do:"; diag_head "$WORK/err"; r=1
		fi
	done
	diag "message: $(cat "$WORK/err")"
	# run works without the module, just without counter deltas
	t "$WORK/out" "$WORK/err" run stat-reader --duration 1
	[ "$RC" -eq 0 ] && grep -q 'module not loaded' "$WORK/out" || {
		diag "run without the module: exit $RC"; diag_head "$WORK/out"; diag_head "$WORK/err"; r=1; }
	insmod "$KO" || { diag "insmod $KO failed"; return 1; }
	module_loaded || { diag "module back but no $DBG"; return 1; }
	return $r
}

# With debugfs unmounted: exit 3 and say how to mount it.
test_no_debugfs() {
	umount "$DEBUGFS" || { diag "umount $DEBUGFS failed"; return 1; }
	r=0
	for c in status stats get; do
		t "$WORK/out" "$WORK/err" $c
		if [ "$RC" -ne 3 ]; then
			diag "$c without debugfs: exit $RC, expected 3"; diag_head "$WORK/err"; r=1
		elif ! grep -q "mount -t debugfs" "$WORK/err"; then
			diag "$c: message does not say what to do:"; diag_head "$WORK/err"; r=1
		fi
	done
	diag "message: $(cat "$WORK/err")"
	mount -t debugfs debugfs "$DEBUGFS" || { diag "cannot remount debugfs"; return 1; }
	module_loaded || { diag "no $DBG after remount"; return 1; }
	return $r
}

# ---- main --------------------------------------------------------------------

TESTS="help status status_hook_failed get set_good set_bad reset stats stats_json \
stats_flush_latency stats_flush_reasons stats_watch top top_stock_attribution \
run_pf_anon run_pf_private run_pf_shared run_slab run_stat_reader run_refault \
run_readtwice sweep sweep_checks_first sweep_plot sweep_command sweep_knobs run_metric \
run_observe \
sigint_run sigint_sweep sigint_sweep_partial parent_delegated experiment_parent \
sigkill_leftover \
unload_during_run unmount_during_run unload_during_sweep no_module no_debugfs"

[ -x "$TOOL" ] || skip_all "$TOOL not found"
[ "$(id -u)" -eq 0 ] || skip_all "needs root"
# Run on its own (kselftest's runner, -t), the module may not be loaded yet.
if ! module_loaded && ! grep -q '^memcg_statctl ' /proc/modules; then
	if [ -n "$KO" ]; then
		insmod "$KO" 2>&1 | sed 's/^/# /'
	else
		modprobe memcg_statctl 2>&1 | sed 's/^/# /'
	fi
fi
module_loaded || skip_all "memcg_statctl module not loaded ($DBG missing)"
[ -f "$CGROOT/cgroup.controllers" ] || skip_all "no cgroup v2 at $CGROOT"

# The module's knobs: regular files with mode 0600 (ABI.md).
KNOBS=$(cd "$DBG" && for f in *; do
	[ "$f" != reset ] && [ "$(stat -c %a "$f")" = 600 ] && echo "$f"
done)

mkdir -p "$WORK"
cleanup() {
	teardown_fs
	remove_groups
	command -v tmux >/dev/null 2>&1 && tmux kill-session -t mcs_stock_top 2>/dev/null
	for g in "$CGROOT"/mcs_ext "$CGROOT"/mcs_deleg "$CGROOT"/mcs_parent "$CGROOT"/mcs_stock; do
		[ -d "$g" ] || continue
		for p in $(cat "$g/cgroup.procs" 2>/dev/null); do kill -KILL "$p" 2>/dev/null; done
		sleep 0.2
		find "$g" -depth -type d -exec rmdir {} \; 2>/dev/null
	done
	grep -q " $DEBUGFS debugfs" /proc/mounts ||
		mount -t debugfs debugfs "$DEBUGFS"
	if ! module_loaded && [ -n "$KO" ]; then
		insmod "$KO"
	fi
	rm -rf "$WORK"
}
trap cleanup EXIT
# Interrupted or timed out (run_tests.sh's `timeout` sends TERM): the
# shell's own status for the signal, so the runner reports a timeout as one.
trap 'exit 130' INT
trap 'exit 143' TERM

set -- $TESTS
[ -n "$KSFT_TAP_LEVEL" ] || echo "TAP version 13"
echo "1..$#"
diag "tool $TOOL; knobs: $(echo $KNOBS)"
for test_name in "$@"; do
	n=$((n + 1))
	skip_why=
	# $MEMCG_STATCTL_TESTS: comma-separated test names to run, as in lib/harness.c
	case ",${MEMCG_STATCTL_TESTS:-$test_name}," in
	*",$test_name,"*)
		started=$(cut -d. -f1 /proc/uptime)
		"test_$test_name"
		rc=$?
		# where the program's time goes (the suite runs under TCG for long;
		# busybox sh has no $SECONDS)
		took=$(($(cut -d. -f1 /proc/uptime) - started))
		[ "$took" -lt 2 ] || diag "$test_name took ${took}s"
		;;
	*)
		skip_why="not in MEMCG_STATCTL_TESTS"
		rc=$KSFT_SKIP
		;;
	esac
	case $rc in
	0) echo "ok $n $test_name"; passes=$((passes + 1)) ;;
	"$KSFT_SKIP") echo "ok $n $test_name # SKIP${skip_why:+ $skip_why}"; skips=$((skips + 1)) ;;
	*) echo "not ok $n $test_name"; fails=$((fails + 1)) ;;
	esac
	# no test may leave a group for the next one
	if [ -n "$(tool_groups)" ]; then
		diag "removing groups left after $test_name: $(tool_groups)"
		remove_groups
	fi
done
diag "Totals: pass:$passes fail:$fails xfail:0 xpass:0 skip:$skips error:0"

[ "$fails" -eq 0 ] || exit $KSFT_FAIL
[ "$passes" -gt 0 ] || exit $KSFT_SKIP
exit $KSFT_PASS
