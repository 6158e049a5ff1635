// The module's flush latency histogram (its debugfs file `flush_latency`, module/ABI.md):
// `lo hi count` lines, the count of performed flushes whose duration in ns was lo <= ns < hi,
// `inf` as the last bucket's hi. Its strict parser, the difference of two reads, the sum
// over runs and the percentile estimates that become the derived values flush.ns_pNN.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace memcg_statctl {

struct HistogramBucket {
    std::uint64_t lo = 0;
    std::optional<std::uint64_t> hi; // nullopt: infinity (the last bucket)
    std::uint64_t count = 0;
    friend bool operator==(const HistogramBucket&, const HistogramBucket&) = default;
};

// The buckets in ascending order, as many as the file has: a newer module may change their
// number, so nothing here assumes 41.
struct LatencyHistogram {
    std::vector<HistogramBucket> buckets;
    std::uint64_t total() const; // the sum of the counts
    friend bool operator==(const LatencyHistogram&, const LatencyHistogram&) = default;
};

// The file's name in the module's directory, and the name of the histogram in JSON.
inline constexpr std::string_view flush_latency_file = "flush_latency";

// Throws ToolError naming the line for anything but `lo hi count` lines (decimal u64s, hi
// `inf` on the last line only) with lo < hi, in ascending order without overlap, and for a
// file without buckets.
LatencyHistogram parse_flush_latency(std::string_view text);

// after - before bucket by bucket; a count that went backwards (a `reset` in between) gives
// 0, as Counters::delta does. nullopt when the two have other buckets (a module reloaded
// with another layout): no honest difference exists then.
std::optional<LatencyHistogram> histogram_delta(const LatencyHistogram& before,
                                                const LatencyHistogram& after);
// The same for two reads of a file that may be absent: nullopt unless both have it.
std::optional<LatencyHistogram> histogram_delta(const std::optional<LatencyHistogram>& before,
                                                const std::optional<LatencyHistogram>& after);

// The buckets' counts added up; nullopt when the histograms have other buckets or there
// are none.
std::optional<LatencyHistogram> histogram_sum(const std::vector<LatencyHistogram>& histograms);

// The q-quantile (0 < q < 1) in ns, estimated as Prometheus' histogram_quantile() does:
// the rank q * total falls in some bucket, within which the durations are taken as evenly
// spread, so the estimate is lo + (hi - lo) * (rank - count below the bucket) / its count.
// A rank in the last, unbounded bucket gives that bucket's lo. nullopt when the histogram
// is empty (no flush: no estimate).
std::optional<double> histogram_quantile(const LatencyHistogram& h, double q);

// The percentiles reported as derived values, with their names (flush.ns_p50 ...).
struct LatencyPercentile {
    std::string_view name;
    double q;
};
inline constexpr std::array<LatencyPercentile, 3> latency_percentiles = {
    {{"flush.ns_p50", 0.50}, {"flush.ns_p90", 0.90}, {"flush.ns_p99", 0.99}}};

// A bucket's name as one cell, for the long-form CSV: `flush_latency.1024-2048`,
// `flush_latency.549755813888-inf`.
std::string bucket_name(const HistogramBucket& b);

} // namespace memcg_statctl
