#!/bin/bash
# bookworm-root.sh KVER: make (once) the Debian 12 root file system the
# install-doc test boots (scripts/checks/readme-check.sh): what a test machine
# has after a standard Debian install (mmdebstrap --variant=standard) plus
# every package docs/install.md ("Installing on a test machine") and the
# README's quick start tell the reader to apt-get install, and tmux, with
# `$(uname -r)` read as KVER's kernel release. The guest has no network, so the page's apt-get lines must find
# everything installed already; taking the list from the page itself keeps
# the two in step (a package the page forgets is missing in the root too).
#
# Idempotent (debian-root.sh): made again only when the package set changes.
# The guest's apt-get lines resolve against the root's kept package lists.
# Prints the root's path on stdout.
source "$(dirname "$0")/../lib.sh"
# shellcheck source=scripts/roots/debian-root.sh
source "$MCS_ROOT/scripts/roots/debian-root.sh"

kver=${1:?usage: bookworm-root.sh KVER}
# shellcheck source=/dev/null
source "$MCS_KCACHE/$kver.env"

MCS_BROOT=${MCS_BROOT:-$MCS_BUILD/bookworm-root-$kver}
mirror=${MCS_DEBIAN_MIRROR:-http://deb.debian.org/debian}
security=${MCS_DEBIAN_SECURITY:-http://deb.debian.org/debian-security}

# tmux: the test types the README's quick start into a terminal.
pkgs=$({ "$MCS_ROOT/scripts/md-blocks.sh" apt-packages "$MCS_ROOT/docs/install.md" "$MCS_ROOT/README.md" &&
	echo tmux; } | sed "s/\\\$(uname -r)/$KREL/g" | sort -u | paste -sd, -)
[ -n "$pkgs" ] || die "no apt-get install line in docs/install.md or README.md"
want="variant=standard suites=bookworm,bookworm-updates,bookworm-security pkgs=$pkgs"

debian_root "$MCS_BROOT" "$want" standard bookworm "$pkgs" \
	"deb $mirror bookworm main
deb $mirror bookworm-updates main
deb $security bookworm-security main"
