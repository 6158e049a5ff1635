#include "run/sweep.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>

#include <fmt/format.h>

#include "debugfs/counters.h"
#include "exit_code.h"
#include "text_util.h"

namespace memcg_statctl {

std::vector<SweepStep> sweep_order(std::size_t values, int runs) {
    std::vector<SweepStep> order;
    for (int r = 0; r < runs; ++r) {
        for (std::size_t v = 0; v < values; ++v) {
            order.push_back({r, v});
        }
    }
    return order;
}

std::vector<std::string> parse_sweep_values(const std::string& list) {
    auto values = split_commas(list);
    for (auto it = values.begin(); it != values.end(); ++it) {
        if (trim(*it).empty()) {
            throw ToolError(ExitCode::usage, fmt::format("--values \"{}\": empty item", list));
        }
        *it = std::string(trim(*it));
        if (std::find(values.begin(), it, *it) != it) {
            throw ToolError(ExitCode::usage,
                            fmt::format("--values \"{}\": `{}` given twice", list, *it));
        }
    }
    return values;
}

std::vector<KnobValues> pair_knob_values(const std::vector<std::string>& knobs,
                                         const std::vector<std::string>& value_lists) {
    if (knobs.size() != value_lists.size()) {
        throw ToolError(ExitCode::usage,
                        fmt::format("give one --values after each --knob (got {} --knob and {} "
                                    "--values)",
                                    knobs.size(), value_lists.size()));
    }
    std::vector<KnobValues> pairs;
    for (std::size_t i = 0; i < knobs.size(); ++i) {
        for (std::size_t j = 0; j < i; ++j) {
            if (knobs[j] == knobs[i]) {
                throw ToolError(ExitCode::usage, fmt::format("--knob {} given twice", knobs[i]));
            }
        }
        pairs.push_back({knobs[i], parse_sweep_values(value_lists[i])});
    }
    return pairs;
}

std::vector<std::vector<std::string>> knob_combinations(const std::vector<KnobValues>& knobs) {
    std::vector<std::vector<std::string>> combinations{{}};
    for (const auto& k : knobs) {
        std::vector<std::vector<std::string>> longer;
        for (const auto& c : combinations) {
            for (const auto& v : k.values) {
                longer.push_back(c);
                longer.back().push_back(v);
            }
        }
        combinations = std::move(longer);
    }
    return knobs.empty() ? std::vector<std::vector<std::string>>{} : combinations;
}

std::string setting_name(const std::vector<KnobValues>& knobs,
                         const std::vector<std::string>& combination) {
    std::string s;
    for (std::size_t i = 0; i < knobs.size() && i < combination.size(); ++i) {
        s += fmt::format("{}{}={}", i == 0 ? "" : " ", knobs[i].knob, combination[i]);
    }
    return s;
}

std::string row_value(const std::vector<KnobValues>& knobs,
                      const std::vector<std::string>& combination) {
    return knobs.size() == 1 ? combination.at(0) : setting_name(knobs, combination);
}

std::string knobs_label(const std::vector<KnobValues>& knobs) {
    std::vector<std::string> names;
    names.reserve(knobs.size());
    for (const auto& k : knobs) {
        names.push_back(k.knob);
    }
    return fmt::format("{}", fmt::join(names, ","));
}

KnobRestorer::KnobRestorer(const DebugfsClient& client, std::string knob)
    : client_(client), knob_(std::move(knob)), original_(client.read_knob(knob_)) {}

KnobRestorer::~KnobRestorer() {
    if (client_.availability() == Availability::module_not_loaded) {
        return; // the knob went with the module; a new load starts from its parameters
    }
    try {
        client_.write_knob(knob_, original_);
    } catch (const std::exception& e) {
        // stdio, not fmt/iostreams: a destructor must not throw.
        (void)std::fprintf(stderr, "memcg-statctl: warning: could not restore %s to \"%s\": %s\n",
                           knob_.c_str(), original_.c_str(), e.what());
    } catch (...) {
        (void)std::fprintf(stderr, "memcg-statctl: warning: could not restore %s\n", knob_.c_str());
    }
}

namespace {

// Sum of the runs' deltas for counters present in every run (a counter missing in one run
// cannot be averaged honestly).
Counters sum_counters(const std::vector<Counters>& runs) {
    Counters total;
    if (runs.empty()) {
        return total;
    }
    for (const auto& [name, value] : runs.front().entries()) {
        std::uint64_t sum = 0;
        bool everywhere = true;
        for (const auto& run : runs) {
            const auto v = run.get(name);
            everywhere = everywhere && v.has_value();
            sum += v.value_or(0);
        }
        if (everywhere) {
            total.add(name, sum);
        }
    }
    return total;
}

Counters divide_rounded(const Counters& c, std::size_t n) {
    Counters out;
    for (const auto& [name, value] : c.entries()) {
        out.add(name, static_cast<std::uint64_t>(
                          std::llround(static_cast<double>(value) / static_cast<double>(n))));
    }
    return out;
}

} // namespace

ComparisonReport compare(const std::string& knob, const std::string& workload,
                         const std::vector<ValueRuns>& values) {
    ComparisonReport report;
    report.knob = knob;
    report.workload = workload;
    for (const auto& v : values) {
        ComparisonRow row;
        row.value = v.value;
        row.samples = v.samples;
        row.summary = summarize(v.samples);
        if (!report.rows.empty() && !v.samples.empty() && !report.rows.front().samples.empty()) {
            const auto& base = report.rows.front();
            row.percent_change = percent_change(base.summary.mean, row.summary.mean);
            if (const auto w = welch_t_test(base.samples, row.samples)) {
                row.p_value = w->p_value;
                row.significant = w->significant;
            }
        }
        if (!v.counter_deltas.empty()) {
            const auto total = sum_counters(v.counter_deltas);
            row.mean_counter_deltas = divide_rounded(total, v.counter_deltas.size());
            // Ratios from the summed deltas (not a mean of per-run ratios), rates over
            // the summed run time: every derived value still comes from derive().
            const double seconds = std::accumulate(v.seconds.begin(), v.seconds.end(), 0.0);
            // Percentiles from the runs' histograms added up, when every run has one.
            const auto latency = v.flush_latencies.size() == v.counter_deltas.size()
                                     ? histogram_sum(v.flush_latencies)
                                     : std::nullopt;
            row.derived =
                derive(total, seconds > 0 ? std::optional<double>(seconds) : std::nullopt, latency);
            if (v.flush_reasons.size() == v.counter_deltas.size()) {
                row.flush_reasons = reasons_sum(v.flush_reasons);
            }
        }
        if (!v.memory_stats.empty()) {
            MemoryStat total;
            for (const auto& m : v.memory_stats) {
                total = memory_stat_sum(total, m);
            }
            for (auto& [name, value] : total) {
                value = static_cast<std::int64_t>(std::llround(
                    static_cast<double>(value) / static_cast<double>(v.memory_stats.size())));
            }
            row.mean_memory_stat = std::move(total);
        }
        report.rows.push_back(std::move(row));
    }
    return report;
}

} // namespace memcg_statctl
