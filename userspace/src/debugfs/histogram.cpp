#include "debugfs/histogram.h"

#include <fmt/core.h>

#include "debugfs/lines.h"
#include "exit_code.h"
#include "text_util.h"

namespace memcg_statctl {

std::uint64_t LatencyHistogram::total() const {
    std::uint64_t sum = 0;
    for (const auto& b : buckets) {
        sum += b.count;
    }
    return sum;
}

namespace {

[[noreturn]] void malformed(std::size_t line_no, std::string_view line, std::string_view expected) {
    throw_malformed(flush_latency_file, line_no, line, expected);
}

bool same_buckets(const LatencyHistogram& a, const LatencyHistogram& b) {
    if (a.buckets.size() != b.buckets.size()) {
        return false;
    }
    for (std::size_t i = 0; i < a.buckets.size(); ++i) {
        if (a.buckets[i].lo != b.buckets[i].lo || a.buckets[i].hi != b.buckets[i].hi) {
            return false;
        }
    }
    return true;
}

} // namespace

LatencyHistogram parse_flush_latency(std::string_view text) {
    constexpr auto expected = "`lo hi count`: decimal u64s, hi > lo or `inf`";
    LatencyHistogram h;
    each_line(text, [&](std::size_t line_no, std::string_view raw) {
        const auto fields = split_whitespace(raw);
        if (fields.size() != 3) {
            malformed(line_no, raw, expected);
        }
        const auto lo = parse_u64(fields[0]);
        const auto hi = fields[1] == "inf" ? std::nullopt : parse_u64(fields[1]);
        const auto count = parse_u64(fields[2]);
        if (!lo || !count || (fields[1] != "inf" && (!hi || *hi <= *lo))) {
            malformed(line_no, raw, expected);
        }
        if (!h.buckets.empty()) {
            // Ascending and disjoint: the estimates walk the buckets in order.
            const auto& prev = h.buckets.back();
            if (!prev.hi) {
                malformed(line_no, raw, "no bucket after the one ending in `inf`");
            }
            if (*lo < *prev.hi) {
                malformed(line_no, raw,
                          fmt::format("lo >= {}, the previous bucket's hi", *prev.hi));
            }
        }
        h.buckets.push_back({*lo, hi, *count});
    });
    if (h.buckets.empty()) {
        throw ToolError(fmt::format("malformed {}: no buckets", flush_latency_file));
    }
    return h;
}

std::optional<LatencyHistogram> histogram_delta(const LatencyHistogram& before,
                                                const LatencyHistogram& after) {
    if (!same_buckets(before, after)) {
        return std::nullopt;
    }
    LatencyHistogram d = after;
    for (std::size_t i = 0; i < d.buckets.size(); ++i) {
        d.buckets[i].count = counter_delta(d.buckets[i].count, before.buckets[i].count);
    }
    return d;
}

std::optional<LatencyHistogram> histogram_delta(const std::optional<LatencyHistogram>& before,
                                                const std::optional<LatencyHistogram>& after) {
    return before && after ? histogram_delta(*before, *after) : std::nullopt;
}

std::optional<LatencyHistogram> histogram_sum(const std::vector<LatencyHistogram>& histograms) {
    if (histograms.empty()) {
        return std::nullopt;
    }
    LatencyHistogram sum = histograms.front();
    for (std::size_t k = 1; k < histograms.size(); ++k) {
        if (!same_buckets(sum, histograms[k])) {
            return std::nullopt;
        }
        for (std::size_t i = 0; i < sum.buckets.size(); ++i) {
            sum.buckets[i].count += histograms[k].buckets[i].count;
        }
    }
    return sum;
}

std::optional<double> histogram_quantile(const LatencyHistogram& h, double q) {
    const auto total = h.total();
    if (total == 0) {
        return std::nullopt;
    }
    const double rank = q * static_cast<double>(total);
    std::uint64_t below = 0;
    for (const auto& b : h.buckets) {
        if (b.count > 0 && static_cast<double>(below + b.count) >= rank) {
            if (!b.hi) {
                return static_cast<double>(b.lo); // unbounded: no width to spread over
            }
            const auto lo = static_cast<double>(b.lo);
            const auto width = static_cast<double>(*b.hi - b.lo);
            return lo +
                   (width * (rank - static_cast<double>(below)) / static_cast<double>(b.count));
        }
        below += b.count;
    }
    return static_cast<double>(h.buckets.back().lo); // not reached: rank <= total
}

std::string bucket_name(const HistogramBucket& b) {
    return fmt::format("{}.{}-{}", flush_latency_file, b.lo,
                       b.hi ? std::to_string(*b.hi) : std::string("inf"));
}

} // namespace memcg_statctl
