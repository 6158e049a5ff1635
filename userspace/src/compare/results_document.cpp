#include "compare/results_document.h"

#include <algorithm>
#include <cerrno>
#include <fstream>
#include <functional>
#include <system_error>

#include <fmt/format.h>

#include "exit_code.h"
#include "experiment/experiment.h"
#include "output/result_schema.h"

namespace memcg_statctl {
namespace {

using Json = nlohmann::ordered_json;

// Field access that names the file and the field's path in every error.
class Reader {
public:
    explicit Reader(const std::string& source) : source_(source) {}

    [[noreturn]] void fail(const std::string& what) const {
        throw ToolError(fmt::format("{}: {}", source_, what));
    }

    const Json& field(const Json& object, const std::string& path, const std::string& key,
                      Json::value_t type) const {
        const auto where = path.empty() ? key : path + "." + key;
        if (!object.is_object() || !object.contains(key)) {
            fail(fmt::format("`{}` is missing (not a memcg-statctl results file?)", where));
        }
        const auto& v = object.at(key);
        const bool number = type == Json::value_t::number_float;
        if (number ? !v.is_number() : v.type() != type) {
            fail(fmt::format("`{}` is {}, not {}", where, v.type_name(),
                             number ? "a number" : Json(type).type_name()));
        }
        return v;
    }

    std::string string(const Json& o, const std::string& path, const std::string& key) const {
        return field(o, path, key, Json::value_t::string).get<std::string>();
    }

    double number(const Json& o, const std::string& path, const std::string& key) const {
        return field(o, path, key, Json::value_t::number_float).get<double>();
    }

    const Json& object(const Json& o, const std::string& path, const std::string& key) const {
        return field(o, path, key, Json::value_t::object);
    }

    const Json& array(const Json& o, const std::string& path, const std::string& key) const {
        return field(o, path, key, Json::value_t::array);
    }

    bool boolean(const Json& o, const std::string& path, const std::string& key) const {
        return field(o, path, key, Json::value_t::boolean).get<bool>();
    }

    // A string, or "" for null (module_version without the module).
    std::string optional_string(const Json& o, const std::string& path,
                                const std::string& key) const {
        if (o.contains(key) && o.at(key).is_null()) {
            return "";
        }
        return string(o, path, key);
    }

    bool old_counter_keys = false; // a version that wrote `flush_requests`

private:
    const std::string& source_;
};

CompareValue& value_named(CompareSeries& s, const std::string& value) {
    const auto it = std::find_if(s.values.begin(), s.values.end(),
                                 [&](const CompareValue& v) { return v.value == value; });
    if (it != s.values.end()) {
        return *it;
    }
    s.values.push_back({value, {}, {}, {}, {}});
    return s.values.back();
}

void add_name(CompareValue& v, const std::string& name, const std::string& group) {
    if (std::find(v.metric_names.begin(), v.metric_names.end(), name) == v.metric_names.end()) {
        v.metric_names.push_back(name);
    }
    if (!group.empty()) {
        v.groups[name] = group;
    }
}

void add_sample(CompareValue& v, const std::string& name, const std::string& group, double sample) {
    add_name(v, name, group);
    v.samples[name].push_back(sample);
}

void add_mean(CompareValue& v, const std::string& name, const std::string& group, double mean) {
    add_name(v, name, group);
    v.means[name] = mean;
}

// A counter's name for its key in a document: older versions wrote `flush_requests` for
// `flush.requests`. A key no known counter gives (a newer module's) stays as it is.
std::string counter_name(const std::string& key, bool old_keys) {
    if (old_keys) {
        for (const auto name : counter_names()) {
            std::string underscored(name);
            std::replace(underscored.begin(), underscored.end(), '.', '_');
            if (underscored == key) {
                return std::string(name);
            }
        }
    }
    return key;
}

using AddNumber = std::function<void(const std::string& name, const std::string& group, double)>;

// A {name: number} object (counters, derived, memory_stat: the `group`); nulls (a ratio over
// zero) are left out.
void add_numbers(const Reader& in, const Json& object, const std::string& path,
                 const std::string& group, const AddNumber& add) {
    if (object.is_null()) {
        return; // counters of a run without the module
    }
    if (!object.is_object()) {
        in.fail(fmt::format("`{}` is {}, not an object", path, object.type_name()));
    }
    for (const auto& [key, v] : object.items()) {
        if (v.is_number()) {
            add(group == "counters" ? counter_name(key, in.old_counter_keys) : key, group,
                v.get<double>());
        } else if (!v.is_null()) {
            in.fail(fmt::format("`{}.{}` is {}, not a number", path, key, v.type_name()));
        }
    }
}

// A `flush_reasons` object (stats --json's shape): each class's requests and performed, as
// flush_reasons.CLASS.requests and .performed of the group flush_reasons. Null or absent
// (no module file, or a file older than the field): nothing.
void add_reasons(const Reader& in, const Json& holder, const std::string& path,
                 const AddNumber& add) {
    if (!holder.contains("flush_reasons") || holder.at("flush_reasons").is_null()) {
        return;
    }
    const auto& reasons = in.object(holder, path, "flush_reasons");
    const auto classes_path = path + ".flush_reasons.classes[]";
    for (const auto& c : in.array(reasons, path + ".flush_reasons", "classes")) {
        const auto name = in.string(c, classes_path, "name");
        for (const char* count : {"requests", "performed"}) {
            add(fmt::format("flush_reasons.{}.{}", name, count), "flush_reasons",
                in.number(c, classes_path, count));
        }
    }
}

// A run's memory.stat deltas summed over its measured cgroups, as the sweep's rows do.
std::map<std::string, double> memory_stat_total(const Reader& in, const Json& result,
                                                const std::string& path) {
    std::map<std::string, double> total;
    for (const auto& m : in.array(result, path, "memory_stat")) {
        add_numbers(
            in, in.object(m, path + ".memory_stat[]", "delta"), path + ".memory_stat[].delta",
            "memory_stat",
            [&](const std::string& name, const std::string&, double v) { total[name] += v; });
    }
    return total;
}

// One run's figures into `v`: `figure` (a field of the run: ops_per_sec, metric, seconds),
// its counters, derived values and memory.stat deltas.
void add_run(const Reader& in, const Json& run, const std::string& path, const std::string& figure,
             CompareValue& v) {
    const auto& f = run.contains(figure) ? run.at(figure) : Json();
    if (!f.is_number()) {
        in.fail(fmt::format("`{}.{}` is not a number", path, figure));
    }
    add_sample(v, figure, "", f.get<double>());
    const auto sample = [&](const std::string& name, const std::string& group, double x) {
        add_sample(v, name, group, x);
    };
    add_numbers(in, run.contains("counters") ? run.at("counters") : Json(), path + ".counters",
                "counters", sample);
    add_numbers(in, in.object(run, path, "derived"), path + ".derived", "derived", sample);
    add_reasons(in, run, path, sample);
    for (const auto& [name, x] : memory_stat_total(in, run, path)) {
        add_sample(v, name, "memory_stat", x);
    }
}

// A run document's figure: what a sweep of the same run compares (the sweep command's choice).
std::string run_figure(const Json& result) {
    if (result.contains("ops_per_sec") && result.at("ops_per_sec").is_number()) {
        return "ops_per_sec";
    }
    if (result.contains("metric") && result.at("metric").is_number()) {
        return "metric";
    }
    return "seconds";
}

CompareSeries run_series(const Reader& in, const Json& doc) {
    CompareSeries s;
    s.workload = in.string(doc, "", "workload");
    s.parameters = in.object(doc, "", "parameters");
    const auto& result = doc.contains("result") ? doc.at("result") : Json();
    if (result.is_null()) {
        const auto by = doc.contains("interrupted_by") && doc.at("interrupted_by").is_string()
                            ? doc.at("interrupted_by").get<std::string>()
                            : std::string("a signal");
        in.fail(fmt::format("the run was interrupted ({}): it has no result to compare", by));
    }
    in.object(doc, "", "result");
    s.metric = run_figure(result);
    s.unit = s.metric == "ops_per_sec" ? "ops/s" : (s.metric == "seconds" ? "s" : "");
    s.values.push_back({});
    add_run(in, result, "result", s.metric, s.values.back());
    return s;
}

CompareSeries sweep_series(const Reader& in, const Json& doc, const std::string& path) {
    CompareSeries s;
    s.workload = in.string(doc, path, "workload");
    s.knob = in.string(doc, path, "knob");
    s.metric = in.string(doc, path, "metric");
    s.unit = in.string(doc, path, "unit");
    s.parameters = in.object(doc, path, "parameters");
    const auto rows_path = path.empty() ? std::string("rows[]") : path + ".rows[]";
    const auto& rows = in.array(doc, path, "rows");
    for (const auto& row : rows) {
        value_named(s, in.string(row, rows_path, "value")); // the file's value order
    }
    const auto& runs = in.array(doc, path, "runs");
    const auto runs_path = path.empty() ? std::string("runs[]") : path + ".runs[]";
    for (const auto& run : runs) {
        add_run(in, run, runs_path, s.metric, value_named(s, in.string(run, runs_path, "value")));
    }
    if (!runs.empty()) {
        return s;
    }
    // Without its runs (an experiment's reports): each row's samples of the figure and the
    // means it states of the rest.
    for (const auto& row : rows) {
        auto& v = value_named(s, row.at("value").get<std::string>());
        for (const auto& x : in.array(row, rows_path, "samples")) {
            if (!x.is_number()) {
                in.fail(
                    fmt::format("`{}.samples` holds {}, not a number", rows_path, x.type_name()));
            }
            add_sample(v, s.metric, "", x.get<double>());
        }
        const auto mean = [&](const std::string& name, const std::string& group, double x) {
            add_mean(v, name, group, x);
        };
        for (const char* key : {"counters", "derived", "memory_stat"}) {
            add_numbers(in, in.object(row, rows_path, key), rows_path + "." + key, key, mean);
        }
        // A row's reasons are its runs' sum: per run, as the other means are.
        add_reasons(in, row, rows_path,
                    [&](const std::string& name, const std::string& group, double x) {
                        const auto n = in.number(row, rows_path, "n");
                        if (n > 0) {
                            add_mean(v, name, group, x / n);
                        }
                    });
    }
    return s;
}

} // namespace

ResultsDocument parse_results_document(const Json& doc, const std::string& source) {
    Reader in(source);
    if (!doc.is_object()) {
        in.fail(fmt::format("the document is {}, not a JSON object", doc.type_name()));
    }
    ResultsDocument d;
    d.source = source;
    d.schema = in.string(doc, "", "schema");
    if (d.schema != "memcg-statctl/run" && d.schema != "memcg-statctl/sweep" &&
        d.schema != "memcg-statctl/experiment") {
        in.fail(fmt::format("schema `{}` is not a results document of run, sweep or "
                            "experiment",
                            d.schema));
    }
    // Experiment version 2 replaced version 1's seed by report_id, which compare does not
    // read; run and sweep version 2 and experiment version 3 renamed the counter keys.
    const bool experiment = d.schema == "memcg-statctl/experiment";
    const int newest = experiment ? experiment_schema_version : result_schema_version;
    const auto& version = in.field(doc, "", "schema_version", Json::value_t::number_float);
    if (!version.is_number_integer() || version.get<int>() < 1 || version.get<int>() > newest) {
        in.fail(fmt::format("schema_version {} is not a version this tool reads ({}){}",
                            version.dump(),
                            newest == 1 ? std::string("1") : fmt::format("1 to {}", newest),
                            version.is_number() && version.get<double>() > newest
                                ? ": a newer memcg-statctl wrote it"
                                : ""));
    }
    d.schema_version = version.get<int>();
    in.old_counter_keys = d.schema_version < (experiment ? 3 : 2);
    const auto& env = in.object(doc, "", "environment");
    d.host = env.contains("host") ? in.string(env, "environment", "host") : "";
    d.kernel = in.string(env, "environment", "kernel");
    d.module_version = in.optional_string(env, "environment", "module_version");
    d.tool_version = in.string(env, "environment", "tool_version");
    d.cpus = static_cast<long>(in.number(env, "environment", "cpus"));
    d.memory_bytes = static_cast<std::uint64_t>(in.number(env, "environment", "memory_bytes"));
    d.complete = in.boolean(doc, "", "complete");
    d.parameters = in.object(doc, "", "parameters");
    if (d.schema == "memcg-statctl/run") {
        d.series.push_back(run_series(in, doc));
    } else if (d.schema == "memcg-statctl/sweep") {
        d.series.push_back(sweep_series(in, doc, ""));
    } else {
        d.experiment = in.string(doc, "", "experiment");
        const auto& reports = in.array(doc, "", "reports");
        for (std::size_t i = 0; i < reports.size(); ++i) {
            d.series.push_back(sweep_series(in, reports[i], fmt::format("reports[{}]", i)));
        }
    }
    if (d.series.empty()) {
        in.fail("the experiment has no reports: it stopped before its first run");
    }
    return d;
}

ResultsDocument read_results_document(const std::filesystem::path& file) {
    std::ifstream in(file);
    if (!in) {
        const auto reason = std::generic_category().message(errno);
        throw ToolError(fmt::format("{}: cannot read the file ({})", file.string(), reason));
    }
    Json doc;
    try {
        doc = Json::parse(in);
    } catch (const Json::parse_error& e) {
        throw ToolError(fmt::format("{}: not JSON ({})", file.string(), e.what()));
    }
    return parse_results_document(doc, file.string());
}

} // namespace memcg_statctl
