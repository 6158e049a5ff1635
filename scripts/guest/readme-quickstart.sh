#!/bin/bash
# readme-quickstart.sh: the README's "Quick start on a test machine", typed
# into an interactive bash in tmux as a reader would type it, in the
# install-doc guest's Debian root. Sourced by readme-steps.sh after lib.sh
# and scripts/checks/tap.sh; readme_quickstart SRC adds its TAP lines.
#
# Each command of the section's command blocks is a test: it must exit 0.
# The block of sample output that follows them is the README's promise of
# what the sweep prints: every line of it, reduced to its shape (numbers and
# the sig column's `*` left out), must appear in the sweep's output, in
# order; a line `...` in the sample skips any number of lines.

qs_heading="## Quick start on a test machine"
qs_session=mcs-quickstart

# qs_shape: stdin reduced to what does not change between runs: numbers
# (with their sign: a %change can be either) as N, a lone `*` dropped,
# blanks squeezed, empty lines left out.
qs_shape() {
	sed -E 's/[-+]?[0-9]+(\.[0-9]+)?(e[-+]?[0-9]+)?/N/g
		s/(^|[[:space:]])\*([[:space:]]|$)/\1\2/g
		s/[[:space:]]+/ /g; s/^ //; s/ $//' | grep -v '^$'
}

# qs_match SAMPLE OUTPUT: every run of SAMPLE's lines between `...` lines
# appears in OUTPUT as consecutive lines, the runs in order. Prints the
# first run it cannot find.
qs_match() {
	awk 'NR == FNR { s[++ns] = $0; next }
	{ o[++no] = $0 }
	END {
		pos = 1
		for (i = 1; i <= ns; i = j) {
			if (s[i] == "...") { j = i + 1; continue }
			for (j = i; j <= ns && s[j] != "..."; j++) ;
			len = j - i
			for (p = pos; p + len - 1 <= no; p++) {
				for (k = 0; k < len && o[p + k] == s[i + k]; k++) ;
				if (k == len) break
			}
			if (p + len - 1 > no) {
				print "not in the output, in this order:"
				for (k = i; k < j; k++) print "  " s[k]
				print "the output, in the same shape:"
				for (k = 1; k <= no && k <= 60; k++) print "  " o[k]
				exit 1
			}
			pos = p + len
		}
	}' <(qs_shape <"$1") <(qs_shape <"$2")
}

# qs_type CMD LOG: type CMD and Enter into the tmux shell, wait for its next
# prompt (at most 900 s), and leave in LOG what the command printed.
qs_type() {
	local cmd=$1 logf=$2 from
	from=$(stat -c %s "$qs_raw")
	tmux send-keys -t "$qs_session" -l "$cmd"
	tmux send-keys -t "$qs_session" Enter
	timeout 900 tmux wait-for mcs-prompt || return 124
	# The terminal's bytes: escapes out, each line as the terminal leaves
	# it after carriage returns, the echoed command line and the prompt out.
	tail -c +"$((from + 1))" "$qs_raw" | sed -E 's/\x1b\[[0-9;?]*[A-Za-z]//g; s/\r$//' |
		awk -F'\r' 'NR > 1 { print $NF }' | sed '$ { /^\$ *$/d }' >"$logf"
	return "$(cat "$qs_rcfile")"
}

readme_quickstart() {
	local src=$1 readme=$1/README.md blk cmd cmds qs_out qs_diff sample rc
	echo "# README.md: $qs_heading, typed into bash in tmux"
	qs_raw=$(mktemp)
	qs_rcfile=$(mktemp)
	qs_out=$(mktemp)
	qs_diff=$(mktemp)
	sample=$(mktemp)
	if ! "$src/scripts/md-blocks.sh" lines "$readme" "$qs_heading" 3 >"$sample"; then
		notok "README.md has a sample of output under '$qs_heading'"
		return
	fi
	# The shell's prompt hook saves the status and wakes qs_type; the
	# first prompt's wake-up is taken here.
	tmux -f /dev/null new-session -d -s "$qs_session" -x 200 -y 50 -c "$src" \
		env PS1='$ ' \
		PROMPT_COMMAND="echo \$? >$qs_rcfile; tmux wait-for -S mcs-prompt" \
		bash --norc --noprofile -i
	tmux pipe-pane -t "$qs_session" -o "cat >>$qs_raw"
	timeout 60 tmux wait-for mcs-prompt
	for blk in 1 2; do
		cmds=$("$src/scripts/md-blocks.sh" commands "$readme" "$qs_heading" "$blk") || {
			notok "README.md has command block $blk under '$qs_heading'"
			continue
		}
		while IFS= read -r cmd; do
			rc=0
			qs_type "$cmd" "$qs_out" || rc=$?
			if [ "$rc" -eq 0 ]; then
				ok "README: $cmd"
				diag_tail "$qs_out" 8
			else
				notok "README: $cmd (exit $rc)"
				diag_tail "$qs_out" 40
			fi
			case "$cmd" in
			"memcg-statctl sweep "*)
				if qs_match "$sample" "$qs_out" >"$qs_diff"; then
					ok "README: the sweep printed what the README shows"
				else
					notok "README: the sweep printed what the README shows"
					diag_tail "$qs_diff" 100
				fi
				;;
			esac
		done <<<"$cmds"
	done
	tmux kill-session -t "$qs_session"
	rm -f "$qs_raw" "$qs_rcfile" "$qs_out" "$qs_diff" "$sample"
}
