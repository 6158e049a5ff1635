#!/bin/bash
# make-help-check.sh: `make help` and the Makefiles agree. `make help` prints
# the `## make TARGET ...` comment lines of the Makefile and scripts/install.mk;
# every .PHONY target needs one (but `all`, the default goal, which is
# `make` alone), and every one must name a .PHONY target that has a rule.
# Part of `make check`; runs on the host in a second. Exit: 0, or 1 with one
# line per mismatch.
source "$(dirname "$0")/../lib.sh"

cd "$MCS_ROOT" || exit 1
files=(Makefile scripts/install.mk)

# .PHONY lists, backslash continuations joined.
phony=$(sed -e ':a' -e '/\\$/N; s/\\\n//; ta' "${files[@]}" |
	sed -n 's/^\.PHONY:\(.*\)/\1/p' | tr -s ' \t' '\n' | grep -v '^$' | sort -u)
# The first word after "## make", brackets of an optional target dropped.
helped=$(sed -n 's/^## make \[\{0,1\}\([a-z][a-z-]*\).*/\1/p' "${files[@]}" | sort -u)
rules=$(sed -n 's/^\([a-z][a-z-]*\):.*/\1/p' "${files[@]}" | sort -u)

bad=0
for t in $phony; do
	[ "$t" = all ] && continue
	grep -qx "$t" <<<"$helped" && continue
	echo "make-help-check: .PHONY target $t has no '## make $t' help line"
	bad=1
done
for t in $helped; do
	if ! grep -qx "$t" <<<"$phony"; then
		echo "make-help-check: help line for $t, which is not .PHONY"
		bad=1
	fi
	if ! grep -qx "$t" <<<"$rules"; then
		echo "make-help-check: help line for $t, which has no rule"
		bad=1
	fi
done
[ "$bad" -eq 0 ] && log "make-help-check: every .PHONY target has its help line"
exit "$bad"
