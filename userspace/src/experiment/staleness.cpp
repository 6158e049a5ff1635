// The staleness recipe (docs/background.md#per-memcg-threshold): the staleness-versus-cost
// curve of flush_threshold, beside the other flush_mode values.
#include <algorithm>
#include <cmath>
#include <iterator>

#include <fmt/format.h>

#include "debugfs/pending.h"
#include "experiment/probe.h"
#include "experiment/recipes.h"
#include "output/plot.h"
#include "statistics.h"
#include "text_util.h"

namespace memcg_statctl {
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
        {"pending max",
         [](const StalenessPoint& p) {
             return p.pending_max ? std::to_string(*p.pending_max) : std::string("-");
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

std::optional<double> per_op(std::optional<std::uint64_t> ns, double ops) {
    if (!ns || ops <= 0) {
        return std::nullopt;
    }
    return static_cast<double>(*ns) / ops;
}

// Variant v's figures from the reports of run_staleness() (reads/s with the counter deltas,
// faults/s, reads per run, faults per run) and the probe's runs.
void measure_point(StalenessPoint& p, const std::vector<ComparisonReport>& reports, std::size_t v,
                   const std::vector<ProbeRun>& runs) {
    const auto& reader = reports[0].rows[v];
    const auto ns = reader.mean_counter_deltas.get("flush.ns_total");
    p.reads_per_sec = reader.summary.mean;
    p.faults_per_sec = reports[1].rows[v].summary.mean;
    p.flushes_per_run =
        static_cast<double>(reader.mean_counter_deltas.get("flush.performed").value_or(0));
    std::vector<double> flushes;
    for (const auto& run : runs) {
        if (run.flushes) {
            flushes.push_back(static_cast<double>(*run.flushes));
        }
    }
    if (flushes.size() >= 2) {
        p.flushes_stddev = summarize(flushes).stddev;
    }
    // Means per run over means per run: the summed ns over the summed operations.
    p.flush_ns_per_read = per_op(ns, reports[2].rows[v].summary.mean);
    p.flush_ns_per_fault = per_op(ns, reports[3].rows[v].summary.mean);
    // The twins (counted runs): reads and faults per 10^9 guest instructions, after the 4.
    if (reports.size() >= 8) {
        p.insns_per_read = per_op(1'000'000'000, reports[4].rows[v].summary.mean);
        p.insns_per_fault = per_op(1'000'000'000, reports[5].rows[v].summary.mean);
    }
    std::vector<std::optional<std::int64_t>> per_run;
    for (const auto& run : runs) {
        per_run.push_back(run.sample.spread());
        p.samples += run.sample.samples;
        if (run.sample.max_pending) {
            p.pending_max = std::max(p.pending_max.value_or(0), *run.sample.max_pending);
        }
    }
    p.staleness = summarize_staleness(per_run);
}

// The staleness-versus-cost curve: the flush-threshold probe over 0..64x the kernel default
// in `threshold` mode, and over the other modes, each its own variant (interleaved rounds;
// flush_mode switches only between runs, so the update hooks attach and detach then).
void run_staleness(Experiment& e, ExperimentResult& r) {
    const auto def = kernel_default_threshold(e.client());
    std::vector<Variant> variants;
    std::vector<StalenessPoint> points;
    for (const auto t : staleness_threshold_points(def)) {
        const auto times = t / def;
        const auto label = times == 0 ? std::string("0") : fmt::format("{}x", times);
        points.push_back({.label = label, .mode = "threshold", .times_default = times});
        variants.push_back(
            {.label = label,
             .knobs = {{"flush_mode", "threshold"}, {"flush_threshold", std::to_string(t)}}});
    }
    for (const std::string mode : {"kernel", "always", "never"}) {
        points.push_back({.label = mode, .mode = mode});
        variants.push_back({.label = mode, .knobs = {{"flush_mode", mode}}});
    }
    std::vector<std::vector<ProbeRun>> seen(variants.size());
    // The kernel's own count beside the measured staleness, where it is per memcg.
    const bool per_memcg = e.client().version().get("pending") == "memcg";
    auto job = staleness_probe_job(seen, per_memcg ? e.client().root() / pending_file
                                                   : std::filesystem::path());
    job.metrics.push_back(per_run_count("stat reads per run", "reads/run", 1));
    job.metrics.push_back(per_run_count("page faults per run", "faults/run", 0));
    std::vector<Job> jobs{std::move(job)};
    const auto reports = e.run("flush_mode/flush_threshold", jobs, variants).front();
    // The two rates and, for counted runs, their twins (reports 4 and 5: reads and faults per
    // 10^9 guest instructions). The per-run counts (2, 3) only feed the cost per operation;
    // their twins (6, 7) would repeat the rates' twins.
    r.reports = {reports[0], reports[1]};
    if (reports.size() >= 8) {
        r.reports.push_back(reports[4]);
        r.reports.push_back(reports[5]);
    }
    for (std::size_t v = 0; v < points.size(); ++v) {
        measure_point(points[v], reports, v, seen[v]);
    }
    r.extra.push_back(staleness_table(points));
    r.parameters.emplace_back("setup", probe_setup);
    r.parameters.emplace_back("kernel_default_threshold", std::to_string(def));
    r.parameters.emplace_back("flush_model", e.client().version().get("flush_model"));
    r.notes.push_back(probe_note(false));
    r.notes.emplace_back(
        "stale max = the largest per-run staleness, stale mean = the mean of the per-run "
        "staleness, stale sd = their sample standard deviation; pending max = the most updates "
        "the kernel itself counted as not yet flushed for the faulting cgroup (HANDED + CPUS of "
        "the module's `pending`, read before every 16th stat read and kept with it; - on 6.1, "
        "which counts for "
        "all memcgs at once). Every stat change counts there by its size, about three per "
        "faulted page, so it bounds the staleness from above, until the kernel stops counting "
        "past its own trigger (batch x cpus HANDED): where stale max exceeds pending max, the "
        "kernel's count no longer bounds how stale memory.stat is. samples = kept reads over "
        "all runs. flush ns/read = flush.ns_total / stat "
        "reads and flush ns/fault = flush.ns_total / page faults (summed over the runs): every "
        "flush of the run, whoever asked for it, is charged to each kind of operation.");
    r.notes.emplace_back(
        "flush_mode is written before every run (threshold rows also write flush_threshold); "
        "kernel, always and never ignore flush_threshold.");
    r.verdict = staleness_verdict(points);
    r.measure = Measure::pages; // staleness in pages and flushes per run: no clock in either
    e.set_figure([points](const std::filesystem::path& file) {
        return staleness_plot_script(points, file);
    });
}

} // namespace

Recipe staleness_recipe() {
    return {
        .name = "staleness",
        .report_id = "per-memcg-threshold",
        .summary = "staleness vs flush cost: flush_threshold 0..64x the kernel default and the "
                   "other flush_mode values, stat-reader beside page-fault, depth 2",
        .reference = per_memcg_threshold_reference,
        .claim = "The thread weighed a higher flush threshold (fewer, cheaper flushes) against "
                 "staler stats in prose: the error bound is MEMCG_CHARGE_BATCH x NR_CPUS pages "
                 "(x NR_MEMCGS with per-memcg thresholds), with the 2 s periodic flush as the "
                 "backstop. It published no curve of staleness against threshold; this recipe "
                 "measures one.",
        .run = run_staleness,
    };
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
        return finish_verdict(
            Outcome::not_measured,
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
    return finish_verdict(grows && fewer ? Outcome::reproduced : Outcome::not_reproduced, body);
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
                     "set xrange [-0.5:{}]\nset key below horizontal height 1\n",
                     static_cast<double>(count) - 0.5);
    for (std::size_t i = 0; i < shown.size(); ++i) {
        s += staleness_panel(*shown[i].first, shown[i].second, !modes.empty(),
                             i + 1 == shown.size());
    }
    return s + "unset multiplot\n";
}

} // namespace memcg_statctl
