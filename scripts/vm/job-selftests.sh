#!/bin/sh
# /job.sh of the test guest: load the module, run the selftests (TAP 13).
# On a kernel with kmemleak (the debug kernel), then print its report between
# markers for kmemleak-check.sh on the host: the suite has loaded and
# unloaded the module many times by then (reload_test, fault_test, tool_test).
# Two scans, because an object shows only once it stayed unreferenced
# through a whole scan after it was old enough.
export MEMCG_STATCTL_KO=/lib/memcg_statctl.ko
# A module the harness built for this kernel must load: the tests would
# otherwise load it themselves or skip, as they do on a machine without it.
insmod "$MEMCG_STATCTL_KO" || { echo "Bail out! insmod $MEMCG_STATCTL_KO failed"; exit 1; }
cd /selftests && sh ./run_tests.sh
rc=$?
if [ -e /sys/kernel/debug/kmemleak ]; then
	echo "=== MCS-KMEMLEAK-BEGIN ==="
	if echo scan >/sys/kernel/debug/kmemleak && echo scan >/sys/kernel/debug/kmemleak; then
		cat /sys/kernel/debug/kmemleak
	else
		echo "kmemleak scan failed (kmemleak disabled? see the kernel log)"
	fi
	echo "=== MCS-KMEMLEAK-END ==="
fi
exit "$rc"
