#!/bin/bash
# TAP helpers of the host-side check scripts (dkms-check.sh,
# install-check.sh): source it after lib.sh, set TAP_NAME, end with finish.
# shellcheck disable=SC2034  # used by the scripts sourcing this

n=0
failed=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
notok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $*"; }
skip() { n=$((n + 1)); echo "ok $n - $* # SKIP"; }
check() { # check DESCRIPTION COMMAND...: one TAP line from the command's status
	local what=$1
	shift
	if "$@"; then ok "$what"; else notok "$what"; fi
}
finish() {
	echo "1..$n"
	[ "$failed" -eq 0 ] || log "$TAP_NAME: $failed of $n checks failed"
	exit $((failed > 0))
}
