// A results file of `run`, `sweep` or `experiment` (docs/output.md) read back for
// `compare`: validated once here, so the comparison never meets a missing field. Every
// document becomes a list of series (one sweep each: a run is a sweep of one row, an
// experiment one series per report), each with its rows per knob value.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace memcg_statctl {

// One knob value of a series: its metrics by their one name (`ops_per_sec`,
// `flush.requests`, `ns_per_flush`, `pgfault`, as the CSV columns). A metric has one sample
// per run when the file kept every run, else only the mean the file states.
struct CompareValue {
    std::string value;
    std::vector<std::string> metric_names; // in the file's order
    std::map<std::string, std::vector<double>> samples;
    std::map<std::string, double> means;       // metrics without samples
    std::map<std::string, std::string> groups; // counters, derived, memory_stat; not figures
};

// The implicit noexcept move of the nlohmann::ordered_json member calls its
// assert_invariant, which clang-tidy cannot see is nothrow.
// NOLINTNEXTLINE(bugprone-exception-escape)
struct CompareSeries {
    std::string workload;
    std::string knob;   // "" for a run
    std::string metric; // the compared figure (`ops_per_sec`, `seconds`, an experiment's)
    std::string unit;
    nlohmann::ordered_json parameters; // of the run or sweep
    std::vector<CompareValue> values;
};

// NOLINTNEXTLINE(bugprone-exception-escape): as CompareSeries
struct ResultsDocument {
    std::string source; // the file name as given
    std::string schema; // "memcg-statctl/run" | "memcg-statctl/sweep" | ".../experiment"
    int schema_version = 0;
    std::string experiment;            // the recipe's name; experiments only
    nlohmann::ordered_json parameters; // of the experiment; the series' own otherwise
    std::string host;                  // "" when the file predates the field
    std::string kernel;
    std::string module_version; // "" without the module
    std::string tool_version;
    long cpus = 0;
    std::uint64_t memory_bytes = 0;
    bool complete = true;
    std::vector<CompareSeries> series;
};

// Validates `document` (the schema and the versions this tool reads, every field compare
// reads); throws ToolError naming `source` and what is wrong. Older versions' counter keys
// (`flush_requests`) are read under the counters' names (`flush.requests`).
ResultsDocument parse_results_document(const nlohmann::ordered_json& document,
                                       const std::string& source);

// Reads and parses FILE; throws ToolError when it cannot be read, is not JSON or is not a
// results document.
ResultsDocument read_results_document(const std::filesystem::path& file);

} // namespace memcg_statctl
