#!/bin/sh
# /job.sh of `make demo`: the module loaded, the tool at work.
set -e
insmod /lib/memcg_statctl.ko
echo '$ memcg-statctl status'
memcg-statctl status
for w in stat-reader page-fault; do
	echo
	echo "\$ memcg-statctl sweep --knob flush_mode --values kernel,always,never --workload $w --runs 3 --duration 2 --cgroups 2"
	memcg-statctl sweep --knob flush_mode --values kernel,always,never \
		--workload "$w" --runs 3 --duration 2 --cgroups 2
done
# A user's own benchmark: here the selftests' page-fault program, 16 MiB
# touched 20 times per copy, its "average:" line (faults/s) as the figure.
echo
echo "\$ memcg-statctl sweep --knob update_flush_every --values 0,32 --runs 3 --tasks 2 --metric 'average:\\s*([0-9.]+)' --output /tmp/demo-sweep.json -- /selftests/fault_loop 16 20"
memcg-statctl sweep --knob update_flush_every --values 0,32 --runs 3 --tasks 2 \
	--metric 'average:\s*([0-9.]+)' --output /tmp/demo-sweep.json -- /selftests/fault_loop 16 20
echo
echo '$ memcg-statctl stats'
memcg-statctl stats
# The results file to the host (build/demo-KVER/results/).
mcs-send-files demo /tmp/demo-sweep.json
