#!/bin/sh
# /job.sh of the test guest: load the module, run the selftests (TAP 13).
# On a kernel with kmemleak (the debug kernel), the leaks suspected before
# the first load are set aside (scan, then clear); after the suite, which
# loads and unloads the module many times (reload_test, fault_test,
# tool_test), the module is unloaded once more, so that what its last load
# kept shows too, and kmemleak's report goes between markers to
# kmemleak-check.sh on the host. Two scans, more than 5 s after the unload,
# because an object shows only once it is 5 s old and stayed unreferenced
# through a whole scan. On a kernel with lockdep, its state at the end goes
# to tap-check.sh: lockdep turns itself off at its first report, or when
# it runs out of room, and checks nothing after that.
export MEMCG_STATCTL_KO=/lib/memcg_statctl.ko
kmemleak=/sys/kernel/debug/kmemleak
if [ -e $kmemleak ]; then
	echo scan >$kmemleak && echo clear >$kmemleak
fi
# A module the harness built for this kernel must load: the tests would
# otherwise load it themselves or skip, as they do on a machine without it.
insmod "$MEMCG_STATCTL_KO" || { echo "Bail out! insmod $MEMCG_STATCTL_KO failed"; exit 1; }
# /selftests-env: the host's MEMCG_STATCTL_* settings (vmtest.sh).
# shellcheck disable=SC1091  # made by vmtest.sh
[ -f /selftests-env ] && . /selftests-env
# /selftests-args, when present, names the programs to run (vmtest TESTS=...);
# without it run_tests.sh runs those of its tests.list.
args=$(cat /selftests-args 2>/dev/null)
# shellcheck disable=SC2086  # the arguments are words
cd /selftests && sh ./run_tests.sh $args
rc=$?
if [ -e /proc/lockdep_stats ]; then
	echo "=== MCS-LOCKDEP $(grep -m1 'debug_locks:' /proc/lockdep_stats | tr -s ' ') ==="
fi
if [ -e $kmemleak ]; then
	unloaded=yes
	if grep -q '^memcg_statctl ' /proc/modules; then
		rmmod memcg_statctl || unloaded=no
	fi
	sleep 6
	echo "=== MCS-KMEMLEAK-BEGIN ==="
	if [ "$unloaded" = no ]; then
		echo "kmemleak scan failed: rmmod memcg_statctl failed after the suite"
	elif echo scan >$kmemleak && echo scan >$kmemleak; then
		cat $kmemleak
	else
		echo "kmemleak scan failed (kmemleak disabled? see the kernel log)"
	fi
	echo "=== MCS-KMEMLEAK-END ==="
fi
exit "$rc"
