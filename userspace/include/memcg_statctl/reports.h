// Plain data handed to an Output. Commands fill these; outputs only format them.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "memcg_statctl/abi_parsers.h"
#include "memcg_statctl/counters.h"
#include "memcg_statctl/derived.h"
#include "memcg_statctl/module_availability.h"
#include "memcg_statctl/statistics.h"
#include "memcg_statctl/status_problems.h"

namespace memcg_statctl {

using NameValues = std::vector<std::pair<std::string, std::string>>;

struct StatusReport {
    std::filesystem::path root;
    // Not available: only root, availability and message are set (`status --json` prints
    // {"loaded": false, ...} before the tool exits 3).
    Availability availability = Availability::available;
    std::string message;
    VersionInfo version;
    std::vector<HookEntry> hooks;
    NameValues knobs;                    // only knobs whose files exist
    std::vector<StatusProblem> problems; // empty when the module is healthy
};

struct StatsReport {
    Counters counters;
    std::vector<DerivedValue> derived;
};

struct CounterRate {
    std::string name;
    std::uint64_t delta = 0;
    double per_second = 0;
};

// One interval of `stats --watch`, like one block of BCC funccount -i.
struct IntervalReport {
    int index = 0;      // 1-based
    double seconds = 0; // measured length of the interval
    std::vector<CounterRate> rates;
    std::vector<DerivedValue> derived;
};

struct KnobReport {
    NameValues knobs;
};

struct RunReport {
    std::string workload;
    NameValues parameters; // cgroups, depth, tasks, duration, mode...
    double seconds = 0;
    std::vector<double> task_ops_per_sec;
    double total_ops_per_sec = 0;
    std::optional<Counters> counter_deltas; // nullopt when the module is not loaded
    std::vector<DerivedValue> derived;
};

// One row per knob value, in the shape of mmtests compare-kernels.
struct ComparisonRow {
    std::string value;
    std::vector<double> samples; // ops/s of each run
    Summary summary;
    std::optional<double> percent_change; // vs the first row; nullopt for it
    std::optional<double> p_value;        // Welch vs the first row
    bool significant = false;
    Counters mean_counter_deltas; // per run, averaged over runs (rounded)
    std::vector<DerivedValue> derived;
};

struct ComparisonReport {
    std::string knob;
    std::string workload;
    std::string metric = "ops/s";
    std::vector<ComparisonRow> rows;
};

} // namespace memcg_statctl
