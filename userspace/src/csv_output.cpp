#include "csv_output.h"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ostream.h>

namespace memcg_statctl {
namespace {

// RFC 4180: quote a field holding a comma, quote or newline; double inner quotes.
std::string field(const std::string& s) {
    if (s.find_first_of(",\"\n") == std::string::npos) {
        return s;
    }
    std::string q = "\"";
    for (const char c : s) {
        q += c;
        if (c == '"') {
            q += '"';
        }
    }
    return q + "\"";
}

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
        s += field(cells[i]);
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
    line(out_, {"task", "ops_per_sec"});
    for (std::size_t i = 0; i < r.task_ops_per_sec.size(); ++i) {
        line(out_, {std::to_string(i), number(r.task_ops_per_sec[i])});
    }
    line(out_, {"total", number(r.total_ops_per_sec)});
}

void CsvOutput::comparison(const ComparisonReport& r) {
    // Wide form for spreadsheets: fixed statistics columns, then one column per counter
    // (union over all rows, first-seen order) and per derived value.
    std::vector<std::string> counters;
    std::vector<std::string> derived;
    for (const auto& row : r.rows) {
        for (const auto& [name, value] : row.mean_counter_deltas.entries()) {
            if (std::find(counters.begin(), counters.end(), name) == counters.end()) {
                counters.push_back(name);
            }
        }
        for (const auto& d : row.derived) {
            if (std::find(derived.begin(), derived.end(), d.name) == derived.end()) {
                derived.push_back(d.name);
            }
        }
    }
    std::vector<std::string> header{"knob",   "value",      "runs",    "mean",       "median",
                                    "stddev", "pct_change", "p_value", "significant"};
    header.insert(header.end(), counters.begin(), counters.end());
    header.insert(header.end(), derived.begin(), derived.end());
    line(out_, header);
    for (const auto& row : r.rows) {
        std::vector<std::string> cells{r.knob,
                                       row.value,
                                       std::to_string(row.summary.n),
                                       number(row.summary.mean),
                                       number(row.summary.median),
                                       number(row.summary.stddev),
                                       optional_number(row.percent_change),
                                       optional_number(row.p_value),
                                       row.significant ? "1" : "0"};
        for (const auto& name : counters) {
            const auto v = row.mean_counter_deltas.get(name);
            cells.push_back(v ? std::to_string(*v) : std::string()); // exact u64, no %g
        }
        for (const auto& name : derived) {
            const auto it = std::find_if(row.derived.begin(), row.derived.end(),
                                         [&](const DerivedValue& d) { return d.name == name; });
            cells.push_back(it == row.derived.end() ? "" : optional_number(it->value));
        }
        line(out_, cells);
    }
}

} // namespace memcg_statctl
