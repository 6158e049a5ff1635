#!/bin/bash
# deb-build.sh: build the Debian packages of memcg-statctl (`make deb`):
# memcg-statctl-dkms, memcg-statctl and memcg-statctl-tests, into
# build/deb/ (MCS_BUILD). Nothing is written into the source tree: the
# tree's files (git's list of tracked and untracked files when it is a git
# checkout) are copied to build/deb-src/memcg-statctl-VERSION/, with
# packaging/debian/ as its debian/ and a debian/changelog generated here
# from MCS_VERSION in module/version.h (the tree's one version source; the
# rules check that they agree). dpkg-buildpackage -b builds there, unsigned.
#
# DEB_BUILD_OPTIONS is passed on; unset, it is "nocheck parallel=NPROC"
# (`make unit` runs the unit tests; set DEB_BUILD_OPTIONS= to run them here).
# The build dependencies are the Build-Depends of packaging/debian/control
# (scripts/deps.sh installs them). Prints the paths of the .debs.
source "$(dirname "$0")/lib.sh"

name=memcg-statctl
version=$(sed -n 's/^#define[[:space:]]\{1,\}MCS_VERSION[[:space:]]\{1,\}"\([^"]*\)".*/\1/p' \
	"$MCS_ROOT/module/version.h")
[ -n "$version" ] || die "no MCS_VERSION in module/version.h"
out=$MCS_BUILD/deb
work=$MCS_BUILD/deb-src
hold_lock "$work.lock" "make deb in $work"
src=$work/$name-$version
start=$(date +%s)

rm -rf --one-file-system "$work"
mkdir -p "$src"
copy_tree "$src"
if git -C "$MCS_ROOT" rev-parse --git-dir >/dev/null 2>&1; then
	commit=$(git -C "$MCS_ROOT" describe --always --dirty 2>/dev/null || echo unknown)
	epoch=$(git -C "$MCS_ROOT" log -1 --format=%ct 2>/dev/null || date +%s)
else
	commit=unknown
	epoch=$(date +%s)
fi
rm -rf "$src/packaging"
cp -r "$MCS_ROOT/packaging/debian" "$src/debian"

# The changelog: one entry, the version of module/version.h, dated by the
# last commit (SOURCE_DATE_EPOCH, for reproducible packages), signed by the
# Maintainer of debian/control. Generated rather than kept in git: a kept
# changelog would be a second place holding the version, to be bumped in
# step with version.h by hand (and dch needs a maintainer identity and
# edits the tree); generated, version.h stays the one place, and the rules'
# check catches a changelog that went stale in a copy.
maint=$(sed -n 's/^Maintainer: //p' "$src/debian/control")
cat >"$src/debian/changelog" <<CHANGELOG
$name ($version) unstable; urgency=medium

  * Built from the memcg-statctl tree at $commit.

 -- $maint  $(LC_ALL=C date -u -R -d "@$epoch")
CHANGELOG

export DEB_BUILD_OPTIONS=${DEB_BUILD_OPTIONS-nocheck parallel=$(nproc)}
# Its thousands of compiler lines go to a file, not into the log of the
# check lane that runs make deb beside another; the end of it is shown when
# the build fails.
blog=$work/dpkg-buildpackage.log
log "dpkg-buildpackage -b in $src (DEB_BUILD_OPTIONS='$DEB_BUILD_OPTIONS'; output in $blog)"
# make's flags and jobserver stay with make deb; dpkg-buildpackage starts its own.
if ! (cd "$src" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL nice dpkg-buildpackage -b -us -uc) \
	>"$blog" 2>&1; then
	tail -n 60 "$blog" >&2
	die "dpkg-buildpackage failed (the end of $blog is above; the build tree is $src)"
fi

rm -rf "$out"
mkdir -p "$out"
mv "$work"/*.deb "$work"/*.buildinfo "$work"/*.changes "$out/"
log "make deb: $(find "$out" -name '*.deb' | wc -l) packages in $out, $(($(date +%s) - start))s"
find "$out" -name '*.deb' | sort
