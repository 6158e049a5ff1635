#!/bin/bash
# in-background.sh start NAME COMMAND... | wait NAME: start COMMAND in the
# background, its output to build/check/NAME.log, and later wait for it,
# print that output and exit with its status. For `make check`, whose
# recipe lines each run in a shell of their own: the guests' preparation
# (kernel downloads, a Debian root, the selftests), mostly waiting on the
# network and the disk, runs while the tool and its tests compile.
source "$(dirname "$0")/../lib.sh"

cmd=${1:-}
name=${2:-}
[[ "$name" =~ ^[a-z0-9-]+$ ]] || die "usage: in-background.sh start NAME COMMAND... | wait NAME"
dir=$MCS_BUILD/check
mkdir -p "$dir"
case "$cmd" in
start)
	shift 2
	[ $# -gt 0 ] || die "in-background.sh start $name: no command"
	rm -f "$dir/$name.rc"
	(
		rc=0
		"$@" >"$dir/$name.log" 2>&1 || rc=$?
		echo "$rc" >"$dir/$name.rc"
	) </dev/null &
	echo $! >"$dir/$name.pid"
	log "$name: started in the background (output in $dir/$name.log)"
	;;
wait)
	[ -e "$dir/$name.log" ] || die "$name was not started (no $dir/$name.log)"
	pid=$(cat "$dir/$name.pid")
	while [ ! -e "$dir/$name.rc" ]; do
		# killed before it could write its status: do not wait for ever
		if ! kill -0 "$pid" 2>/dev/null; then
			sleep 1
			[ -e "$dir/$name.rc" ] || { cat "$dir/$name.log"; die "$name ended without a status (killed?)"; }
		fi
		sleep 1
	done
	cat "$dir/$name.log"
	rc=$(cat "$dir/$name.rc")
	[ "$rc" = 0 ] || die "$name failed, exit $rc"
	log "$name: done"
	;;
*) die "usage: in-background.sh start NAME COMMAND... | wait NAME" ;;
esac
