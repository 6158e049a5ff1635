#!/bin/bash
# kmemleak-check.sh LOG KVER: judge the kmemleak report in the guest console
# log LOG of kernel KVER (the block job-selftests.sh prints after the suite,
# on a kernel built with kmemleak: the 6.1-debug row; the leaks suspected
# before the module's first load are not in it, and the module is unloaded
# before the scans). Fails when a kernel with kmemleak sent no report, when
# its scan (or the unload before it) failed, and on any leak whose
# allocation backtrace runs through memcg_statctl or a helper module of the
# selftests (mcs_*): by name, or as a bare address, which is a frame of a
# module no longer loaded, and the suite's modules are the only ones it
# unloads. Other leaks are listed but do not fail the run: they come from
# the kernel's own code and drivers, which no change of this project can
# fix, and kmemleak's reports of those include false positives.
source "$(dirname "$0")/../lib.sh"

logf=${1:?usage: kmemleak-check.sh LOG KVER}
kver=${2:?usage: kmemleak-check.sh LOG KVER}
# shellcheck source=/dev/null
source "$MCS_KCACHE/$kver.env"

grep -qx 'CONFIG_DEBUG_KMEMLEAK=y' "$KCONFIG" || exit 0
report=$(sed -n '/=== MCS-KMEMLEAK-BEGIN/,/=== MCS-KMEMLEAK-END/p' "$logf" | tr -d '\r' | sed '1d;$d')
grep -q '=== MCS-KMEMLEAK-END' "$logf" || die "kmemleak: $kver has kmemleak but the guest sent no report"
if grep -q '^kmemleak scan failed' <<<"$report"; then
	die "kmemleak: the guest's scan failed ($(grep -m1 '^kmemleak scan failed' <<<"$report"))"
fi

# One line per leak: "ours SIZE FRAME" with the frame that makes it the
# module's, or "other SIZE FRAME" with the first frame past the allocator.
leaks=$(awk '
	function flush() {
		if (obj != "") print (ours ? "ours" : "other"), size, (ours ? where : first)
		obj = ""
	}
	/^unreferenced object/ { flush(); obj = $3; size = $5; sub(/\):?$/, "", size); ours = 0; first = ""; where = ""; next }
	obj != "" && /^ +\[<[0-9a-f]+>\]/ {
		frame = $0; sub(/^ +\[<[0-9a-f]+>\] /, "", frame)
		# The first frame past the allocator says where the leak is from.
		if (first == "" && frame !~ /alloc|kmem|slab|kstrdup|kmemdup/) first = frame
		if (!ours && (frame ~ /\[(memcg_statctl|mcs_[a-z0-9_]+)\]$/ || frame ~ /^0x[0-9a-f]+$/)) {
			ours = 1; where = frame
		}
	}
	END { flush() }' <<<"$report")
ours=$(grep -c '^ours' <<<"$leaks" || true)
other=$(grep -c '^other' <<<"$leaks" || true)
log "kmemleak: $ours leak(s) of memcg_statctl or its test modules, $other elsewhere in the kernel"
if [ "$other" -gt 0 ]; then
	grep '^other' <<<"$leaks" | cut -d' ' -f3- | sort | uniq -c | sort -rn | head -20 |
		sed 's/^/  not ours: /' >&2
fi
[ "$ours" -eq 0 ] && exit 0
grep '^ours' <<<"$leaks" | cut -d' ' -f3- | sort | uniq -c | sort -rn | sed 's/^/  ours: /' >&2
log "FAIL: kmemleak found $ours leak(s) of memcg_statctl (whole report: the MCS-KMEMLEAK block of $logf)"
exit 1
