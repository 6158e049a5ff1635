#!/bin/bash
# dkms-check.sh KVER: prove the DKMS packaging on this host, against Debian's
# headers of KVER as unpacked by kernel-fetch.sh into build/. KVER is a row
# of scripts/kernels/kernels.tsv whose modules build on the host (build kind
# host: 6.1, 6.12); the others need a toolchain this host lacks.
#
# It installs Debian's dkms package if it is missing, then: `make dkms-add`
# (the source copy in /usr/src and `dkms add`), `dkms build` for KVER's
# release with --kernelsourcedir, checks the built module and its vermagic,
# `make dkms-remove`, and checks that nothing is left. KVER's kernel is not
# installed here, so the check stops at `dkms build`: `dkms install` would
# run depmod for a kernel this host does not have.
#
# Output: TAP 13 lines; the exit status is non-zero when any check fails.
source "$(dirname "$0")/../lib.sh"

kver=${1:?usage: dkms-check.sh KVER}
build=$(kernel_field "$kver" build)
[ "$build" = host ] ||
	die "dkms-check builds on this host: kernel $kver's modules build in $build (build kind in $MCS_KERNELS)"
name=memcg-statctl
TAP_NAME="dkms-check $kver"
# shellcheck source=scripts/checks/tap.sh
source "$MCS_ROOT/scripts/checks/tap.sh"
# dkms is run outside make's environment (make would pass its flags on).
run_make() { make --no-print-directory -C "$MCS_ROOT" "$@" >&2; }

echo "TAP version 13"
echo "# dkms-check $kver"

# Debian's dkms. Without recommends: they would pull in the host's headers.
if ! command -v dkms >/dev/null; then
	log "installing Debian's dkms package"
	export DEBIAN_FRONTEND=noninteractive
	apt-get install -y -q --no-install-recommends dkms >&2 ||
		{ apt-get update -q >&2 && apt-get install -y -q --no-install-recommends dkms >&2; }
fi
check "dkms is installed ($(dpkg-query -W -f='${Version}' dkms 2>/dev/null))" \
	test -x "$(command -v dkms)"
command -v dkms >/dev/null || finish

# The headers (idempotent: unpacked once, the .env refreshed).
"$MCS_ROOT/scripts/kernels/kernel-fetch.sh" "$kver" >&2 || { notok "kernel-fetch.sh $kver"; finish; }
# shellcheck source=/dev/null
source "$MCS_KCACHE/$kver.env"
ver=$(sed -n 's/^#define[[:space:]]\{1,\}MCS_VERSION[[:space:]]\{1,\}"\([^"]*\)".*/\1/p' \
	"$MCS_ROOT/module/version.h")
echo "# kernel $KREL, headers $KDIR, $name $ver"
[ -n "$ver" ] || { notok "MCS_VERSION in module/version.h"; finish; }

dkms_tree=/var/lib/dkms
src=/usr/src/$name-$ver
arch=$(uname -m)

# A memcg-statctl already in DKMS is someone's installation: leave it be.
if [ -n "$(dkms status -m "$name")" ] || compgen -G "/usr/src/$name-*" >/dev/null; then
	notok "no $name in DKMS before the check (found: $(dkms status -m "$name" | tr '\n' ' ')$(compgen -G "/usr/src/$name-*" | tr '\n' ' ')); run 'make dkms-remove' first"
	finish
fi
ok "no $name in DKMS before the check"

# From here on, whatever happens, the host is left as it was found.
trap 'run_make dkms-remove >/dev/null 2>&1 || true' EXIT

check "make dkms-add (copy to $src, dkms add)" run_make dkms-add
check "$src holds dkms.conf, Kbuild and module/ only" \
	test "$(cd "$src" 2>/dev/null && echo *)" = "Kbuild dkms.conf module"
check "dkms status: added" \
	grep -q "^$name/$ver: added" <(dkms status -m "$name" -v "$ver")

if dkms build "$name/$ver" -k "$KREL" --kernelsourcedir "$KDIR" >&2; then
	ok "dkms build $name/$ver -k $KREL --kernelsourcedir \$KDIR"
else
	notok "dkms build $name/$ver -k $KREL --kernelsourcedir \$KDIR"
	log=$dkms_tree/$name/$ver/build/make.log
	[ -r "$log" ] && sed 's/^/# /' "$log" | tail -n 40
fi

ko=$dkms_tree/$name/$ver/$KREL/$arch/module/memcg_statctl.ko
check "built module in the DKMS tree ($ko)" test -s "$ko"
vermagic=$(modinfo -F vermagic "$ko" 2>/dev/null | awk '{ print $1 }' || true)
check "modinfo vermagic is $KREL (got '$vermagic')" test "$vermagic" = "$KREL"
check "dkms status: built for $KREL" \
	grep -q "^$name/$ver, $KREL, $arch: built" <(dkms status -m "$name" -v "$ver" -k "$KREL")
check "nothing installed into /lib/modules/$KREL" \
	test -z "$(find "/lib/modules/$KREL" -name 'memcg_statctl.ko*' 2>/dev/null)"

check "make dkms-remove" run_make dkms-remove
trap - EXIT
check "dkms status: no $name" test -z "$(dkms status -m "$name")"
check "no $dkms_tree/$name" test ! -e "$dkms_tree/$name"
check "no /usr/src/$name-*" test -z "$(compgen -G "/usr/src/$name-*")"
check "no memcg_statctl.ko under /lib/modules" \
	test -z "$(find /lib/modules -name 'memcg_statctl.ko*' 2>/dev/null)"
finish
