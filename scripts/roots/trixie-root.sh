#!/bin/bash
# trixie-root.sh: make (once) the Debian 13 "trixie" build root the 7.x
# kernels need: their headers expect gcc-14 and their kbuild binaries
# glibc >= 2.38, neither of which Debian 12 has. The root is made with
# mmdebstrap (installed from bookworm's apt if missing) from Debian's archive,
# with trixie and trixie-backports in its sources, in build/trixie-root/.
# Nothing in it is installed on the host.
#
# Idempotent (debian-root.sh): made again only when the package set changes.
# Prints the root's path on stdout.
source "$(dirname "$0")/../lib.sh"
# shellcheck source=scripts/roots/debian-root.sh
source "$MCS_ROOT/scripts/roots/debian-root.sh"

MCS_TROOT=${MCS_TROOT:-$MCS_BUILD/trixie-root}
mirror=${MCS_TRIXIE_MIRROR:-http://deb.debian.org/debian}
# The compiler and what a kbuild of an external module runs. The kernel's own
# headers/kbuild dependencies are added by kernel-7x.sh from the archive.
pkgs=gcc-14,make,libc6-dev,libelf1t64,libssl3t64,zlib1g,kmod,bc,xz-utils,dwarves
want="variant=minbase suites=trixie,trixie-backports pkgs=$pkgs"

# Package lists are kept so that kernel-7x.sh can resolve the kernel
# packages with the root's own apt without a new update.
debian_root "$MCS_TROOT" "$want" minbase trixie "$pkgs" \
	"deb $mirror trixie main
deb $mirror trixie-backports main" \
	--dpkgopt='path-exclude=/usr/share/man/*' >/dev/null
mkdir -p "$MCS_TROOT/build"
echo "$MCS_TROOT"
