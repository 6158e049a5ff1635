#!/bin/bash
# bookworm-root.sh KVER: make (once) the Debian 12 root file system the
# README test boots (scripts/readme-check.sh): what a test machine has after
# a standard Debian install (mmdebstrap --variant=standard) plus every package
# the README's "Installing on a test machine" section tells the reader to
# apt-get install, with `$(uname -r)` read as KVER's kernel release. The
# guest has no network, so the README's apt-get lines must find everything
# installed already; taking the list from the README itself keeps the two
# in step (a package the README forgets is missing in the root too).
#
# Idempotent like trixie-root.sh: a stamp records the package set; a root
# without it, or made from another set, is made again, in a temporary
# directory renamed into place. Prints the root's path on stdout.
source "$(dirname "$0")/lib.sh"

kver=${1:?usage: bookworm-root.sh KVER}
# shellcheck source=/dev/null
source "$MCS_KCACHE/$kver.env"

MCS_BROOT=${MCS_BROOT:-$MCS_BUILD/bookworm-root-$kver}
mirror=${MCS_DEBIAN_MIRROR:-http://deb.debian.org/debian}
security=${MCS_DEBIAN_SECURITY:-http://deb.debian.org/debian-security}

pkgs=$("$MCS_ROOT/scripts/readme-blocks.sh" apt-packages "$MCS_ROOT/README.md" |
	sed "s/\\\$(uname -r)/$KREL/g" | sort -u | paste -sd, -)
[ -n "$pkgs" ] || die "no apt-get install line in README.md's install section"
stamp=$MCS_BROOT/.mcs-bookworm-root
want="variant=standard suites=bookworm,bookworm-updates,bookworm-security pkgs=$pkgs"

if [ -e "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
	echo "$MCS_BROOT"
	exit 0
fi

command -v mmdebstrap >/dev/null || {
	log "installing mmdebstrap from the host's apt"
	apt-get install -y -q --no-install-recommends mmdebstrap >&2
}

tmp=$MCS_BROOT.tmp
if grep -q -e " $tmp/" -e " $MCS_BROOT/" /proc/mounts; then
	die "mounts left under $MCS_BROOT(.tmp) (see /proc/mounts): unmount them first"
fi
rm -rf --one-file-system "$tmp"
start=$(date +%s)
log "making the bookworm root in $MCS_BROOT (mmdebstrap, standard + $pkgs)"
# Package lists are kept: the README's apt-get lines run in the guest, and
# apt resolves already-installed packages from them without a network.
mmdebstrap --variant=standard --include="$pkgs" \
	--skip=cleanup/apt/lists \
	--aptopt='Acquire::Languages "none"' \
	--dpkgopt='path-exclude=/usr/share/doc/*' \
	--dpkgopt='path-exclude=/usr/share/locale/*' \
	bookworm "$tmp" \
	"deb $mirror bookworm main" \
	"deb $mirror bookworm-updates main" \
	"deb $security bookworm-security main" >&2
rm -rf --one-file-system "$MCS_BROOT"
mv "$tmp" "$MCS_BROOT"
echo "$want" >"$stamp"
log "bookworm root made in $(($(date +%s) - start))s ($(du -sh "$MCS_BROOT" | cut -f1))"
echo "$MCS_BROOT"
