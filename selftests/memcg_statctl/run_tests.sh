#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Run the memcg_statctl selftests and print kselftest-runner style TAP 13.
# busybox sh compatible (the guest has nothing else).
#
# usage: run_tests.sh [-t SECONDS] [TEST...]
#   TEST...     programs to run (default: those in tests.list next to this
#               script, else the built-in list)
#   -t SECONDS  per-test timeout (default $KSFT_TIMEOUT or 300)
# Exit status: 0 when no test failed (skips are fine), 1 otherwise.

DIR=$(cd "$(dirname "$0")" && pwd)
TIMEOUT=${KSFT_TIMEOUT:-300}
DEFAULT_TESTS="debugfs_test flush_test reset_test stock_test flush_knobs_test reload_test hostile_test fault_test tool_test.sh"

while [ $# -gt 0 ]; do
	case "$1" in
	-t) TIMEOUT=$2; shift 2 ;;
	-h|--help) sed -n '4,11p' "$0"; exit 0 ;;
	--) shift; break ;;
	*) break ;;
	esac
done

if [ $# -gt 0 ]; then
	TESTS="$*"
elif [ -r "$DIR/tests.list" ]; then
	TESTS=$(grep -v '^#' "$DIR/tests.list")
else
	TESTS=$DEFAULT_TESTS
fi

# the tests print their own TAP without the "TAP version" line
KSFT_TAP_LEVEL=1
export KSFT_TAP_LEVEL

if command -v timeout >/dev/null 2>&1; then
	TIMEOUT_CMD="timeout $TIMEOUT"
else
	TIMEOUT_CMD=""
	echo "# no timeout command: tests run without a time limit"
fi

set -- $TESTS
echo "TAP version 13"
echo "1..$#"

RC_FILE=${TMPDIR:-/tmp}/memcg_statctl_rc.$$
n=0
fails=0
for t in "$@"; do
	n=$((n + 1))
	name="selftests: memcg_statctl: $t"
	echo "# $name"
	if [ ! -x "$DIR/$t" ]; then
		echo "not ok $n $name # exit=127 (not found in $DIR)"
		fails=$((fails + 1))
		continue
	fi
	rm -f "$RC_FILE"
	# the output is streamed through sed; the status goes through a file
	( cd "$DIR" && $TIMEOUT_CMD "./$t" 2>&1; echo $? > "$RC_FILE" ) |
		sed -e 's/^/# /'
	rc=$(cat "$RC_FILE" 2>/dev/null)
	rm -f "$RC_FILE"
	[ -n "$rc" ] || rc=255
	case "$rc" in
	0) echo "ok $n $name" ;;
	4) echo "ok $n $name # SKIP" ;;
	124|143) echo "not ok $n $name # TIMEOUT $TIMEOUT seconds"
		fails=$((fails + 1)) ;;
	*) echo "not ok $n $name # exit=$rc"
		fails=$((fails + 1)) ;;
	esac
done

[ "$fails" -eq 0 ]
