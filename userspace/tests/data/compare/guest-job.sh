#!/bin/sh
# The guest job that made the run and sweep files of this directory (see
# README.md; the experiment files come from scripts/experiment.sh): the same
# commands on every kernel, so that a file of one kernel can be compared with
# the same file of another.
set -e
insmod /lib/memcg_statctl.ko
memcg-statctl sweep --knob flush_mode --values kernel,always,never \
	--workload stat-reader --runs 3 --duration 2 --cgroups 2 \
	--output /tmp/sweep-stat-reader.json
# Differs from the sweep above in duration, values and cgroups.
memcg-statctl sweep --knob flush_mode --values kernel,never \
	--workload stat-reader --runs 3 --duration 1 --cgroups 1 \
	--output /tmp/sweep-stat-reader-short.json
memcg-statctl run stat-reader --duration 2 --cgroups 2 \
	--output /tmp/run-stat-reader.json
mcs-send-files compare /tmp/sweep-stat-reader.json \
	/tmp/sweep-stat-reader-short.json /tmp/run-stat-reader.json
