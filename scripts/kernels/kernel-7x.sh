#!/bin/bash
# kernel-7x.sh fetch|build|hello [KVER]: Debian's 7.x kernels (KVER a row
# of scripts/kernels/kernels.tsv whose fetch and build kinds are trixie-root;
# default 7.3) for the guest harness.
#
# 7.x differs from 6.1/6.12 in two ways that need their own script:
# - the image is split: linux-image-REL is a metapackage over
#   linux-binary-REL (usr/lib/modules/REL/vmlinuz), linux-base-REL (config,
#   System.map) and linux-modules-REL;
# - its headers expect gcc-14 and its kbuild binaries glibc >= 2.38, so the
#   module is built in a Debian 13 root (scripts/roots/trixie-root.sh,
#   build/trixie-root/), with trixie's gcc-14 and the headers from
#   trixie-backports unpacked inside it (what a DKMS build on a trixie
#   machine does). Nothing is installed on the host.
# Package names and versions are resolved from the archive's index (the
# root's apt) at run time; only the row's series (7.3), suite and
# metapackage are written, in the table.
#
#   fetch  download the image and headers packages of the newest kernel of
#          the row's series in its suite (7.3 in trixie-backports) to build/kernels/REL/debs; unpack the image into
#          build/kernels/REL/root (depmod'ed for modprobe -d), the headers
#          into the trixie root; write build/kernels/KVER.env (KREL, KDIR,
#          VMLINUZ, KMODDIR, KCONFIG; KDIR is the headers' host path inside
#          the root, TROOT the root).
#   build  copy Kbuild and module/ to the root's /build/module-REL, build
#          there with the root's make and gcc-14 (chroot), and print the
#          host path of memcg_statctl.ko on stdout (logs go to stderr), the
#          contract of module-build.sh; `build KVER PEER` builds a
#          selftest's helper module from the directory PEER instead.
#   hello  build a trivial module in the root: checks the toolchain alone.
source "$(dirname "$0")/../lib.sh"

cmd=${1:?usage: kernel-7x.sh fetch|build|hello [KVER]}
kver=${2:-7.3}
fetch=$(kernel_field "$kver" fetch)
[ "$fetch" = trixie-root ] ||
	die "kernel-7x.sh handles the rows fetched in the trixie root, not '$kver' (fetch: $fetch)"
series=$(kernel_field "$kver" series)
suite=$(kernel_field "$kver" suite)
meta=$(kernel_field "$kver" image)
# The image's release ends as the metapackage's name does: linux-image-amd64
# names 7.3.N+debM-amd64, linux-image-rt-amd64 7.3.N+debM-rt-amd64.
suffix=${meta#linux-image-}
envf=$MCS_KCACHE/$kver.env

mkdir -p "$MCS_KCACHE"
# One fetch or build at a time: they share the root and its apt state.
exec 9>"$MCS_BUILD/.kernel-7x.lock"
flock 9

# A command inside the root, with a clean environment and a /proc (objtool
# reads /proc/self/limits) mounted in a private mount and pid namespace,
# so nothing stays mounted when the command ends, however it ends.
troot_run() {
	unshare --mount --pid --fork --mount-proc="$TROOT/proc" chroot "$TROOT" /usr/bin/env -i HOME=/root LC_ALL=C.UTF-8 DEBIAN_FRONTEND=noninteractive \
		PATH=/usr/sbin:/usr/bin:/sbin:/bin "$@"
}

# Version of PKG in SUITE, from the root's apt.
pkg_version() {
	troot_run apt-cache madison "$1" | awk -v s="$2" -F' *\\| *' \
		'$3 ~ ("(^| )" s "/main") { print $2; exit }'
}

# Names in the Depends of PKG=VER (alternatives: the first), one a line.
pkg_deps() {
	troot_run apt-cache show "$1=$2" | sed -n 's/^Depends: //p' | head -n1 |
		tr ',' '\n' | sed 's/^ *//; s/[ |].*//'
}

# linux-image-REL of the newest kernel of the series in the suite: the one
# the row's metapackage names, if it is of the series; else the highest
# linux-image-SERIES.N...-SUFFIX (the metapackage moved on).
resolve_image() {
	local meta_ver image re
	re="^linux-image-${series//./\\.}(\\.[0-9]+)?[^-]*-${suffix}\$"
	meta_ver=$(pkg_version "$meta" "$suite")
	if [ -n "$meta_ver" ]; then
		image=$(pkg_deps "$meta" "$meta_ver" | grep -E "$re" | head -n1)
	fi
	if [ -z "${image:-}" ]; then
		image=$(troot_run apt-cache pkgnames "linux-image-$series" |
			grep -E "$re" | sort -V | tail -n1)
	fi
	echo "${image:-}"
}

apt_download() { # DIR PKG=VER...
	local dir=$1
	shift
	rm -rf "$TROOT/build/dl"
	mkdir -p "$TROOT/build/dl"
	troot_run sh -c 'cd /build/dl && apt-get download -q "$@"' sh "$@" 2>&1 |
		grep -v -e '^W: Download is performed unsandboxed' -e '^Get:' >&2 || true
	local want=$#
	[ "$(find "$TROOT/build/dl" -name '*.deb' | wc -l)" -eq "$want" ] || return 1
	mkdir -p "$dir"
	mv "$TROOT"/build/dl/*.deb "$dir/"
	rmdir "$TROOT/build/dl"
}

do_fetch() {
	TROOT=$("$MCS_ROOT/scripts/roots/trixie-root.sh")
	# The root keeps its package lists; refresh them when the suite is
	# missing or they are older than a day (old versions leave the archive).
	if [ -z "$(find "$TROOT/var/lib/apt/lists" -name "*_${suite}_main_binary-amd64_Packages*" -mtime -1 2>/dev/null)" ]; then
		log "apt-get update in the trixie root"
		troot_run apt-get update -q >&2
	fi

	local image krel kpkgver headers common kbuild binary base modules deps
	image=$(resolve_image)
	[ -n "$image" ] || die "no linux-image-$series.*-$suffix in $suite"
	krel=${image#linux-image-}
	kpkgver=$(pkg_version "$image" "$suite")
	[ -n "$kpkgver" ] || die "no version of $image in $suite"
	binary=$(pkg_deps "$image" "$kpkgver" | grep '^linux-binary-' | head -n1)
	base=$(pkg_deps "$image" "$kpkgver" | grep "^linux-base-$krel\$" | head -n1)
	modules=$(pkg_deps "$image" "$kpkgver" | grep '^linux-modules-' | head -n1)
	[ -n "$binary" ] && [ -n "$base" ] && [ -n "$modules" ] ||
		die "cannot resolve the image packages of $image=$kpkgver"
	headers=linux-headers-$krel
	common=$(pkg_deps "$headers" "$kpkgver" | grep '^linux-headers-.*-common$' | head -n1)
	kbuild=$(pkg_deps "$headers" "$kpkgver" | grep '^linux-kbuild-' | head -n1)
	[ -n "$common" ] && [ -n "$kbuild" ] || die "cannot resolve the headers of $krel"

	local dir=$MCS_KCACHE/$krel root=$MCS_KCACHE/$krel/root
	if [ ! -e "$dir/.unpacked" ]; then
		log "fetching $binary $base $modules $headers $common $kbuild ($kpkgver, $suite)"
		rm -rf "$dir"
		mkdir -p "$root"
		local pk=("$binary=$kpkgver" "$base=$kpkgver" "$modules=$kpkgver"
			"$headers=$kpkgver" "$common=$kpkgver" "$kbuild=$kpkgver")
		if ! apt_download "$dir/debs" "${pk[@]}"; then
			log "download failed; apt-get update and one retry"
			troot_run apt-get update -q >&2
			apt_download "$dir/debs" "${pk[@]}" || die "cannot download ${pk[*]}"
		fi
		for p in "$binary" "$base" "$modules"; do
			dpkg-deb -x "$dir/debs/${p}_"*.deb "$root"
		done
		touch "$dir/.unpacked"
	fi

	# Headers and kbuild into the root, with what they depend on from
	# trixie (gcc-14-for-host, pahole, ...), from the archive's metadata.
	local hstamp=$TROOT/.mcs-headers-$krel
	if [ ! -e "$hstamp" ]; then
		deps=$( {
			pkg_deps "$headers" "$kpkgver"
			pkg_deps "$common" "$kpkgver"
			pkg_deps "$kbuild" "$kpkgver"
		} | grep -v '^linux-' | sort -u | tr '\n' ' ')
		if [ -n "$deps" ]; then
			log "installing in the trixie root: $deps"
			# shellcheck disable=SC2086
			troot_run apt-get install -y -q --no-install-recommends $deps >&2
		fi
		for p in "$headers" "$common" "$kbuild"; do
			dpkg-deb -x "$dir/debs/${p}_"*.deb "$TROOT"
		done
		[ -e "$TROOT/usr/src/$headers/Makefile" ] || die "no /usr/src/$headers in the root"
		touch "$hstamp"
	fi

	local vmlinuz=$root/usr/lib/modules/$krel/vmlinuz kmoddir=$root/usr/lib/modules/$krel
	[ -e "$vmlinuz" ] || die "no vmlinuz in $binary"
	# modules.dep is the postinst's job; host kmod looks under
	# BASE/lib/modules, hence the base usr/ (as in kernel-fetch.sh).
	[ -e "$kmoddir/modules.dep" ] || depmod -b "$root/usr" "$krel"

	cat >"$envf" <<EOT
KREL=$krel
KDIR=$TROOT/usr/src/$headers
VMLINUZ=$vmlinuz
KMODDIR=$kmoddir
KCONFIG=$kmoddir/config
TROOT=$TROOT
EOT
	log "kernel $kver: $krel (headers in $TROOT/usr/src/$headers)"
}

load_env() {
	[ -e "$envf" ] || do_fetch
	# shellcheck source=/dev/null
	source "$envf"
	[ -n "${TROOT:-}" ] && [ -d "$KDIR" ] || die "$envf has no usable KDIR; run kernel-7x.sh fetch"
}

# make M=/build/NAME modules inside the root.
kbuild_in_root() { # NAME
	troot_run make -s -C "/usr/src/${KDIR##*/usr/src/}" M="/build/$1" \
		-j"$(nproc)" modules >&2
}

do_build() { # [PEER]
	load_env
	local name=module-$KREL out src=$MCS_ROOT what=(Kbuild module)
	if [ -n "${1:-}" ]; then
		name=$(basename "$1")-$KREL src=$1 what=(.)
	fi
	out=$TROOT/build/$name
	rm -rf "$out"
	mkdir -p "$out"
	# Sources only: objects of other kernels' in-tree builds stay behind.
	tar -C "$src" --exclude='*.o' --exclude='*.ko' --exclude='*.mod' \
		--exclude='*.mod.c' --exclude='.*.cmd' --exclude='modules.order' \
		--exclude='Module.symvers' -cf - "${what[@]}" | tar -C "$out" -xf -
	kbuild_in_root "$name" || die "module build of $name against $KREL failed"
	if [ -n "${1:-}" ]; then
		ls "$out"/*.ko
	else
		echo "$out/memcg_statctl.ko"
	fi
}

do_hello() {
	load_env
	local out=$TROOT/build/hello
	rm -rf "$out"
	mkdir -p "$out"
	echo 'obj-m := hello.o' >"$out/Kbuild"
	cat >"$out/hello.c" <<'EOT'
// SPDX-License-Identifier: GPL-2.0
#include <linux/module.h>
#include <linux/init.h>

static int __init hello_init(void)
{
	pr_info("hello: loaded\n");
	return 0;
}

static void __exit hello_exit(void)
{
	pr_info("hello: unloaded\n");
}

module_init(hello_init);
module_exit(hello_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("toolchain check of the 7.x build root");
EOT
	kbuild_in_root hello || die "hello-world module build against $KREL failed"
	echo "$out/hello.ko"
}

case "$cmd" in
fetch) do_fetch ;;
build) do_build "${3:-}" ;;
hello) do_hello ;;
*) die "usage: kernel-7x.sh fetch|build|hello [KVER]" ;;
esac
