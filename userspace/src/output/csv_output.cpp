#include "output/csv_output.h"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "memcg_statctl/output/result_schema.h"
#include "memcg_statctl/text_util.h"

namespace memcg_statctl {
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

// Non-tabular reports are written in long form: one `name,value` row per datum.
void name_values(std::ostream& out, const NameValues& nv) {
    line(out, {"name", "value"});
    for (const auto& [name, value] : nv) {
        line(out, {name, value});
    }
}

} // namespace

void CsvOutput::status(const StatusReport& r) {
    line(out_, {"hook", "target", "caller", "mechanism", "state", "hits"});
    for (const auto& h : r.hooks) {
        line(out_, {h.name, h.target, h.caller, h.mechanism, h.state, std::to_string(h.hits)});
    }
}

void CsvOutput::stats(const StatsReport& r) {
    line(out_, {"name", "value"});
    for (const auto& [name, value] : r.counters.entries()) {
        line(out_, {name, std::to_string(value)});
    }
    for (const auto& d : r.derived) {
        line(out_, {d.name, optional_number(d.value)});
    }
}

void CsvOutput::interval(const IntervalReport& r) {
    if (r.index == 1) {
        line(out_, {"interval", "seconds", "name", "delta", "per_second"});
    }
    for (const auto& c : r.rates) {
        line(out_, {std::to_string(r.index), number(r.seconds), c.name, std::to_string(c.delta),
                    number(c.per_second)});
    }
    for (const auto& d : r.derived) {
        line(out_,
             {std::to_string(r.index), number(r.seconds), d.name, "", optional_number(d.value)});
    }
}

void CsvOutput::knobs(const KnobReport& r) {
    name_values(out_, r.knobs);
}

void CsvOutput::run(const RunReport& r) {
    // Long form, the JSON document's result fields by path.
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
            line(out_, {"counters." + json_key(name), std::to_string(value)});
        }
    }
    for (const auto& d : res.derived) {
        line(out_, {"derived." + json_key(d.name), optional_number(d.value)});
    }
}

void CsvOutput::comparison(const ComparisonReport& r) {
    // Wide form for spreadsheets: one row per knob value, columns named as the fields of a
    // row of the JSON document (`rows[]`), nested ones by path: `counters.flush_requests`,
    // `derived.flushes_per_sec`, `memory_stat.pgfault` (union over all rows, first-seen
    // order). `samples` is left out: it is a list.
    std::vector<std::string> counters;
    std::vector<std::string> derived;
    std::vector<std::string> memory;
    const auto add = [](std::vector<std::string>& v, const std::string& name) {
        if (std::find(v.begin(), v.end(), name) == v.end()) {
            v.push_back(name);
        }
    };
    for (const auto& row : r.rows) {
        for (const auto& [name, value] : row.mean_counter_deltas.entries()) {
            add(counters, name);
        }
        for (const auto& d : row.derived) {
            add(derived, d.name);
        }
        for (const auto& [name, value] : row.mean_memory_stat) {
            add(memory, name);
        }
    }
    std::vector<std::string> header{"knob",   "value",          "n",       "mean",       "median",
                                    "stddev", "percent_change", "p_value", "significant"};
    for (const auto& name : counters) {
        header.push_back("counters." + json_key(name));
    }
    for (const auto& name : derived) {
        header.push_back("derived." + json_key(name));
    }
    for (const auto& name : memory) {
        header.push_back("memory_stat." + name);
    }
    line(out_, header);
    for (const auto& row : r.rows) {
        const bool none = row.summary.n == 0;
        std::vector<std::string> cells{r.knob,
                                       row.value,
                                       std::to_string(row.summary.n),
                                       none ? "" : number(row.summary.mean),
                                       none ? "" : number(row.summary.median),
                                       none ? "" : number(row.summary.stddev),
                                       optional_number(row.percent_change),
                                       optional_number(row.p_value),
                                       row.significant ? "true" : "false"};
        for (const auto& name : counters) {
            const auto v = row.mean_counter_deltas.get(name);
            cells.push_back(v ? std::to_string(*v) : std::string()); // exact u64, no %g
        }
        for (const auto& name : derived) {
            const auto it = std::find_if(row.derived.begin(), row.derived.end(),
                                         [&](const DerivedValue& d) { return d.name == name; });
            cells.push_back(it == row.derived.end() ? "" : optional_number(it->value));
        }
        for (const auto& name : memory) {
            std::string cell;
            for (const auto& [n, v] : row.mean_memory_stat) {
                if (n == name) {
                    cell = std::to_string(v);
                }
            }
            cells.push_back(cell);
        }
        line(out_, cells);
    }
}

} // namespace memcg_statctl
