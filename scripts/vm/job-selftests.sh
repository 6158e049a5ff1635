#!/bin/sh
# /job.sh of the test guest: load the module, run the selftests (TAP 13).
export MEMCG_STATCTL_KO=/lib/memcg_statctl.ko
# A module the harness built for this kernel must load: the tests would
# otherwise load it themselves or skip, as they do on a machine without it.
insmod "$MEMCG_STATCTL_KO" || { echo "Bail out! insmod $MEMCG_STATCTL_KO failed"; exit 1; }
cd /selftests && sh ./run_tests.sh
