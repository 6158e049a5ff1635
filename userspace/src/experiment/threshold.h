// The flush-threshold recipe: what a higher flush_threshold costs and the staleness it buys.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "experiment/experiment.h"

namespace memcg_statctl {

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

} // namespace memcg_statctl
