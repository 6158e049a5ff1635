// Builds the compare-kernels style report of a sweep from the per-run results: summary
// statistics per knob value, %change and Welch's test against the first (baseline) value.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cgroup/memory_stat.h"
#include "debugfs/counters.h"
#include "output/reports.h"

namespace memcg_statctl {

struct ValueRuns {
    std::string value;
    std::vector<double> samples;          // the compared figure, one per run
    std::vector<Counters> counter_deltas; // one per run; empty without the module
    std::vector<double> seconds;          // run lengths, for rates
    std::vector<MemoryStat> memory_stats; // one per run (summed over measured cgroups)
};

// A value without runs (a sweep interrupted before its first run of that value) gets a row
// with n = 0 and no statistics.
ComparisonReport compare(const std::string& knob, const std::string& workload,
                         const std::vector<ValueRuns>& values);

} // namespace memcg_statctl
