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
echo
echo '$ memcg-statctl stats'
memcg-statctl stats
