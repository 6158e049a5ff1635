#!/bin/bash
# md-blocks.sh: read the command blocks of a Markdown document (the
# install guide, docs/install.md), so that tests run what it says, as it
# says it.
#
#   md-blocks.sh commands DOC HEADING N
#       the commands of the Nth fenced block (from 1) under the heading line
#       HEADING (e.g. "## With DKMS"), one per line: a line ending in a
#       backslash is joined with the next, as the shell would.
#   md-blocks.sh lines DOC HEADING N
#       the Nth fenced block under HEADING as it stands (a sample of output).
#   md-blocks.sh apt-packages DOC...
#       the packages of every `apt-get install` command in the DOCs, one per
#       line, as written (so `linux-headers-$(uname -r)` comes out as is);
#       local package files (./build/deb/*.deb) are not packages of the
#       archive and are left out.
# Exit: 0, or 1 when the block (or any apt-get line) is not there.
set -euo pipefail

mode=${1:?usage: md-blocks.sh commands|lines DOC HEADING N | apt-packages DOC...}
doc=${2:?document path}

# Every logical line of every fenced block of the Markdown on stdin, prefixed
# by the heading it is under and its block's number there:
# "HEADING<TAB>N<TAB>command". With RAW=1, every line as it stands instead
# (no joining, blank lines kept).
logical_lines() {
	awk -v raw="${RAW:-0}" '
	/^```/ && !fence { fence = 1; blocks[heading]++; next }
	/^```/ && fence { fence = 0; next }
	!fence && /^#+ / { heading = $0; next }
	fence && raw { printf "%s\t%d\t%s\n", heading, blocks[heading], $0; next }
	fence {
		line = $0
		if (cont != "") { sub(/^[ \t]+/, " ", line); line = cont line; cont = "" }
		if (line ~ /\\$/) { cont = substr(line, 1, length(line) - 1); next }
		if (line ~ /^[ \t]*$/) next
		printf "%s\t%d\t%s\n", heading, blocks[heading], line
	}'
}

case "$mode" in
commands | lines)
	heading=${3:?heading}
	nth=${4:?block number}
	raw=0
	[ "$mode" = lines ] && raw=1
	out=$(RAW=$raw logical_lines <"$doc" | awk -F'\t' -v h="$heading" -v n="$nth" \
		'$1 == h && $2 == n { sub(/^[^\t]*\t[^\t]*\t/, ""); print }')
	[ -n "$out" ] || { echo "md-blocks: no block $nth under '$heading' in $doc" >&2; exit 1; }
	printf '%s\n' "$out"
	;;
apt-packages)
	shift
	out=$(for d in "$@"; do logical_lines <"$d"; done | cut -f3 |
		awk '$1 == "apt-get" && $2 == "install" {
			gsub(/\$\(uname -r\)/, "$(uname\001-r)")
			for (i = 3; i <= NF; i++) if ($i !~ /^-/ && $i !~ /^[.\/]/ && $i !~ /\.deb$/) { gsub(/\001/, " ", $i); print $i }
		}')
	[ -n "$out" ] || { echo "md-blocks: no apt-get install line in $*" >&2; exit 1; }
	printf '%s\n' "$out"
	;;
*)
	echo "md-blocks: unknown mode '$mode'" >&2
	exit 2
	;;
esac
