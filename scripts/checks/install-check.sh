#!/bin/bash
# install-check.sh [KVER]: prove `make install`, `make uninstall` and
# `make sign` on this host against Debian's headers of KVER (default 6.1; a
# row of scripts/kernels/kernels.tsv of build kind host), as
# unpacked by kernel-fetch.sh into build/. Nothing outside temporary
# directories is written: the targets run in a scratch copy of the sources
# (so the work tree's objects are left alone) and install into DESTDIRs.
#
#   A  DESTDIR=<empty dir>: install puts the module, the tool and the man page
#      where they belong; installing twice is installing once; uninstall
#      leaves the directory empty.
#   B  DESTDIR=<a copy of KVER's /lib/modules tree>, DEPMOD_DESTDIR=1: after
#      install modprobe resolves memcg_statctl to the installed file; after
#      uninstall it no longer does.
#   C  make sign with a throwaway key: modinfo shows the signer, signing twice
#      leaves one signature, and make install keeps it.
#
# Output: TAP 13 lines; the exit status is non-zero when any check fails.
source "$(dirname "$0")/../lib.sh"

kver=${1:-6.1}
build=$(kernel_field "$kver" build)
[ "$build" = host ] ||
	die "install-check builds on this host: kernel $kver's modules build in $build (build kind in $MCS_KERNELS)"
quiet() { "$@" >/dev/null 2>&1; }
TAP_NAME="install-check $kver"
# shellcheck source=scripts/checks/tap.sh
source "$MCS_ROOT/scripts/checks/tap.sh"

echo "TAP version 13"
echo "# install-check $kver"

"$MCS_ROOT/scripts/kernels/kernel-fetch.sh" "$kver" >&2 || { notok "kernel-fetch.sh $kver"; finish; }
# shellcheck source=/dev/null
source "$MCS_KCACHE/$kver.env"
echo "# kernel $KREL, headers $KDIR"

# The tool: built in the work tree if missing. If it does not build, the
# install targets skip it (they say so) and so do the checks of it.
tool=$MCS_BUILD/userspace/memcg-statctl
[ -x "$tool" ] || make --no-print-directory -C "$MCS_ROOT" userspace >&2 || true
have_tool=0
[ -x "$tool" ] && command -v help2man >/dev/null && have_tool=1
[ -x "$tool" ] || echo "# the tool does not build: its checks are skipped"
command -v help2man >/dev/null || echo "# help2man is missing (apt-get install help2man): tool checks skipped"

tmp=$(mktemp -d /tmp/mcs-install-check.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
src=$tmp/src
mkdir -p "$src/scripts"
cp -r "$MCS_ROOT/Kbuild" "$MCS_ROOT/Makefile" "$MCS_ROOT/dkms.conf" "$MCS_ROOT/module" "$src/"
cp "$MCS_ROOT"/scripts/*.sh "$MCS_ROOT/scripts/install.mk" "$src/scripts/"
# the man page's hand-written sections (the tool itself is built once, in build/)
mkdir -p "$src/userspace"
cp -r "$MCS_ROOT/userspace/man" "$src/userspace/"
rm -f "$src"/module/*.o "$src"/module/.*.cmd
mk() { make --no-print-directory -C "$src" KDIR="$KDIR" \
	USERSPACE_BUILD="$MCS_BUILD/userspace" "$@" >&2; }
listing() { (cd "$1" && find . | sort); }
ko_rel=lib/modules/$KREL/extra/memcg_statctl.ko

# --- A: an empty DESTDIR ------------------------------------------------------
dest=$tmp/destdir
mkdir -p "$dest"
check "A: make install DESTDIR=<empty>" mk install DESTDIR="$dest"
check "A: module at /$ko_rel" test -s "$dest/$ko_rel"
vermagic=$(modinfo -F vermagic "$dest/$ko_rel" 2>/dev/null | awk '{ print $1 }' || true)
check "A: its vermagic is $KREL (got '$vermagic')" test "$vermagic" = "$KREL"
if [ "$have_tool" = 1 ]; then
	check "A: tool at /usr/local/bin/memcg-statctl runs --help" \
		quiet "$dest/usr/local/bin/memcg-statctl" --help
	man1=$dest/usr/local/share/man/man1/memcg-statctl.1
	check "A: man page at /usr/local/share/man/man1/memcg-statctl.1" test -s "$man1"
	check "A: man page has NAME, SYNOPSIS, COMMANDS, EXIT STATUS" \
		test "$(grep -c -E '^\.SH "?(NAME|SYNOPSIS|COMMANDS|EXIT STATUS)' "$man1")" = 4
	check "A: man page renders without warnings" \
		test -z "$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$man1" 2>&1 >/dev/null)"
else
	skip "A: tool and man page (tool or help2man unavailable)"
fi
before=$(listing "$dest")
check "A: make install twice (idempotent)" mk install DESTDIR="$dest"
check "A: the second install changed no file list" test "$(listing "$dest")" = "$before"
check "A: make uninstall DESTDIR=<same>" mk uninstall DESTDIR="$dest"
check "A: DESTDIR is empty afterwards (left: $(listing "$dest" | grep -v '^\.$' | tr '\n' ' '))" \
	test -z "$(ls -A "$dest")"
check "A: make uninstall twice (idempotent)" mk uninstall DESTDIR="$dest"

# --- B: a DESTDIR holding KVER's module tree, depmod -b ----------------------
root=$tmp/root
mkdir -p "$root/lib/modules"
cp -al "$KMODDIR" "$root/lib/modules/$KREL" # hard links: depmod replaces, never edits
check "B: make install DESTDIR=<kernel tree> DEPMOD_DESTDIR=1" \
	mk install DESTDIR="$root" DEPMOD_DESTDIR=1
resolved=$(modprobe -d "$root" -S "$KREL" --show-depends memcg_statctl 2>/dev/null || true)
check "B: modprobe resolves memcg_statctl to /$ko_rel" \
	test "$resolved" = "insmod $root/$ko_rel "
check "B: make uninstall DESTDIR=<kernel tree> DEPMOD_DESTDIR=1" \
	mk uninstall DESTDIR="$root" DEPMOD_DESTDIR=1
check "B: modprobe no longer finds memcg_statctl" \
	bash -c "! modprobe -d '$root' -S '$KREL' --show-depends memcg_statctl >/dev/null 2>&1"
check "B: no memcg_statctl in modules.dep, no extra/ left" \
	bash -c "! grep -q memcg_statctl '$root/lib/modules/$KREL/modules.dep' && [ ! -e '$root/lib/modules/$KREL/extra' ]"

# --- C: make sign -------------------------------------------------------------
key=$tmp/key
mkdir -p "$key"
cn="memcg-statctl install-check $$"
openssl req -new -x509 -newkey rsa:2048 -nodes -days 1 -subj "/CN=$cn/" \
	-keyout "$key/signing_key.pem" -outform DER -out "$key/signing_key.x509" 2>/dev/null
check "C: make sign without KEY/CERT is a usage error" \
	bash -c "make --no-print-directory -C '$src' KDIR='$KDIR' sign >/dev/null 2>&1; [ \$? = 2 ]"
check "C: make sign KEY=... CERT=..." \
	mk sign KEY="$key/signing_key.pem" CERT="$key/signing_key.x509"
ko=$src/memcg_statctl.ko
check "C: modinfo signer is '$cn'" test "$(modinfo -F signer "$ko")" = "$cn"
check "C: modinfo sig_hashalgo is sha256" test "$(modinfo -F sig_hashalgo "$ko")" = sha256
mk sign KEY="$key/signing_key.pem" CERT="$key/signing_key.x509" || true
check "C: signing twice leaves one signature" \
	test "$(grep -c -a '~Module signature appended~' "$ko")" = 1
dest=$tmp/signed
mkdir -p "$dest"
mk install DESTDIR="$dest" || true
check "C: make install keeps the signature" \
	test "$(modinfo -F signer "$dest/$ko_rel" 2>/dev/null)" = "$cn"
mk uninstall DESTDIR="$dest" || true
check "C: and make uninstall leaves nothing" test -z "$(ls -A "$dest")"
finish
