#!/bin/bash
# guest-prep.sh KVER...: what guest runs share across kernels, made once:
# each kernel fetched (apt and the Debian roots are not safe to drive twice
# at once), the kselftest headers and the selftest programs (one build
# serves every kernel). guest-stage.sh calls it for its kernel; `make check`
# calls it for all of its kernels before its lanes run side by side.
source "$(dirname "$0")/../lib.sh"

[ $# -gt 0 ] || die "usage: guest-prep.sh KVER..."
hold_lock "$MCS_BUILD/.prep.lock" "kernel fetch and selftest build in $MCS_BUILD" wait
for kver in "$@"; do
	"$MCS_ROOT/scripts/kernels/kernel-fetch.sh" "$kver"
done
"$MCS_ROOT/scripts/kernels/ksft-headers.sh"
make -s -C "$MCS_ROOT/selftests/memcg_statctl" \
	OUTPUT="$MCS_BUILD/selftests" KSFT_INC="$MCS_BUILD/ksft" >&2
