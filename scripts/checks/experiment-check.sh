#!/bin/bash
# experiment-check.sh [KVER]: the experiments' deterministic measure end to
# end (part of `make check`). A short update-flush experiment (2 runs x 1 s
# per value) in the guest with QEMU's insn-marker plugin; its results file
# must show an instruction count for every run, a twin report per 10^9
# guest instructions for each page-fault mode, a verdict resting on them,
# and twins steadier than the wall time they stand in for: per mode, their
# mean run-to-run spread is under 5% or under half that of the wall-time
# table. Wall time under TCG swings by 15-30% here; on a loaded host a
# 1-second run's share of timer work (ticks, the 2-second periodic flush)
# moves the twins by a few percent too, so a fixed 5% alone fails there
# without anything being wrong. Its results go to build/experiments/check-update-flush/,
# leaving a real run's build/experiments/update-flush/ as it was.
source "$(dirname "$0")/../lib.sh"

kver=${1:-6.1}
command -v jq >/dev/null || die "jq is not installed (make deps)"
out=$MCS_BUILD/experiments/check-update-flush
MCS_EXPERIMENT_ARGS="--runs 2 --duration 1" MCS_EXPERIMENT_OUT=$out \
	"$MCS_ROOT/scripts/experiment.sh" update-flush "$kver"
f=$out/experiment-update-flush.json
check() { # DESCRIPTION JQ-FILTER
	jq -e "$2" "$f" >/dev/null || die "$f: $1 ($2)"
	log "ok: $1"
}
check "complete, verdict on guest instructions" \
	'.complete and .verdict.measure == "guest_instructions"'
check "every run counted (3 values x 2 modes x 2 runs)" \
	'(.runs | length) == 12 and all(.runs[]; .instructions > 0)'
check "a twin report per mode" \
	'[.reports[] | select(.metric | endswith("per 1e9 guest insns"))] | length == 2'
check "twins steadier than wall time (spread < 5% or < half of wall time's)" \
	'def spread: [.rows[] | .stddev / .mean] | add / length;
	 [.reports | group_by(.workload)[] |
	  (map(select(.metric | endswith("per 1e9 guest insns")))[0] | spread) as $twin |
	  (map(select(.metric | endswith("per 1e9 guest insns") | not))[0] | spread) as $wall |
	  $twin < 0.05 or $twin < $wall / 2] | length == 2 and all'
