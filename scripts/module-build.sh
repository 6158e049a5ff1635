#!/bin/bash
# module-build.sh KVER: build memcg_statctl.ko against the fetched headers of
# KVER, in build/module-KREL/ (one tree per kernel, the sources stay clean).
source "$(dirname "$0")/lib.sh"

kver=${1:?usage: module-build.sh KVER}
if [ "$kver" = 7.3 ]; then exec "$MCS_ROOT/scripts/kernel-7x.sh" build "$kver"; fi
# shellcheck source=/dev/null
source "$MCS_KCACHE/$kver.env"
out=$MCS_BUILD/module-$KREL
mkdir -p "$out"
rm -rf "$out/module"
cp -r "$MCS_ROOT/module" "$out/"
cp "$MCS_ROOT/Kbuild" "$out/"
make -s -C "$KDIR" M="$out" modules >&2
echo "$out/memcg_statctl.ko"
