// Plain data handed to an Output. Commands fill these; outputs only format them.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "cgroup/memory_stat.h"
#include "debugfs/attribution.h"
#include "debugfs/counters.h"
#include "debugfs/histogram.h"
#include "debugfs/reasons.h"
#include "debugfs/status.h"
#include "statistics.h"

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
    std::optional<LatencyHistogram> flush_latency; // nullopt: the module has no such file
    std::optional<FlushReasons> flush_reasons;     // nullopt: the module has no such file
    // The charge stock events by cgroup (`stock_by_cgroup`); nullopt: no such file.
    std::optional<StockAttribution> stock_attribution;
    // Its cgroups' paths under the cgroup2 mount, by id (a removed cgroup has none).
    std::map<std::uint64_t, std::string> cgroup_paths;
};

struct CounterRate {
    std::string name;
    std::uint64_t delta = 0;              // for a maximum: its value at the interval's end
    std::optional<double> per_second = 0; // none for a maximum, which has no rate
};

// One interval of `stats --watch`, like one block of BCC funccount -i.
struct IntervalReport {
    int index = 0;         // 1-based
    std::string timestamp; // wall clock at the end of the interval, UTC, ISO 8601
    double requested = 0;  // --watch SEC
    double seconds = 0;    // measured length of the interval
    std::vector<CounterRate> rates;
    std::vector<DerivedValue> derived;
    std::optional<LatencyHistogram> flush_latency; // the interval's delta
    std::optional<FlushReasons> flush_reasons;     // the interval's delta
};

struct KnobReport {
    NameValues knobs;
};

// Where and on what a run or sweep ran: every run and sweep document carries it, so a
// results file read months later still says which kernel, module and machine made it.
struct Environment {
    std::string tool_version;
    std::string host;                          // uname -n: which machine, for `compare`
    std::uint64_t abi = 0;                     // the debugfs ABI the tool speaks
    std::string kernel;                        // uname -r
    std::optional<std::string> module_version; // nullopt: the module was not loaded
    long cpus = 0;                             // online
    std::uint64_t memory_bytes = 0;            // MemTotal
    std::string started;                       // UTC, ISO 8601
};

// Parameters as typed JSON values (numbers stay numbers), in the order given.
using Parameters = nlohmann::ordered_json;

// What one run measured.
struct RunResult {
    double seconds = 0; // the measured window
    // Built-in workloads: operations per second, total and per task.
    std::optional<double> ops_per_sec;
    std::vector<double> task_ops_per_sec;
    // A user's command: one exit status per copy (128 + signal when killed), whether the
    // copies were terminated at --duration, and the --metric figure (summed over copies;
    // nullopt when a copy printed no matching line).
    std::vector<int> exit_statuses;
    bool stopped_at_duration = false;
    std::optional<double> metric;
    std::optional<Counters> counters; // module deltas; nullopt without the module
    std::vector<DerivedValue> derived;
    // The flush latency histogram's delta; nullopt without the module or its file.
    std::optional<LatencyHistogram> flush_latency;
    // The flush requests by reason over the window; nullopt without the module or its file.
    std::optional<FlushReasons> flush_reasons;
    std::vector<CgroupMemoryDelta> memory_stat; // per measured cgroup
};

// The implicit noexcept move of Parameters (nlohmann::ordered_json) calls its
// assert_invariant, which clang-tidy cannot see is nothrow.
// NOLINTNEXTLINE(bugprone-exception-escape)
struct RunReport {
    Environment environment;
    std::string workload;  // a built-in name, "command", "cgroup" or "pid"
    Parameters parameters; // every option that shaped the run
    RunResult result;
    std::optional<std::string> interrupted_by; // "SIGINT" / "SIGTERM": result is empty
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
    // The runs' flush requests by reason summed (not averaged: a count of requests per
    // value); nullopt unless every run with counters has them.
    std::optional<FlushReasons> flush_reasons;
    MemoryStat mean_memory_stat; // per run, summed over the measured cgroups, averaged
};

// One finished run of a sweep, as it was measured.
struct SweepRun {
    std::string value;
    int round = 0; // 1-based
    RunResult result;
};

struct ComparisonReport {
    std::string knob;
    std::string workload;
    std::string metric = "ops_per_sec"; // the compared figure: ops_per_sec | seconds | metric
    std::string unit = "ops/s";
    std::vector<ComparisonRow> rows;
    // A sweep's document: where it ran, its parameters, every run in the order it finished,
    // and whether it finished (complete) or was stopped (interrupted_by).
    Environment environment;
    Parameters parameters = Parameters::object();
    std::vector<SweepRun> runs;
    bool complete = true;
    std::optional<std::string> interrupted_by;
};

} // namespace memcg_statctl
