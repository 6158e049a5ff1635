#!/bin/bash
# trixie-root.sh: make (once) the Debian 13 "trixie" build root the 7.x
# kernels need: their headers expect gcc-14 and their kbuild binaries
# glibc >= 2.38, neither of which Debian 12 has. The root is made with
# mmdebstrap (installed from bookworm's apt if missing) from Debian's archive,
# with trixie and trixie-backports in its sources, in build/trixie-root/.
# Nothing in it is installed on the host.
#
# Idempotent: a stamp file inside the root records the package set it was
# made with; a root without the stamp (an interrupted run) or with a
# different set is made again. The root is built in a temporary directory
# and renamed into place, so a half-made root is never used.
# Prints the root's path on stdout.
source "$(dirname "$0")/lib.sh"

MCS_TROOT=${MCS_TROOT:-$MCS_BUILD/trixie-root}
mirror=${MCS_TRIXIE_MIRROR:-http://deb.debian.org/debian}
# The compiler and what a kbuild of an external module runs. The kernel's own
# headers/kbuild dependencies are added by kernel-7x.sh from the archive.
pkgs=gcc-14,make,libc6-dev,libelf1t64,libssl3t64,zlib1g,kmod,bc,xz-utils,dwarves
stamp=$MCS_TROOT/.mcs-trixie-root
want="variant=minbase suites=trixie,trixie-backports pkgs=$pkgs"

if [ -e "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
	echo "$MCS_TROOT"
	exit 0
fi

command -v mmdebstrap >/dev/null || {
	log "installing mmdebstrap from the host's apt"
	apt-get install -y -q --no-install-recommends mmdebstrap >&2
}

tmp=$MCS_TROOT.tmp
# mmdebstrap (root mode) mounts /dev, /proc and /sys inside the root while it
# runs; one killed half-way can leave them mounted. Never rm -rf through them.
if grep -q -e " $tmp/" -e " $MCS_TROOT/" /proc/mounts; then
	die "mounts left under $MCS_TROOT(.tmp) (see /proc/mounts): unmount them first"
fi
rm -rf --one-file-system "$tmp"
start=$(date +%s)
log "making the trixie root in $MCS_TROOT (mmdebstrap, minbase + $pkgs)"
# Package lists are kept (--skip=cleanup/apt/lists) so that kernel-7x.sh can
# resolve the kernel packages with the root's own apt without a new update.
mmdebstrap --variant=minbase --include="$pkgs" \
	--skip=cleanup/apt/lists \
	--aptopt='Acquire::Languages "none"' \
	--dpkgopt='path-exclude=/usr/share/doc/*' \
	--dpkgopt='path-exclude=/usr/share/man/*' \
	--dpkgopt='path-exclude=/usr/share/locale/*' \
	trixie "$tmp" \
	"deb $mirror trixie main" \
	"deb $mirror trixie-backports main" >&2
rm -rf --one-file-system "$MCS_TROOT"
mv "$tmp" "$MCS_TROOT"
mkdir -p "$MCS_TROOT/build"
echo "$want" >"$stamp"
log "trixie root made in $(($(date +%s) - start))s ($(du -sh "$MCS_TROOT" | cut -f1))"
echo "$MCS_TROOT"
