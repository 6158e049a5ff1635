#!/bin/bash
# build-time.sh: what building the tool costs (make bench-build). Exports
# the tree (git's tracked and untracked files, as make deb copies them) to
# an empty folder under build/, then runs there, from nothing, `make
# userspace` (the tool and its man page) and `make unit` (the unit tests,
# built and run), each under /usr/bin/time, and prints their wall time and
# CPU time (user + system, of every compiler and linker run).
#
# The budgets: `make userspace` at most 240 CPU-seconds, the two together at
# most 400 (docs/hacking.md, "Build time"). Exit 1 when one is exceeded.
# CPU time depends little on what else runs; wall time does, so the load
# average at the start is printed too.
source "$(dirname "$0")/../lib.sh"

tool_budget=240
both_budget=400
work=$MCS_BUILD/bench-build
hold_lock "$work.lock" "bench-build in $work"
rm -rf --one-file-system "$work"
src=$work/src
copy_tree "$src"

# timed NAME TARGET: run make TARGET in the export; its "wall user sys" go to
# $work/NAME.time, its output to $work/NAME.log.
timed() {
	log "make $2 in $src (output in $work/$1.log)"
	if ! env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL MCS_BUILD="$src/build" \
		/usr/bin/time -f '%e %U %S' -o "$work/$1.time" \
		make --no-print-directory -C "$src" "$2" >"$work/$1.log" 2>&1; then
		tail -n 30 "$work/$1.log" >&2
		die "make $2 failed (the end of $work/$1.log is above)"
	fi
}
load=$(cut -d' ' -f1-3 /proc/loadavg)
timed userspace userspace
timed unit unit

read -r tw tu ts <"$work/userspace.time"
read -r uw uu us <"$work/unit.time"
cpu() { echo "$1 + $2" | bc; }
tool_cpu=$(cpu "$tu" "$ts")
unit_cpu=$(cpu "$uu" "$us")
both_cpu=$(cpu "$tool_cpu" "$unit_cpu")
both_wall=$(cpu "$tw" "$uw")
over=0
verdict() { # CPU BUDGET
	if [ "$(echo "$1 <= $2" | bc)" = 1 ]; then echo "within $2"; else echo "OVER $2"; over=1; fi
}
tv=$(verdict "$tool_cpu" "$tool_budget")
bv=$(verdict "$both_cpu" "$both_budget")
tests=$(sed -n 's/.* tests passed, 0 tests failed out of \([0-9]*\)$/\1/p' "$work/unit.log")
echo "bench-build: $(date -u +%F), $(nproc) cpus, load average $load at the start, $(c++ --version | head -n 1)"
printf 'bench-build: %-15s %7.1f s wall %7.1f CPU-s (%s user + %s sys)  %s\n' \
	"make userspace" "$tw" "$tool_cpu" "$tu" "$ts" "$tv"
printf 'bench-build: %-15s %7.1f s wall %7.1f CPU-s (%s user + %s sys)  %s\n' \
	"make unit" "$uw" "$unit_cpu" "$uu" "$us" "${tests:-?} tests passed"
printf 'bench-build: %-15s %7.1f s wall %7.1f CPU-s  %s\n' "both" "$both_wall" "$both_cpu" "$bv"
exit "$over"
