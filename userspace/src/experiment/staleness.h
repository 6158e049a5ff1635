// The staleness recipe: the staleness of memory.stat against the cost of flushing.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "experiment/experiment.h"

namespace memcg_statctl {

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

} // namespace memcg_statctl
