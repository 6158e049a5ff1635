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

# One known kernel race is not counted, only reported (docs/kernels.md, "A
# debugfs warning at unload"): a debugfs file opened at the moment of
# delete_module(), after try_stop_module() has dropped the module's
# references and before it marks the module GOING, fails fops_get() in
# debugfs's open proxy, which then warns "debugfs file owner did not clean
# up at exit". The open fails (ENXIO) and nothing leaks. A splat is taken
# for it only when it is that warning (its message, then a WARNING in
# fs/debugfs/file.c's open proxy, up to the end of its trace) and the
# module's unload is logged after it; anything else in the log is judged.
# selftests/memcg_statctl/lib/kmsg.c recognises it the same way.
race=$(awk '
	/debugfs file owner did not clean up at exit: / { msg = NR; next }
	msg && NR - msg <= 2 && /WARNING:.*fs\/debugfs\/file\.c:[0-9]+.*proxy_open/ {
		start[++n] = msg; in_race = 1; next }
	in_race && /WARNING:|BUG:|Oops|general protection|cut here/ {
		n--; in_race = 0; msg = 0 }	# another splat inside: judge all
	in_race && /---\[ end trace/ { stop[n] = NR; in_race = 0; msg = 0; next }
	/memcg_statctl: unloaded/ { unload = NR }
	END { for (i = 1; i <= n; i++) if (stop[i] && unload > stop[i]) print start[i] "," stop[i] }
' <<<"$klog")
if [ -n "$race" ]; then
	echo "klog-splats: $(wc -l <<<"$race") debugfs warning(s) of the known unload race, not counted:" >&2
	sed -n "${race%%$'\n'*}p" <<<"$klog" | grep -m2 -E 'clean up at exit|WARNING:' | sed 's/^/  /' >&2
	# shellcheck disable=SC2086  # one "FIRST,LAST" range per word
	klog=$(sed "$(printf '%sd;' $race)" <<<"$klog")
fi
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
