#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Run the memcg_statctl selftests and print kselftest-runner style TAP 13.
# busybox sh compatible (the guest has nothing else).
#
# usage: run_tests.sh [-t SECONDS] [TEST...]
#   TEST...     programs to run (default: those in tests.list next to this
#               script, which the selftest Makefile writes from its lists)
#   -t SECONDS  per-test timeout (default $KSFT_TIMEOUT or 300)
# KSFT_TIMEOUT_SCALE=N multiplies every timeout by N (a whole number), for a
# kernel slower than a stock one (a lockdep/KASAN debug kernel).
# An entry of the list (or a TEST) may be NAME:SECONDS: that program's own
# timeout, used when longer than the per-test one. A TEST given as a bare
# NAME takes its own timeout from tests.list.
# Exit status: 0 when no test failed (skips are fine), 1 otherwise.

DIR=$(cd "$(dirname "$0")" && pwd)
TIMEOUT=${KSFT_TIMEOUT:-300}
SCALE=${KSFT_TIMEOUT_SCALE:-1}
case "$SCALE" in
''|*[!0-9]*|0*) echo "run_tests.sh: KSFT_TIMEOUT_SCALE must be a whole number >= 1 (got '$SCALE')" >&2
	exit 2 ;;
esac

while [ $# -gt 0 ]; do
	case "$1" in
	-t) TIMEOUT=$2; shift 2 ;;
	-h|--help) sed -n '4,16p' "$0"; exit 0 ;;
	--) shift; break ;;
	*) break ;;
	esac
done

if [ $# -gt 0 ]; then
	TESTS="$*"
elif [ -r "$DIR/tests.list" ]; then
	TESTS=$(grep -v '^#' "$DIR/tests.list")
else
	echo "run_tests.sh: no $DIR/tests.list (the selftest Makefile writes it) and no TEST given" >&2
	exit 2
fi

# the tests print their own TAP without the "TAP version" line
KSFT_TAP_LEVEL=1
export KSFT_TAP_LEVEL

HAVE_TIMEOUT=1
if ! command -v timeout >/dev/null 2>&1; then
	HAVE_TIMEOUT=0
	echo "# no timeout command: tests run without a time limit"
fi

# the timeout of entry $1: NAME:SECONDS, else NAME's entry in tests.list
own_timeout() {
	case "$1" in
	*:*) echo "${1#*:}"; return ;;
	esac
	[ -r "$DIR/tests.list" ] &&
		grep "^$1:" "$DIR/tests.list" | head -n 1 | sed 's/^[^:]*://'
}

# The module's knobs, read before and after each program: a program must
# leave them as it found them, or the programs after it measure under a
# policy they did not ask for. Knobs are its files of mode 0600 (module/ABI.md).
DBG=/sys/kernel/debug/memcg_statctl
knob_values() {
	[ -d "$DBG" ] || return 0
	for f in "$DBG"/*; do
		[ "$(stat -c %a "$f" 2>/dev/null)" = 600 ] &&
			printf '%s=%s ' "${f##*/}" "$(cat "$f" 2>/dev/null)"
	done
}

set -- $TESTS
echo "TAP version 13"
echo "1..$#"

RC_FILE=${TMPDIR:-/tmp}/memcg_statctl_rc.$$
n=0
fails=0
for entry in "$@"; do
	n=$((n + 1))
	t=${entry%%:*}
	limit=$TIMEOUT
	own=$(own_timeout "$entry")
	[ -n "$own" ] && [ "$own" -gt "$limit" ] && limit=$own
	limit=$((limit * SCALE))
	TIMEOUT_CMD=""
	[ "$HAVE_TIMEOUT" = 1 ] && TIMEOUT_CMD="timeout $limit"
	name="selftests: memcg_statctl: $t"
	echo "# $name"
	if [ ! -x "$DIR/$t" ]; then
		echo "not ok $n $name # exit=127 (not found in $DIR)"
		fails=$((fails + 1))
		continue
	fi
	rm -f "$RC_FILE"
	before=$(knob_values)
	started=$(date +%s)
	# the output is streamed through sed; the status goes through a file
	( cd "$DIR" && $TIMEOUT_CMD "./$t" 2>&1; echo $? > "$RC_FILE" ) |
		sed -e 's/^/# /'
	rc=$(cat "$RC_FILE" 2>/dev/null)
	rm -f "$RC_FILE"
	[ -n "$rc" ] || rc=255
	# where a suite's time goes (scripts/vm/tap-check.sh lists these, longest first)
	echo "# $t: $(($(date +%s) - started))s"
	after=$(knob_values)
	if [ "$rc" = 0 ] || [ "$rc" = 4 ]; then
		if [ -n "$before" ] && [ -n "$after" ] && [ "$before" != "$after" ]; then
			echo "# knobs left changed: before: $before"
			echo "#                     after:  $after"
			rc=1
		fi
	fi
	case "$rc" in
	0) echo "ok $n $name" ;;
	4) echo "ok $n $name # SKIP" ;;
	124|143) echo "not ok $n $name # TIMEOUT $limit seconds"
		fails=$((fails + 1)) ;;
	*) echo "not ok $n $name # exit=$rc"
		fails=$((fails + 1)) ;;
	esac
done

[ "$fails" -eq 0 ]
