#!/bin/bash
# contrib-check.sh: the mmtests and LKP adapters of contrib/, run on this
# host the way those harnesses run them, with the tool (build/userspace/
# memcg-statctl) pointed by MEMCG_STATCTL_DEBUGFS at a stand-in for the
# module's debugfs directory (scripts/checks/fake-debugfs.sh):
#   mmtests  the monitor started as shellpacks/monitors.sh starts a
#            MONITORS_GZIP monitor (piped into gzip, and written plain then
#            gzipped), stopped with SIGTERM; its file is JSON lines with the
#            counters; the report helper reads it.
#   LKP      the setup run with job parameters writes the knobs; the
#            monitor run as bin/run-monitor runs it (through a FIFO),
#            stopped with SIGTERM as bin/post-run does; the parse script
#            turns its file into `key: value` lines.
# Part of `make check`, after `make unit` built the tool; needs jq, gzip.
#
# With MCS_CONTRIB_MODULE=1 it runs against the real module instead, with
# the installed tool (`memcg-statctl` on PATH): scripts/guest/deb-steps.sh
# runs it so in the guest of deb-check.sh, after the packages are installed
# and the module loaded. The counters then grow by the kernel's periodic
# flush (every 2 s) and a reader of a cgroup's memory.stat; the knobs the
# LKP setup writes are put back afterwards.
# Output: TAP 13 lines; the exit status is non-zero when any check fails.
source "$(dirname "$0")/../lib.sh"
TAP_NAME="contrib-check"
# shellcheck source=scripts/checks/tap.sh
source "$MCS_ROOT/scripts/checks/tap.sh"
# shellcheck source=scripts/checks/fake-debugfs.sh
source "$MCS_ROOT/scripts/checks/fake-debugfs.sh"

contrib=$MCS_ROOT/contrib
watch=$contrib/mmtests/monitors/watch-memcg-statctl.sh
extract=$contrib/mmtests/extract-memcg-statctl.sh
lkp=$contrib/lkp-tests/programs
real=${MCS_CONTRIB_MODULE:-0}
case "$real" in
0) tool=$MCS_BUILD/userspace/memcg-statctl ;;
1) tool=$(command -v memcg-statctl) || tool=/usr/bin/memcg-statctl ;;
*) die "MCS_CONTRIB_MODULE must be 0 or 1 (got '$real')" ;;
esac

echo "TAP version 13"
for cmd in jq gzip stdbuf setsid; do
	command -v "$cmd" >/dev/null || { notok "$cmd is installed (make deps)"; finish; }
done
[ -x "$tool" ] || { notok "the tool is built: $tool (make userspace)"; finish; }

tmp=$(mktemp -d)
feeder=
groups=()
knobs=(flush_mode flush_threshold update_flush_every flush_period_ms stock_hooks)
declare -A saved
# the knobs as they were before this check (none saved against the stand-in)
restore_knobs() {
	local k
	for k in "${!saved[@]}"; do echo "${saved[$k]}" >"$fake/$k" 2>/dev/null || true; done
}
cgroup=
cleanup() {
	local g
	# waited for: a feeder still writing would race the rm -rf below
	[ -z "$feeder" ] || { kill "$feeder" 2>/dev/null; wait "$feeder" 2>/dev/null; } || true
	for g in "${groups[@]}"; do kill -KILL -- "-$g" 2>/dev/null || true; done
	restore_knobs
	if [ -n "$cgroup" ]; then # the reader's last `cat` or `sleep` may still be in it
		for _ in 1 2 3 4 5 6 7 8 9 10; do
			xargs -r kill -KILL <"$cgroup/cgroup.procs" 2>/dev/null || true
			rmdir "$cgroup" 2>/dev/null && break
			sleep 0.2
		done
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT
if [ "$real" = 1 ]; then
	fake=/sys/kernel/debug/memcg_statctl
	[ -r "$fake/version" ] || { notok "the module is loaded: $fake/version"; finish; }
	for k in "${knobs[@]}"; do saved[$k]=$(cat "$fake/$k"); done
	# A reader in a cgroup of its own: every read of memory.stat asks for a
	# flush, and every `cat` it starts charges pages there (the charge
	# stock's counters, and so charge_stock_hit_pct, have something to show).
	grep -qw memory /sys/fs/cgroup/cgroup.subtree_control ||
		echo +memory >/sys/fs/cgroup/cgroup.subtree_control
	cgroup=/sys/fs/cgroup/memcg-statctl-contrib.$$
	mkdir "$cgroup"
	(
		echo "$BASHPID" >"$cgroup/cgroup.procs"
		while :; do cat "$cgroup/memory.stat" >/dev/null; sleep 0.2; done
	) &
	feeder=$!
	export MEMCG_STATCTL=$tool
	unset MEMCG_STATCTL_DEBUGFS
else
	fake=$tmp/debugfs/memcg_statctl
	fake_debugfs_make "$fake"
	fake_debugfs_feed "$fake" &
	feeder=$!
	export MEMCG_STATCTL=$tool MEMCG_STATCTL_DEBUGFS=$fake
fi

# alive PID: PID runs (a zombie, our child not yet waited for, has ended).
alive() {
	local stat
	stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
	stat=${stat##*) }
	[ "${stat%% *}" != Z ]
}

# Each monitor starts under setsid, in a process group of its own (same
# pid: setsid execs), so that a failing check can end all it started.
# stop PID: SIGTERM to PID, as both harnesses send first; fails if PID is
# still there 5 s later (they would escalate to SIGINT or SIGKILL), and
# then kills PID's group.
stop() {
	local tries=50
	kill -TERM "$1" 2>/dev/null || return 1
	while [ "$tries" -gt 0 ]; do
		alive "$1" || { kill -KILL -- "-$1" 2>/dev/null || true; return 0; }
		sleep 0.1
		tries=$((tries - 1))
	done
	kill -KILL -- "-$1" 2>/dev/null || true
	return 1
}

# is_tool PID: PID runs the tool itself (the adapter exec'd it), so that the
# harness's signal reaches it.
is_tool() { [ "$(readlink -f "/proc/$1/exe")" = "$(readlink -f "$tool")" ]; }

# json_lines FILE [MIN]: FILE (gzipped or not) holds at least MIN (2) lines,
# each a stats --watch object with the fake's counters, and they grew.
json_lines() {
	local n
	n=$(zcat -f -- "$1" | wc -l)
	[ "$n" -ge "${2:-2}" ] || { echo "# $n lines in $1"; return 1; }
	zcat -f -- "$1" | jq -e -s '
		all(.[]; (.timestamp | type) == "string" and (.seconds | type) == "number"
			and (.deltas | has("flush.requests") and has("charge_stock.misses"))
			and (.per_second | has("flush.requests"))
			and (.derived | has("charge_stock_hit_pct")))
		and any(.[]; .deltas["flush.requests"] > 0)' >/dev/null
}

# --- mmtests ---------------------------------------------------------------
# As run-mmtests.sh sets them around a test (MONITOR_LOG: MONITOR_DIR/
# NAME-CURRENT_TEST), with a 1 s MONITOR_UPDATE_FREQUENCY to keep this short.
export MONITOR_UPDATE_FREQUENCY=1
mlog=$tmp/mmtests/log/memcg-statctl-wis-pf
mkdir -p "$tmp/mmtests/log"

# start_gzip_monitor, one version: the monitor's output piped into gzip.
pidfile=$tmp/mmtests/log/monitor.pids
(setsid "$watch" & echo $! >>"$pidfile") | gzip -c >"$mlog.gz" &
piped=$!
sleep 3.5
pid=$(tail -n1 "$pidfile")
groups+=("$pid")
check "mmtests (gzip pipe): the monitor's pid is the tool" is_tool "$pid"
check "mmtests (gzip pipe): SIGTERM stops it" stop "$pid"
wait "$piped" || true
check "mmtests (gzip pipe): $(basename "$mlog").gz is whole gzip" gzip -t "$mlog.gz"
check "mmtests (gzip pipe): JSON lines with the counters, growing" json_lines "$mlog.gz"

# start_gzip_monitor, the other version: written plain, gzip -f after stop.
plain=$tmp/mmtests/log/memcg-statctl-wis-malloc
setsid "$watch" 2>/dev/null >"$plain" &
pid=$!
groups+=("$pid")
sleep 3.5
check "mmtests (gzip at stop): SIGTERM stops the monitor" stop "$pid"
wait "$pid" 2>/dev/null || true
gzip -f "$plain"
check "mmtests (gzip at stop): JSON lines with the counters, growing" json_lines "$plain.gz"

# The report helper on the gzipped file.
summary() {
	"$extract" "$mlog.gz" >"$tmp/summary" &&
		head -n1 "$tmp/summary" | grep -q '^intervals [0-9]' &&
		awk '$1 == "flush.requests" && $2 > 0 { ok = 1 } END { exit !ok }' "$tmp/summary"
}
check "mmtests report: a row per counter, flush.requests counted" summary
series() {
	"$extract" "$mlog.gz" flush.requests >"$tmp/series" &&
		[ "$(wc -l <"$tmp/series")" -ge 2 ] &&
		awk 'NF != 2 || $1 !~ /^[0-9.]+$/ || $2 !~ /^[0-9.e+-]+$/ { exit 1 }' "$tmp/series"
}
check "mmtests report: flush.requests as SECONDS VALUE lines" series
check "mmtests report: an unknown name fails" eval '! "$extract" "$mlog.gz" no_such_counter 2>/dev/null'

# --- LKP -------------------------------------------------------------------
# setup: the job's parameters reach it as variables (lib/job2sh.rb).
setup_knobs() {
	local period stock
	period=$(cat "$fake/flush_period_ms") && stock=$(cat "$fake/stock_hooks") || return 1
	env flush_mode=never flush_threshold=4096 update_flush_every=32 \
		"$lkp/memcg-statctl/setup" >"$tmp/setup.out" 2>&1 || { cat "$tmp/setup.out"; return 1; }
	cat "$tmp/setup.out" # shown when the check fails
	[ "$(cat "$fake/flush_mode")" = never ] &&
		[ "$(cat "$fake/flush_threshold")" = 4096 ] &&
		[ "$(cat "$fake/update_flush_every")" = 32 ] &&
		[ "$(cat "$fake/flush_period_ms")" = "$period" ] &&
		[ "$(cat "$fake/stock_hooks")" = "$stock" ] &&
		[ "$(grep '^memcg-statctl set' "$tmp/setup.out" | tail -n1)" = "memcg-statctl set flush_mode never" ]
}
TAP_CAPTURE=$tmp/capture check "LKP setup: flush_mode, flush_threshold, update_flush_every written, flush_mode last, the rest left alone" setup_knobs
unset TAP_CAPTURE
# The module's own values again, for the monitor below (with flush_mode
# never, reads still ask, but the update path would flush every 32 events).
restore_knobs
no_module() {
	local rc=0
	MEMCG_STATCTL_DEBUGFS=$tmp/debugfs/absent "$lkp/memcg-statctl/setup" >/dev/null 2>&1 ||
		rc=$?
	[ "$rc" -eq 3 ]
}
check "LKP setup: exit 3 without the module" no_module

# monitor: as bin/run-monitor runs it: stdout a FIFO, read into the result
# file, the program exec'd under stdbuf; stopped as bin/post-run stops it.
result=$tmp/lkp/result
mkdir -p "$result"
fifo=$tmp/lkp/fifo-memcg-statctl-stats
mkfifo "$fifo"
cat "$fifo" >"$result/memcg-statctl-stats" &
reader=$!
(export interval=1; exec setsid stdbuf -oL -e0 "$lkp/memcg-statctl-stats/monitor" >"$fifo") &
pid=$!
groups+=("$pid")
sleep 3.5
check "LKP monitor: the pid run-monitor records is the tool" is_tool "$pid"
check "LKP monitor: SIGTERM stops it" stop "$pid"
wait "$reader" || true
check "LKP monitor: JSON lines with the counters, growing" json_lines "$result/memcg-statctl-stats"

# parse: as bin/run-stats runs it: the file as argument and on stdin.
log=$result/memcg-statctl-stats
rc=0
"$lkp/memcg-statctl-stats/parse" "$log" <"$log" >"$tmp/stats" || rc=$?
check "LKP parse: exit 0" test "$rc" -eq 0
check "LKP parse: every line is 'key: number'" \
	eval '[ -s "$tmp/stats" ] && ! grep -Evq "^[a-z0-9_.]+: -?[0-9][0-9.e+-]*\$" "$tmp/stats"'
check "LKP parse: one time: line per sample" \
	eval '[ "$(grep -c "^time: " "$tmp/stats")" -eq "$(wc -l <"$log")" ]'
# A rate per second: the real module's may be below 1 (0.5 = the periodic
# flush alone).
check "LKP parse: counters and derived values" \
	eval 'awk "\$1 == \"flush.requests:\" && \$2 > 0 { ok = 1 } END { exit !ok }" "$tmp/stats" &&
		grep -q "^flush.ns_max: " "$tmp/stats" && grep -q "^charge_stock_hit_pct: " "$tmp/stats"'
half() {
	{ cat "$log"; printf '{"interval": 9, "timest'; } >"$tmp/half"
	"$lkp/memcg-statctl-stats/parse" <"$tmp/half" | cmp -s - "$tmp/stats"
}
check "LKP parse: half a last line is skipped" half

# The adapters are shell: clean for shellcheck, as the project's scripts
# (on the host; the guest has no shellcheck).
if [ "$real" = 1 ]; then
	:
elif command -v shellcheck >/dev/null; then
	TAP_CAPTURE=$tmp/capture check "shellcheck -x -S warning on contrib/" \
		shellcheck -x -S warning "$watch" "$extract" "$lkp/memcg-statctl/setup" \
		"$lkp/memcg-statctl-stats/monitor" "$lkp/memcg-statctl-stats/parse"
	unset TAP_CAPTURE
else
	skip "shellcheck -x -S warning on contrib/" "shellcheck not installed"
fi
finish
