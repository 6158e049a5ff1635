#!/bin/bash
# doc-paths-check.sh: every path into this repository that a document,
# comment or script names (module/..., userspace/..., scripts/...,
# selftests/..., docs/..., .ci/...) exists. Placeholders (NAME, KVER, *),
# build products (*.o) and the kernel tree's own scripts/ files are not
# paths of this repository. Part of `make check`; runs on the host in a
# second. Exit: 0, or 1 with one line per missing path.
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
[ "$missing" -eq 0 ] && log "doc-paths-check: every cited path exists"
exit "$missing"
