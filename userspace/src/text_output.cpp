#include "text_output.h"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "text_table.h"

namespace memcg_statctl {
namespace {

using Align = TextTable::Align;

std::string number(double v) {
    return fmt::format("{:.2f}", v);
}

std::string derived_value(const DerivedValue& d) {
    return d.value ? fmt::format("{:.2f} {}", *d.value, d.unit) : std::string("-");
}

void print_derived(std::ostream& out, const std::vector<DerivedValue>& derived) {
    if (derived.empty()) {
        return;
    }
    TextTable t({Align::left, Align::right});
    t.row({"DERIVED", "VALUE"});
    for (const auto& d : derived) {
        t.row({d.name, derived_value(d)});
    }
    t.print(out);
}

void print_counters(std::ostream& out, const Counters& counters, const std::string& heading) {
    TextTable t({Align::left, Align::right});
    t.row({"COUNTER", heading});
    for (const auto& [name, value] : counters.entries()) {
        t.row({name, std::to_string(value)});
    }
    t.print(out);
}

std::string signed_percent(const std::optional<double>& pct) {
    return pct ? fmt::format("{:+.2f}%", *pct) : std::string("-");
}

} // namespace

void TextOutput::status(const StatusReport& r) {
    if (r.availability != Availability::available) {
        fmt::print(out_, "memcg_statctl: {}\n", r.message);
        return;
    }
    fmt::print(out_, "memcg_statctl: loaded ({})\n", r.root.string());
    TextTable version({Align::left, Align::left});
    for (const auto& [key, value] : r.version.entries) {
        version.row({key, value});
    }
    version.print(out_, "  ");
    fmt::print(out_, "hooks:\n");
    TextTable hooks(
        {Align::left, Align::left, Align::left, Align::left, Align::left, Align::right});
    hooks.row({"NAME", "TARGET", "CALLER", "MECHANISM", "STATE", "HITS"});
    for (const auto& h : r.hooks) {
        hooks.row({h.name, h.target, h.caller, h.mechanism, h.state, std::to_string(h.hits)});
    }
    hooks.print(out_, "  ");
    if (!r.knobs.empty()) {
        fmt::print(out_, "knobs:\n");
        TextTable knobs({Align::left, Align::left});
        for (const auto& [name, value] : r.knobs) {
            knobs.row({name, value});
        }
        knobs.print(out_, "  ");
    }
}

void TextOutput::stats(const StatsReport& r) {
    print_counters(out_, r.counters, "VALUE");
    print_derived(out_, r.derived);
}

void TextOutput::interval(const IntervalReport& r) {
    // BCC funccount -i style: a header per interval, then the rate table.
    fmt::print(out_, "[interval {}: {:.2f} s]\n", r.index, r.seconds);
    TextTable t({Align::left, Align::right, Align::right});
    t.row({"COUNTER", "DELTA", "PER-SEC"});
    for (const auto& c : r.rates) {
        t.row({c.name, std::to_string(c.delta), number(c.per_second)});
    }
    t.print(out_);
    print_derived(out_, r.derived);
    out_ << '\n';
}

void TextOutput::knobs(const KnobReport& r) {
    TextTable t({Align::left, Align::left});
    for (const auto& [name, value] : r.knobs) {
        t.row({name, value});
    }
    t.print(out_);
}

void TextOutput::run(const RunReport& r) {
    std::string params;
    for (const auto& [name, value] : r.parameters) {
        params += fmt::format(" {}={}", name, value);
    }
    fmt::print(out_, "workload {}:{} ({:.2f} s)\n", r.workload, params, r.seconds);
    TextTable tasks({Align::left, Align::right});
    tasks.row({"TASK", "OPS/S"});
    for (std::size_t i = 0; i < r.task_ops_per_sec.size(); ++i) {
        tasks.row({std::to_string(i), number(r.task_ops_per_sec[i])});
    }
    tasks.row({"total", number(r.total_ops_per_sec)});
    tasks.print(out_);
    if (r.counter_deltas) {
        print_counters(out_, *r.counter_deltas, "DELTA");
        print_derived(out_, r.derived);
    } else {
        fmt::print(out_, "(module not loaded: no counter deltas)\n");
    }
}

void TextOutput::comparison(const ComparisonReport& r) {
    // mmtests compare-kernels shape: one row per configuration, %change vs the first one,
    // '*' when Welch's t-test finds the difference significant at 95%.
    const auto runs = r.rows.empty() ? 0 : r.rows.front().summary.n;
    fmt::print(out_, "{} {} by {} ({} runs per value)\n", r.workload, r.metric, r.knob, runs);
    TextTable t({Align::left, Align::right, Align::right, Align::right, Align::right, Align::left});
    t.row({r.knob, "mean", "median", "stddev", "%change", "sig"});
    for (const auto& row : r.rows) {
        t.row({row.value, number(row.summary.mean), number(row.summary.median),
               number(row.summary.stddev), signed_percent(row.percent_change),
               row.significant ? "*" : ""});
    }
    t.print(out_);

    // Counter deltas per run (mean over runs), one column per knob value.
    std::vector<std::string> names;
    for (const auto& row : r.rows) {
        for (const auto& [name, value] : row.mean_counter_deltas.entries()) {
            if (std::find(names.begin(), names.end(), name) == names.end()) {
                names.push_back(name);
            }
        }
        for (const auto& d : row.derived) {
            if (std::find(names.begin(), names.end(), d.name) == names.end()) {
                names.push_back(d.name);
            }
        }
    }
    if (names.empty()) {
        return;
    }
    fmt::print(out_, "\nmodule counters per run (mean)\n");
    std::vector<Align> aligns(r.rows.size() + 1, Align::right);
    aligns[0] = Align::left;
    TextTable c(aligns);
    std::vector<std::string> header{r.knob};
    for (const auto& row : r.rows) {
        header.push_back(row.value);
    }
    c.row(header);
    for (const auto& name : names) {
        std::vector<std::string> cells{name};
        for (const auto& row : r.rows) {
            std::string cell = "-";
            if (const auto v = row.mean_counter_deltas.get(name)) {
                cell = std::to_string(*v);
            }
            for (const auto& d : row.derived) {
                if (d.name == name) {
                    cell = derived_value(d);
                }
            }
            cells.push_back(cell);
        }
        c.row(cells);
    }
    c.print(out_);
}

} // namespace memcg_statctl
