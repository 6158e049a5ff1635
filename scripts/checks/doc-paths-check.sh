#!/bin/bash
# doc-paths-check.sh: every path into this repository that a document,
# comment or script names (module/..., userspace/..., scripts/...,
# selftests/..., docs/..., .ci/...) exists. Placeholders (NAME, KVER, *),
# build products (*.o) and the kernel tree's own scripts/ files are not
# paths of this repository. An anchor into one of its documents
# (docs/background.md#NAME) must name a heading there. Part of `make check`;
# runs on the host in a second. Exit: 0, or 1 with one line per missing
# path or heading.
source "$(dirname "$0")/../lib.sh"

cd "$MCS_ROOT" || exit 1
# Files of the kernel tree that the docs name by the kernel's own path.
kernel_paths=" scripts/checkpatch.pl scripts/sign-file "
missing=0
while IFS= read -r f; do
	while IFS=: read -r line p; do
		case "$p" in *NAME* | *KVER* | *'*'* | *.o) continue ;; esac
		[[ "$kernel_paths" == *" $p "* ]] && continue
		[ -e "$p" ] && continue
		echo "$f:$line: $p does not exist"
		missing=1
	done < <(grep -noE '(^|[^A-Za-z0-9_./-])(module|userspace|scripts|selftests|docs|\.ci)/[A-Za-z0-9_./-]*[A-Za-z0-9_]' "$f" |
		sed -E 's/^([0-9]+):[^a-z.]*/\1:/')
done < <(git ls-files -- '*.md' '*.sh' '*.c' '*.h' '*.cpp' '*.S' '*.mk' '*.conf' '*.h2m' \
	Makefile Kbuild .ci/run)

# An anchor into a document of the repository (docs/background.md#NAME) must
# name one of its headings, as GitHub makes them: lower case, punctuation
# dropped, spaces to hyphens.
slugs() {
	sed -n 's/^#\{1,6\} //p' "$1" | tr '[:upper:]' '[:lower:]' |
		sed 's/[^a-z0-9 _-]//g; s/ /-/g'
}
while IFS=: read -r f line ref; do
	doc=${ref%%#*}
	anchor=${ref#*#}
	case "$anchor" in *NAME*) continue ;; esac
	[ -f "$doc" ] || continue # reported above
	slugs "$doc" | grep -qxF -- "$anchor" && continue
	echo "$f:$line: $ref: $doc has no such heading"
	missing=1
done < <(git ls-files -z -- '*.md' '*.sh' '*.c' '*.h' '*.cpp' '*.S' '*.mk' '*.conf' \
	'*.h2m' Makefile Kbuild .ci/run |
	xargs -0 grep -noE '(module|userspace|scripts|selftests|docs|\.ci)/[A-Za-z0-9_./-]*\.md#[A-Za-z0-9_-]+')
[ "$missing" -eq 0 ] && log "doc-paths-check: every cited path exists"
exit "$missing"
