#!/bin/bash
# klog-splats.sh LOG: list the kernel's own bug reports ("splats") in the
# kernel log section of a guest console log LOG, one "COUNT HEADER" line per
# kind, and exit 1 when there is any. A splat is named by its header line:
# lockdep's (circular locking dependency, inconsistent lock state, suspicious
# RCU usage, ...) and WARN()'s start with "WARNING:", KASAN's and
# sleep-in-atomic's with "BUG:"; then UBSAN, oopses, RCU stalls, hung tasks
# and kmemleak's own errors. kmemleak's "N new suspected memory leaks" is not
# one: the leaks themselves are judged by kmemleak-check.sh, which knows which
# of them are the module's. A call trace with no header above it (a bare
# dump_stack()) counts too. None of these shows in a clean run of the stock
# kernels, whose logs were checked for each pattern.
source "$(dirname "$0")/../lib.sh"

logf=${1:?usage: klog-splats.sh LOG}

# The pattern of a header line, in extended regular expression syntax.
header='WARNING:|BUG:|KASAN:|UBSAN:|Oops|general protection fault|kernel BUG at'
header+='|sleeping function called from invalid context|suspicious RCU usage'
header+='|inconsistent lock state|possible circular locking dependency'
header+='|possible recursive locking|self-detected stall|detected stalls? on CPU'
header+='|INFO: task .* blocked for more than|Kernel panic|kmemleak:'
# kmemleak's lines that are not errors: its banner and the scan result.
kmemleak_ok='kmemleak: (Kernel memory leak detector initialized|Automatic memory scanning thread|[0-9]+ new suspected memory leaks)'

klog=$(sed -n '/=== MCS-DMESG-BEGIN/,/=== MCS-DMESG-END/p' "$logf" | tr -d '\r')
# A header without its timestamp, task and address details, so that the
# same splat from two CPUs or tasks counts as one kind.
splats=$(grep -E "$header" <<<"$klog" | grep -Ev "$kmemleak_ok" |
	sed -E 's/^\[ *[0-9.]+\] *//; s/CPU: [0-9]+ PID: [0-9]+ //; s/\+0x[0-9a-f]+\/0x[0-9a-f]+//g' |
	sort | uniq -c | sort -rn || true)
if [ -z "$splats" ] && grep -q 'Call Trace' <<<"$klog"; then
	splats="$(grep -c 'Call Trace' <<<"$klog") Call Trace (no header)"
fi
[ -z "$splats" ] && exit 0
echo "$splats"
exit 1
