#!/bin/bash
# experiment-check.sh [KVER]: the experiments' deterministic measure end to
# end (part of `make check`). A short update-flush experiment (3 runs x 1 s
# per value) in the guest with QEMU's insn-marker plugin; its results file
# must show an instruction count for every run, a twin report per 10^9
# guest instructions for each page-fault mode, a verdict resting on them,
# and twins steadier than the wall time they stand in for.
#
# Steadier is judged per mode on the run-to-run spread of each value's runs,
# as the median absolute deviation over the median (the twins' mean spread
# under 5% or under half of wall time's). A median, not a standard deviation:
# one run that shared its window with the guest's own timed work (writeback
# of the file-backed mode's dirty pages, a journal commit) moves a 3-run sd
# by several percent with the counting itself intact, and that check then
# fails without anything being wrong. The experiment's t-tests keep the sd,
# where such a run only makes a verdict more cautious. Every run's twin and
# wall figure is printed, so a failure shows which run moved. Wall time under
# TCG swings by 15-30% here, and more on a loaded host.
#
# The guest has one vCPU (experiment.sh's default is 8). With several, the
# anon page faults' twins follow the host's speed (docs/experiments.md,
# "Deterministic measure"): a vCPU waiting on another that single-threaded
# TCG is not running counts instructions for as long as it waits, and a run
# of this check failed on it. One vCPU keeps what is checked here, the
# counting itself, free of that.
#
# Its results go to build/experiments/check-update-flush/, leaving a real
# run's build/experiments/update-flush/ as it was.
source "$(dirname "$0")/../lib.sh"

kver=${1:-6.1}
command -v jq >/dev/null || die "jq is not installed (make deps)"
out=$MCS_BUILD/experiments/check-update-flush
MCS_EXPERIMENT_CPUS=1 MCS_EXPERIMENT_ARGS="--runs 3 --duration 1" MCS_EXPERIMENT_OUT=$out \
	"$MCS_ROOT/scripts/experiment.sh" update-flush "$kver"
f=$out/experiment-update-flush.json
check() { # DESCRIPTION JQ-FILTER
	jq -e "$2" "$f" >/dev/null || die "$f: $1 ($2)"
	log "ok: $1"
}
check "complete, verdict on guest instructions" \
	'.complete and .verdict.measure == "guest_instructions"'
check "every run counted (3 values x 2 modes x 3 runs)" \
	'(.runs | length) == 18 and all(.runs[]; .instructions > 0)'
check "a twin report per mode" \
	'[.reports[] | select(.metric | endswith("per 1e9 guest insns"))] | length == 2'
# Each run's twin (operations per 10^9 guest instructions) and wall figure.
runs='[.runs[] | {step, value, wall: .figures[.step],
	twin: (.figures[.step] * .seconds * 1e9 / .instructions)}]'
jq -r "$runs"' | .[] | "  \(.step) \(.value): \(.wall | floor)/s, \(.twin | floor) per 1e9 insns"' "$f" >&2
check "twins steadier than wall time (median spread < 5% or < half of wall time's)" \
	'def median: sort | if length % 2 == 1 then .[length / 2 | floor]
		else (.[length / 2 - 1] + .[length / 2]) / 2 end;
	 def spread: median as $m | map(. - $m | if . < 0 then -. else . end) | median / $m;
	 '"$runs"' | group_by(.step) | map(group_by(.value) |
	  (map(map(.twin) | spread) | add / length) as $twin |
	  (map(map(.wall) | spread) | add / length) as $wall |
	  $twin < 0.05 or $twin < $wall / 2) | length == 2 and all'
log "experiment-check $kver: ${SECONDS}s in all"
