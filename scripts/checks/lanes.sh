#!/bin/bash
# lanes.sh TARGET...: run the make targets side by side, one lane each, for
# `make check`. Each guest is a single-threaded QEMU (TCG), so one guest
# leaves a core idle; two lanes of guests in parallel cut check's time
# almost in half on a 2-core machine. The lanes must share no build
# directory: check gives each its own kernels (scripts/vm/guest-prep.sh has
# made what they share beforehand).
#
# Every line a lane prints appears at once, prefixed with its target's
# name, and goes to build/check/TARGET.log. A lane stops at its first
# failing step; the others run on. At the end: one line per lane, its
# result and time, and the failing lines of each failed lane again (its
# TAP "not ok" lines, errors, and the log's last lines), so that the end
# of check's output names the cause even where only that end is kept.
# Exit: 0 when every lane passed, 1 otherwise.
source "$(dirname "$0")/../lib.sh"

[ $# -gt 0 ] || die "usage: lanes.sh TARGET..."
logs=$MCS_BUILD/check
mkdir -p "$logs"
start=$(date +%s)
pids=()
for t in "$@"; do
	rm -f "$logs/$t.rc"
	: >"$logs/$t.log" # the live tail must not replay a previous run
	(
		s=$(date +%s)
		rc=0
		make --no-print-directory -C "$MCS_ROOT" "$t" </dev/null >"$logs/$t.log" 2>&1 || rc=$?
		echo "$rc $(($(date +%s) - s))" >"$logs/$t.rc"
	) &
	pids+=("$!")
	# the lane's log, live and prefixed, until the lane has ended
	tail -n +1 --pid="$!" -F "$logs/$t.log" 2>/dev/null | sed -u "s/^/[$t] /" &
done
failed=()
for p in "${pids[@]}"; do
	wait "$p" || true
done
wait # the tails end with their lanes
echo "lanes: $(($(date +%s) - start))s in all; logs in $logs/"
for t in "$@"; do
	read -r lrc secs <"$logs/$t.rc" || { lrc=1 secs="?"; }
	if [ "$lrc" = 0 ]; then
		echo "lanes: $t passed (${secs}s)"
	else
		echo "lanes: $t FAILED, exit $lrc (${secs}s): $logs/$t.log"
		failed+=("$t")
	fi
done
# The steps that log their time ("STEP: Ns in all", or make deb's "..., Ns"),
# then where check's time went before the lanes (MCS_CHECK_STARTED: the
# epoch second `make check` began).
echo "lanes: steps (step, lane, seconds):"
for t in "$@"; do
	sed -n -e 's/^\[[0-9:]*\] \(.*\): \([0-9]*\)s in all.*/\1\t\2/p' \
		-e 's/^\[[0-9:]*\] \(make deb\): .*, \([0-9]*\)s$/\1\t\2/p' "$logs/$t.log" |
		while IFS=$'\t' read -r step secs; do
			printf 'lanes:   %-26s %-14s %6s\n' "$step" "$t" "$secs"
		done
done
if [[ "${MCS_CHECK_STARTED:-}" =~ ^[0-9]+$ ]]; then
	echo "lanes: before the lanes $((start - MCS_CHECK_STARTED))s, all so far $(($(date +%s) - MCS_CHECK_STARTED))s"
fi
for t in "${failed[@]}"; do
	echo "lanes: $t, the lines that say why:"
	grep -nE '^(not ok|# (FAIL|not ok))|FAIL|[Ee]rror|die:|fatal' "$logs/$t.log" |
		grep -v '^[0-9]*:ok ' | tail -n 30 | sed "s/^/[$t why] /"
	echo "lanes: $t, its last lines:"
	tail -n 25 "$logs/$t.log" | sed "s/^/[$t end] /"
done
[ ${#failed[@]} = 0 ]
