#include "experiment/experiment.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iterator>
#include <sstream>

#include <fmt/format.h>

#include "output/output.h"
#include "output/plot.h"
#include "output/result_schema.h"
#include "statistics/summary.h"
#include "text_util.h"

namespace memcg_statctl {
namespace {

using Json = nlohmann::ordered_json;

std::string pct(const std::optional<double>& v) {
    return v ? fmt::format("{:+.1f}%", *v) : std::string("n/a");
}

// The significance and the spread the figure rests on: Welch's p and the row's run-to-run
// standard deviation relative to its mean.
std::string pval(const ComparisonRow& row) {
    auto text = row.p_value ? fmt::format("p={:.3f}{}", *row.p_value, row.significant ? " *" : "")
                            : std::string("p n/a");
    if (row.summary.n >= 2 && row.summary.mean != 0) {
        text += fmt::format(", sd {:.1f}%", 100 * row.summary.stddev / std::abs(row.summary.mean));
    }
    return text;
}

// `words` as lines of at most `width` columns (a longer word keeps its own line), the first
// indented by 2 spaces and the rest by 4, appended to `out`.
void wrap_into(std::string& out, std::string_view words, std::size_t width) {
    std::string line = "  ";
    bool first = true;
    for (const auto word : split_whitespace(words)) {
        if (!first && line.size() + 1 + word.size() > width) {
            out += line + '\n';
            line = "    ";
            first = true;
        }
        line += first ? "" : " ";
        line += word;
        first = false;
    }
    out += line + '\n';
}

Verdict finish(Outcome o, std::string body) {
    return {o, fmt::format("{}: {}", body, outcome_text(o))};
}

} // namespace

std::string recipe_list_text(const std::vector<Recipe>& list, std::size_t width) {
    std::string text;
    for (const auto& r : list) {
        if (!text.empty()) {
            text += '\n';
        }
        text += fmt::format("{} (docs/background.md#{})\n", r.name, r.report_id);
        wrap_into(text, r.summary, width);
        wrap_into(text, "reference: " + r.reference, width);
        wrap_into(text, "claim: " + r.claim, width);
    }
    return text;
}

std::string_view outcome_text(Outcome o) {
    switch (o) {
    case Outcome::reproduced:
        return "reproduced";
    case Outcome::not_reproduced:
        return "not reproduced";
    case Outcome::not_measured:
        break;
    }
    return "not measured";
}

const ComparisonRow* find_row(const ComparisonReport& report, std::string_view value) {
    for (const auto& row : report.rows) {
        if (row.value == value) {
            return &row;
        }
    }
    return nullptr;
}

Verdict update_flush_verdict(const std::vector<ComparisonReport>& modes) {
    if (modes.empty()) {
        return finish(Outcome::not_measured, "update-path-flush: no page-fault results");
    }
    std::vector<std::string> at32;
    std::vector<std::string> at128;
    bool all = true;
    for (const auto& m : modes) {
        const auto* r32 = find_row(m, "32");
        const auto* r128 = find_row(m, "128");
        if (r32 == nullptr || find_row(m, "0") == nullptr) {
            return finish(
                Outcome::not_measured,
                fmt::format("update-path-flush: {} lacks the values 0 and 32", m.workload));
        }
        at32.push_back(fmt::format("{} {} ({})", m.workload, pct(r32->percent_change), pval(*r32)));
        if (r128 != nullptr) {
            at128.push_back(fmt::format("{} {}", m.workload, pct(r128->percent_change)));
        }
        all = all && r32->significant && r32->percent_change && *r32->percent_change < 0;
    }
    auto body =
        fmt::format("update-path-flush: update_flush_every=32 vs 0: {}", fmt::join(at32, ", "));
    if (!at128.empty()) {
        body += fmt::format("; 128 vs 0: {}", fmt::join(at128, ", "));
    }
    body += " (report: page_fault around -10% at 32, around -5% at 128)";
    return finish(all ? Outcome::reproduced : Outcome::not_reproduced, body);
}

Verdict reader_flush_verdict(const ComparisonReport& refault, const ComparisonReport* reader) {
    const auto* k = find_row(refault, "kernel");
    if (k == nullptr || find_row(refault, "always") == nullptr) {
        return finish(Outcome::not_measured,
                      "flush-only-if-updated: refault lacks flush_mode always/kernel");
    }
    // Throughput change -> read-time change: time = 1 / throughput.
    std::string time;
    if (k->percent_change && *k->percent_change > -100) {
        time = fmt::format(", read time {:+.1f}%", 100 * (1 / (1 + *k->percent_change / 100) - 1));
    }
    auto body =
        fmt::format("flush-only-if-updated: refault with flush_mode=kernel vs always: {} {} ({}){}",
                    pct(k->percent_change), refault.metric, pval(*k), time);
    if (reader != nullptr) {
        if (const auto* rk = find_row(*reader, "kernel")) {
            body += fmt::format("; stat-reader {} ({})", pct(rk->percent_change), pval(*rk));
        }
    }
    body += " (report: needless flushes skipped, 63% shorter read time)";
    const bool ok = k->significant && k->percent_change && *k->percent_change > 0;
    return finish(ok ? Outcome::reproduced : Outcome::not_reproduced, body);
}

std::vector<std::uint64_t> threshold_points(std::uint64_t kernel_default) {
    return {0, kernel_default, 4 * kernel_default, 16 * kernel_default};
}

std::uint64_t staleness_bound(std::uint64_t nr_cpus, std::string_view flush_model,
                              std::uint64_t nr_memcgs) {
    const auto bound = memcg_charge_batch * nr_cpus;
    return flush_model == "per-memcg" ? bound * nr_memcgs : bound;
}

Verdict flush_threshold_verdict(const ComparisonReport& reader,
                                const std::vector<ThresholdPoint>& points,
                                std::uint64_t kernel_default, std::uint64_t bound) {
    const auto point = [&](std::uint64_t t) -> const ThresholdPoint* {
        for (const auto& p : points) {
            if (p.threshold == t) {
                return &p;
            }
        }
        return nullptr;
    };
    const auto* p0 = point(0);
    const auto* p1 = point(kernel_default);
    const auto* p16 = point(16 * kernel_default);
    const auto* r16 = p16 != nullptr ? find_row(reader, p16->value) : nullptr;
    if (p0 == nullptr || p1 == nullptr || p16 == nullptr || r16 == nullptr) {
        return finish(Outcome::not_measured, "per-memcg-threshold: the sweep lacks 0, 1x or 16x");
    }
    const bool fewer = p16->flushes_per_run < p0->flushes_per_run;
    const bool faster = r16->significant && r16->percent_change && *r16->percent_change > 0;
    const bool bounded = p1->staleness_pages && *p1->staleness_pages >= 0 &&
                         static_cast<std::uint64_t>(*p1->staleness_pages) <= bound;
    const auto stale = [](const ThresholdPoint* p) {
        return p->staleness_pages ? fmt::format("{} pages", *p->staleness_pages)
                                  : std::string("n/a");
    };
    auto body = fmt::format(
        "per-memcg-threshold: flush_threshold={} (16x) vs 0: stat-reader {} ({}), flushes/run "
        "{:.0f} vs "
        "{:.0f}; staleness at {} (1x) {}, at 16x {} (bound {} pages) (report: fewer flushes, "
        "error within MEMCG_CHARGE_BATCH x nr_cpus [x nr_memcgs])",
        p16->threshold, pct(r16->percent_change), pval(*r16), p16->flushes_per_run,
        p0->flushes_per_run, p1->threshold, stale(p1), stale(p16), bound);
    return finish(fewer && faster && bounded ? Outcome::reproduced : Outcome::not_reproduced, body);
}

std::optional<double> objcg_vmstat_miss_pct_of(const Counters& deltas) {
    const auto flushes = deltas.get("objcg_vmstat.flushes");
    const auto updates = deltas.get("objcg_vmstat.updates");
    if (!flushes || !updates || *updates == 0) {
        return std::nullopt;
    }
    return 100 * static_cast<double>(*flushes) / static_cast<double>(*updates);
}

Verdict objstock_verdict(const ComparisonReport& report, const std::vector<double>& slab_runs) {
    const auto* slab = find_row(report, "slab");
    const auto miss =
        slab != nullptr ? derived_value(slab->derived, "objcg_vmstat_miss_pct") : std::nullopt;
    if (!miss) {
        return finish(Outcome::not_measured,
                      "obj-stock-vmstat: no objcg_vmstat counters for the slab workload");
    }
    std::string body = "obj-stock-vmstat:";
    if (const auto hit = derived_value(slab->derived, "obj_stock_hit_pct")) {
        body += fmt::format(" obj-stock hit {:.1f}% (slab);", *hit);
    }
    if (const auto* mixed = find_row(report, "mixed")) {
        if (const auto m = derived_value(mixed->derived, "objcg_vmstat_miss_pct")) {
            body += fmt::format(" objcg vmstat miss rate {:.1f}% (mixed);", *m);
        }
    }
    body += fmt::format(" report: {}% with the vmstat caching, {}% before, at most {}% counts;",
                        obj_stock_vmstat_miss_pct_after, obj_stock_vmstat_miss_pct_before,
                        obj_stock_vmstat_miss_pct_before);
    // The figure the verdict rests on, last, with its spread over the runs.
    const auto runs = summarize(slab_runs);
    body +=
        fmt::format(" objcg vmstat miss rate {:.1f}% (slab, {})", *miss,
                    runs.n >= 2 ? fmt::format("sd {:.1f} points over {} runs", runs.stddev, runs.n)
                                : std::string("no spread: fewer than 2 runs"));
    return finish(*miss <= obj_stock_vmstat_miss_pct_before ? Outcome::reproduced
                                                            : Outcome::not_reproduced,
                  body);
}

Verdict readtwice_verdict(const ComparisonReport& total) {
    const auto* r16 = find_row(total, "16");
    const auto* r1 = find_row(total, "1");
    if (r1 == nullptr || r16 == nullptr) {
        return finish(Outcome::not_measured, "per-memcg-lru-lock: readtwice lacks 1 or 16 cgroups");
    }
    std::vector<std::string> changes;
    for (const auto& row : total.rows) {
        if (row.percent_change) {
            changes.push_back(
                fmt::format("{} cgroups {} ({})", row.value, pct(row.percent_change), pval(row)));
        }
    }
    const bool collapsed = r16->significant && r16->percent_change && *r16->percent_change < 0;
    auto body =
        fmt::format("per-memcg-lru-lock: readtwice total {} vs 1 cgroup: {} (report: per-memcg "
                    "lru_lock, +11% data read at 16 cgroups; reproduced = no significant "
                    "drop at 16)",
                    total.metric, fmt::join(changes, ", "));
    return finish(collapsed ? Outcome::not_reproduced : Outcome::reproduced, body);
}

std::vector<std::uint64_t> staleness_threshold_points(std::uint64_t kernel_default) {
    std::vector<std::uint64_t> points{0};
    for (std::uint64_t k = 1; k <= staleness_max_multiple; k *= 4) {
        points.push_back(k * kernel_default);
    }
    return points;
}

StalenessSummary summarize_staleness(const std::vector<std::optional<std::int64_t>>& per_run) {
    StalenessSummary s;
    double sum = 0;
    std::size_t n = 0;
    for (const auto& pages : per_run) {
        if (pages) {
            s.max_pages = std::max(s.max_pages.value_or(*pages), *pages);
            sum += static_cast<double>(*pages);
            ++n;
        }
    }
    if (n > 0) {
        s.mean_pages = sum / static_cast<double>(n);
    }
    if (n >= 2) {
        double squares = 0;
        for (const auto& pages : per_run) {
            if (pages) {
                const auto d = static_cast<double>(*pages) - *s.mean_pages;
                squares += d * d;
            }
        }
        s.stddev_pages = std::sqrt(squares / static_cast<double>(n - 1));
    }
    return s;
}

namespace {

struct StalenessColumn {
    const char* header;
    std::string (*cell)(const StalenessPoint&);
};

// The columns of the staleness table, in order.
const std::vector<StalenessColumn>& staleness_columns() {
    static const std::vector<StalenessColumn> columns{
        {"variant", [](const StalenessPoint& p) { return p.label; }},
        {"mode", [](const StalenessPoint& p) { return p.mode; }},
        {"x default",
         [](const StalenessPoint& p) {
             return p.times_default ? std::to_string(*p.times_default) : std::string("-");
         }},
        {"stale max",
         [](const StalenessPoint& p) {
             const auto& m = p.staleness.max_pages;
             return m ? std::to_string(*m) : std::string("-");
         }},
        {"stale mean",
         [](const StalenessPoint& p) { return format_or_dash(p.staleness.mean_pages, "{:.1f}"); }},
        {"stale sd",
         [](const StalenessPoint& p) {
             return format_or_dash(p.staleness.stddev_pages, "{:.1f}");
         }},
        {"samples", [](const StalenessPoint& p) { return std::to_string(p.samples); }},
        {"reads/s", [](const StalenessPoint& p) { return fmt::format("{:.0f}", p.reads_per_sec); }},
        {"faults/s",
         [](const StalenessPoint& p) { return fmt::format("{:.0f}", p.faults_per_sec); }},
        {"flushes/run",
         [](const StalenessPoint& p) { return fmt::format("{:.0f}", p.flushes_per_run); }},
        {"flush ns/read",
         [](const StalenessPoint& p) { return format_or_dash(p.flush_ns_per_read, "{:.0f}"); }},
        {"flush ns/fault",
         [](const StalenessPoint& p) { return format_or_dash(p.flush_ns_per_fault, "{:.0f}"); }},
        {"insns/read",
         [](const StalenessPoint& p) { return format_or_dash(p.insns_per_read, "{:.0f}"); }},
        {"insns/fault",
         [](const StalenessPoint& p) { return format_or_dash(p.insns_per_fault, "{:.0f}"); }},
    };
    return columns;
}

const StalenessPoint* point_at(const std::vector<StalenessPoint>& points, std::uint64_t times) {
    for (const auto& p : points) {
        if (p.times_default == times) {
            return &p;
        }
    }
    return nullptr;
}

std::string mean_pages_text(const StalenessPoint& p) {
    return format_or_dash(p.staleness.mean_pages, "{:.0f}");
}

std::string sd_text(const std::optional<double>& sd) {
    return sd ? fmt::format("sd {:.0f}", *sd) : std::string("sd n/a");
}

// gnuplot reads NaN as a missing value: the point is left out, the script still runs.
std::string gnuplot_number(const std::optional<double>& v) {
    return v ? fmt::format("{:.6g}", *v) : std::string("NaN");
}

using FigureColumn = std::optional<double> (*)(const StalenessPoint&);

// The figure's data columns after the index and the label (gnuplot columns 3, 4, ...).
const std::vector<FigureColumn>& figure_columns() {
    static const std::vector<FigureColumn> columns{
        [](const StalenessPoint& p) {
            const auto& m = p.staleness.max_pages;
            return m ? std::optional<double>(static_cast<double>(*m)) : std::nullopt;
        },
        [](const StalenessPoint& p) { return p.staleness.mean_pages; },
        [](const StalenessPoint& p) { return std::optional<double>(p.flushes_per_run); },
        [](const StalenessPoint& p) { return p.flush_ns_per_read; },
        [](const StalenessPoint& p) { return p.flush_ns_per_fault; },
        [](const StalenessPoint& p) { return p.insns_per_read; },
        [](const StalenessPoint& p) { return p.insns_per_fault; },
    };
    return columns;
}

// Inline data block NAME: index (from `first`), label, then figure_columns().
std::string staleness_data(const std::string& name, const std::vector<const StalenessPoint*>& ps,
                           std::size_t first) {
    auto s = fmt::format("${} << EOD\n", name);
    for (std::size_t i = 0; i < ps.size(); ++i) {
        s += fmt::format("{} \"{}\"", first + i, ps[i]->label);
        for (const auto column : figure_columns()) {
            s += fmt::format(" {}", gnuplot_number(column(*ps[i])));
        }
        s += '\n';
    }
    return s + "EOD\n";
}

struct FigureSeries {
    const char* title;
    std::size_t column; // gnuplot's: 3 is figure_columns()[0]
    bool right;         // on the y2 axis
    int point_type;
};

struct FigurePanel {
    const char* title;
    const char* left;  // the y axis label
    const char* right; // the y2 axis label
    std::vector<FigureSeries> series;
};

// The panels, top to bottom: what a threshold buys (staleness) over what it costs.
const std::vector<FigurePanel>& figure_panels() {
    static const std::vector<FigurePanel> panels{
        {"staleness of leaf0's memory.stat",
         "staleness (pages)",
         "flushes per run",
         {{"staleness, largest run", 3, false, 7},
          {"staleness, mean of runs", 4, false, 6},
          {"flushes per run", 5, true, 5}}},
        {"flush cost per stat read",
         "flush ns per read",
         "guest insns per read",
         {{"flush ns per read", 6, false, 7}, {"guest insns per read (window)", 8, true, 5}}},
        {"flush cost per page fault",
         "flush ns per fault",
         "guest insns per fault",
         {{"flush ns per fault", 7, false, 7}, {"guest insns per fault (window)", 9, true, 5}}},
    };
    return panels;
}

bool any_value(const std::vector<StalenessPoint>& points, std::size_t column) {
    return std::any_of(points.begin(), points.end(), [column](const StalenessPoint& p) {
        return figure_columns().at(column - 3)(p).has_value();
    });
}

// One panel: its series from the threshold curve (lines, in the key) and from the other modes
// (points of the same colour); the right axis only when a series is on it.
std::string staleness_panel(const FigurePanel& panel, const std::vector<FigureSeries>& series,
                            bool modes, bool last) {
    const bool right =
        std::any_of(series.begin(), series.end(), [](const FigureSeries& s) { return s.right; });
    auto s = fmt::format("set title {}\nset ylabel {}\n", gnuplot_quoted(panel.title),
                         gnuplot_quoted(panel.left));
    s += right ? fmt::format("set y2tics\nset y2label {}\n", gnuplot_quoted(panel.right))
               : std::string("unset y2tics\nunset y2label\n");
    s += last ? "set xlabel 'flush_threshold (x kernel default); other flush_mode values after "
                "the gap'\n"
              : "unset xlabel\n";
    std::vector<std::string> items;
    for (std::size_t i = 0; i < series.size(); ++i) {
        const auto& f = series[i];
        const auto* const axes = f.right ? "x1y2" : "x1y1";
        const auto* const dash = f.right ? " dt 2" : "";
        items.push_back(fmt::format("$threshold using 1:{}:xtic(2) axes {} with linespoints lc {} "
                                    "pt {}{} title {}",
                                    f.column, axes, i + 1, f.point_type, dash,
                                    gnuplot_quoted(f.title)));
        if (modes) {
            items.push_back(fmt::format("$modes using 1:{}:xtic(2) axes {} with points lc {} pt {} "
                                        "notitle",
                                        f.column, axes, i + 1, f.point_type));
        }
    }
    return s + fmt::format("plot {}\n", fmt::join(items, ", \\\n  "));
}

} // namespace

ExtraTable staleness_table(const std::vector<StalenessPoint>& points) {
    ExtraTable t{"staleness of leaf0's memory.stat (pages) and flush cost by flush_mode and "
                 "flush_threshold",
                 {},
                 {}};
    for (const auto& c : staleness_columns()) {
        t.header.emplace_back(c.header);
    }
    for (const auto& p : points) {
        auto& row = t.rows.emplace_back();
        for (const auto& c : staleness_columns()) {
            row.push_back(c.cell(p));
        }
    }
    return t;
}

Verdict staleness_verdict(const std::vector<StalenessPoint>& points) {
    const auto* lo = point_at(points, 0);
    const auto* hi = point_at(points, staleness_max_multiple);
    if (lo == nullptr || hi == nullptr || !lo->staleness.mean_pages || !hi->staleness.mean_pages) {
        return finish(Outcome::not_measured,
                      fmt::format("per-memcg-threshold: no staleness at flush_threshold 0 and {}x",
                                  staleness_max_multiple));
    }
    const bool grows = *hi->staleness.mean_pages > *lo->staleness.mean_pages;
    const bool fewer = hi->flushes_per_run < lo->flushes_per_run;
    std::vector<std::string> curve;
    std::vector<std::string> modes;
    for (const auto& p : points) {
        (p.times_default ? curve : modes)
            .push_back(fmt::format("{} {}", p.label, mean_pages_text(p)));
    }
    auto body = fmt::format("per-memcg-threshold: staleness {} with flush_threshold while flushes "
                            "per run {} (mean staleness of runs: {} pages",
                            grows ? "grows" : "does not grow", fewer ? "fall" : "do not fall",
                            fmt::join(curve, ", "));
    if (!modes.empty()) {
        body += fmt::format("; other modes: {} pages", fmt::join(modes, ", "));
    }
    // The figures the verdict rests on, last, with their spread over the runs.
    body +=
        fmt::format(") (claim: raising the threshold trades accuracy for fewer flushes); 0 vs {}x: "
                    "staleness {} -> {} pages ({}, {}), flushes per run {:.0f} -> {:.0f} ({}, {})",
                    staleness_max_multiple, mean_pages_text(*lo), mean_pages_text(*hi),
                    sd_text(lo->staleness.stddev_pages), sd_text(hi->staleness.stddev_pages),
                    lo->flushes_per_run, hi->flushes_per_run, sd_text(lo->flushes_stddev),
                    sd_text(hi->flushes_stddev));
    return finish(grows && fewer ? Outcome::reproduced : Outcome::not_reproduced, body);
}

std::string staleness_plot_script(const std::vector<StalenessPoint>& points,
                                  const std::filesystem::path& file) {
    std::vector<const StalenessPoint*> curve;
    std::vector<const StalenessPoint*> modes;
    for (const auto& p : points) {
        (p.times_default ? curve : modes).push_back(&p);
    }
    // Only the series with a value somewhere (no instruction axis when nothing was counted),
    // and only the panels with a series.
    std::vector<std::pair<const FigurePanel*, std::vector<FigureSeries>>> shown;
    for (const auto& panel : figure_panels()) {
        std::vector<FigureSeries> series;
        std::copy_if(panel.series.begin(), panel.series.end(), std::back_inserter(series),
                     [&](const FigureSeries& f) { return any_value(points, f.column); });
        if (!series.empty()) {
            shown.emplace_back(&panel, series);
        }
    }
    // The other modes after a gap of one tic.
    const auto count = curve.size() + (modes.empty() ? 0 : modes.size() + 1);
    auto s = gnuplot_output(file, modes.empty() ? 800 : 1000,
                            static_cast<int>(100 + 300 * std::max<std::size_t>(shown.size(), 1)));
    s += staleness_data("threshold", curve, 0);
    if (!modes.empty()) {
        s += staleness_data("modes", modes, curve.size() + 1);
    }
    s += fmt::format("set multiplot layout {},1 title {}\n", std::max<std::size_t>(shown.size(), 1),
                     gnuplot_quoted("staleness of memory.stat vs flush cost, by flush_threshold"));
    s += fmt::format("set grid ytics\nset ytics nomirror\nset yrange [0:*]\nset y2range [0:*]\n"
                     "set xrange [-0.5:{}]\nset key below horizontal\n",
                     static_cast<double>(count) - 0.5);
    for (std::size_t i = 0; i < shown.size(); ++i) {
        s += staleness_panel(*shown[i].first, shown[i].second, !modes.empty(),
                             i + 1 == shown.size());
    }
    return s + "unset multiplot\n";
}

Json experiment_json(const ExperimentResult& r) {
    // Numbers as JSON numbers (runs, duration, cpus), like every other document.
    Json params = Json::object();
    for (const auto& [k, v] : r.parameters) {
        if (const auto integer = parse_u64(v)) {
            params[k] = *integer;
        } else if (const auto number = parse_double(v)) {
            params[k] = *number;
        } else {
            params[k] = v;
        }
    }
    Json reports = Json::array();
    for (const auto& report : r.reports) {
        // The same object `sweep --json` prints: one shape for both commands.
        reports.push_back(sweep_document(report));
    }
    Json tables = Json::array();
    for (const auto& t : r.extra) {
        tables.push_back({{"title", t.title}, {"header", t.header}, {"rows", t.rows}});
    }
    return {{"schema", "memcg-statctl/experiment"},
            {"schema_version", experiment_schema_version},
            {"experiment", r.name},
            {"report_id", r.report_id},
            {"reference", r.reference},
            {"claim", r.claim},
            {"environment", environment_json(r.environment)},
            {"parameters", params},
            {"complete", r.complete},
            {"interrupted_by", r.interrupted_by ? Json(*r.interrupted_by) : Json(nullptr)},
            {"reports", reports},
            {"tables", tables},
            {"notes", r.notes},
            {"verdict", r.complete ? Json{{"outcome", std::string(outcome_text(r.verdict.outcome))},
                                          {"reproduced", r.verdict.outcome == Outcome::reproduced},
                                          {"measure", std::string(measure_name(r.measure))},
                                          {"line", r.verdict.line}}
                                   : Json(nullptr)},
            {"runs", r.runs}};
}

double per_giga_instructions(double per_second, double seconds, std::uint64_t instructions) {
    if (instructions == 0) {
        return 0;
    }
    return per_second * seconds * 1e9 / static_cast<double>(instructions);
}

std::string per_giga_instructions_unit(std::string_view unit) {
    std::string u(unit);
    for (const std::string_view per : {"/s", "/run"}) {
        if (const auto slash = u.find(per); slash != std::string::npos) {
            u.erase(slash, per.size());
            break;
        }
    }
    return u + " per 1e9 guest insns";
}

std::string_view measure_name(Measure m) {
    switch (m) {
    case Measure::guest_instructions:
        return "guest_instructions";
    case Measure::counters:
        return "counters";
    case Measure::pages:
        return "pages";
    case Measure::wall_time:
        break;
    }
    return "wall_time";
}

Measure verdict_measure(Measure recipe, bool counted) {
    return recipe == Measure::wall_time && counted ? Measure::guest_instructions : recipe;
}

std::string verdict_line_on(Measure m, const std::string& line) {
    std::string_view what = "wall time";
    switch (m) {
    case Measure::guest_instructions:
        what = "guest instructions";
        break;
    case Measure::counters:
        what = "the module's counters";
        break;
    case Measure::pages:
        what = "memory.stat pages and flush counts";
        break;
    case Measure::wall_time:
        break;
    }
    return fmt::format("on {}: {}", what, line);
}

std::optional<std::uint64_t> memory_stat_anon(std::string_view text) {
    for (const auto line : split_lines(text)) {
        const auto f = split_whitespace(line);
        if (f.size() == 2 && f[0] == "anon") {
            return parse_u64(f[1]);
        }
    }
    return std::nullopt;
}

std::string plot_path_for(const std::string& file, std::size_t index, std::size_t count,
                          const std::string& slug) {
    if (count <= 1) {
        return file;
    }
    std::filesystem::path p(file);
    std::string clean;
    for (const char c : slug) {
        clean += (std::isalnum(static_cast<unsigned char>(c)) != 0) ? c : '-';
    }
    if (clean.empty()) {
        clean = std::to_string(index);
    }
    const auto name = fmt::format("{}-{}{}", p.stem().string(), clean, p.extension().string());
    return (p.parent_path() / name).string();
}

} // namespace memcg_statctl
