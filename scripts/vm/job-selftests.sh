#!/bin/sh
# /job.sh of the test guest: load the module, run the selftests (TAP 13).
export MEMCG_STATCTL_KO=/lib/memcg_statctl.ko
insmod "$MEMCG_STATCTL_KO" || echo "# insmod $MEMCG_STATCTL_KO failed"
cd /selftests && sh ./run_tests.sh
