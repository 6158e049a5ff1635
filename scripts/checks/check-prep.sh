#!/bin/bash
# check-prep.sh: what make check's lanes share, made before they start
# (make check runs it in the background while the tool and its tests
# compile; it mostly waits on downloads and the disk): the kernels of
# 6.1, 6.12 and 7.3 with the selftests (guest-prep.sh), and the Debian 12
# root that readme-check and deb-check boot (bookworm-root.sh, about 250 s
# of mmdebstrap). The root needs 6.1's kernel, and then makes its way
# beside the other two kernels' downloads.
source "$(dirname "$0")/../lib.sh"

"$MCS_ROOT/scripts/vm/guest-prep.sh" 6.1
"$MCS_ROOT/scripts/roots/bookworm-root.sh" 6.1 >/dev/null &
root=$!
rc=0
"$MCS_ROOT/scripts/vm/guest-prep.sh" 6.12 7.3 || rc=$?
wait "$root" || rc=$?
exit "$rc"
