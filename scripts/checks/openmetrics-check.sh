#!/bin/bash
# openmetrics-check.sh: the Prometheus output of `memcg-statctl stats`
# against the real tools, on the host, with a fixture in place of the
# module's debugfs directory (userspace/tests/data/debugfs/memcg_statctl;
# "unload" renames it away):
# - `promtool check metrics` accepts `stats --openmetrics`, with the module
#   and without it (then memcg_statctl_up 0 and nothing else);
# - its values are those of `stats --json` and `get --json`;
# - the flush latency histogram: cumulative buckets, +Inf = _count =
#   flush.performed, _sum = flush.ns_total in seconds;
# - option errors exit 2 with one line;
# - `stats --textfile-dir` feeds Debian's prometheus-node-exporter (its
#   textfile collector only, on 127.0.0.1:MCS_OM_PORT, default 19100 or the
#   next free port), which serves the same values on /metrics, then
#   memcg_statctl_up 0 while the fixture is away, then the values again;
# - SIGTERM and SIGINT stop the writer with exit 0 and an empty directory.
# Needs the tool built (make userspace) and `make deps` (prometheus,
# prometheus-node-exporter, curl, jq). Part of `make check`. Output: TAP 13.
source "$(dirname "$0")/../lib.sh"
TAP_NAME=openmetrics-check
# shellcheck source=scripts/checks/tap.sh
source "$MCS_ROOT/scripts/checks/tap.sh"

tool=${MCS_TOOL:-$MCS_BUILD/userspace/memcg-statctl}
fixture=$MCS_ROOT/userspace/tests/data/debugfs/memcg_statctl
[ -x "$tool" ] || die "no $tool: run make userspace first"
for c in promtool prometheus-node-exporter curl jq; do
	command -v "$c" >/dev/null || die "$c not found: run make deps"
done

work=$(mktemp -d)
pids=()
cleanup() {
	local p
	for p in "${pids[@]}"; do
		kill "$p" 2>/dev/null || true
		wait "$p" 2>/dev/null || true
	done
	rm -rf "$work"
}
trap cleanup EXIT

# The fixture with the modes of module/ABI.md: knobs are the files a
# write bit marks.
debugfs=$work/debugfs/memcg_statctl
mkdir -p "$work/debugfs" "$work/textfile"
cp -r "$fixture" "$debugfs"
chmod 0400 "$debugfs"/version "$debugfs"/hooks "$debugfs"/stats "$debugfs"/flush_latency \
	"$debugfs"/flush_reasons
chmod 0200 "$debugfs"/reset
for f in flush_mode flush_threshold flush_period_ms update_flush_every stock_hooks objcg_flush_hooks; do
	chmod 0600 "$debugfs/$f"
done
mcs() { "$tool" --debugfs "$debugfs" "$@"; }
TAP_CAPTURE=$work/capture

# wait_for SECONDS COMMAND...: poll COMMAND every 0.1 s until it succeeds.
wait_for() {
	local deadline=$((SECONDS + $1))
	shift
	until "$@" >/dev/null 2>&1; do
		[ "$SECONDS" -lt "$deadline" ] || return 1
		sleep 0.1
	done
}

# expected: "metric value" lines from stats --json and get --json, by the
# names of docs/output.md (counter keys with or without dots). The
# percentiles flush.ns_pNN are not exported (histogram_quantile() makes
# them); the histogram's _count and _sum are.
expected() {
	mcs stats --json | jq -r '
		def norm: with_entries(.key |= gsub("\\."; "_"));
		(.flush_latency // empty |
			"memcg_statctl_flush_duration_seconds_count \(map(.count) | add)"),
		(select(.flush_latency != null) |
			"memcg_statctl_flush_duration_seconds_sum \(.counters["flush.ns_total"] / 1e9)"),
		def num(d): if . == null then "NaN" else . / d end;
		(.counters | norm | to_entries[] |
			if .key == "flush_ns_total" then "memcg_statctl_flush_seconds_total \(.value / 1e9)"
			elif .key == "flush_ns_max" then "memcg_statctl_flush_max_seconds \(.value / 1e9)"
			else "memcg_statctl_\(.key)_total \(.value)" end),
		(.derived | with_entries(select(.key | startswith("flush.ns_p") | not)) | norm | to_entries[] |
			if .key == "ns_per_flush" then "memcg_statctl_flush_mean_seconds \(.value | num(1e9))"
			elif (.key | endswith("_pct")) then
				"memcg_statctl_\(.key | sub("_pct$"; "_ratio")) \(.value | num(100))"
			else "memcg_statctl_\(.key) \(.value | num(1))" end)' &&
		mcs get --json | jq -r 'to_entries[] | select(.value | type == "number") |
			if .key == "flush_period_ms" then "memcg_statctl_knob_flush_period_seconds \(.value / 1000)"
			else "memcg_statctl_knob_\(.key) \(.value)" end'
}

# same_values FILE: every expected value is in FILE (an exposition), equal
# to within 1e-9 relative; flush_mode as its enum sample.
same_values() {
	local mode
	expected >"$work/expected" || return 1
	[ "$(wc -l <"$work/expected")" -ge 20 ] || { echo "too few values"; return 1; }
	awk 'NR == FNR { want[$1] = $2; next }
		/^memcg_statctl_/ { name = $1; sub(/\{.*/, "", name); got[name] = $NF }
		END {
			bad = 0
			for (m in want) {
				if (!(m in got)) { print m ": missing"; bad = 1; continue }
				w = want[m]; g = got[m]
				if (w == "NaN" || g == "NaN") { if (w != g) { print m ": " g " != " w; bad = 1 }; continue }
				d = g - w; if (d < 0) d = -d
				a = w < 0 ? -w : w; if (a < 1) a = 1
				if (d > 1e-9 * a) { print m ": " g " != " w; bad = 1 }
			}
			exit bad
		}' "$work/expected" "$1" || return 1
	mode=$(mcs get --json | jq -r .flush_mode)
	grep -q "^memcg_statctl_knob_flush_mode{.*flush_mode=\"$mode\"[,}].* 1\$" "$1" ||
		{ echo "flush_mode $mode not 1"; return 1; }
}

# up_only FILE: memcg_statctl_up 0 and no other memcg_statctl_ sample.
up_only() {
	grep -q '^memcg_statctl_up{kernel="[^"]*"} 0$' "$1" &&
		[ "$(grep -c '^memcg_statctl_' "$1")" -eq 1 ]
}

# gone PID: the process has ended (a zombie until waited for, which
# kill -0 still finds).
gone() {
	local state
	state=$(ps -o stat= -p "$1" 2>/dev/null) || return 0
	[[ $state == Z* ]]
}

# once FILE: `stats --openmetrics` to FILE; exit 0 or its status.
once() {
	local rc=0
	mcs stats --openmetrics >"$1" 2>"$work/once.err" || rc=$?
	[ "$rc" -eq 0 ] || { echo "exit $rc"; cat "$work/once.err"; return 1; }
}
echo "TAP version 13"
up_one() { grep -q '^memcg_statctl_up{kernel="[^"]*",module_version="0.1.0"} 1$' "$1"; }
check "stats --openmetrics exits 0" once "$work/once.prom"
check "it says memcg_statctl_up 1 with the module's version" up_one "$work/once.prom"
check "promtool check metrics accepts it" promtool check metrics <"$work/once.prom"
check "its values are those of stats --json and get --json" same_values "$work/once.prom"
check "HELP and TYPE: flush.requests is the counter memcg_statctl_flush_requests_total" \
	grep -qx '# TYPE memcg_statctl_flush_requests_total counter' "$work/once.prom"

# histogram FILE: memcg_statctl_flush_duration_seconds has a bucket per
# finite hi of flush_latency, cumulative counts that never decrease, and a
# last bucket le="+Inf" equal to _count and to flush.performed.
histogram() {
	local name=memcg_statctl_flush_duration_seconds performed finite
	grep -qx "# TYPE $name histogram" "$1" || { echo "no TYPE line"; return 1; }
	performed=$(mcs stats --json | jq '.counters["flush.performed"]')
	finite=$(mcs stats --json | jq '[.flush_latency[] | select(.hi != null)] | length')
	grep "^${name}_bucket{" "$1" | awk -v performed="$performed" -v finite="$finite" '
		{ le = $0; sub(/.*le="/, "", le); sub(/".*/, "", le) }
		$NF + 0 < last { print "bucket le=" le " decreases"; bad = 1 }
		{ last = $NF + 0; n++; if (le != "+Inf") finite_seen++; final = le }
		END {
			if (final != "+Inf") { print "last bucket le=" final; bad = 1 }
			if (last != performed) { print "+Inf " last " != flush.performed " performed; bad = 1 }
			if (finite_seen != finite) { print finite_seen " finite buckets, not " finite; bad = 1 }
			exit bad
		}' || return 1
	grep -q "^${name}_count{.*} $performed\$" "$1" || { echo "_count is not $performed"; return 1; }
}
check "the flush latency histogram: cumulative buckets, +Inf = _count = flush.performed" \
	histogram "$work/once.prom"

mv "$debugfs" "$debugfs.away"
check "without the module: exit 0" once "$work/down.prom"
check "without the module: memcg_statctl_up 0 and no other sample" up_only "$work/down.prom"
check "promtool check metrics accepts that too" promtool check metrics <"$work/down.prom"
mv "$debugfs.away" "$debugfs"

# option_error MESSAGE ARGS...: exit 2 and MESSAGE as the one line on stderr.
option_error() {
	local message=$1 rc=0
	shift
	mcs stats "$@" >/dev/null 2>"$work/opt.err" || rc=$?
	[ "$rc" -eq 2 ] && [ "$(cat "$work/opt.err")" = "memcg-statctl: $message" ] ||
		{ echo "exit $rc:"; cat "$work/opt.err"; return 1; }
}
touch "$work/plain"
check "--textfile-dir of a missing directory: exit 2, one line" \
	option_error "--textfile-dir $work/nope: no such directory" --textfile-dir "$work/nope"
check "--textfile-dir of a file: exit 2, one line" \
	option_error "--textfile-dir $work/plain: not a directory" --textfile-dir "$work/plain"
check "--interval 0: exit 2, one line" \
	option_error "--interval must be > 0" --textfile-dir "$work/textfile" --interval 0
check "--interval 0.05: exit 2, one line" \
	option_error "--interval must be at least 0.1 (100 ms)" --textfile-dir "$work/textfile" --interval 0.05
empty_dir() { [ -z "$(ls -A "$1")" ] || { ls -A "$1"; return 1; }; }
check "nothing written by the refused commands" empty_dir "$work/textfile"

# The writer, and node_exporter reading its directory.
prom=$work/textfile/memcg_statctl.prom
"$tool" --debugfs "$debugfs" stats --textfile-dir "$work/textfile" --interval 0.2 2>"$work/writer.err" &
writer=$!
pids+=("$writer")
check "stats --textfile-dir writes memcg_statctl.prom" wait_for 10 test -s "$prom"
check "promtool check metrics accepts the file" promtool check metrics <"$prom"

port=${MCS_OM_PORT:-19100}
for _ in $(seq 20); do
	curl -s -o /dev/null "http://127.0.0.1:$port/" || break
	port=$((port + 1)) # taken: the next one
done
url=http://127.0.0.1:$port/metrics
prometheus-node-exporter --web.listen-address="127.0.0.1:$port" \
	--collector.disable-defaults --collector.textfile \
	--collector.textfile.directory="$work/textfile" >"$work/exporter.log" 2>&1 &
pids+=("$!")
scrape() { curl -sf "$url" >"$work/metrics"; }
if wait_for 20 scrape; then
	ok "prometheus-node-exporter serves $url"
else
	notok "prometheus-node-exporter serves $url"
	diag_tail "$work/exporter.log"
	finish
fi

# served_up V: the exporter serves memcg_statctl_up V.
served_up() {
	scrape && grep -q "^memcg_statctl_up{.*} $1\$" "$work/metrics"
}
served_clean() { served_up 1 && grep -qx 'node_textfile_scrape_error 0' "$work/metrics"; }
check "/metrics has memcg_statctl_up 1 and no textfile scrape error" served_clean
# What a Prometheus server scraping the exporter gets, as TAP comments.
echo "# curl -s $url | grep '^memcg_statctl_' | grep -v _bucket | head -60:"
# sed stops printing but reads to the end: `head` would exit first and end
# grep with SIGPIPE, which pipefail turns into this script's failure.
grep '^memcg_statctl_' "$work/metrics" | grep -v _bucket | sed -n '1,60s/^/#   /p'

# New counts in the fixture: the writer's next file carries them.
chmod 0600 "$debugfs/stats"
sed -i 's/^flush.requests .*/flush.requests 99999/; s/^flush.performed .*/flush.performed 99965/; s/^flush.ns_total .*/flush.ns_total 123456789/' \
	"$debugfs/stats"
chmod 0400 "$debugfs/stats"
echo never >"$debugfs/flush_mode"
# Both changes in one file: the writer may read the two between them.
# node_exporter sorts the labels.
served_new() {
	scrape && grep -q '^memcg_statctl_flush_requests_total{.*} 99999$' "$work/metrics" &&
		grep -q '^memcg_statctl_knob_flush_mode{.*flush_mode="never".*} 1$' "$work/metrics"
}
check "the exporter serves the next write's values" wait_for 10 served_new
check "the values on /metrics are those of stats --json and get --json" same_values "$work/metrics"

mv "$debugfs" "$debugfs.away"
check "module away: the file says memcg_statctl_up 0 and nothing else" \
	wait_for 10 up_only "$prom"
served_down() { scrape && up_only "$work/metrics"; }
check "the exporter keeps serving, memcg_statctl_up 0, no stale counter" served_down
running() { ! gone "$1"; }
check "the writer keeps running" running "$writer"
mv "$debugfs.away" "$debugfs"
check "module back: memcg_statctl_up 1 and the values again" wait_for 10 served_new
said_once() {
	[ "$(grep -c 'memcg_statctl_up 0' "$work/writer.err")" -eq 1 ] &&
		[ "$(grep -c 'readable again' "$work/writer.err")" -eq 1 ] || { cat "$work/writer.err"; return 1; }
}
check "the writer said so on stderr, once each" said_once

# stop SIGNAL PID: the writer ends with exit 0 within 5 s, leaving nothing.
stop() {
	local rc=0
	kill "-$1" "$2"
	wait_for 5 gone "$2" || { echo "still running"; return 1; }
	wait "$2" || rc=$?
	[ "$rc" -eq 0 ] || { echo "exit $rc"; return 1; }
	empty_dir "$work/textfile"
}
check "SIGTERM: exit 0, no temporary file, no stale memcg_statctl.prom" stop TERM "$writer"
"$tool" --debugfs "$debugfs" stats --textfile-dir "$work/textfile" --interval 0.1 2>/dev/null &
writer=$!
pids+=("$writer")
wait_for 10 test -s "$prom" || true
check "SIGINT: the same" stop INT "$writer"
served_none() { scrape && ! grep -q '^memcg_statctl_' "$work/metrics"; }
check "the exporter still serves /metrics, without memcg_statctl metrics" served_none
finish
