// The flush latency histogram as text, in the shape of bpftrace's hist(): one row per log2
// bucket, `[1K, 2K)   17 |@@@@      |`, so a latency distribution reads at a glance; and the
// same bars for any labelled counts (the charge stock's occupancy).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "debugfs/histogram.h"

namespace memcg_statctl {

// A bucket bound as bpftrace prints it: a multiple of 1024^k with the suffix K, M, G, T, P
// or E (1024 is `1K`, 2^39 is `512G`), any other number in decimal (`0`, `1`, `512`).
std::string bound_label(std::uint64_t v);

// One row per (label, count): the label, the count, and a bar of `@` whose length is
// count * width / the largest count, labels and counts aligned. "" when every count is 0.
std::string labelled_bars(const std::vector<std::pair<std::string, std::uint64_t>>& rows,
                          std::size_t width = 50);

// The rows from the first to the last non-empty bucket: `[lo, hi)`, the count, and a bar of
// `@` whose length is count * width / the largest count. "" when every bucket is empty.
std::string histogram_bars(const LatencyHistogram& h, std::size_t width = 50);

// The histogram under a heading that says the unit: the text of `stats`, `stats --watch`
// and `run`. "(no flushes)" when empty.
std::string latency_text(const LatencyHistogram& h);

} // namespace memcg_statctl
