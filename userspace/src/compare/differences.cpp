#include "compare/differences.h"

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>

namespace memcg_statctl {
namespace {

using Json = nlohmann::ordered_json;

// Parameters that describe where a run happened rather than what it measured: the parent
// cgroup differs between machines by design, and an experiment states the kernel and cpus
// among its parameters (the header rows of the table show them).
bool ignored_parameter(const std::string& key) {
    return key == "parent" || key == "parent_from" || key == "kernel" || key == "cpus" ||
           key == "knob" || key == "values"; // compared as the series' own knob and values
}

std::string text(const Json& v) {
    return v.is_string() ? v.get<std::string>() : v.dump();
}

class Collector {
public:
    Collector(std::size_t file, std::vector<Difference>& out) : file_(file), out_(out) {}

    void check(const std::string& field, const std::string& baseline, const std::string& value) {
        if (baseline != value) {
            out_.push_back({file_, field, baseline, value});
        }
    }

    void parameters(const std::string& prefix, const Json& baseline, const Json& value) {
        std::vector<std::string> keys;
        for (const auto* p : {&baseline, &value}) {
            for (const auto& [key, v] : p->items()) {
                if (!ignored_parameter(key) &&
                    std::find(keys.begin(), keys.end(), key) == keys.end()) {
                    keys.push_back(key);
                }
            }
        }
        for (const auto& key : keys) {
            check(fmt::format("{}parameters.{}", prefix, key),
                  baseline.contains(key) ? text(baseline.at(key)) : "absent",
                  value.contains(key) ? text(value.at(key)) : "absent");
        }
    }

private:
    std::size_t file_;
    std::vector<Difference>& out_;
};

std::string values_of(const CompareSeries& s) {
    std::vector<std::string> v;
    for (const auto& x : s.values) {
        v.push_back(x.value);
    }
    return fmt::format("{}", fmt::join(v, ","));
}

} // namespace

std::vector<Difference> find_differences(const std::vector<ResultsDocument>& files) {
    std::vector<Difference> out;
    if (files.empty()) {
        return out;
    }
    const auto& base = files.front();
    for (std::size_t i = 1; i < files.size(); ++i) {
        const auto& f = files[i];
        Collector c(i, out);
        c.check("schema", base.schema, f.schema);
        c.check("schema_version", std::to_string(base.schema_version),
                std::to_string(f.schema_version));
        const bool experiments = base.experiment.size() + f.experiment.size() > 0;
        if (experiments) {
            c.check("experiment", base.experiment, f.experiment);
            c.parameters("", base.parameters, f.parameters);
            c.check("reports", std::to_string(base.series.size()), std::to_string(f.series.size()));
        }
        const auto n = std::min(base.series.size(), f.series.size());
        for (std::size_t s = 0; s < n; ++s) {
            const auto& a = base.series[s];
            const auto& b = f.series[s];
            const auto prefix = experiments ? fmt::format("reports[{}].", s) : std::string();
            c.check(prefix + "workload", a.workload, b.workload);
            c.check(prefix + "knob", a.knob, b.knob);
            c.check(prefix + "values", values_of(a), values_of(b));
            c.check(prefix + "metric", a.metric, b.metric);
            c.check(prefix + "unit", a.unit, b.unit);
            c.parameters(prefix, a.parameters, b.parameters);
        }
    }
    return out;
}

std::string describe_differences(const std::vector<ResultsDocument>& files,
                                 const std::vector<Difference>& differences) {
    std::string s;
    for (const auto& d : differences) {
        s += fmt::format("  {}: {} is {}, {} has {}\n", files[d.file].source, d.field,
                         d.value.empty() ? "\"\"" : d.value, files.front().source,
                         d.baseline.empty() ? "\"\"" : d.baseline);
    }
    return s;
}

} // namespace memcg_statctl
