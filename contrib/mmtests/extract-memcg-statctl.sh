#!/bin/bash
# extract-memcg-statctl.sh FILE [NAME]: read what the mmtests monitor
# watch-memcg-statctl.sh recorded (memcg-statctl-TEST.gz in the run's log
# directory, or that file before gzip).
# Without NAME: one row per counter: the total over the run, its mean and
# largest rate per second (flush.ns_max: the largest value).
# With NAME (a counter or derived value, by its JSON name): the series,
# "SECONDS VALUE" a line, seconds from the end of the first interval;
# counters as rates per second. Exit: 0, 1 (unknown NAME), 2 (usage).
set -euo pipefail

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
	echo "usage: $0 FILE [NAME]" >&2
	exit 2
fi

# Whole lines of JSON only: a monitor stopped mid-line leaves half a line.
lines() { zcat -f -- "$1" | jq -c -R 'fromjson? // empty'; }

if [ $# -eq 1 ]; then
	lines "$1" | jq -r -s '"intervals \(length), seconds \(map(.seconds) | add // 0 | . * 1000 | round / 1000)"'
	lines "$1" | jq -r -s '
		(map(.seconds) | add // 0) as $secs
		| "NAME TOTAL MEAN_PER_S MAX_PER_S",
		  ((.[0].deltas // {} | keys_unsorted[]) as $k
		   | [.[] | .deltas[$k] // 0] as $d
		   | if any(.[]; .per_second | has($k)) then
			($d | add) as $t
			| "\($k) \($t) \(if $secs > 0 then $t / $secs * 100 | round / 100 else "-" end) \([.[] | .per_second[$k] // 0] | max | . * 100 | round / 100)"
		     else "\($k) - - \($d | max)" end)' | column -t
	exit 0
fi

lines "$1" | jq -r -s --arg n "$2" '
	def epoch: capture("^(?<s>[^.Z]*)(?<f>\\.[0-9]+)?Z$")
		| (.s + "Z" | fromdateiso8601) + ((.f // "0") | tonumber);
	if any(.[]; (.deltas | has($n)) or (.derived | has($n))) | not then
		"unknown name \($n); known: \(.[0] | (.deltas + .derived) | keys_unsorted | join(" "))\n"
		| halt_error(1)
	else . end
	| (.[0].timestamp | epoch) as $t0
	| .[]
	| (.per_second[$n] // .deltas[$n] // .derived[$n]) as $v
	| select($v != null)
	| "\((.timestamp | epoch) - $t0 | . * 1000 | round / 1000) \($v)"'
