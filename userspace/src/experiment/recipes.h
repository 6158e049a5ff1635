// The recipe families' entry points: each family's recipes (the rows of recipes(),
// experiment.cpp) and what the unit tests call of it. One section per family, each
// implemented in its own file, named in the section's first line.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "debugfs/counters.h"
#include "experiment/experiment.h"

namespace memcg_statctl {

// flush.cpp: the flush-policy recipes: update-flush and reader-flush.

Recipe update_flush_recipe();
Recipe reader_flush_recipe();

// docs/background.md#update-path-flush: one report per page-fault mode with rows "0"
// (baseline), "128", "32". Reproduced when every mode is significantly slower at 32 than at 0.
Verdict update_flush_verdict(const std::vector<ComparisonReport>& modes);

// docs/background.md#flush-only-if-updated: rows "always" (baseline) and "kernel". Reproduced
// when refault is significantly faster with `kernel`. `reader` (stat-reader) is reported only.
Verdict reader_flush_verdict(const ComparisonReport& refault, const ComparisonReport* reader);

// threshold.cpp: the flush-threshold recipe: what a higher flush_threshold costs and the staleness
// it buys.

Recipe flush_threshold_recipe();

// flush_threshold = 0, 1x, 4x and 16x the kernel default.
std::vector<std::uint64_t> threshold_points(std::uint64_t kernel_default);

// MEMCG_CHARGE_BATCH x nr_cpus, x nr_memcgs on kernels whose flush_model is `per-memcg`.
inline constexpr std::uint64_t memcg_charge_batch = 64;
std::uint64_t staleness_bound(std::uint64_t nr_cpus, std::string_view flush_model,
                              std::uint64_t nr_memcgs);

// One flush_threshold value: what it cost and the staleness it bought (measured).
struct ThresholdPoint {
    std::string value; // as written to the knob (the comparison rows' value)
    std::uint64_t threshold = 0;
    double flushes_per_run = 0;
    std::optional<double> ns_per_flush;
    std::optional<std::int64_t> staleness_pages; // largest spread over the runs
    std::uint64_t samples = 0;                   // valid reader samples, all runs
    std::uint64_t max_bracket_pages = 0;         // largest fault count during one read
};

// Reproduced when, at 16x against 0: fewer flushes and significantly more stat reads per
// second; and at 1x (the kernel default) the staleness stays within `bound`.
Verdict flush_threshold_verdict(const ComparisonReport& reader,
                                const std::vector<ThresholdPoint>& points,
                                std::uint64_t kernel_default, std::uint64_t bound);

// staleness.cpp: the staleness recipe: the staleness of memory.stat against the cost of flushing.

Recipe staleness_recipe();

// The points of the curve: flush_threshold = 0, 1x, 4x, 16x and 64x the kernel default.
inline constexpr std::uint64_t staleness_max_multiple = 64;
std::vector<std::uint64_t> staleness_threshold_points(std::uint64_t kernel_default);

// Largest and mean staleness over the runs of one variant, and their sample standard
// deviation (2+ runs). A run without a kept read counts in none.
struct StalenessSummary {
    std::optional<std::int64_t> max_pages{};
    std::optional<double> mean_pages{};
    std::optional<double> stddev_pages{};
};
StalenessSummary summarize_staleness(const std::vector<std::optional<std::int64_t>>& per_run);

// One variant as measured: a flush_threshold in `threshold` mode, or another flush_mode
// (times_default unset).
struct StalenessPoint {
    std::string label;                            // "0", "4x", "kernel"
    std::string mode;                             // flush_mode
    std::optional<std::uint64_t> times_default{}; // flush_threshold / the kernel default
    StalenessSummary staleness{};
    // The most unflushed updates the kernel counted for the faulting cgroup in any run (the
    // module's `pending`); nullopt without per-memcg counts.
    std::optional<std::uint64_t> pending_max{};
    std::uint64_t samples = 0; // kept reads over all runs
    double reads_per_sec = 0;
    double faults_per_sec = 0;
    double flushes_per_run = 0;
    std::optional<double> flushes_stddev{};     // of the per-run flush counts (2+ runs)
    std::optional<double> flush_ns_per_read{};  // flush.ns_total / stat reads
    std::optional<double> flush_ns_per_fault{}; // flush.ns_total / page faults
    // Guest instructions (all vCPUs) per stat read and per page fault, of counted runs
    std::optional<double> insns_per_read{};
    std::optional<double> insns_per_fault{};
};

// One row per point. A new per-point figure is one field above and one column in
// staleness.cpp.
ExtraTable staleness_table(const std::vector<StalenessPoint>& points);

// Reproduced when, from 0 to 64x, the mean staleness rises and the flushes per run fall.
// The line ends with both figures at 0 and 64x and their standard deviations.
Verdict staleness_verdict(const std::vector<StalenessPoint>& points);

// gnuplot script of the curve, in three panels over one x axis:
//  - staleness in pages, flushes per run on the right axis;
//  - flush cost per stat read;
//  - flush cost per page fault.
// Cost is flush ns on the left axis and, for counted runs, guest instructions on the right.
// The x axis is an index (0, 1x, 4x, ...), the other flush_mode values after a gap.
std::string staleness_plot_script(const std::vector<StalenessPoint>& points,
                                  const std::filesystem::path& file);

// stock.cpp: the stock recipes: objstock (the objcg vmstat miss rate) and readtwice (throughput by
// cgroup count).

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
