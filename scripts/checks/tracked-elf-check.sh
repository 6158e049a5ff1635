#!/bin/bash
# tracked-elf-check.sh: git tracks no ELF file (a built program, object or
# module committed by mistake); .gitignore keeps the build products out.
# Part of `make check`; runs on the host in a second. Exit: 0, or 1 naming
# every tracked ELF file.
source "$(dirname "$0")/../lib.sh"

cd "$MCS_ROOT" || exit 1
elf=$'\x7fELF'
bad=0
while IFS= read -r -d '' f; do
	[ -f "$f" ] && [ ! -L "$f" ] || continue
	magic=$(head -c 4 -- "$f" | tr -d '\0')
	[ "$magic" = "$elf" ] || continue
	echo "tracked-elf-check: $f is an ELF file: git rm --cached it (.gitignore should list it)"
	bad=1
done < <(git ls-files -z)
[ "$bad" -eq 0 ] && log "tracked-elf-check: git tracks no ELF file"
exit "$bad"
