#!/bin/bash
# readme-steps.sh SRC: follow docs/install.md ("Installing on a test
# machine") word for word on the machine it runs on (the install-test guest
# booted by readme-check.sh, as root, in SRC, a copy of the repository), and
# check after each block that it did what the page says. Output: TAP 13.
#
# Each command of a block is taken from docs/install.md by scripts/md-blocks.sh and run
# as it stands with bash, from SRC, as a reader pasting it would; a command
# that fails is a failed test. Order: both ways of installing end with the
# module loaded, so the "Loading" block runs after each of them:
#   Prerequisites; DKMS install; Loading; DKMS removal;
#   make install; Loading; Secure Boot (signing, make install over it);
#   make install removal; then "Without installing: insmod from the tree";
#   then the README's quick start (readme-quickstart.sh).
# Commands that need UEFI firmware and a reboot (mokutil --import,
# --test-key, --delete) are reported as skipped; `mokutil --sb-state` is
# skipped when the machine has no EFI variables.
src=${1:?usage: readme-steps.sh SRC}
source "$src/scripts/lib.sh"
set +e # a failing command is a failed test, not the end
# shellcheck source=scripts/checks/tap.sh
source "$src/scripts/checks/tap.sh"
# shellcheck source=scripts/guest/readme-quickstart.sh
source "$src/scripts/guest/readme-quickstart.sh"
TAP_NAME="install doc test"
TAP_CAPTURE=$(mktemp) # what each check printed
out=$(mktemp)         # what the install doc's command last run printed
trap 'rm -f "$TAP_CAPTURE" "$out"' EXIT
cd "$src" || exit 1
doc=$src/docs/install.md
krel=$(uname -r)
mods=/lib/modules/$krel
dbg=/sys/kernel/debug/memcg_statctl
export LC_ALL=C.UTF-8

loaded() { [ -d /sys/module/memcg_statctl ]; }
unloaded() { ! loaded; }
knob_is() { [ "$(cat "$dbg/$1" 2>/dev/null)" = "$2" ]; }
dkms_ko() { find "$mods/updates/dkms" -name 'memcg_statctl.ko*' 2>/dev/null | head -n1; }
# modprobe would load the module from DIR (under $mods).
resolves_to() { modprobe --show-depends memcg_statctl | grep -q "$mods/$1/memcg_statctl.ko"; }
# No module file under $mods, and modprobe finds none.
no_module() { [ -z "$(find "$mods" -name 'memcg_statctl.ko*')" ] && ! modinfo memcg_statctl; }
no_tool() { [ ! -e /usr/local/bin/memcg-statctl ] && [ ! -e /usr/local/share/man/man1/memcg-statctl.1 ]; }

# Checks tied to one command, run right after it succeeded; $out holds what
# it printed.
after_command() {
	case "$1" in
	"modprobe memcg_statctl flush_mode=never flush_period_ms=0")
		check "  the parameters took: flush_mode never, flush_period_ms 0" \
			bash -c "[ \"\$(cat $dbg/flush_mode)\" = never ] && [ \"\$(cat $dbg/flush_period_ms)\" = 0 ]"
		;;
	"cat $dbg/version")
		check "  version names this kernel ($krel)" grep -qx "kernel $krel" "$out"
		;;
	"memcg-statctl status")
		check "  status says the module is loaded" grep -q '^memcg_statctl: loaded' "$out"
		;;
	"man memcg-statctl")
		check "  the man page has NAME, SYNOPSIS and EXIT STATUS" \
			bash -c "grep -q '^NAME' '$out' && grep -q '^SYNOPSIS' '$out' && grep -q '^EXIT STATUS' '$out'"
		;;
	"modinfo memcg_statctl")
		check "  modinfo lists the knob parameters" \
			bash -c "grep -q '^parm: *flush_mode:' '$out' && grep -q '^parm: *flush_period_ms:' '$out'"
		;;
	esac
}

# run_block HEADING N: every command of that block of docs/install.md, in order.
run_block() {
	local heading=$1 nth=$2 cmd cmds reason
	echo "# docs/install.md: $heading, block $nth"
	if ! cmds=$("$src/scripts/md-blocks.sh" commands "$doc" "$heading" "$nth"); then
		notok "docs/install.md has block $nth under '$heading'"
		return
	fi
	while IFS= read -r cmd; do
		reason=
		case "$cmd" in
		"mokutil --import "* | "mokutil --test-key "* | "mokutil --delete "*)
			reason="needs UEFI firmware with shim (MokManager) and a reboot" ;;
		esac
		if [ -n "$reason" ]; then
			skip "$cmd" "$reason"
			continue
		fi
		if bash -c "$cmd" </dev/null >"$out" 2>&1; then
			ok "$cmd"
			diag_tail "$out" 8
			after_command "$cmd"
		elif [ "$cmd" = "mokutil --sb-state" ] && grep -q 'EFI variables are not supported' "$out"; then
			skip "$cmd" "no EFI variables in this guest (BIOS boot): $(head -n1 "$out")"
		else
			notok "$cmd"
			diag_tail "$out"
		fi
	done <<<"$cmds"
}

echo "TAP version 13"
echo "# install doc test (docs/install.md) on $krel in $src"

run_block "## Prerequisites" 1

run_block "## With DKMS" 1
check "DKMS: dkms status says installed for $krel" \
	bash -c "dkms status memcg-statctl | grep -q ', $krel, .*: installed'"
check "DKMS: module in $mods/updates/dkms/" test -n "$(dkms_ko)"
check "DKMS: modprobe resolves it there" resolves_to updates/dkms
check "DKMS: the module is loaded, its debugfs directory is there" \
	bash -c "[ -d /sys/module/memcg_statctl ] && [ -r $dbg/version ]"
check "DKMS: dkms signed it with its own key (/var/lib/dkms/mok.pub, modinfo signer)" \
	bash -c "[ -s /var/lib/dkms/mok.pub ] && [ -n \"\$(modinfo -F signer '$(dkms_ko)')\" ]"
check "DKMS: the tool is installed (/usr/local/bin/memcg-statctl)" test -x /usr/local/bin/memcg-statctl

run_block "## Loading, parameters, debugfs" 1

run_block "## With DKMS" 2
check "DKMS removed: the module is unloaded" unloaded
check "DKMS removed: dkms status prints nothing" test -z "$(dkms status memcg-statctl 2>&1)"
check "DKMS removed: no /usr/src/memcg-statctl-*, no /var/lib/dkms/memcg-statctl" \
	bash -c "! ls -d /usr/src/memcg-statctl-* /var/lib/dkms/memcg-statctl 2>/dev/null | grep -q ."
check "DKMS removed: no module under $mods, modprobe finds none" no_module
check "DKMS removed: no tool, no man page" no_tool

run_block "## With make install" 1
check "make install: module in $mods/extra/" test -s "$mods/extra/memcg_statctl.ko"
check "make install: modprobe resolves it there" resolves_to extra
check "make install: the module is loaded" loaded
check "make install: tool and man page installed" \
	bash -c "[ -x /usr/local/bin/memcg-statctl ] && [ -s /usr/local/share/man/man1/memcg-statctl.1 ]"
# Use it beyond `status`: a knob set through the installed tool, read back
# from debugfs, and the counters.
check "make install: memcg-statctl set flush_mode always" memcg-statctl set flush_mode always
check "make install: debugfs reads flush_mode always" knob_is flush_mode always
check "make install: memcg-statctl stats" memcg-statctl stats

run_block "## Loading, parameters, debugfs" 1

run_block "## Secure Boot" 1
run_block "## Secure Boot" 2
run_block "## Secure Boot" 3
check "Secure Boot: the installed module carries the signature" \
	bash -c "[ \"\$(modinfo -F signer $mods/extra/memcg_statctl.ko)\" = 'memcg-statctl module signing key' ]"
run_block "## Secure Boot" 4
check "Secure Boot: the module is loaded" loaded

run_block "## With make install" 2
check "make uninstall: the module is unloaded" unloaded
check "make uninstall: no module under $mods, modprobe finds none" no_module
check "make uninstall: no tool, no man page" no_tool

run_block "## Without installing: insmod from the tree" 1
check "insmod from the tree: unloaded again by the block's rmmod" unloaded

# The README's quick start, last: it builds and loads the module from the
# tree and ends unloaded, like the block above.
readme_quickstart "$src"
check "README quick start: unloaded again by its rmmod" unloaded
finish
