// The JSON documents of `run` and `sweep` (and the sweep objects inside `experiment`
// results): one schema, documented in docs/output.md, shared by stdout (--json) and the
// results file (--output). Counter names become keys without dots (`flush.requests` ->
// `flush_requests`) so `jq .counters.flush_requests` works; CSV columns are these keys'
// paths (`counters.flush_requests`).
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "output/reports.h"

namespace memcg_statctl {

using Json = nlohmann::ordered_json;

// Bumped when a field changes meaning or disappears; adding fields keeps the version.
inline constexpr int result_schema_version = 1;

// {name: value} of (name, value) pairs, in their order; `convert` maps each value.
template <typename Pairs, typename Convert>
Json pairs_json(const Pairs& pairs, Convert convert) {
    Json j = Json::object();
    for (const auto& [name, value] : pairs) {
        j[name] = convert(value);
    }
    return j;
}

// A module counter or derived name as a JSON key: dots become underscores.
std::string json_key(std::string_view name);

Json counters_json(const Counters& counters);
Json derived_json(const std::vector<DerivedValue>& derived);
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

} // namespace memcg_statctl
