// The module's counters, knobs and derived values as Prometheus metrics, in the text
// exposition format (0.0.4) that node_exporter's textfile collector reads, and the atomic
// write of that text into a textfile directory.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "debugfs/counters.h"
#include "debugfs/histogram.h"
#include "debugfs/reasons.h"

namespace memcg_statctl {

using MetricLabels = std::vector<std::pair<std::string, std::string>>;

// A histogram as Prometheus wants it: cumulative bucket counts by upper bound (without
// +Inf, which is `count`), the sum of the observed values and their count.
struct MetricHistogram {
    std::vector<std::pair<double, std::uint64_t>> buckets; // (le, cumulative count)
    double sum = 0;
    std::uint64_t count = 0;
};

// What one read of the module's files gave. `up` false: the files could not be read
// (module not loaded, debugfs not mounted, not root); only `kernel` is set then.
struct MetricsSnapshot {
    std::string kernel; // uname -r
    bool up = false;
    VersionInfo version;
    Counters counters;
    std::vector<DerivedValue> derived;
    std::vector<std::pair<std::string, std::string>> knobs; // name, value as read
    // The module's flush_latency, as flush_duration_histogram() makes it; nullopt when the
    // module has no such file.
    std::optional<MetricHistogram> flush_latency;
    // The module's flush_reasons; nullopt when it has no such file.
    std::optional<FlushReasons> flush_reasons;
};

// The module's flush latency histogram in seconds: a cumulative bucket per finite hi (its
// `le`), the unbounded last bucket only in `count`, which is the histogram's total (the
// +Inf bucket must equal it; the ABI makes it flush.performed), and `sum` flush.ns_total.
MetricHistogram flush_duration_histogram(const LatencyHistogram& h, std::uint64_t ns_total);

enum class MetricType { counter, gauge, histogram };

struct MetricSample {
    std::string suffix; // "" or, for a histogram, "_bucket", "_sum", "_count"
    MetricLabels labels;
    std::string value; // as printed: "12", "2.4e-06", "NaN", "+Inf"
};

// One metric family: one HELP and one TYPE line, then its samples.
struct MetricFamily {
    std::string name;
    std::string help;
    MetricType type = MetricType::gauge;
    std::vector<MetricSample> samples;
};

// The file name node_exporter's textfile collector reads in the textfile directory.
inline constexpr std::string_view textfile_name = "memcg_statctl.prom";

// The families of a snapshot, in this order: memcg_statctl_up, memcg_statctl_module_info,
// the counters (module order), the flush latency histogram, the derived values, the knobs.
// Every sample carries the labels kernel and module_version (the latter only when up).
std::vector<MetricFamily> metric_families(const MetricsSnapshot& snapshot);

// The text exposition of `families` (HELP, TYPE, samples; no timestamps).
void write_metric_families(std::ostream& out, const std::vector<MetricFamily>& families);

// metric_families() then write_metric_families(), as a string.
std::string format_metrics(const MetricsSnapshot& snapshot);

// The metric name of a module counter: flush.requests -> memcg_statctl_flush_requests_total.
// Counters in nanoseconds become seconds (flush.ns_total -> memcg_statctl_flush_seconds_total)
// and a maximum is a gauge (flush.ns_max -> memcg_statctl_flush_max_seconds).
std::string counter_metric_name(std::string_view counter);

// A label value with \, " and newline escaped as the text format requires.
std::string escape_label_value(std::string_view value);

// Writes `text` to a temporary file in `dir`, then renames it to dir/textfile_name, so a
// reader sees the old file or the new one, never a part. Throws ToolError (exit 1) naming
// the file and errno; no temporary file is left behind.
void write_textfile_atomically(const std::filesystem::path& dir, std::string_view text);

} // namespace memcg_statctl
