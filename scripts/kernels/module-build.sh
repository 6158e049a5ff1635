#!/bin/bash
# module-build.sh KVER [PEER]: build memcg_statctl.ko against the fetched
# headers of KVER, on the host for rows of build kind host (6.1, 6.12), else
# with the script of the row's build kind (trixie-root: kernel-7x.sh), in
# build/module-KREL/ (one tree per kernel, the sources
# stay clean), and print its path. With PEER, a directory holding a
# selftest's helper module (a Kbuild and its sources, e.g.
# selftests/memcg_statctl/peer), build that instead, in
# build/NAME-KREL/ (NAME: the directory's name), and print the path of
# every .ko it made.
source "$(dirname "$0")/../lib.sh"

kver=${1:?usage: module-build.sh KVER [PEER]}
peer=${2:-}
build=$(kernel_field "$kver" build)
case "$build" in
host) ;;
trixie-root) exec "$MCS_ROOT/scripts/kernels/kernel-7x.sh" build "$kver" "$peer" ;;
*) die "kernel $kver: unknown build kind '$build' in $MCS_KERNELS" ;;
esac
# shellcheck source=/dev/null
source "$MCS_KCACHE/$kver.env"
# One build of a folder at a time: check's lanes may build the same
# kernel's module or helper (deb-check and experiment-check, both on 6.1).
if [ -n "$peer" ]; then
	out=$MCS_BUILD/$(basename "$peer")-$KREL
	hold_lock "$out.lock" "build in $out" wait
	rm -rf "$out"
	mkdir -p "$out"
	cp -r "$peer"/. "$out/"
	make -s -C "$KDIR" M="$out" -j"$(nproc)" modules >&2
	ls "$out"/*.ko
	exit 0
fi
out=$MCS_BUILD/module-$KREL
hold_lock "$out.lock" "build in $out" wait
mkdir -p "$out"
rm -rf "$out/module"
cp -r "$MCS_ROOT/module" "$out/"
# Objects of an in-tree `make module` (another kernel's) are not reused.
rm -f "$out"/module/*.o "$out"/module/.*.cmd
cp "$MCS_ROOT/Kbuild" "$out/"
make -s -C "$KDIR" M="$out" -j"$(nproc)" modules >&2
echo "$out/memcg_statctl.ko"
