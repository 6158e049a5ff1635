#!/bin/bash
# ksft-package.sh KVER: build the kselftest package of memcg_statctl for
# kernel KVER (a row of scripts/kernels/kernels.tsv) the way a kernel tree
# builds any selftest TARGET, and print the path of its tarball.
#
# The tree is Debian's linux-source (its tools/testing/selftests and the
# one file of scripts/ its Makefile reads), unpacked once into build/; or
# a kernel tree of your own in MCS_KSFT_TREE. selftests/memcg_statctl,
# lib/ included, is copied into its tools/testing/selftests/memcg_statctl
# (a copy: through a symlink the Makefile would not find ../lib.mk), then
#   make -C tools/testing/selftests TARGETS=memcg_statctl \
#        MEMCG_STATCTL_MODULES="..." KSFT_INSTALL_PATH=... gen_tar
# builds, installs and packs it. The package carries memcg_statctl.ko and
# oracle_test's helper module built for KVER (scripts/kernels/module-build.sh);
# with MCS_KSFT_MODULES=0 it carries none, for machines that have the
# module from DKMS (the tests then modprobe it, or skip without it).
# The package lands in build/ksft-pkg-KVER/ (run_kselftest.sh there) and
# its tarball in build/ksft-pkg-KVER/kselftest-packages/kselftest.tar.gz.
source "$(dirname "$0")/../lib.sh"

kver=${1:?usage: ksft-package.sh KVER}
modules=${MCS_KSFT_MODULES:-1}
case "$modules" in
0 | 1) ;;
*) die "MCS_KSFT_MODULES must be 0 or 1, not '$modules'" ;;
esac
kernel_row "$kver" >/dev/null

# The kernel tree: the user's, or the selftests part of Debian's source.
tree=${MCS_KSFT_TREE:-}
if [ -n "$tree" ]; then
	[ -f "$tree/tools/testing/selftests/lib.mk" ] ||
		die "MCS_KSFT_TREE=$tree is not a kernel tree (no tools/testing/selftests/lib.mk)"
else
	tarball=$(ls /usr/src/linux-source-*.tar.xz 2>/dev/null | sort -V | tail -n1)
	[ -n "$tarball" ] || die "no /usr/src/linux-source-*.tar.xz: run 'make deps'"
	top=$(basename "$tarball" .tar.xz)
	tree=$MCS_BUILD/ksft-tree/$top
	stamp=$MCS_BUILD/ksft-tree/.from-$(basename "$tarball")
	if [ ! -e "$stamp" ]; then
		log "unpacking the selftests of $tarball into $tree"
		rm -rf "$MCS_BUILD/ksft-tree"
		mkdir -p "$MCS_BUILD/ksft-tree"
		tar -xf "$tarball" -C "$MCS_BUILD/ksft-tree" \
			"$top/tools/testing/selftests" "$top/scripts/subarch.include"
		touch "$stamp"
	fi
fi
command -v rsync >/dev/null || die "no rsync (kselftest's install uses it): run 'make deps'"

ksft=$tree/tools/testing/selftests
rm -rf "$ksft/memcg_statctl"
cp -r "$MCS_ROOT/selftests/memcg_statctl" "$ksft/memcg_statctl"
# The programs and lib/ objects of a build in place would look up to date
# there: the package is built from the sources alone.
make -s -C "$ksft/memcg_statctl" OUTPUT="$ksft/memcg_statctl" clean >&2

kos=()
if [ "$modules" = 1 ]; then
	"$MCS_ROOT/scripts/kernels/kernel-fetch.sh" "$kver" >&2
	kos+=("$("$MCS_ROOT/scripts/kernels/module-build.sh" "$kver")")
	while read -r ko; do
		kos+=("$ko")
	done < <("$MCS_ROOT/scripts/kernels/module-build.sh" "$kver" "$MCS_ROOT/selftests/memcg_statctl/peer")
fi

out=$MCS_BUILD/ksft-pkg-$kver
rm -rf "$out"
make -s -C "$ksft" TARGETS=memcg_statctl MEMCG_STATCTL_MODULES="${kos[*]}" \
	KSFT_INSTALL_PATH="$out" gen_tar >&2
pkg=$out/kselftest-packages/kselftest.tar.gz
[ -s "$pkg" ] || die "gen_tar made no $pkg"
log "kselftest package: $pkg ($(du -h "$pkg" | cut -f1)), modules: ${kos[*]:-none}"
echo "$pkg"
