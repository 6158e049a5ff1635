#include "output/histogram_text.h"

#include <algorithm>
#include <array>
#include <vector>

#include <fmt/format.h>

namespace memcg_statctl {

std::string bound_label(std::uint64_t v) {
    constexpr std::array<char, 6> suffixes = {'K', 'M', 'G', 'T', 'P', 'E'};
    constexpr std::uint64_t kilo = 1024;
    if (v == 0 || v % kilo != 0) {
        return std::to_string(v);
    }
    std::size_t k = 0;
    v /= kilo;
    while (k + 1 < suffixes.size() && v % kilo == 0) {
        v /= kilo;
        ++k;
    }
    return fmt::format("{}{}", v, suffixes.at(k));
}

std::string labelled_bars(const std::vector<std::pair<std::string, std::uint64_t>>& rows,
                          std::size_t width) {
    std::uint64_t max = 0;
    std::size_t label_width = 0;
    std::size_t count_width = 0;
    for (const auto& [label, count] : rows) {
        label_width = std::max(label_width, label.size());
        count_width = std::max(count_width, std::to_string(count).size());
        max = std::max(max, count);
    }
    if (max == 0) {
        return {};
    }
    std::string out;
    for (const auto& [label, count] : rows) {
        // In double: count * width could overflow a u64; a bar needs no more precision.
        const auto bar = static_cast<std::size_t>(
            static_cast<double>(count) * static_cast<double>(width) / static_cast<double>(max));
        out += fmt::format("{:<{}}  {:>{}} |{:<{}}|\n", label, label_width, count, count_width,
                           std::string(bar, '@'), width);
    }
    return out;
}

std::string histogram_bars(const LatencyHistogram& h, std::size_t width) {
    const auto& b = h.buckets;
    const auto nonempty = [](const HistogramBucket& x) { return x.count > 0; };
    const auto first = std::find_if(b.begin(), b.end(), nonempty);
    if (first == b.end()) {
        return {};
    }
    const auto last = std::find_if(b.rbegin(), b.rend(), nonempty).base(); // one past
    std::vector<std::pair<std::string, std::uint64_t>> rows;
    for (auto it = first; it != last; ++it) {
        rows.emplace_back(fmt::format("[{}, {})", bound_label(it->lo),
                                      it->hi ? bound_label(*it->hi) : std::string("inf")),
                          it->count);
    }
    return labelled_bars(rows, width);
}

std::string latency_text(const LatencyHistogram& h) {
    const auto bars = histogram_bars(h);
    return fmt::format("flush latency (ns; K = 2^10, M = 2^20, G = 2^30):\n{}",
                       bars.empty() ? "(no flushes)\n" : bars);
}

} // namespace memcg_statctl
