#!/bin/bash
# deb-steps.sh: the Debian packages on the machine it runs on (the guest of
# scripts/checks/deb-check.sh, as root, in its Debian 12 root, no network):
# /tmp/deb/*.deb installed with apt-get, DKMS's module for the running
# kernel, modprobe, the tool, its man page and bash completion, the mmtests
# and LKP adapters of contrib/ against the module, the installed kselftests
# (run_kselftest.sh), apt-get purge leaving nothing,
# and a kernel DKMS refuses: the dkms package installed while the running
# kernel's headers lack CONFIG_KPROBES (test-only: the headers' .config is
# edited and restored) must install cleanly (state ii, dpkg --audit empty)
# with one message naming the refusal, and build nothing.
# /root/mcs/tests, when present, holds run_kselftest.sh's -t arguments.
# Transcripts go to /root/mcs/out/ (job-deb.sh sends them to the host).
# Output: TAP 13.
here=$(cd "$(dirname "$0")" && pwd)
log() { printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
# (deb-check.sh lays out the tree's scripts under src/)
# shellcheck source=scripts/checks/tap.sh
source "$here/src/scripts/checks/tap.sh"
TAP_NAME="deb test"
export DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8
krel=$(uname -r)
mods=/lib/modules/$krel
pkgs=(memcg-statctl-dkms memcg-statctl memcg-statctl-tests)
ksft=/usr/lib/memcg-statctl/kselftest
out=$here/out
mkdir -p "$out"
cd /tmp/deb || exit 1

state() { dpkg-query -W -f='${db:Status-Abbrev}' "$1" 2>/dev/null | tr -d ' '; }
all_ii() { local p; for p in "$@"; do [ "$(state "$p")" = ii ] || return 1; done; }
none_left() { local p; for p in "$@"; do [ -z "$(state "$p")" ] || [ "$(state "$p")" = un ] || return 1; done; }
no_ko() { [ -z "$(find /lib/modules -name 'memcg_statctl.ko*' 2>/dev/null)" ]; }
audit_clean() { [ -z "$(dpkg --audit 2>&1)" ]; }
loaded() { [ -d /sys/module/memcg_statctl ]; }

echo "TAP version 13"
echo "# deb test on $krel: $(echo ./*.deb)"

# --- install --------------------------------------------------------------
# Each line of the transcript with the time it came: DKMS compiles the
# module in this guest, under TCG the longest part of the install.
apt-get install -y ./*.deb 2>&1 | while IFS= read -r line; do printf '[%(%T)T] %s\n' -1 "$line"; done >"$out/apt-get-install.txt"
rc=${PIPESTATUS[0]}
if [ "$rc" = 0 ]; then ok "apt-get install -y ./*.deb"; else notok "apt-get install -y ./*.deb (exit $rc)"; fi
diag_tail "$out/apt-get-install.txt" 30
check "the three packages are installed (ii)" all_ii "${pkgs[@]}"
check "dpkg --audit is empty" audit_clean
check "dkms status: memcg-statctl installed for $krel" \
	bash -c "dkms status memcg-statctl | grep -q ', $krel, .*: installed'"
check "the module is in $mods/updates/dkms/" \
	test -n "$(find "$mods/updates/dkms" -name 'memcg_statctl.ko*' 2>/dev/null)"
check "modprobe memcg_statctl" modprobe memcg_statctl
check "the module is loaded" loaded
memcg-statctl status >"$out/status.txt" 2>&1
rc=$?
if [ "$rc" = 0 ]; then ok "memcg-statctl status (exit 0)"; else notok "memcg-statctl status (exit $rc)"; fi
diag_tail "$out/status.txt" 12
check "status says the module is loaded" grep -q '^memcg_statctl: loaded' "$out/status.txt"
ver=$(dpkg-query -W -f='${Version}' memcg-statctl-dkms)
check "the module's version file says module $ver (the package's version)" \
	grep -qx "module $ver" /sys/kernel/debug/memcg_statctl/version
check "man -w memcg-statctl finds the man page" man -w memcg-statctl
comp=/usr/share/bash-completion/completions/memcg-statctl
check "bash completion: memcg-statctl sw<TAB> -> sweep" \
	bash -c "source $comp && COMP_WORDS=(memcg-statctl sw) COMP_CWORD=1 && _memcg_statctl && [ \"\${COMPREPLY[*]}\" = sweep ]"
check "bash completion: memcg-statctl sweep --ru<TAB> -> --runs" \
	bash -c "source $comp && COMP_WORDS=(memcg-statctl sweep --ru) COMP_CWORD=2 && _memcg_statctl && [ \"\${COMPREPLY[*]}\" = --runs ]"
# The mmtests and LKP adapters of contrib/ (staged by deb-check.sh) run as
# those harnesses run them, against this module and the installed tool.
contrib=/root/mcs/src/scripts/checks/contrib-check.sh
if [ -x "$contrib" ]; then
	MCS_CONTRIB_MODULE=1 "$contrib" >"$out/contrib-check.txt" 2>&1
	rc=$?
	sed -n 's/^\(not \)\{0,1\}ok /#   &/p' "$out/contrib-check.txt"
	check "contrib adapters against the module: contrib-check.sh exits 0" test "$rc" = 0
	[ "$rc" = 0 ] || diag_tail "$out/contrib-check.txt" 30
else
	notok "contrib adapters: $contrib was not staged"
fi
check "modprobe -r memcg_statctl" modprobe -r memcg_statctl

# --- the installed kselftests -------------------------------------------------
args=$(cat /root/mcs/tests 2>/dev/null)
expected=$(if [ -n "$args" ]; then echo $(($(wc -w <<<"$args") / 2)); else wc -l <"$ksft/kselftest-list.txt"; fi)
# Append mode: the runner opens /dev/stdout again with >> for each test's
# output; a plain > here would let its own lines overwrite the tests'.
: >"$out/run_kselftest.txt"
# The host's MEMCG_STATCTL_* settings (deb-check.sh writes them): in check,
# its CHECK_TEST_ENV, the shorter stress, fault and storm runs of its
# vmtests; `make deb-check` alone runs the tests whole.
# shellcheck disable=SC1091  # written by deb-check.sh
if [ -f /root/mcs/selftests-env ]; then . /root/mcs/selftests-env; fi
# shellcheck disable=SC2086  # the arguments are words
"$ksft/run_kselftest.sh" $args >>"$out/run_kselftest.txt" 2>&1
rc=$?
top=$(grep -E '^(not )?ok [0-9]+ selftests: ' "$out/run_kselftest.txt")
passed=$(grep -cE '^ok [0-9]+ ' <<<"$top")
skipped=$(grep -cE '# SKIP$' <<<"$top")
failed=$(grep -cE '^not ok ' <<<"$top")
sed 's/^/#   /' <<<"$top"
# The failed tests and their failed subtests, named in the TAP line itself:
# where only the end of a CI log is kept, that line is what says why.
why=$(awk '/^# selftests: [^:]*: / { t = $4 }
	/^# +not ok [0-9]+ / { sub(/^# +not ok [0-9]+ /, ""); s[t] = s[t] (s[t] ? "," : "") $0 }
	/^not ok [0-9]+ selftests: / { name = $6
		f = f (f ? "; " : "") name (s[name] ? " (" s[name] ")" : "") }
	END { print f }' "$out/run_kselftest.txt")
check "run_kselftest.sh $args exits 0" test "$rc" = 0
check "kselftests: $expected results, all ok, none skipped (ok $passed, skip $skipped, not ok $failed${why:+: $why})" \
	test "$passed" = "$expected" -a "$skipped" = 0 -a "$failed" = 0
# each failed test's own output, not only the last test's
for t in $(grep -E '^not ok [0-9]+ selftests: ' "$out/run_kselftest.txt" | awk '{ print $6 }'); do
	echo "# $t, its output:"
	sed -n "/^# selftests: [^:]*: $t\$/,/^\(not \)\?ok [0-9]* selftests: [^:]*: $t\b/p" "$out/run_kselftest.txt" |
		tail -n 40 | sed 's/^/#   /'
done
loaded && modprobe -r memcg_statctl

# --- purge ------------------------------------------------------------------
apt-get purge -y "${pkgs[@]}" >"$out/apt-get-purge.txt" 2>&1
rc=$?
if [ "$rc" = 0 ]; then ok "apt-get purge -y ${pkgs[*]}"; else notok "apt-get purge (exit $rc)"; fi
diag_tail "$out/apt-get-purge.txt" 12
check "purged: no package left in dpkg's database" none_left "${pkgs[@]}"
check "purged: dkms status prints nothing" test -z "$(dkms status memcg-statctl 2>&1)"
check "purged: no /var/lib/dkms/memcg-statctl" test ! -e /var/lib/dkms/memcg-statctl
check "purged: no /usr/src/memcg-statctl-*" test -z "$(compgen -G '/usr/src/memcg-statctl-*')"
check "purged: no memcg_statctl.ko under /lib/modules, modinfo finds none" \
	bash -c "[ -z \"\$(find /lib/modules -name 'memcg_statctl.ko*')\" ] && ! modinfo memcg_statctl >/dev/null 2>&1"
check "purged: no tool, man page, completion, kselftests" \
	bash -c "! ls -d /usr/bin/memcg-statctl /usr/share/man/man1/memcg-statctl.1* $comp /usr/lib/memcg-statctl 2>/dev/null | grep -q ."
check "dpkg --audit is empty" audit_clean

# --- a kernel DKMS refuses ----------------------------------------------------
# Test-only forgery of a BUILD_EXCLUSIVE_CONFIG mismatch: the running
# kernel's headers say CONFIG_KPROBES is off.
config=$mods/build/.config
cp -p "$config" "$out/.config.orig"
sed -i '/^CONFIG_KPROBES=/d' "$config"
apt-get install -y ./memcg-statctl-dkms_*.deb >"$out/apt-get-install-refused.txt" 2>&1
rc=$?
cp -p "$out/.config.orig" "$config"
rm -f "$out/.config.orig"
if [ "$rc" = 0 ]; then ok "refused kernel: apt-get install of the dkms package exits 0"; else notok "refused kernel: apt-get install (exit $rc)"; fi
diag_tail "$out/apt-get-install-refused.txt" 20
check "refused kernel: memcg-statctl-dkms is ii" all_ii memcg-statctl-dkms
check "refused kernel: dpkg --audit is empty" audit_clean
check "refused kernel: one message names the BUILD_EXCLUSIVE refusal" \
	test "$(grep -c 'BUILD_EXCLUSIVE' "$out/apt-get-install-refused.txt")" = 1
check "refused kernel: nothing built or installed for $krel" \
	bash -c "! dkms status memcg-statctl | grep -q ', $krel' && [ -z \"\$(find /lib/modules -name 'memcg_statctl.ko*')\" ]"
check "refused kernel: apt-get purge memcg-statctl-dkms" apt-get purge -y -q memcg-statctl-dkms
check "refused kernel: nothing left after the purge" \
	bash -c "[ ! -e /var/lib/dkms/memcg-statctl ] && ! ls -d /usr/src/memcg-statctl-* 2>/dev/null | grep -q ."
check "dpkg --audit is empty at the end" audit_clean
finish
