#!/bin/bash
# tracked-elf-check.sh: git tracks no ELF file (a built program, object or
# module committed by mistake); .gitignore keeps the build products out.
# Part of `make check`; runs on the host in a second. Exit: 0, or 1 naming
# every tracked ELF file.
source "$(dirname "$0")/../lib.sh"

cd "$MCS_ROOT" || exit 1
export LC_ALL=C # bytes, not characters
elf=$'\x7fELF'
bad=0
while IFS= read -r -d '' f; do
	[ -f "$f" ] && [ ! -L "$f" ] || continue
	magic=
	IFS= read -r -n 4 -d '' magic <"$f" || true
	[ "$magic" = "$elf" ] || continue
	echo "tracked-elf-check: $f is an ELF file: git rm --cached it (.gitignore should list it)"
	bad=1
done < <(git ls-files -z)
[ "$bad" -eq 0 ] && log "tracked-elf-check: git tracks no ELF file"
exit "$bad"
