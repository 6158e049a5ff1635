#include <algorithm>
#include <memory>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "output/output.h"
#include "output/result_schema.h"
#include "text_util.h"

namespace memcg_statctl {

using CsvOutput = FormatOutput<OutputFormat::csv>;

namespace {

std::string number(double v) {
    return fmt::format("{:.6g}", v);
}

template <typename T>
std::string optional_number(const std::optional<T>& v) {
    return v ? number(static_cast<double>(*v)) : std::string();
}

void line(std::ostream& out, const std::vector<std::string>& cells) {
    std::string s;
    for (std::size_t i = 0; i < cells.size(); ++i) {
        if (i > 0) {
            s += ',';
        }
        s += csv_field(cells[i]);
    }
    out << s << '\n';
}

// A field of a JSON row as a cell: empty for null, integers exact (counters are u64, no
// %g), other numbers as number() does.
std::string json_cell(const Json& v) {
    if (v.is_null()) {
        return "";
    }
    if (v.is_boolean()) {
        return v.get<bool>() ? "true" : "false";
    }
    if (v.is_string()) {
        return v.get<std::string>();
    }
    if (v.is_number_float()) {
        return number(v.get<double>());
    }
    return v.dump();
}

// Non-tabular reports are written in long form: one `name,value` row per datum.
void name_values(std::ostream& out, const NameValues& nv) {
    line(out, {"name", "value"});
    for (const auto& [name, value] : nv) {
        line(out, {name, value});
    }
}

using ReasonValues = std::vector<std::pair<std::string, std::uint64_t>>;

void add_reason(ReasonValues& out, const std::string& prefix, const FlushReason& x) {
    out.emplace_back(prefix + ".requests", x.requests);
    out.emplace_back(prefix + ".performed", x.performed);
    out.emplace_back(prefix + ".skipped", x.skipped());
}

// flush_reasons.CLASS.requests|performed|skipped for every class.
ReasonValues class_values(const FlushReasons& r) {
    ReasonValues out;
    for (const auto& c : r.classes) {
        add_reason(out, "flush_reasons." + c.name, c);
    }
    return out;
}

// The reasons in long form: the class_values(), then
// flush_reasons.caller.FUNCTION.requests|performed|skipped.
ReasonValues reason_values(const FlushReasons& r) {
    auto out = class_values(r);
    for (const auto& c : r.callers) {
        add_reason(out, "flush_reasons.caller." + c.name, c);
    }
    return out;
}

void reason_lines(std::ostream& out, const std::optional<FlushReasons>& r) {
    if (r) {
        for (const auto& [name, value] : reason_values(*r)) {
            line(out, {name, std::to_string(value)});
        }
    }
}

// A sweep row's reasons as columns: its classes only, as the callers differ between values
// and runs (the JSON document has them). An empty object without reasons.
Json class_columns(const std::optional<FlushReasons>& r) {
    Json j = Json::object();
    if (r) {
        for (const auto& [name, value] : class_values(*r)) {
            j[name] = value;
        }
    }
    return j;
}

// The histogram in long form: one `flush_latency.LO-HI,count` line per bucket.
void bucket_lines(std::ostream& out, const std::optional<LatencyHistogram>& h) {
    if (h) {
        for (const auto& b : h->buckets) {
            line(out, {bucket_name(b), std::to_string(b.count)});
        }
    }
}

// stock_attribution.PREFIX.attempts ... .evicted (none where the kernel does not count
// evictions): one line per count.
void stock_count_lines(std::ostream& out, const std::string& prefix, const StockCounts& c) {
    for (const auto& [name, value] : c.named()) {
        if (value) {
            line(out,
                 {fmt::format("stock_attribution.{}.{}", prefix, name), std::to_string(*value)});
        }
    }
}

// The stock by cgroup in long form, while it counts: each cgroup's counts by id (paths may
// hold commas; stats --json has them), `other`, and each cpu's occupancy samples.
void stock_attribution_lines(std::ostream& out, const std::optional<StockAttribution>& a) {
    if (!a || !a->on()) {
        return;
    }
    for (const auto& c : a->cgroups) {
        stock_count_lines(out, fmt::format("cgroup.{}", c.id), c.counts);
    }
    stock_count_lines(out, "other", a->other);
    for (const auto& o : a->occupancy) {
        for (std::size_t k = 0; k < o.samples.size(); ++k) {
            line(out, {fmt::format("stock_attribution.occupancy.cpu{}.{}", o.cpu, k),
                       std::to_string(o.samples[k])});
        }
    }
}

} // namespace

template <>
void CsvOutput::status(const StatusReport& r) {
    line(out_, {"hook", "target", "caller", "mechanism", "state", "hits"});
    for (const auto& h : r.hooks) {
        line(out_, {h.name, h.target, h.caller, h.mechanism, h.state, std::to_string(h.hits)});
    }
}

template <>
void CsvOutput::stats(const StatsReport& r) {
    line(out_, {"name", "value"});
    for (const auto& [name, value] : r.counters.entries()) {
        line(out_, {name, std::to_string(value)});
    }
    for (const auto& d : r.derived) {
        line(out_, {d.name, optional_number(d.value)});
    }
    bucket_lines(out_, r.flush_latency);
    reason_lines(out_, r.flush_reasons);
    stock_attribution_lines(out_, r.stock_attribution);
}

template <>
void CsvOutput::interval(const IntervalReport& r) {
    if (r.index == 1) {
        line(out_, {"interval", "seconds", "name", "delta", "per_second"});
    }
    for (const auto& c : r.rates) {
        line(out_, {std::to_string(r.index), number(r.seconds), c.name, std::to_string(c.delta),
                    optional_number(c.per_second)});
    }
    for (const auto& d : r.derived) {
        line(out_,
             {std::to_string(r.index), number(r.seconds), d.name, "", optional_number(d.value)});
    }
    if (r.flush_latency) {
        for (const auto& b : r.flush_latency->buckets) {
            line(out_, {std::to_string(r.index), number(r.seconds), bucket_name(b),
                        std::to_string(b.count),
                        number(r.seconds > 0 ? static_cast<double>(b.count) / r.seconds : 0.0)});
        }
    }
    if (r.flush_reasons) {
        for (const auto& [name, value] : reason_values(*r.flush_reasons)) {
            line(out_, {std::to_string(r.index), number(r.seconds), name, std::to_string(value),
                        number(r.seconds > 0 ? static_cast<double>(value) / r.seconds : 0.0)});
        }
    }
}

template <>
void CsvOutput::knobs(const KnobReport& r) {
    name_values(out_, r.knobs);
}

template <>
void CsvOutput::run(const RunReport& r) {
    // Long form: the JSON document's result fields, each under its one name.
    line(out_, {"name", "value"});
    const auto& res = r.result;
    line(out_, {"seconds", number(res.seconds)});
    if (res.ops_per_sec) {
        line(out_, {"ops_per_sec", number(*res.ops_per_sec)});
    }
    if (res.metric) {
        line(out_, {"metric", number(*res.metric)});
    }
    if (res.counters) {
        for (const auto& [name, value] : res.counters->entries()) {
            line(out_, {name, std::to_string(value)});
        }
    }
    for (const auto& d : res.derived) {
        line(out_, {d.name, optional_number(d.value)});
    }
    bucket_lines(out_, res.flush_latency);
    reason_lines(out_, res.flush_reasons);
}

template <>
void CsvOutput::comparison(const ComparisonReport& r) {
    // Wide form for spreadsheets: one row per knob value, columns named as the fields of a
    // row of the JSON document (`rows[]`); those of its counters, derived and memory_stat
    // objects by their own names (`flush.requests`, `flushes_per_sec`, `pgfault`: no two
    // alike), its flush_reasons' classes as stats' CSV names them
    // (`flush_reasons.reader.requests`), the union over all rows in first-seen order. `samples` is
    // left out: a list. Each cell is taken from that JSON row (comparison_row_json), so the two
    // formats cannot disagree: a null there (stddev of one run, no statistics without runs, no
    // %change for the baseline) is an empty cell.
    struct Column {
        std::string group; // "" for a field of the row itself
        std::string key;
    };
    std::vector<Column> columns;
    for (const char* field :
         {"value", "n", "mean", "median", "stddev", "percent_change", "p_value", "significant"}) {
        columns.push_back({"", field});
    }
    std::vector<Json> rows;
    rows.reserve(r.rows.size());
    for (const auto& row : r.rows) {
        rows.push_back(comparison_row_json(row));
        rows.back()["flush_reasons"] = class_columns(row.flush_reasons); // flat, as columns
    }
    for (const char* group : {"counters", "derived", "flush_reasons", "memory_stat"}) {
        for (const auto& row : rows) {
            for (const auto& item : row.at(group).items()) {
                const auto& key = item.key(); // not a structured binding: captured below
                const bool seen = std::any_of(columns.begin(), columns.end(), [&](const Column& c) {
                    return c.group == group && c.key == key;
                });
                if (!seen) {
                    columns.push_back({group, key});
                }
            }
        }
    }
    std::vector<std::string> header{"knob"};
    for (const auto& c : columns) {
        header.push_back(c.key);
    }
    line(out_, header);
    for (const auto& row : rows) {
        std::vector<std::string> cells{r.knob};
        for (const auto& c : columns) {
            const auto& parent = c.group.empty() ? row : row.at(c.group);
            cells.push_back(parent.contains(c.key) ? json_cell(parent.at(c.key)) : std::string());
        }
        line(out_, cells);
    }
}

std::unique_ptr<Output> make_csv_output(std::ostream& out) {
    return std::make_unique<CsvOutput>(out);
}

} // namespace memcg_statctl
