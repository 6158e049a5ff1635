// The JSON documents of `run` and `sweep` (and the sweep objects inside `experiment`
// results): one schema, documented in docs/output.md, shared by stdout (--json) and the
// results file (--output). A counter is a key under its one name (`flush.requests`, as the
// module names it), as in text, CSV and compare.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "output/reports.h"

namespace memcg_statctl {

using Json = nlohmann::ordered_json;

// Bumped when a field changes meaning or disappears; adding fields keeps the version.
// Version 2: counter keys are the module's names (`flush.requests`, was `flush_requests`).
inline constexpr int result_schema_version = 2;

// {name: value} of (name, value) pairs, in their order; `convert` maps each value.
template <typename Pairs, typename Convert>
Json pairs_json(const Pairs& pairs, Convert convert) {
    Json j = Json::object();
    for (const auto& [name, value] : pairs) {
        j[name] = convert(value);
    }
    return j;
}

Json counters_json(const Counters& counters);
Json derived_json(const std::vector<DerivedValue>& derived);
// [{"lo", "hi" (null for inf), "count"}, ...] for every bucket; null without a histogram.
Json latency_json(const std::optional<LatencyHistogram>& h);
// {"classes": [{name, requests, performed, skipped}...], "callers": [{function, class, ...}]},
// or null without the file.
Json reasons_json(const std::optional<FlushReasons>& r);
Json memory_stat_json(const MemoryStat& stat);
Json environment_json(const Environment& e);
Json run_result_json(const RunResult& r);
Json comparison_row_json(const ComparisonRow& row);

// {"schema": "memcg-statctl/run", "schema_version": 1, "environment", "workload",
//  "parameters", "complete", "interrupted_by", "result"}
Json run_document(const RunReport& r);
// {"schema": "memcg-statctl/sweep", ..., "knob", "metric", "unit", "runs": [...],
//  "rows": [...]}
Json sweep_document(const ComparisonReport& r);

// `--output FILE`: a JSON results file rewritten after every finished run, so an
// interrupted or failed sweep (SIGINT, a crash, a module unloaded under it) leaves every
// run that finished on disk. Each write goes to FILE.tmp and is renamed over FILE: a
// reader never sees half a document.
class ResultsFile {
public:
    // Checks now that FILE can be written (its directory exists, is writable), so a typo
    // fails before hours of runs. Throws ToolError.
    explicit ResultsFile(std::filesystem::path file);
    void write(const nlohmann::ordered_json& document) const; // throws ToolError
    const std::filesystem::path& path() const { return file_; }

private:
    std::filesystem::path file_;
};

} // namespace memcg_statctl
