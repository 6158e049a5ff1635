#!/bin/bash
# build-refusal-check.sh: the module refuses at build time what it cannot
# run on, checked on this host without such a kernel (the archive this
# project builds from serves none older than 6.1):
# - module/compat.h, preprocessed against a stand-in <linux/version.h> and
#   CONFIG_ set, must stop with its #error (and that error only) for Linux
#   5.10 and 6.0 and for each option it needs that is missing, and must
#   pick the right generation for 6.1, 6.12 and 7.3;
# - dkms.conf's BUILD_EXCLUSIVE_KERNEL must refuse the releases of older
#   Debian kernels and take those of the supported ones, and its
#   BUILD_EXCLUSIVE_CONFIG must list the options compat.h requires.
# Output: TAP 13 lines; the exit status is non-zero when any check fails.
source "$(dirname "$0")/../lib.sh"
TAP_NAME=build-refusal-check
# shellcheck source=scripts/checks/tap.sh
source "$MCS_ROOT/scripts/checks/tap.sh"

compat=$MCS_ROOT/module/compat.h
options=(CONFIG_MEMCG CONFIG_DYNAMIC_FTRACE CONFIG_KPROBES CONFIG_KALLSYMS_ALL)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Empty stand-ins for the other headers compat.h includes: only its
# preprocessor logic is under test.
sed -n 's/^#include <\(.*\)>.*/\1/p' "$compat" | while read -r h; do
	mkdir -p "$tmp/$(dirname "$h")"
	: >"$tmp/$h"
done

# cpp_compat MAJOR MINOR [-DCONFIG_...]: preprocess compat.h as the kernel
# MAJOR.MINOR would; its diagnostics in $tmp/out, the output in $tmp/i.
cpp_compat() {
	local major=$1 minor=$2
	shift 2
	cat >"$tmp/linux/version.h" <<EOF
#define KERNEL_VERSION(a, b, c) (((a) << 16) + ((b) << 8) + ((c) > 255 ? 255 : (c)))
#define LINUX_VERSION_CODE KERNEL_VERSION($major, $minor, 0)
EOF
	printf '#include "%s"\nMCS_GEN_NAME\n' "$compat" >"$tmp/t.c"
	gcc -E -P -nostdinc -I "$tmp" "$@" "$tmp/t.c" -o "$tmp/i" 2>"$tmp/out"
}

all_options=()
for o in "${options[@]}"; do all_options+=("-D$o"); done

# refused DESCRIPTION PATTERN MAJOR MINOR [FLAGS...]: compat.h stops with one
# #error matching PATTERN.
refused() {
	local what=$1 pattern=$2
	shift 2
	if cpp_compat "$@"; then
		notok "$what: compat.h went through"
		return
	fi
	# gcc's diagnostics: one "error:" line, the #error, and no other error.
	if [ "$(grep -c 'error: ' "$tmp/out")" -eq 1 ] &&
		grep -q "error: #error.*$pattern" "$tmp/out"; then
		ok "$what: $(grep -m1 -o 'error: #error.*' "$tmp/out" | sed 's/^error: //')"
	else
		notok "$what"
		diag_tail "$tmp/out"
	fi
}

# accepted MAJOR MINOR GENERATION: compat.h picks that generation.
accepted() {
	if cpp_compat "$1" "$2" "${all_options[@]}" && grep -qx "\"$3\"" "$tmp/i"; then
		ok "Linux $1.$2: generation $3"
	else
		notok "Linux $1.$2: generation $3 (got $(tail -n1 "$tmp/i" 2>/dev/null))"
		diag_tail "$tmp/out"
	fi
}

echo "TAP version 13"
refused "Linux 5.10 (Debian 11)" "needs Linux 6.1 or later" 5 10 "${all_options[@]}"
refused "Linux 6.0" "needs Linux 6.1 or later" 6 0 "${all_options[@]}"
for o in "${options[@]}"; do
	rest=()
	for d in "${all_options[@]}"; do [ "$d" = "-D$o" ] || rest+=("$d"); done
	refused "Linux 6.1 without $o" "needs $o" 6 1 "${rest[@]}"
done
accepted 6 1 6.1
accepted 6 12 6.12
accepted 7 3 7.x

# The releases DKMS sees (uname -r of Debian's kernels). dkms.conf is
# sourced by dkms with its own variables set; here only two lines are read.
dkms_var() { sed -n "s/^$1=\"\(.*\)\"\$/\1/p" "$MCS_ROOT/dkms.conf"; }
BUILD_EXCLUSIVE_KERNEL=$(dkms_var BUILD_EXCLUSIVE_KERNEL)
BUILD_EXCLUSIVE_CONFIG=$(dkms_var BUILD_EXCLUSIVE_CONFIG)
if [ -z "$BUILD_EXCLUSIVE_KERNEL" ] || [ -z "$BUILD_EXCLUSIVE_CONFIG" ]; then
	die "dkms.conf: no BUILD_EXCLUSIVE_KERNEL or BUILD_EXCLUSIVE_CONFIG line"
fi
for rel in 4.19.0-27-amd64 5.10.0-35-amd64 6.0.0-0.deb11.6-amd64; do
	if [[ $rel =~ $BUILD_EXCLUSIVE_KERNEL ]]; then
		notok "dkms.conf: BUILD_EXCLUSIVE_KERNEL takes $rel"
	else
		ok "dkms.conf: BUILD_EXCLUSIVE_KERNEL refuses $rel"
	fi
done
for rel in 6.1.0-57-amd64 6.1.0-57-rt-amd64 6.12.95+deb12-amd64 7.3.4+deb13-amd64 6.10.11-amd64 10.0.0-1-amd64; do
	if [[ $rel =~ $BUILD_EXCLUSIVE_KERNEL ]]; then
		ok "dkms.conf: BUILD_EXCLUSIVE_KERNEL takes $rel"
	else
		notok "dkms.conf: BUILD_EXCLUSIVE_KERNEL refuses $rel"
	fi
done
read -ra dkms_options <<<"$BUILD_EXCLUSIVE_CONFIG"
if [ "$(printf '%s\n' "${dkms_options[@]}" | sort)" = "$(printf '%s\n' "${options[@]}" | sort)" ] &&
	[ "$(grep -o '#ifndef CONFIG_[A-Z_]*' "$compat" | sed 's/#ifndef //' | sort)" = \
		"$(printf '%s\n' "${options[@]}" | sort)" ]; then
	ok "dkms.conf: BUILD_EXCLUSIVE_CONFIG lists the options compat.h requires"
else
	notok "dkms.conf: BUILD_EXCLUSIVE_CONFIG ($BUILD_EXCLUSIVE_CONFIG) and compat.h's #ifndef CONFIG_ differ from ${options[*]}"
fi
finish
