#!/bin/bash
# mmtests monitor: the memcg_statctl module's counters, one JSON line per
# MONITOR_UPDATE_FREQUENCY seconds (`memcg-statctl stats --watch --json`).
# Copy it into mmtests' monitors/ and name memcg-statctl in MONITORS_GZIP.
# exec: mmtests stops a monitor by signalling the pid it started.
# MEMCG_STATCTL: the tool (default: memcg-statctl on PATH);
# MEMCG_STATCTL_DEBUGFS: the module's debugfs directory, if not the default.
exec "${MEMCG_STATCTL:-memcg-statctl}" ${MEMCG_STATCTL_DEBUGFS:+--debugfs "$MEMCG_STATCTL_DEBUGFS"} \
	stats --watch "${MONITOR_UPDATE_FREQUENCY:-10}" --json
