// Knob sweeps: the interleaved run order, the guard that restores the knob and the
// comparison of the values.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "debugfs/client.h"
#include "output/reports.h"
#include "statistics.h"

namespace memcg_statctl {

struct SweepStep {
    int round = 0;               // 0 .. runs - 1
    std::size_t value_index = 0; // into the --values list
    friend bool operator==(const SweepStep&, const SweepStep&) = default;
};

// Round r runs every value once, in the given order, before round r + 1 starts, so slow
// drifts (page cache, thermal, other load) spread evenly over the values instead of
// biasing whichever value ran last.
std::vector<SweepStep> sweep_order(std::size_t values, int runs);

// Parses --values: comma-separated, no empty items, no duplicates (usage error otherwise).
std::vector<std::string> parse_sweep_values(const std::string& list);

// A knob a sweep varies and its values: one --knob and its --values.
struct KnobValues {
    std::string knob;
    std::vector<std::string> values;
};

// Pairs the repeated --knob and --values options in the order given and parses each list
// (parse_sweep_values). Usage errors: not as many --values as --knob, a knob given twice.
std::vector<KnobValues> pair_knob_values(const std::vector<std::string>& knobs,
                                         const std::vector<std::string>& value_lists);

// Every combination of the knobs' values (one value per knob, in the knobs' order), the
// first knob's value changing slowest, as nested loops; the first, every knob's first
// value, is the baseline. One knob: its values.
std::vector<std::vector<std::string>> knob_combinations(const std::vector<KnobValues>& knobs);

// "flush_mode=never update_flush_every=128": a combination in progress lines and errors.
std::string setting_name(const std::vector<KnobValues>& knobs,
                         const std::vector<std::string>& combination);
// A combination's row in the results: the value itself for one knob ("never", as sweeps
// always named it), its setting_name for several.
std::string row_value(const std::vector<KnobValues>& knobs,
                      const std::vector<std::string>& combination);
// The knob of the results: "flush_mode", or "flush_mode,update_flush_every" for several.
std::string knobs_label(const std::vector<KnobValues>& knobs);

// Remembers a knob's value and writes it back on destruction: normal end, error or
// SIGINT/SIGTERM (which unwind through here, see signal_guard.h). Not when the module has
// been unloaded meanwhile: its knobs went with it (a failure to restore is a warning).
class KnobRestorer {
public:
    KnobRestorer(const DebugfsClient& client, std::string knob);
    KnobRestorer(const KnobRestorer&) = delete;
    KnobRestorer& operator=(const KnobRestorer&) = delete;
    KnobRestorer(KnobRestorer&&) = delete;
    KnobRestorer& operator=(KnobRestorer&&) = delete;
    ~KnobRestorer();
    const std::string& original() const { return original_; }

private:
    const DebugfsClient& client_;
    std::string knob_;
    std::string original_;
};

// Builds the compare-kernels style report of a sweep from the per-run results: summary
// statistics per knob value, %change and Welch's test against the first (baseline) value.
struct ValueRuns {
    std::string value;
    std::vector<double> samples;          // the compared figure, one per run
    std::vector<Counters> counter_deltas; // one per run; empty without the module
    std::vector<double> seconds;          // run lengths, for rates
    std::vector<MemoryStat> memory_stats; // one per run (summed over measured cgroups)
    // One per run; empty without the module's flush_latency file.
    std::vector<LatencyHistogram> flush_latencies;
    // One per run; empty without the module's flush_reasons file.
    std::vector<FlushReasons> flush_reasons;
};

// A value without runs (a sweep interrupted before its first run of that value) gets a row
// with n = 0 and no statistics.
ComparisonReport compare(const std::string& knob, const std::string& workload,
                         const std::vector<ValueRuns>& values);

} // namespace memcg_statctl
