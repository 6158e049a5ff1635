#include <filesystem>

#include "compare/table.h"

namespace memcg_statctl {
namespace {

using Json = nlohmann::ordered_json;

template <typename T>
Json optional_json(const std::optional<T>& v) {
    return v ? Json(*v) : Json(nullptr);
}

Json file_json(const ResultsDocument& f) {
    return {{"file", f.source},
            {"schema", f.schema},
            {"schema_version", f.schema_version},
            {"experiment", f.experiment.empty() ? Json(nullptr) : Json(f.experiment)},
            {"host", f.host.empty() ? Json(nullptr) : Json(f.host)},
            {"kernel", f.kernel},
            {"module_version", f.module_version.empty() ? Json(nullptr) : Json(f.module_version)},
            {"tool_version", f.tool_version},
            {"cpus", f.cpus},
            {"memory_bytes", f.memory_bytes},
            {"complete", f.complete}};
}

Json cell_json(const std::optional<CompareCell>& c) {
    if (!c) {
        return nullptr;
    }
    return {{"n", c->n},
            {"mean", c->mean},
            {"stddev", optional_json(c->stddev)},
            {"percent_change", optional_json(c->percent_change)},
            {"p_value", optional_json(c->p_value)},
            {"significant", c->significant}};
}

} // namespace

Json compare_json(const CompareTable& t) {
    Json files = Json::array();
    for (const auto& f : t.files) {
        files.push_back(file_json(f));
    }
    Json differences = Json::array();
    for (const auto& d : t.differences) {
        differences.push_back({{"file", t.files[d.file].source},
                               {"field", d.field},
                               {"value", d.value},
                               {"baseline", d.baseline}});
    }
    Json series = Json::array();
    for (const auto& sec : t.sections) {
        Json rows = Json::array();
        for (const auto& row : sec.rows) {
            Json cells = Json::array();
            for (const auto& c : row.cells) {
                cells.push_back(cell_json(c));
            }
            rows.push_back({{"metric", row.metric}, {"value", row.value}, {"files", cells}});
        }
        series.push_back({{"workload", sec.workload},
                          {"knob", sec.knob},
                          {"metric", sec.metric},
                          {"unit", sec.unit},
                          {"rows", rows}});
    }
    return {{"schema", "memcg-statctl/compare"},
            {"schema_version", 1},
            {"files", files},
            {"differences", differences},
            {"series", series}};
}

} // namespace memcg_statctl
