#!/bin/bash
# module-builds.sh: build memcg_statctl.ko for every kernel row of
# scripts/kernels/kernels.tsv (make check-quick): each row's headers fetched
# (kernel-fetch.sh; cached in build/kernels), the module built against them
# (module-build.sh), with the compiler's warnings, which kbuild's W=0
# build prints, counted as failures. A debug-build row (6.1-debug) is built
# only when its kernel already is (make check-debug builds it, in about an
# hour), and said to be skipped otherwise.
# Output: TAP 13; exit 1 when a build failed or warned.
source "$(dirname "$0")/../lib.sh"
TAP_NAME="module builds"
# shellcheck source=scripts/checks/tap.sh
source "$MCS_ROOT/scripts/checks/tap.sh"

# build_one KVER: the module for KVER, with no compiler warning.
build_one() {
	local out
	out=$("$MCS_ROOT/scripts/kernels/module-build.sh" "$1" 2>&1) || { echo "$out" | tail -n 20; return 1; }
	if grep -E 'warning:|error:' <<<"$out"; then
		return 1
	fi
}

echo "TAP version 13"
for k in $(kernel_names); do
	if [ "$(kernel_field "$k" fetch)" = debug-build ] &&
		[ ! -e "${MCS_DEBUG_CACHE:-/var/cache/memcg-statctl}/$k/.built" ]; then
		skip "module for $k" "its kernel is not built (make check-debug builds it)"
		continue
	fi
	"$MCS_ROOT/scripts/kernels/kernel-fetch.sh" "$k" >&2 || { check "module for $k (kernel fetch)" false; continue; }
	check "module for $k" build_one "$k"
done
finish
