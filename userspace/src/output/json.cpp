#include <map>
#include <memory>

#include "output/output.h"
#include "output/result_schema.h"
#include "text_util.h"

namespace memcg_statctl {

using JsonOutput = FormatOutput<OutputFormat::json>;

namespace {

// A knob's or version key's value as scripts want it: a number when it is an unsigned
// integer (flush_threshold 2000, abi 1), else the string (flush_mode kernel, generation 6.1,
// module 0.1.0: versions, which a number would turn into 6.1 == 6.10).
Json value_json(const std::string& value) {
    const auto number = parse_u64(value);
    return number ? Json(*number) : Json(value);
}

Json values_json(const NameValues& nv) {
    return pairs_json(nv, value_json);
}

Json stock_counts_json(const StockCounts& c) {
    Json j = Json::object();
    for (const auto& [name, value] : c.named()) {
        j[std::string(name)] = value ? Json(*value) : Json(nullptr);
    }
    return j;
}

// {"state", "cgroups": [{"id", "cgroup" (its path, null when unknown), the six counts}],
// "other" (null unless on), "occupancy": [{"cpu", "samples", "mean"}]}; null without the file.
Json stock_attribution_json(const std::optional<StockAttribution>& a,
                            const std::map<std::uint64_t, std::string>& paths) {
    if (!a) {
        return nullptr;
    }
    Json cgroups = Json::array();
    for (const auto& c : a->cgroups) {
        const auto it = paths.find(c.id);
        Json row = {{"id", c.id}, {"cgroup", it != paths.end() ? Json(it->second) : Json(nullptr)}};
        row.update(stock_counts_json(c.counts));
        cgroups.push_back(std::move(row));
    }
    Json occupancy = Json::array();
    for (const auto& o : a->occupancy) {
        const auto mean = o.mean();
        occupancy.push_back(
            {{"cpu", o.cpu}, {"samples", o.samples}, {"mean", mean ? Json(*mean) : Json(nullptr)}});
    }
    return {{"state", state_name(a->state)},
            {"cgroups", cgroups},
            {"other", a->on() ? stock_counts_json(a->other) : Json(nullptr)},
            {"occupancy", occupancy}};
}

} // namespace

template <>
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
                    {"version", values_json(r.version.entries)},
                    {"hooks", hooks},
                    {"knobs", values_json(r.knobs)},
                    {"problems", problems}};
    out_ << j.dump(2) << '\n';
}

template <>
void JsonOutput::stats(const StatsReport& r) {
    const Json j = {
        {"counters", counters_json(r.counters)},
        {"derived", derived_json(r.derived)},
        {"flush_latency", latency_json(r.flush_latency)},
        {"flush_reasons", reasons_json(r.flush_reasons)},
        {"stock_attribution", stock_attribution_json(r.stock_attribution, r.cgroup_paths)}};
    out_ << j.dump(2) << '\n';
}

template <>
void JsonOutput::interval(const IntervalReport& r) {
    // One compact object per line (JSON Lines) so `--watch` can be piped into jq live.
    Counters deltas;
    Json rates = Json::object();
    for (const auto& c : r.rates) {
        deltas.add(c.name, c.delta);
        if (c.per_second) { // a maximum has a value (in deltas), no rate
            rates[c.name] = *c.per_second;
        }
    }
    const Json j = {{"interval", r.index},
                    {"timestamp", r.timestamp},
                    {"requested_seconds", r.requested},
                    {"seconds", r.seconds},
                    {"deltas", counters_json(deltas)},
                    {"per_second", rates},
                    {"derived", derived_json(r.derived)},
                    {"flush_latency", latency_json(r.flush_latency)},
                    {"flush_reasons", reasons_json(r.flush_reasons)}};
    out_ << j.dump() << '\n';
}

template <>
void JsonOutput::knobs(const KnobReport& r) {
    out_ << values_json(r.knobs).dump(2) << '\n';
}

template <>
void JsonOutput::run(const RunReport& r) {
    out_ << run_document(r).dump(2) << '\n';
}

template <>
void JsonOutput::comparison(const ComparisonReport& r) {
    out_ << sweep_document(r).dump(2) << '\n';
}

std::unique_ptr<Output> make_json_output(std::ostream& out) {
    return std::make_unique<JsonOutput>(out);
}

} // namespace memcg_statctl
