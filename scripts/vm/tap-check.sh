#!/bin/bash
# tap-check.sh LOG: judge a guest console log. Fails on a guest that did not
# finish, on a missing or short TAP plan, on any "not ok", on kernel log
# lines that show a bug (in the dmesg section the guest printed; the kinds
# are in scripts/vm/klog-splats.sh), and on a kernel with lockdep whose
# lockdep was off at the end.
source "$(dirname "$0")/../lib.sh"

logf=${1:?usage: tap-check.sh LOG}
fail=0
bad() { log "FAIL: $*"; fail=1; }

grep -q '=== MCS-GUEST-DONE' "$logf" || bad "the guest did not finish"

# Top-level TAP of the run: lines between the start and the dmesg markers.
job=$(sed -n '/=== MCS-GUEST-START/,/=== MCS-DMESG-BEGIN/p' "$logf" | tr -d '\r\000')
plans=$(grep -cE '^1\.\.[0-9]+$' <<<"$job" || true)
planned=$(grep -E '^1\.\.[0-9]+$' <<<"$job" | sed 's/^1\.\.//' | paste -sd+ | bc)
passed=$(grep -cE '^ok [0-9]+' <<<"$job" || true)
failed=$(grep -cE '^not ok [0-9]+' <<<"$job" || true)
skipped=$(grep -cE '^ok [0-9]+ .*# *SKIP' <<<"$job" || true)
[ "$plans" -ge 1 ] || bad "no TAP plan in the guest output"
# the failed subtests too, on the same line: the end of a CI log keeps it
subs=$(grep -E '^# +not ok [0-9]+ ' <<<"$job" | sed -E 's/^# +not ok [0-9]+ //' | paste -sd, || true)
# ... and, above that line, each failed subtest's last diagnostics: why it
# failed, where the end of a CI log can show it
if [ "$failed" -gt 0 ]; then
	awk '/^# # / { d[n++ % 12] = $0; next }
	     /^# +not ok [0-9]+ / { print "diagnostics before \"" $0 "\":";
		for (i = (n > 12 ? n - 12 : 0); i < n; i++) print "  " d[i % 12] }
	     /^# +(not )?ok [0-9]+ / { n = 0 }' <<<"$job" >&2
fi
[ "$failed" -eq 0 ] || bad "$failed test(s) failed: $(grep -E '^not ok' <<<"$job" | paste -sd';')${subs:+ (subtests: $subs)}"
ran=$((passed + failed))
[ "$ran" -eq "${planned:-0}" ] || bad "TAP planned ${planned:-0} tests, $ran reported"

# The guest's kernel log.
klog=$(sed -n '/=== MCS-DMESG-BEGIN/,/=== MCS-DMESG-END/p' "$logf")
[ -n "$klog" ] || bad "no kernel log in the guest output"
if ! splats=$("$MCS_ROOT/scripts/vm/klog-splats.sh" "$logf"); then
	bad "kernel log shows $(awk '{ n += $1 } END { print n }' <<<"$splats") bug report(s):"
	while IFS= read -r line; do echo "  $line"; done <<<"$splats" >&2
fi

# A kernel with lockdep says whether it still checked at the end.
lockdep=$(grep -m1 -a '=== MCS-LOCKDEP' "$logf" | tr -d '\r' || true)
if [ -n "$lockdep" ] && ! grep -q 'debug_locks: 1 ' <<<"$lockdep"; then
	bad "lockdep was off at the end of the run ($lockdep): see the kernel log"
fi

# Each program's time (run_tests.sh's "# NAME: Ns"), longest first.
times=$(sed -nE 's/^# ([A-Za-z0-9_.]+): ([0-9]+)s$/\2s \1/p' <<<"$job" | sort -rn | paste -sd, | sed 's/,/, /g')
[ -z "$times" ] || log "TAP times: $times"
log "TAP: $((passed - skipped)) passed, $failed failed, $skipped skipped (of ${planned:-0} planned)"
echo "$((passed - skipped)) passed, $failed failed, $skipped skipped"
exit "$fail"
