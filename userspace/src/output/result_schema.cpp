#include "output/result_schema.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

#include <fmt/format.h>

#include "exit_code.h"
#include "text_util.h"

namespace memcg_statctl {

namespace {

template <typename T>
Json optional_json(const std::optional<T>& v) {
    return v ? Json(*v) : Json(nullptr);
}

} // namespace

Json counters_json(const Counters& counters) {
    Json j = Json::object();
    for (const auto& [name, value] : counters.entries()) {
        j[name] = value;
    }
    return j;
}

Json derived_json(const std::vector<DerivedValue>& derived) {
    Json j = Json::object();
    for (const auto& d : derived) {
        j[d.name] = optional_json(d.value);
    }
    return j;
}

Json reasons_json(const std::optional<FlushReasons>& r) {
    if (!r) {
        return nullptr;
    }
    Json classes = Json::array();
    for (const auto& c : r->classes) {
        classes.push_back({{"name", c.name},
                           {"requests", c.requests},
                           {"performed", c.performed},
                           {"skipped", c.skipped()}});
    }
    Json callers = Json::array();
    for (const auto& c : r->callers) {
        callers.push_back({{"function", c.name},
                           {"class", c.klass},
                           {"requests", c.requests},
                           {"performed", c.performed},
                           {"skipped", c.skipped()}});
    }
    return {{"classes", classes}, {"callers", callers}};
}

Json latency_json(const std::optional<LatencyHistogram>& h) {
    if (!h) {
        return nullptr;
    }
    Json buckets = Json::array();
    for (const auto& b : h->buckets) {
        buckets.push_back({{"lo", b.lo}, {"hi", optional_json(b.hi)}, {"count", b.count}});
    }
    return buckets;
}

Json memory_stat_json(const MemoryStat& stat) {
    return pairs_json(stat, [](std::int64_t v) { return Json(v); });
}

Json environment_json(const Environment& e) {
    return {{"tool_version", e.tool_version},
            {"host", e.host},
            {"abi", e.abi},
            {"kernel", e.kernel},
            {"module_version", optional_json(e.module_version)},
            {"cpus", e.cpus},
            {"memory_bytes", e.memory_bytes},
            {"started", e.started}};
}

Json run_result_json(const RunResult& r) {
    Json memory = Json::array();
    for (const auto& m : r.memory_stat) {
        memory.push_back({{"cgroup", m.cgroup}, {"delta", memory_stat_json(m.delta)}});
    }
    return {{"seconds", r.seconds},
            {"ops_per_sec", optional_json(r.ops_per_sec)},
            {"task_ops_per_sec", r.task_ops_per_sec},
            {"exit_statuses", r.exit_statuses},
            {"stopped_at_duration", r.stopped_at_duration},
            {"metric", optional_json(r.metric)},
            {"counters", r.counters ? counters_json(*r.counters) : Json(nullptr)},
            {"derived", derived_json(r.derived)},
            {"flush_latency", latency_json(r.flush_latency)},
            {"flush_reasons", reasons_json(r.flush_reasons)},
            {"memory_stat", memory}};
}

Json comparison_row_json(const ComparisonRow& row) {
    // No finished run (a stopped sweep): no statistics, rather than zeros.
    const auto stat = [&](double v) { return row.summary.n == 0 ? Json(nullptr) : Json(v); };
    return {{"value", row.value},
            {"n", row.summary.n},
            {"mean", stat(row.summary.mean)},
            {"median", stat(row.summary.median)},
            {"stddev", row.summary.n < 2 ? Json(nullptr) : Json(row.summary.stddev)},
            {"percent_change", optional_json(row.percent_change)},
            {"p_value", optional_json(row.p_value)},
            {"significant", row.significant},
            {"samples", row.samples},
            {"counters", counters_json(row.mean_counter_deltas)},
            {"derived", derived_json(row.derived)},
            {"flush_reasons", reasons_json(row.flush_reasons)},
            {"memory_stat", memory_stat_json(row.mean_memory_stat)}};
}

Json run_document(const RunReport& r) {
    return {{"schema", "memcg-statctl/run"},
            {"schema_version", result_schema_version},
            {"environment", environment_json(r.environment)},
            {"workload", r.workload},
            {"parameters", r.parameters},
            {"complete", !r.interrupted_by.has_value()},
            {"interrupted_by", optional_json(r.interrupted_by)},
            {"result", r.interrupted_by ? Json(nullptr) : run_result_json(r.result)}};
}

Json sweep_document(const ComparisonReport& r) {
    Json runs = Json::array();
    for (const auto& run : r.runs) {
        Json j = {{"value", run.value}, {"round", run.round}};
        j.update(run_result_json(run.result));
        runs.push_back(std::move(j));
    }
    Json rows = Json::array();
    for (const auto& row : r.rows) {
        rows.push_back(comparison_row_json(row));
    }
    return {{"schema", "memcg-statctl/sweep"},
            {"schema_version", result_schema_version},
            {"environment", environment_json(r.environment)},
            {"workload", r.workload},
            {"knob", r.knob},
            {"parameters", r.parameters},
            {"metric", r.metric},
            {"unit", r.unit},
            {"complete", r.complete},
            {"interrupted_by", optional_json(r.interrupted_by)},
            {"runs", runs},
            {"rows", rows}};
}

ResultsFile::ResultsFile(std::filesystem::path file) : file_(std::move(file)) {
    if (file_.empty() || file_.filename().empty()) {
        throw ToolError(ExitCode::usage, "--output needs a file name");
    }
    std::error_code ec;
    if (std::filesystem::is_directory(file_, ec)) {
        throw ToolError(ExitCode::usage,
                        fmt::format("--output {} is a directory, not a file", file_.string()));
    }
    require_writable_dir("--output", file_);
}

void ResultsFile::write(const nlohmann::ordered_json& document) const {
    auto tmp = file_;
    tmp += ".tmp";
    {
        std::ofstream f(tmp, std::ios::trunc);
        f << document.dump(2) << '\n';
        f.flush();
        if (!f) {
            throw ToolError(fmt::format("cannot write {}", tmp.string()));
        }
    }
    if (std::rename(tmp.c_str(), file_.c_str()) != 0) {
        const int err = errno;
        (void)std::remove(tmp.c_str());
        throw ToolError(
            fmt::format("cannot rename {} to {}: {}", tmp.string(), file_.string(), strerror(err)));
    }
}

} // namespace memcg_statctl
