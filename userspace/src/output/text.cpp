#include <algorithm>
#include <functional>
#include <map>
#include <memory>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "output/histogram_text.h"
#include "output/output.h"

namespace memcg_statctl {

using TextOutput = FormatOutput<OutputFormat::text>;

namespace {

using Align = TextTable::Align;

std::string number(double v) {
    return fmt::format("{:.2f}", v);
}

std::string derived_text(const DerivedValue& d) {
    return d.value ? fmt::format("{:.2f} {}", *d.value, d.unit) : std::string("-");
}

void print_derived(std::ostream& out, const std::vector<DerivedValue>& derived) {
    if (derived.empty()) {
        return;
    }
    TextTable t({Align::left, Align::right});
    t.row({"DERIVED", "VALUE"});
    for (const auto& d : derived) {
        t.row({d.name, derived_text(d)});
    }
    t.print(out);
}

bool any_requests(const FlushReasons& r) {
    return std::any_of(r.classes.begin(), r.classes.end(),
                       [](const auto& c) { return c.requests > 0; });
}

// The classes that asked (all of them when none did), then the callers that asked, most
// first, at most ten: which requesters the flush policy turned away (SKIPPED).
void print_reasons(std::ostream& out, const FlushReasons& r) {
    constexpr std::size_t max_callers = 10;
    const bool any = any_requests(r);
    TextTable t({Align::left, Align::right, Align::right, Align::right});
    t.row({"FLUSH REQUESTS BY", "REQUESTS", "PERFORMED", "SKIPPED"});
    for (const auto& c : r.classes) {
        if (!any || c.requests > 0) {
            t.row({c.name, std::to_string(c.requests), std::to_string(c.performed),
                   std::to_string(c.skipped())});
        }
    }
    for (std::size_t i = 0; i < r.callers.size() && i < max_callers; ++i) {
        const auto& c = r.callers[i];
        t.row({fmt::format("  {} ({})", c.name, c.klass), std::to_string(c.requests),
               std::to_string(c.performed), std::to_string(c.skipped())});
    }
    t.print(out);
    if (r.callers.size() > max_callers) {
        fmt::print(out, "  ... {} more callers (--json lists all)\n",
                   r.callers.size() - max_callers);
    }
}

std::string count_or_dash(const std::optional<std::uint64_t>& v) {
    return v ? std::to_string(*v) : std::string("-");
}

// The cgroups with the most charge stock misses (at most ten), then `other`; then each cpu's
// stock occupancy as bars (7.x). One line saying why when it is not counted.
void print_stock_attribution(std::ostream& out, const StockAttribution& a,
                             const std::map<std::uint64_t, std::string>& paths) {
    constexpr std::size_t max_cgroups = 10;
    if (a.state == StockAttributionState::off) {
        fmt::print(out, "charge stock by cgroup: not counted (memcg-statctl set {} 1)\n",
                   stock_attribution_knob);
        return;
    }
    if (a.state == StockAttributionState::missing) {
        fmt::print(out, "charge stock by cgroup: not available on this kernel (the kernel log "
                        "says why)\n");
        return;
    }
    auto cgroups = a.cgroups;
    std::stable_sort(cgroups.begin(), cgroups.end(), [](const auto& x, const auto& y) {
        return x.counts.misses > y.counts.misses;
    });
    const auto counts = [](std::vector<std::string> cells, const StockCounts& c) {
        for (const auto v : {c.attempts, c.misses, c.refills, c.drains, c.obj_misses}) {
            cells.push_back(std::to_string(v));
        }
        cells.push_back(count_or_dash(c.evicted));
        return cells;
    };
    TextTable t({Align::left, Align::right, Align::right, Align::right, Align::right, Align::right,
                 Align::right, Align::left});
    t.row({"STOCK BY CGROUP", "ATTEMPTS", "MISSES", "REFILLS", "DRAINS", "OBJ_MISSES", "EVICTED",
           "PATH"});
    for (std::size_t i = 0; i < cgroups.size() && i < max_cgroups; ++i) {
        const auto it = paths.find(cgroups[i].id);
        auto cells = counts({std::to_string(cgroups[i].id)}, cgroups[i].counts);
        cells.push_back(it != paths.end() ? it->second : std::string("-"));
        t.row(std::move(cells));
    }
    t.row(counts({"other"}, a.other));
    t.print(out);
    if (cgroups.size() > max_cgroups) {
        fmt::print(out, "  ... {} more cgroups (--json lists all)\n", cgroups.size() - max_cgroups);
    }
    if (a.occupancy.empty()) {
        return;
    }
    fmt::print(out, "charge stock occupancy (memcgs in a cpu's stock, sampled every 100 ms):\n");
    for (const auto& o : a.occupancy) {
        const auto mean = o.mean();
        if (!mean) {
            fmt::print(out, "cpu {}: no samples yet\n", o.cpu);
            continue;
        }
        fmt::print(out, "cpu {}: {} samples, mean {:.2f} memcgs\n", o.cpu, o.total(), *mean);
        // From 0 memcgs to the most that were seen.
        std::vector<std::pair<std::string, std::uint64_t>> rows;
        for (std::size_t k = 0; k < o.samples.size(); ++k) {
            rows.emplace_back(std::to_string(k), o.samples[k]);
        }
        while (!rows.empty() && rows.back().second == 0) {
            rows.pop_back();
        }
        out << labelled_bars(rows, 30);
    }
}

void print_counters(std::ostream& out, const Counters& counters, const std::string& heading) {
    TextTable t({Align::left, Align::right});
    t.row({"COUNTER", heading});
    for (const auto& [name, value] : counters.entries()) {
        t.row({name, std::to_string(value)});
    }
    t.print(out);
}

// A table with one row per name and one column per knob value; `cell` gives a row's
// value for a name ("-" when it has none).
void print_per_value(
    std::ostream& out, const std::string& title, const ComparisonReport& r,
    const std::vector<std::string>& names,
    const std::function<std::string(const ComparisonRow&, const std::string&)>& cell) {
    if (names.empty()) {
        return;
    }
    fmt::print(out, "\n{}\n", title);
    std::vector<Align> aligns(r.rows.size() + 1, Align::right);
    aligns[0] = Align::left;
    TextTable t(aligns);
    std::vector<std::string> header{r.knob};
    for (const auto& row : r.rows) {
        header.push_back(row.value);
    }
    t.row(header);
    for (const auto& name : names) {
        std::vector<std::string> cells{name};
        for (const auto& row : r.rows) {
            cells.push_back(cell(row, name));
        }
        t.row(cells);
    }
    t.print(out);
}

void add_name(std::vector<std::string>& names, const std::string& name) {
    if (std::find(names.begin(), names.end(), name) == names.end()) {
        names.push_back(name);
    }
}

// memory.stat deltas of the measured cgroups per run (mean), one column per knob value.
void print_memory_stat_rows(std::ostream& out, const ComparisonReport& r) {
    std::vector<std::string> names;
    for (const auto& row : r.rows) {
        for (const auto& entry : row.mean_memory_stat) {
            add_name(names, entry.first);
        }
    }
    print_per_value(out, "memory.stat of the measured cgroups per run (mean)", r, names,
                    [](const ComparisonRow& row, const std::string& name) {
                        for (const auto& [n, v] : row.mean_memory_stat) {
                            if (n == name) {
                                return std::to_string(v);
                            }
                        }
                        return std::string("-");
                    });
}

// The classes that asked in any row, "requests/performed" summed over each value's runs:
// the policy's effect on who flushes, beside the counters' means.
void print_reason_rows(std::ostream& out, const ComparisonReport& r) {
    std::vector<std::string> names;
    for (const auto& row : r.rows) {
        if (row.flush_reasons) {
            for (const auto& c : row.flush_reasons->classes) {
                if (c.requests > 0) {
                    add_name(names, c.name);
                }
            }
        }
    }
    print_per_value(out, "flush requests by class, requests/performed (sum over runs)", r, names,
                    [](const ComparisonRow& row, const std::string& name) {
                        if (row.flush_reasons) {
                            for (const auto& c : row.flush_reasons->classes) {
                                if (c.name == name) {
                                    return fmt::format("{}/{}", c.requests, c.performed);
                                }
                            }
                        }
                        return std::string("-");
                    });
}

std::string signed_percent(const std::optional<double>& pct) {
    return pct ? fmt::format("{:+.2f}%", *pct) : std::string("-");
}

} // namespace

template <>
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

template <>
void TextOutput::stats(const StatsReport& r) {
    print_counters(out_, r.counters, "VALUE");
    print_derived(out_, r.derived);
    if (r.flush_reasons) {
        print_reasons(out_, *r.flush_reasons);
    }
    if (r.flush_latency) {
        out_ << latency_text(*r.flush_latency);
    }
    if (r.stock_attribution) {
        print_stock_attribution(out_, *r.stock_attribution, r.cgroup_paths);
    }
}

template <>
void TextOutput::interval(const IntervalReport& r) {
    // BCC funccount -i style: a header per interval, then the rate table.
    fmt::print(out_, "[interval {}: {:.2f} s]\n", r.index, r.seconds);
    TextTable t({Align::left, Align::right, Align::right});
    t.row({"COUNTER", "DELTA", "PER-SEC"});
    for (const auto& c : r.rates) {
        t.row({c.name, std::to_string(c.delta),
               c.per_second ? number(*c.per_second) : std::string("(max)")});
    }
    t.print(out_);
    print_derived(out_, r.derived);
    if (r.flush_reasons) {
        print_reasons(out_, *r.flush_reasons);
    }
    if (r.flush_latency) {
        out_ << latency_text(*r.flush_latency);
    }
    out_ << '\n';
}

template <>
void TextOutput::knobs(const KnobReport& r) {
    TextTable t({Align::left, Align::left});
    for (const auto& [name, value] : r.knobs) {
        t.row({name, value});
    }
    t.print(out_);
}

template <>
void TextOutput::run(const RunReport& r) {
    std::string params;
    for (const auto& [name, value] : r.parameters.items()) {
        if (name != "command" && !value.is_null()) {
            params += fmt::format(" {}={}", name,
                                  value.is_string() ? value.get<std::string>() : value.dump());
        }
    }
    const auto& res = r.result;
    if (r.workload == "command") {
        std::string argv;
        for (const auto& a : r.parameters["command"]) {
            if (!argv.empty()) {
                argv += ' ';
            }
            argv += a.get<std::string>();
        }
        fmt::print(out_, "command `{}`:{} ({:.2f} s)\n", argv, params, res.seconds);
        TextTable copies({Align::left, Align::right});
        copies.row({"COPY", "EXIT"});
        for (std::size_t i = 0; i < res.exit_statuses.size(); ++i) {
            copies.row({std::to_string(i), std::to_string(res.exit_statuses[i])});
        }
        copies.print(out_);
        if (res.stopped_at_duration) {
            fmt::print(out_, "(terminated at --duration)\n");
        }
        if (!r.parameters["metric"].is_null()) {
            fmt::print(out_, "metric: {}\n",
                       res.metric ? fmt::format("{:g}", *res.metric) : std::string("-"));
        }
    } else if (res.ops_per_sec) {
        fmt::print(out_, "workload {}:{} ({:.2f} s)\n", r.workload, params, res.seconds);
        TextTable tasks({Align::left, Align::right});
        tasks.row({"TASK", "ops_per_sec (ops/s)"});
        for (std::size_t i = 0; i < res.task_ops_per_sec.size(); ++i) {
            tasks.row({std::to_string(i), number(res.task_ops_per_sec[i])});
        }
        tasks.row({"total", number(*res.ops_per_sec)});
        tasks.print(out_);
    } else {
        fmt::print(out_, "observed {}:{} ({:.2f} s)\n", r.workload, params, res.seconds);
    }
    if (res.counters) {
        fmt::print(out_, "module counters (system-wide, all cgroups):\n");
        print_counters(out_, *res.counters, "DELTA");
        print_derived(out_, res.derived);
        if (res.flush_reasons && any_requests(*res.flush_reasons)) {
            print_reasons(out_, *res.flush_reasons);
        }
        if (res.flush_latency) {
            out_ << latency_text(*res.flush_latency);
        }
    } else {
        fmt::print(out_, "(module not loaded: no counter deltas)\n");
    }
    for (const auto& m : res.memory_stat) {
        fmt::print(out_, "memory.stat of {}:\n", m.cgroup);
        TextTable t({Align::left, Align::right});
        t.row({"FIELD", "DELTA"});
        for (const auto& [name, value] : m.delta) {
            t.row({name, std::to_string(value)});
        }
        t.print(out_);
    }
}

template <>
void TextOutput::comparison(const ComparisonReport& r) {
    // mmtests compare-kernels shape: one row per configuration, %change vs the first one,
    // '*' when Welch's t-test finds the difference significant at 95%.
    std::size_t runs = 0;
    for (const auto& row : r.rows) {
        runs = std::max(runs, row.summary.n);
    }
    const auto unit = r.unit.empty() ? r.metric : fmt::format("{} ({})", r.metric, r.unit);
    fmt::print(out_, "{} {} by {} ({} runs per value{})\n", r.workload, unit, r.knob, runs,
               r.complete ? "" : ", stopped before the end");
    TextTable t({Align::left, Align::right, Align::right, Align::right, Align::right, Align::right,
                 Align::left});
    // The columns' unit in the header: the unit, or a metric that is its own (faults/s).
    t.row({r.knob, "n", fmt::format("mean {}", r.unit.empty() ? r.metric : r.unit), "median",
           "stddev", "%change", "sig"});
    for (const auto& row : r.rows) {
        if (row.summary.n == 0) {
            t.row({row.value, "0", "-", "-", "-", "-", ""});
            continue;
        }
        t.row({row.value, std::to_string(row.summary.n), number(row.summary.mean),
               number(row.summary.median), number(row.summary.stddev),
               signed_percent(row.percent_change), row.significant ? "*" : ""});
    }
    t.print(out_);
    if (!r.rows.empty()) {
        const auto& first = r.rows.front().value;
        if (runs < 2) {
            fmt::print(out_,
                       "sig: empty, as Welch's t-test needs 2 runs or more per value (--runs)\n");
        } else {
            fmt::print(out_,
                       "sig: * where Welch's t-test finds the mean differs from {}'s (p < 0.05); "
                       "empty where it does\n     not, or where a value has fewer than 2 runs "
                       "(no test)\n",
                       first);
        }
    }

    // Counter deltas per run (mean over runs), one column per knob value.
    std::vector<std::string> names;
    for (const auto& row : r.rows) {
        for (const auto& entry : row.mean_counter_deltas.entries()) {
            add_name(names, entry.first);
        }
        for (const auto& d : row.derived) {
            add_name(names, d.name);
        }
    }
    print_per_value(out_, "module counters per run (mean; system-wide)", r, names,
                    [](const ComparisonRow& row, const std::string& name) {
                        if (const auto v = row.mean_counter_deltas.get(name)) {
                            return std::to_string(*v);
                        }
                        for (const auto& d : row.derived) {
                            if (d.name == name) {
                                return derived_text(d);
                            }
                        }
                        return std::string("-");
                    });
    print_reason_rows(out_, r);
    print_memory_stat_rows(out_, r);
}

std::unique_ptr<Output> make_text_output(std::ostream& out) {
    return std::make_unique<TextOutput>(out);
}

namespace {

// The columns a cell takes on a terminal: its UTF-8 characters (`±`, `Δ` are two bytes each),
// not its bytes.
std::size_t display_width(const std::string& s) {
    return static_cast<std::size_t>(std::count_if(s.begin(), s.end(), [](char c) {
        return (static_cast<unsigned char>(c) & 0xC0U) != 0x80U;
    }));
}

} // namespace

void TextTable::print(std::ostream& out, const std::string& indent) const {
    std::vector<std::size_t> widths(aligns_.size(), 0);
    for (const auto& r : rows_) {
        for (std::size_t c = 0; c < r.size() && c < widths.size(); ++c) {
            widths[c] = std::max(widths[c], display_width(r[c]));
        }
    }
    for (const auto& r : rows_) {
        std::string line = indent;
        for (std::size_t c = 0; c < r.size() && c < widths.size(); ++c) {
            const auto pad = std::string(widths[c] - display_width(r[c]), ' ');
            if (c > 0) {
                line += "  ";
            }
            line += aligns_[c] == Align::left ? r[c] + pad : pad + r[c];
        }
        line.erase(line.find_last_not_of(' ') + 1);
        out << line << '\n';
    }
}

} // namespace memcg_statctl
