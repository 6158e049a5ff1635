#!/bin/bash
# lintian-check.sh: lintian on the three packages of `make deb` (build/deb/):
# any E: or W: tag not overridden (packaging/debian/*.lintian-overrides)
# fails. Every tag, the overridden (O:) and their reasons (N:) included,
# goes to build/deb/lintian.txt. Output: TAP 13. Used by make check (after
# make deb) and by deb-check.sh (before its guest).
source "$(dirname "$0")/../lib.sh"

debdir=$MCS_BUILD/deb
mapfile -t debs < <(find "$debdir" -maxdepth 1 -name '*.deb' | sort)
[ ${#debs[@]} = 3 ] || die "expected 3 packages in $debdir, found ${#debs[@]}: run 'make deb'"
command -v lintian >/dev/null || die "lintian is not installed (make deps installs it)"
fail=0
echo "TAP version 13"
echo "# lintian on $(cd "$debdir" && echo *.deb)"
lint=$debdir/lintian.txt
# The verdict without --show-overrides: with it, lintian fails on the
# overridden tags too.
if lintian --fail-on error,warning --display-info "${debs[@]}" >/dev/null 2>&1; then
	echo "ok 1 - lintian: no E: or W: tag that is not overridden"
else
	echo "not ok 1 - lintian: E: or W: tags (all of them in $lint)"
	fail=1
fi
lintian --display-info --show-overrides "${debs[@]}" 2>&1 |
	grep -v '^running with root privileges' >"$lint" || true
grep -v '^N:' "$lint" | sed 's/^/#   /'
echo "1..1"
log "lintian-check: ${SECONDS}s in all"
exit "$fail"
