#!/bin/bash
# Extract the kselftest headers and checkpatch from Debian's linux-source
# package into build/ (they are not copied into the repository).
source "$(dirname "$0")/../lib.sh"

tarball=$(ls /usr/src/linux-source-*.tar.xz 2>/dev/null | sort -V | tail -n1)
[ -n "$tarball" ] || die "no /usr/src/linux-source-*.tar.xz: run 'make deps'"
out=$MCS_BUILD/ksft
stamp=$out/.from-$(basename "$tarball")
[ -e "$stamp" ] && exit 0
# check's checkpatch and its guest preparation, run side by side, may both
# come here: one extracts, the other waits and finds it done.
hold_lock "$MCS_BUILD/.ksft-headers.lock" "kselftest header extraction" wait
[ -e "$stamp" ] && exit 0
top=$(basename "$tarball" .tar.xz)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
log "extracting kselftest headers and checkpatch from $tarball"
tar -xf "$tarball" -C "$tmp" \
	"$top/tools/testing/selftests/kselftest.h" \
	"$top/tools/testing/selftests/kselftest_harness.h" \
	"$top/scripts/checkpatch.pl" "$top/scripts/spelling.txt" \
	"$top/scripts/const_structs.checkpatch"
rm -rf "$out" "$MCS_BUILD/checkpatch"
mkdir -p "$out" "$MCS_BUILD/checkpatch"
cp "$tmp/$top"/tools/testing/selftests/kselftest*.h "$out/"
cp "$tmp/$top"/scripts/{checkpatch.pl,spelling.txt,const_structs.checkpatch} \
	"$MCS_BUILD/checkpatch/"
touch "$stamp"
