#!/bin/bash
# bookworm-root.sh KVER: make (once) the Debian 12 root file system the
# install-doc test boots (scripts/checks/readme-check.sh): what a test machine
# has after a standard Debian install (mmdebstrap --variant=standard) plus
# every package docs/install.md ("Installing on a test machine") and the
# README's quick start tell the reader to apt-get install, KVER's kernel
# image (with its modules) and tmux, with
# `$(uname -r)` read as KVER's kernel release. The guest has no network, so the page's apt-get lines must find
# everything installed already; taking the list from the page itself keeps
# the two in step (a package the page forgets is missing in the root too).
#
# With PACKAGEs after KVER, the root holds those instead of the pages' list
# (scripts/checks/deb-check.sh: what its Debian packages depend on, in a
# root of its own, MCS_BROOT). When KVER's kernel comes from another suite
# than bookworm's own (6.12: bookworm-backports), that suite is added to the
# root's sources, for its headers.
#
# Idempotent (debian-root.sh): made again only when the package set changes.
# The guest's apt-get lines resolve against the root's kept package lists.
# Prints the root's path on stdout.
source "$(dirname "$0")/../lib.sh"
# shellcheck source=scripts/roots/debian-root.sh
source "$MCS_ROOT/scripts/roots/debian-root.sh"

kver=${1:?usage: bookworm-root.sh KVER [PACKAGE...]}
shift
# shellcheck source=/dev/null
source "$MCS_KCACHE/$kver.env"

MCS_BROOT=${MCS_BROOT:-$MCS_BUILD/bookworm-root-$kver}
mirror=${MCS_DEBIAN_MIRROR:-http://deb.debian.org/debian}
security=${MCS_DEBIAN_SECURITY:-http://deb.debian.org/debian-security}

if [ $# -gt 0 ]; then
	pkgs=$(printf '%s\n' "$@" | sort -u | paste -sd, -)
else
	# tmux: the test types the README's quick start into a terminal. jq:
	# the tests package recommends it, and deb-check.sh installs the
	# packages of `make deb` in this root too. linux-image-$(uname -r): a
	# machine running KVER has its modules in /lib/modules (the tests load
	# ext4, loop and zram from there); 6.12's headers pull the image in
	# themselves, 6.1's do not.
	pkgs=$({ "$MCS_ROOT/scripts/md-blocks.sh" apt-packages "$MCS_ROOT/docs/install.md" "$MCS_ROOT/README.md" &&
		printf '%s\n' tmux jq 'linux-image-$(uname -r)'; } | sed "s/\\\$(uname -r)/$KREL/g" | sort -u | paste -sd, -)
	[ -n "$pkgs" ] || die "no apt-get install line in docs/install.md or README.md"
fi
suites=bookworm,bookworm-updates,bookworm-security
sources="deb $mirror bookworm main
deb $mirror bookworm-updates main
deb $security bookworm-security main"
ksuite=$(kernel_field "$kver" suite)
case "$ksuite" in
bookworm | bookworm-updates | bookworm-security) ;;
bookworm-*)
	suites+=,$ksuite
	sources+=$'\n'"deb $mirror $ksuite main"
	;;
*) die "kernel $kver comes from $ksuite, not a bookworm suite: no Debian 12 root for it" ;;
esac
want="variant=standard suites=$suites pkgs=$pkgs"

debian_root "$MCS_BROOT" "$want" standard bookworm "$pkgs" "$sources"
