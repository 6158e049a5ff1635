#!/bin/bash
# TAP helpers of the check scripts (dkms-check.sh, install-check.sh,
# scripts/guest/readme-steps.sh): source it after lib.sh, set TAP_NAME, end with finish.
# With TAP_CAPTURE set to a file, check sends the command's output there and
# prints its last lines as diagnostics when the command fails; otherwise the
# output goes where the script's does.
# shellcheck disable=SC2034  # used by the scripts sourcing this

n=0
failed=0
# A test that took 5 s or more since the last TAP line says so in a
# diagnostic after its line: the guest checks' logs then show where their
# time goes (the guest's console has no clock of its own on these lines).
tap_since=$SECONDS
tap_took() {
	local s=$((SECONDS - tap_since))
	tap_since=$SECONDS
	[ "$s" -lt 5 ] || echo "#   took ${s}s"
}
ok() { n=$((n + 1)); echo "ok $n - $*"; tap_took; }
notok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $*"; tap_took; }
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP${2:+ $2}"; tap_took; }
# diag_tail FILE [LINES]: the last LINES (25) of FILE, as diagnostics.
diag_tail() { sed 's/^/#   /' "$1" | tail -n "${2:-25}"; }
check() { # check DESCRIPTION COMMAND...: one TAP line from the command's status
	local what=$1
	shift
	if [ -n "${TAP_CAPTURE:-}" ]; then
		if "$@" >"$TAP_CAPTURE" 2>&1; then ok "$what"; else notok "$what"; diag_tail "$TAP_CAPTURE"; fi
	elif "$@"; then ok "$what"; else notok "$what"; fi
}
# finish: the plan line, and the script's time for make check's step table
# (lanes.sh reads "NAME: Ns in all").
finish() {
	echo "1..$n"
	[ "$failed" -eq 0 ] || log "$TAP_NAME: $failed of $n checks failed"
	log "$TAP_NAME: ${SECONDS}s in all"
	exit $((failed > 0))
}
