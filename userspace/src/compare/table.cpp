#include "compare/table.h"

#include <algorithm>
#include <filesystem>
#include <optional>

#include <fmt/format.h>

#include "cgroup/memory_stat.h"
#include "debugfs/counters.h"
#include "debugfs/reasons.h"
#include "exit_code.h"
#include "statistics.h"
#include "text_util.h"

namespace memcg_statctl {

std::vector<std::string> metric_names() {
    std::vector<std::string> names = {"ops_per_sec", "metric",      "seconds",      "counters",
                                      "derived",     "memory_stat", "flush_reasons"};
    for (const auto* list : {&counter_names(), &derived_names(), &memory_stat_fields()}) {
        names.insert(names.end(), list->begin(), list->end());
    }
    for (const auto klass : flush_reason_classes()) {
        names.push_back(fmt::format("flush_reasons.{}.requests", klass));
        names.push_back(fmt::format("flush_reasons.{}.performed", klass));
    }
    return names;
}

void check_metric_names(const std::vector<std::string>& names) {
    const auto valid = metric_names();
    for (const auto& name : names) {
        if (std::find(valid.begin(), valid.end(), name) != valid.end()) {
            continue;
        }
        const auto close = closest_names(name, valid);
        throw ToolError(ExitCode::usage,
                        fmt::format("--metrics: unknown metric '{}'{}; the metrics are: {}", name,
                                    close.empty() ? std::string()
                                                  : fmt::format(" (did you mean '{}'?)",
                                                                fmt::join(close, "' or '")),
                                    fmt::join(valid, ", ")));
    }
}

namespace {

// `metrics` holds names and groups (counters, derived, memory_stat, flush_reasons).
bool wanted(const CompareValue& v, const std::string& name,
            const std::vector<std::string>& metrics) {
    const auto group = v.groups.find(name);
    return metrics.empty() || std::any_of(metrics.begin(), metrics.end(), [&](const auto& m) {
               return name == m || (group != v.groups.end() && group->second == m);
           });
}

template <typename T>
void add_unique(std::vector<T>& v, const T& x) {
    if (std::find(v.begin(), v.end(), x) == v.end()) {
        v.push_back(x);
    }
}

const CompareValue* find_value(const CompareSeries& s, const std::string& value) {
    const auto it = std::find_if(s.values.begin(), s.values.end(),
                                 [&](const CompareValue& v) { return v.value == value; });
    return it == s.values.end() ? nullptr : &*it;
}

// The samples of `metric`, or nullptr when the value has only a stated mean of it.
const std::vector<double>* samples_of(const CompareValue& v, const std::string& metric) {
    const auto it = v.samples.find(metric);
    return it == v.samples.end() || it->second.empty() ? nullptr : &it->second;
}

std::optional<CompareCell> cell_of(const CompareValue* v, const std::string& metric) {
    if (v == nullptr) {
        return std::nullopt;
    }
    CompareCell c;
    if (const auto* samples = samples_of(*v, metric)) {
        const auto s = summarize(*samples);
        c.n = s.n;
        c.mean = s.mean;
        if (s.n >= 2) {
            c.stddev = s.stddev;
        }
        return c;
    }
    const auto mean = v->means.find(metric);
    if (mean == v->means.end()) {
        return std::nullopt;
    }
    c.mean = mean->second;
    return c;
}

// %change and Welch's test of `cell` against the first file's.
void against_baseline(CompareCell& cell, const CompareCell& base,
                      const std::vector<double>* base_samples, const std::vector<double>* samples) {
    cell.percent_change = percent_change(base.mean, cell.mean);
    if (base_samples == nullptr || samples == nullptr) {
        return;
    }
    if (const auto w = welch_t_test(*base_samples, *samples)) {
        cell.p_value = w->p_value;
        cell.significant = w->significant;
        cell.noise = w->noise();
        if (cell.percent_change) {
            cell.percent_ci = percent_interval(base.mean, *w);
        }
    }
}

// See CompareRow::differs.
bool differs(const CompareRow& row) {
    const auto& base = row.cells.front();
    return std::any_of(row.cells.begin() + 1, row.cells.end(), [&](const auto& c) {
        if (c.has_value() != base.has_value()) {
            return true;
        }
        return c && c->mean != base->mean && !c->noise;
    });
}

CompareSection section_of(const std::vector<ResultsDocument>& files, std::size_t index,
                          const std::vector<std::string>& metrics) {
    std::vector<const CompareSeries*> series;
    series.reserve(files.size());
    for (const auto& f : files) {
        series.push_back(index < f.series.size() ? &f.series[index] : nullptr);
    }
    const auto* first =
        *std::find_if(series.begin(), series.end(), [](const auto* s) { return s != nullptr; });
    CompareSection sec{first->workload, first->knob, first->metric, first->unit, {}};
    // Metric and value order: the figure first, then as the files list them, the first
    // file's order before what only later files have.
    std::vector<std::string> names{first->metric};
    std::vector<std::string> values;
    for (const auto* s : series) {
        for (const auto& v : s == nullptr ? std::vector<CompareValue>{} : s->values) {
            add_unique(values, v.value);
            for (const auto& name : v.metric_names) {
                if (wanted(v, name, metrics)) {
                    add_unique(names, name);
                }
            }
        }
    }
    for (const auto& name : names) {
        for (const auto& value : values) {
            CompareRow row{name, value, {}};
            std::vector<const std::vector<double>*> samples;
            for (const auto* s : series) {
                const auto* v = s == nullptr ? nullptr : find_value(*s, value);
                row.cells.push_back(cell_of(v, name));
                samples.push_back(v == nullptr ? nullptr : samples_of(*v, name));
            }
            for (std::size_t i = 1; i < row.cells.size() && row.cells[0]; ++i) {
                if (row.cells[i]) {
                    against_baseline(*row.cells[i], *row.cells[0], samples[0], samples[i]);
                }
            }
            row.differs = differs(row);
            if (std::any_of(row.cells.begin(), row.cells.end(),
                            [](const auto& c) { return c.has_value(); })) {
                sec.rows.push_back(std::move(row));
            }
        }
    }
    return sec;
}

} // namespace

bool row_shown(const CompareSection& sec, const CompareRow& row, bool all) {
    return all || row.differs || row.metric == sec.metric;
}

CompareTable compare_documents(std::vector<ResultsDocument> files,
                               const std::vector<std::string>& metrics) {
    CompareTable t;
    t.differences = find_differences(files);
    std::size_t sections = 0;
    for (const auto& f : files) {
        sections = std::max(sections, f.series.size());
    }
    for (std::size_t i = 0; i < sections; ++i) {
        t.sections.push_back(section_of(files, i, metrics));
    }
    t.files = std::move(files);
    return t;
}

namespace {

using Json = nlohmann::ordered_json;

// Parameters that describe where a run happened rather than what it measured: the parent
// cgroup differs between machines by design, and an experiment states the kernel and cpus
// among its parameters (the header rows of the table show them).
bool ignored_parameter(const std::string& key) {
    return key == "parent" || key == "parent_from" || key == "kernel" || key == "cpus" ||
           key == "knob" || key == "knobs" ||
           key == "values"; // compared as the series' own knob and values
}

// A parameter added after the first documents, as its default: an older file ran with it.
std::optional<std::string> default_parameter(const std::string& key) {
    if (key == "warmup_runs") {
        return "0";
    }
    if (key == "prepare" || key == "cleanup") {
        return "null";
    }
    return std::nullopt;
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
            const auto of = [&key](const Json& p) {
                return p.contains(key) ? text(p.at(key))
                                       : default_parameter(key).value_or("absent");
            };
            check(fmt::format("{}parameters.{}", prefix, key), of(baseline), of(value));
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
        // Not schema_version: every version is read into the same names and fields.
        c.check("schema", base.schema, f.schema);
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
