#!/bin/bash
# completion-check.sh [COMPLETION]: test the bash completion of
# memcg-statctl on the host, in plain bash: source COMPLETION (default: made
# afresh by `make completion` from build/userspace/memcg-statctl), set
# COMP_WORDS and COMP_CWORD as bash does for a <TAB>, call the completion
# function and compare COMPREPLY with what the tool's --help promises.
# Output: TAP 13; the exit status is non-zero when any check fails.
source "$(dirname "$0")/../lib.sh"
TAP_NAME=completion-check
# shellcheck source=scripts/checks/tap.sh
source "$MCS_ROOT/scripts/checks/tap.sh"

comp=${1:-}
if [ -z "$comp" ]; then
	make --no-print-directory -C "$MCS_ROOT" completion >&2 || die "make completion failed"
	comp=$MCS_BUILD/completion/memcg-statctl
fi
[ -r "$comp" ] || die "no completion file $comp"

echo "TAP version 13"
echo "# completion-check $comp"
# shellcheck source=/dev/null
source "$comp"

# expect 'WORDS' 'REPLY...': complete the last word of WORDS (a trailing
# space: an empty word), and compare the sorted COMPREPLY.
expect() {
	local line=$1 want=$2 got
	read -ra COMP_WORDS <<<"$line"
	[ "${line: -1}" = " " ] && COMP_WORDS+=("")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMPREPLY=()
	_memcg_statctl memcg-statctl "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
	got=$(printf '%s\n' "${COMPREPLY[@]}" | sort | paste -sd' ' -)
	if [ "$got" = "$want" ]; then
		ok "'$line<TAB>' -> '$want'"
	else
		notok "'$line<TAB>' -> '$want' (got '$got')"
	fi
}

check "complete -p memcg-statctl names _memcg_statctl" \
	bash -c "source '$comp' && complete -p memcg-statctl | grep -q -- '-F _memcg_statctl memcg-statctl\$'"
expect 'memcg-statctl sw' 'sweep'
expect 'memcg-statctl sweep --ru' '--runs'
expect 'memcg-statctl st' 'stats status'
expect 'memcg-statctl --debugfs /x sta' 'stats status'
expect 'memcg-statctl sweep --workload st' 'stat-reader'
expect 'memcg-statctl status --' '--csv --help --json'
expect 'memcg-statctl experiment st' 'staleness'
expect 'memcg-statctl sweep --runs ' ''
expect 'memcg-statctl sweep -- ec' ''
# Every subcommand of --help is offered, and only those.
tool=$MCS_BUILD/userspace/memcg-statctl
if [ -x "$tool" ]; then
	subs=$("$tool" --help | awk '/^Subcommands:/ { s = 1; next } s && /^  [a-z]/ { print $1 }' | sort | paste -sd' ' -)
	expect 'memcg-statctl ' "$subs"
fi
finish
