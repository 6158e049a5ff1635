// The staleness recipes on the staleness probe (docs/background.md#per-memcg-threshold):
// flush-threshold (cost and staleness by flush_threshold) and staleness (the staleness-versus-cost
// curve).
#include <unistd.h>

#include <fmt/format.h>

#include "exit_code.h"
#include "experiment/recipe_runs.h"
#include "experiment/runner.h"
#include "experiment/workloads.h"
#include "statistics/summary.h"
#include "text_util.h"

namespace memcg_statctl {
namespace {

// The kernel's default flush_threshold: read before anything changes it (flush_mode is still
// kernel, so the knob holds the kernel's own value).
std::uint64_t kernel_default_threshold(const DebugfsClient& client) {
    const auto text = client.read_knob("flush_threshold");
    const auto def = parse_u64(text);
    if (!def || *def == 0) {
        throw ToolError(fmt::format("flush_threshold reads `{}`, not a positive number", text));
    }
    return *def;
}

// One run of the staleness probe: its samples and its flush count (flush.performed), when
// the module reported one.
struct ProbeRun {
    StalenessSample sample;
    std::optional<std::uint64_t> flushes;
};

// The staleness probe (64 MiB mapping): leaf0 faults, leaf1 reads leaf0's memory.stat. The
// first metric is the reader's (it carries the counter deltas); each run is appended to
// seen[variant].
Job staleness_probe_job(std::vector<std::vector<ProbeRun>>& seen) {
    return Job{.make = [] { return std::make_unique<StalenessProbe>(64); },
               .cgroups = 2,
               .depth = 2,
               .tasks = 1,
               .metrics = {{"stat-reader beside page-fault", "reads/s",
                            task_sum([](std::size_t t) { return t == 1; })},
                           {"page-fault beside stat-reader", "faults/s",
                            task_sum([](std::size_t t) { return t == 0; })}},
               .collect =
                   [&seen](Workload& w, std::size_t v, const std::optional<Counters>& deltas) {
                       seen[v].push_back(
                           {.sample = dynamic_cast<StalenessProbe&>(w).result(),
                            .flushes = deltas ? deltas->get("flush.performed") : std::nullopt});
                   }};
}

const char* const probe_setup = "depth 2: leaf0 page-fault anon (64 MiB mapping, THP off), leaf1 "
                                "stat-reader reading leaf0's memory.stat";

// How the probe measures staleness; `bracket` names the table column of the most faults
// during one kept read, when the table has one.
std::string probe_note(bool bracket) {
    return fmt::format(
        "staleness: the page-fault task publishes in shared memory how many pages of its "
        "current mapping it has touched (a sequence count marks munmap/mmap; reads overlapping "
        "one are discarded, and so are reads during which the task faulted more than 16 pages: "
        "the reader was descheduled). Per read, error = memory.stat anon (pages) - touched pages "
        "(mean of the counts before and after the read{}). "
        "The task's other anon pages are a constant offset, so staleness = max - min of the "
        "error over the run: how far the stat moved away from the truth. It bounds the largest "
        "stat error from above whenever the stat was exact at least once (every flush makes it "
        "so).",
        bracket ? "; `max bracket` = most faults during one kept read" : "");
}

} // namespace

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

namespace {

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
    }
    p.staleness = summarize_staleness(per_run);
}

// The staleness-versus-cost curve: the flush-threshold probe over 0..64x the kernel default
// in `threshold` mode, and over the other modes, each its own variant (interleaved rounds;
// flush_mode switches only between runs, so the update hooks attach and detach then).
} // namespace

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
    auto job = staleness_probe_job(seen);
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
        "staleness, stale sd = their sample standard deviation; samples = kept reads over all "
        "runs. flush ns/read = flush.ns_total / stat "
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

} // namespace memcg_statctl
