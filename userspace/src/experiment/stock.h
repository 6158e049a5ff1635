// The stock recipes: objstock (the objcg vmstat miss rate) and readtwice (throughput by
// cgroup count).
#pragma once

#include <optional>
#include <vector>

#include "debugfs/counters.h"
#include "experiment/experiment.h"

namespace memcg_statctl {

Recipe objstock_recipe();
Recipe readtwice_recipe();

// docs/background.md#obj-stock-vmstat: rows "slab" and "mixed" with derived
// objcg_vmstat_miss_pct (from the summed counters of all runs). Reproduced when the slab
// miss rate is at or below the report's 19.6% (before the caching; 13.2% with it, which
// 5.14+ kernels carry). `slab_runs`: the slab rate of each run, for the spread.
inline constexpr double obj_stock_vmstat_miss_pct_before = 19.6;
inline constexpr double obj_stock_vmstat_miss_pct_after = 13.2;
Verdict objstock_verdict(const ComparisonReport& report, const std::vector<double>& slab_runs);
// 100 x objcg_vmstat.flushes / objcg_vmstat.updates of one run's counter deltas; nullopt
// without those counters or updates.
std::optional<double> objcg_vmstat_miss_pct_of(const Counters& deltas);

// docs/background.md#per-memcg-lru-lock: total readtwice throughput with rows "1", "4", "16"
// (cgroups). Reproduced when the total at 16 cgroups is not significantly below the total
// at 1 (per-memcg lru_lock: no cross-cgroup collapse).
Verdict readtwice_verdict(const ComparisonReport& total);

} // namespace memcg_statctl
