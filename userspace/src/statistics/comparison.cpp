#include "statistics/comparison.h"

#include <cmath>
#include <numeric>

#include "debugfs/derived.h"
#include "statistics/summary.h"

namespace memcg_statctl {
namespace {

// Sum of the runs' deltas for counters present in every run (a counter missing in one run
// cannot be averaged honestly).
Counters sum_counters(const std::vector<Counters>& runs) {
    Counters total;
    if (runs.empty()) {
        return total;
    }
    for (const auto& [name, value] : runs.front().entries()) {
        std::uint64_t sum = 0;
        bool everywhere = true;
        for (const auto& run : runs) {
            const auto v = run.get(name);
            everywhere = everywhere && v.has_value();
            sum += v.value_or(0);
        }
        if (everywhere) {
            total.add(name, sum);
        }
    }
    return total;
}

Counters divide_rounded(const Counters& c, std::size_t n) {
    Counters out;
    for (const auto& [name, value] : c.entries()) {
        out.add(name, static_cast<std::uint64_t>(
                          std::llround(static_cast<double>(value) / static_cast<double>(n))));
    }
    return out;
}

} // namespace

ComparisonReport compare(const std::string& knob, const std::string& workload,
                         const std::vector<ValueRuns>& values) {
    ComparisonReport report;
    report.knob = knob;
    report.workload = workload;
    for (const auto& v : values) {
        ComparisonRow row;
        row.value = v.value;
        row.samples = v.samples;
        row.summary = summarize(v.samples);
        if (!report.rows.empty() && !v.samples.empty() && !report.rows.front().samples.empty()) {
            const auto& base = report.rows.front();
            row.percent_change = percent_change(base.summary.mean, row.summary.mean);
            if (const auto w = welch_t_test(base.samples, row.samples)) {
                row.p_value = w->p_value;
                row.significant = w->significant;
            }
        }
        if (!v.counter_deltas.empty()) {
            const auto total = sum_counters(v.counter_deltas);
            row.mean_counter_deltas = divide_rounded(total, v.counter_deltas.size());
            // Ratios from the summed deltas (not a mean of per-run ratios), rates over
            // the summed run time: every derived value still comes from derive().
            const double seconds = std::accumulate(v.seconds.begin(), v.seconds.end(), 0.0);
            row.derived =
                derive(total, seconds > 0 ? std::optional<double>(seconds) : std::nullopt);
        }
        if (!v.memory_stats.empty()) {
            MemoryStat total;
            for (const auto& m : v.memory_stats) {
                total = memory_stat_sum(total, m);
            }
            for (auto& [name, value] : total) {
                value = static_cast<std::int64_t>(std::llround(
                    static_cast<double>(value) / static_cast<double>(v.memory_stats.size())));
            }
            row.mean_memory_stat = std::move(total);
        }
        report.rows.push_back(std::move(row));
    }
    return report;
}

} // namespace memcg_statctl
