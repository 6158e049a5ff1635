#!/bin/sh
# /job.sh of the test guest: load the module, run the selftests (TAP 13).
# On a kernel with kmemleak (the debug kernel), then print its report between
# markers for kmemleak-check.sh on the host: the suite has loaded and
# unloaded the module many times by then (reload_test, fault_test, tool_test).
# Two scans, because an object shows only once it stayed unreferenced
# through a whole scan after it was old enough.
export MEMCG_STATCTL_KO=/lib/memcg_statctl.ko
insmod "$MEMCG_STATCTL_KO" || echo "# insmod $MEMCG_STATCTL_KO failed"
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
