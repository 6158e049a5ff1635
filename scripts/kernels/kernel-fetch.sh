#!/bin/bash
# kernel-fetch.sh KVER: fetch the kernel image and the matching headers of
# the row KVER of scripts/kernels/kernels.tsv into build/kernels/ and unpack
# them there. Rows fetched with apt (6.1, 6.12) are done here: the image
# package the row's metapackage names in its suite. Other rows go to the
# script of their fetch kind (trixie-root: kernel-7x.sh). The host's own
# kernels and boot setup are never touched: packages are downloaded and
# unpacked with dpkg-deb, not installed.
# Writes build/kernels/KVER.env (KREL, KDIR, VMLINUZ, KMODDIR, KCONFIG).
source "$(dirname "$0")/../lib.sh"

kver=${1:?usage: kernel-fetch.sh KVER}
fetch=$(kernel_field "$kver" fetch)
case "$fetch" in
apt) ;;
debug-build) exec "$MCS_ROOT/scripts/kernels/debug-build.sh" "$kver" ;;
trixie-root) exec "$MCS_ROOT/scripts/kernels/kernel-7x.sh" fetch "$kver" ;;
*) die "kernel $kver: unknown fetch kind '$fetch' in $MCS_KERNELS" ;;
esac
suite=$(kernel_field "$kver" suite)
meta=$(kernel_field "$kver" image)

# Make the suite known to apt (backports are not in a default Debian 12).
ensure_suite() {
	local list=/etc/apt/sources.list.d/memcg-statctl-$1.list
	apt-cache policy | grep -q " $1/main" && return 0
	log "adding $1 to apt's sources ($list)"
	echo "deb http://deb.debian.org/debian $1 main" >"$list"
	apt-get update -q >&2
}

# Version of PKG in SUITE, from the archive's index.
pkg_version() {
	apt-cache madison "$1" | awk -v s="$2" -F' *\\| *' \
		'$3 ~ ("(^| )" s "(-security|-updates)?/main") { print $2; exit }'
}

# The dependency of PKG=VER whose name starts with PREFIX.
pkg_dep() {
	apt-cache show "$1=$2" | sed -n 's/^Depends: //p' | head -n1 |
		tr ',' '\n' | sed 's/^ *//; s/ .*//' | grep "^$3" | head -n1
}

ensure_suite "$suite"
meta_ver=$(pkg_version "$meta" "$suite")
[ -n "$meta_ver" ] || die "$meta not found in $suite"
image=$(pkg_dep "$meta" "$meta_ver" linux-image-)
[ -n "$image" ] || die "cannot resolve the image package of $meta=$meta_ver"
krel=${image#linux-image-}
kpkgver=$(pkg_version "$image" "$suite")
headers=linux-headers-$krel
common=$(pkg_dep "$headers" "$kpkgver" linux-headers-)
kbuild=$(pkg_dep "$headers" "$kpkgver" linux-kbuild-)
[ -n "$common" ] && [ -n "$kbuild" ] || die "cannot resolve the headers of $krel"

# The real path: build/kernels may be a link to a cache other trees share,
# and what is written here (the .env, the headers' Makefile) must stay
# valid when the tree that fetched first is gone.
mkdir -p "$MCS_KCACHE"
dir=$(cd -P "$MCS_KCACHE" && pwd)/$krel
root=$dir/root
if [ ! -e "$dir/.unpacked" ]; then
	log "fetching $image $headers $common $kbuild ($kpkgver, $suite)"
	rm -rf "$dir"
	mkdir -p "$dir/debs" "$root"
	(cd "$dir/debs" && apt-get download -q \
		"$image=$kpkgver" "$headers=$kpkgver" "$common=$kpkgver" \
		"$kbuild=$kpkgver" 2>&1 | grep -v '^W: Download is performed unsandboxed' >&2 || true)
	for deb in "$dir"/debs/*.deb; do
		dpkg-deb -x "$deb" "$root"
	done
	touch "$dir/.unpacked"
fi
# The arch headers include the common ones by absolute path: /usr/src/ as
# packaged, or the root of an earlier fetch, which may have moved since.
sed -i "s#^include .*/usr/src/\(linux-headers-[^/]*/Makefile\)\$#include $root/usr/src/\1#" \
	"$root/usr/src/$headers/Makefile"

vmlinuz=$(ls "$root"/boot/vmlinuz-"$krel" 2>/dev/null ||
	ls "$root"/usr/lib/modules/"$krel"/vmlinuz 2>/dev/null || true)
[ -n "$vmlinuz" ] || die "no vmlinuz in $image"
kmoddir=$root/lib/modules/$krel
[ -d "$kmoddir" ] || kmoddir=$root/usr/lib/modules/$krel
# The packages leave modules.dep to the postinst; make it for modprobe.
[ -e "$kmoddir/modules.dep" ] || depmod -b "${kmoddir%/lib/modules/*}" "$krel"
kconfig=$(ls "$root"/boot/config-"$krel" 2>/dev/null || echo "$kmoddir/config")

cat >"$MCS_KCACHE/$kver.env" <<EOT
KREL=$krel
KDIR=$root/usr/src/$headers
VMLINUZ=$vmlinuz
KMODDIR=$kmoddir
KCONFIG=$kconfig
EOT
log "kernel $kver: $krel"
