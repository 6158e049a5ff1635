// The flush-threshold recipe (docs/background.md#per-memcg-threshold): cost and staleness
// by flush_threshold, on the staleness probe.
#include <algorithm>
#include <unistd.h>

#include <fmt/format.h>

#include "experiment/probe.h"
#include "experiment/recipes.h"
#include "text_util.h"

namespace memcg_statctl {
namespace {

void run_flush_threshold(Experiment& e, ExperimentResult& r) {
    const auto& client = e.client();
    const auto def = kernel_default_threshold(client);
    const auto model = client.version().get("flush_model");
    const auto ncpus = static_cast<std::uint64_t>(::sysconf(_SC_NPROCESSORS_ONLN));
    constexpr std::uint64_t memcgs = 4; // top, level1, leaf0, leaf1
    const auto bound = staleness_bound(ncpus, model, memcgs);
    e.set_fixed("flush_mode", "threshold"); // attaches the update hooks: before any run

    const auto points = threshold_points(def);
    std::vector<Variant> variants;
    variants.reserve(points.size());
    for (const auto t : points) {
        variants.push_back(
            {.label = std::to_string(t), .knobs = {{"flush_threshold", std::to_string(t)}}});
    }
    std::vector<std::vector<ProbeRun>> seen(points.size());
    std::vector<Job> jobs{staleness_probe_job(seen)};
    auto reports = e.run("flush_threshold", jobs, variants).front();
    r.reports = reports;

    std::vector<ThresholdPoint> tp;
    ExtraTable t{"cost and staleness by flush_threshold (staleness in pages, largest over runs)",
                 {"flush_threshold", "x default", "reads/s", "faults/s", "flushes/run", "ns/flush",
                  "staleness", "bound", "samples", "discarded", "max bracket"},
                 {}};
    for (std::size_t i = 0; i < points.size(); ++i) {
        const auto& row = reports[0].rows[i];
        ThresholdPoint p;
        p.value = row.value;
        p.threshold = points[i];
        p.flushes_per_run =
            static_cast<double>(row.mean_counter_deltas.get("flush.performed").value_or(0));
        p.ns_per_flush = derived_value(row.derived, "ns_per_flush");
        std::uint64_t discarded = 0;
        for (const auto& run : seen[i]) {
            const auto& s = run.sample;
            discarded += s.discarded;
            p.samples += s.samples;
            p.max_bracket_pages = std::max(p.max_bracket_pages, s.max_bracket);
            if (const auto sp = s.spread()) {
                p.staleness_pages = std::max(p.staleness_pages.value_or(*sp), *sp);
            }
        }
        t.rows.push_back(std::vector<std::string>{
            p.value,
            fmt::format("{:g}", static_cast<double>(p.threshold) / static_cast<double>(def)),
            fmt::format("{:.0f}", row.summary.mean),
            fmt::format("{:.0f}", reports[1].rows[i].summary.mean),
            fmt::format("{:.0f}", p.flushes_per_run), format_or_dash(p.ns_per_flush, "{:.0f}"),
            p.staleness_pages ? std::to_string(*p.staleness_pages) : std::string("-"),
            std::to_string(bound), std::to_string(p.samples), std::to_string(discarded),
            std::to_string(p.max_bracket_pages)});
        tp.push_back(p);
    }
    r.extra.push_back(t);
    r.parameters.emplace_back("setup", probe_setup);
    r.parameters.emplace_back("kernel_default_threshold", std::to_string(def));
    r.parameters.emplace_back("flush_model", model);
    r.parameters.emplace_back("bound",
                              fmt::format("{} pages = {} x {} cpus{}", bound, memcg_charge_batch,
                                          ncpus, model == "per-memcg" ? " x 4 memcgs" : ""));
    r.notes.push_back(probe_note(true));
    r.notes.emplace_back("flush_mode=threshold during the sweep (set before the first run); reads "
                         "flush when the module's pending updates (stat_updates.amount, all memcg "
                         "stat items) exceed flush_threshold.");
    r.verdict = flush_threshold_verdict(Experiment::decisive(reports, 0, 2), tp, def, bound);
}

} // namespace

Recipe flush_threshold_recipe() {
    return {
        .name = "flush-threshold",
        .report_id = "per-memcg-threshold",
        .summary = "flush_threshold 0..16x the kernel default: cost and staleness, stat-reader "
                   "beside page-fault, depth 2",
        .reference = per_memcg_threshold_reference,
        .claim =
            "A per-memcg flush threshold cost netperf TCP_SENDFILE 3.9% (40198.0 to 38629.7 "
            "Mbps; 22 instances on 44 CPUs, 20 runs) and will-it-scale page_fault1/2/3 1.56% "
            "to 3.58% of per-process and per-thread ops (256 CPUs, 10 runs), in a 2-level "
            "cgroup. In exchange the stats error bound grows from NR_CPUS x MEMCG_CHARGE_BATCH "
            "to that x NR_MEMCGS, with the 2 s periodic flush as the backstop.",
        .run = run_flush_threshold,
    };
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
        return finish_verdict(Outcome::not_measured,
                              "per-memcg-threshold: the sweep lacks 0, 1x or 16x");
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
        p16->threshold, percent_text(r16->percent_change), p_value_text(*r16), p16->flushes_per_run,
        p0->flushes_per_run, p1->threshold, stale(p1), stale(p16), bound);
    return finish_verdict(
        fewer && faster && bounded ? Outcome::reproduced : Outcome::not_reproduced, body);
}

} // namespace memcg_statctl
