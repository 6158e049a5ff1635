#include "json_output.h"

#include <nlohmann/json.hpp>

#include "memcg_statctl/text_util.h"

namespace memcg_statctl {
namespace {

// ordered_json keeps counters in the module's order, as the text output does.
using Json = nlohmann::ordered_json;

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
        j[d.name] = d.value ? Json(*d.value) : Json(nullptr);
    }
    return j;
}

// A knob's value as scripts want it: a number when it is one (flush_threshold 2000),
// else the string (flush_mode kernel).
Json knob_value_json(const std::string& value) {
    const auto number = parse_u64(value);
    return number ? Json(*number) : Json(value);
}

Json knobs_json(const NameValues& knobs) {
    Json j = Json::object();
    for (const auto& [name, value] : knobs) {
        j[name] = knob_value_json(value);
    }
    return j;
}

Json name_values_json(const NameValues& nv) {
    Json j = Json::object();
    for (const auto& [name, value] : nv) {
        j[name] = value;
    }
    return j;
}

template <typename T>
Json optional_json(const std::optional<T>& v) {
    return v ? Json(*v) : Json(nullptr);
}

} // namespace

void JsonOutput::status(const StatusReport& r) {
    if (r.availability != Availability::available) {
        const Json j = {{"loaded", false},
                        {"debugfs", r.root.string()},
                        {"reason", availability_name(r.availability)},
                        {"message", r.message}};
        out_ << j.dump(2) << '\n';
        return;
    }
    Json hooks = Json::array();
    for (const auto& h : r.hooks) {
        hooks.push_back({{"name", h.name},
                         {"target", h.target},
                         {"caller", h.caller},
                         {"mechanism", h.mechanism},
                         {"state", h.state},
                         {"hits", h.hits}});
    }
    Json problems = Json::array();
    for (const auto& p : r.problems) {
        problems.push_back(
            {{"kind", std::string(problem_kind_name(p.kind))}, {"message", p.message}});
    }
    const Json j = {{"loaded", true},
                    {"debugfs", r.root.string()},
                    {"version", name_values_json(r.version.entries)},
                    {"hooks", hooks},
                    {"knobs", knobs_json(r.knobs)},
                    {"problems", problems}};
    out_ << j.dump(2) << '\n';
}

void JsonOutput::stats(const StatsReport& r) {
    const Json j = {{"counters", counters_json(r.counters)}, {"derived", derived_json(r.derived)}};
    out_ << j.dump(2) << '\n';
}

void JsonOutput::interval(const IntervalReport& r) {
    // One compact object per line (JSON Lines) so `--watch` can be piped into jq live.
    Json deltas = Json::object();
    Json rates = Json::object();
    for (const auto& c : r.rates) {
        deltas[c.name] = c.delta;
        rates[c.name] = c.per_second;
    }
    const Json j = {{"interval", r.index},
                    {"seconds", r.seconds},
                    {"deltas", deltas},
                    {"per_second", rates},
                    {"derived", derived_json(r.derived)}};
    out_ << j.dump() << '\n';
}

void JsonOutput::knobs(const KnobReport& r) {
    out_ << knobs_json(r.knobs).dump(2) << '\n';
}

void JsonOutput::run(const RunReport& r) {
    const Json j = {
        {"workload", r.workload},
        {"parameters", name_values_json(r.parameters)},
        {"seconds", r.seconds},
        {"task_ops_per_sec", r.task_ops_per_sec},
        {"total_ops_per_sec", r.total_ops_per_sec},
        {"counter_deltas", r.counter_deltas ? counters_json(*r.counter_deltas) : Json(nullptr)},
        {"derived", derived_json(r.derived)}};
    out_ << j.dump(2) << '\n';
}

void JsonOutput::comparison(const ComparisonReport& r) {
    Json rows = Json::array();
    for (const auto& row : r.rows) {
        rows.push_back({{"value", row.value},
                        {"samples", row.samples},
                        {"n", row.summary.n},
                        {"mean", row.summary.mean},
                        {"median", row.summary.median},
                        {"stddev", row.summary.stddev},
                        {"percent_change", optional_json(row.percent_change)},
                        {"p_value", optional_json(row.p_value)},
                        {"significant", row.significant},
                        {"counter_deltas", counters_json(row.mean_counter_deltas)},
                        {"derived", derived_json(row.derived)}});
    }
    const Json j = {
        {"knob", r.knob}, {"workload", r.workload}, {"metric", r.metric}, {"rows", rows}};
    out_ << j.dump(2) << '\n';
}

} // namespace memcg_statctl
