// The stock recipes: objstock (docs/background.md#obj-stock-vmstat, the object stock's objcg
// vmstat miss rate) and readtwice (docs/background.md#per-memcg-lru-lock, throughput by cgroup
// count).
#include <fmt/format.h>

#include "experiment/recipe_runs.h"
#include "experiment/runner.h"
#include "experiment/workloads.h"
#include "text_util.h"
#include "workloads/io.h"

namespace memcg_statctl {
namespace {

// One report with a row per workload (slab, mixed) from the one-row reports of the two jobs:
// the report's table compares workloads, %change and Welch of mixed against slab as compare()
// does for a sweep.
ComparisonReport by_workload(const ComparisonReport& slab, const ComparisonReport& mixed) {
    std::vector<ComparisonRow> rows{slab.rows[0], mixed.rows[0]};
    rows[0].value = "slab";
    rows[1].value = "mixed";
    std::vector<ValueRuns> v(2);
    v[0].value = "slab";
    v[0].samples = rows[0].samples;
    v[1].value = "mixed";
    v[1].samples = rows[1].samples;
    const auto c = compare("workload", "objstock", v);
    rows[1].percent_change = c.rows[1].percent_change;
    rows[1].p_value = c.rows[1].p_value;
    rows[1].significant = c.rows[1].significant;
    ComparisonReport report;
    report.knob = "workload";
    report.workload = "objstock (slab in /tmp; mixed = slab + page-fault anon)";
    report.metric = slab.metric;
    report.unit = "";
    report.rows = rows;
    return report;
}

} // namespace

void run_objstock(Experiment& e, ExperimentResult& r) {
    e.set_fixed("stock_hooks", "1");
    std::vector<double> slab_miss_pct; // per run of the slab job
    std::vector<Job> jobs{
        {.make = [] { return workload("slab", "anon", "/tmp"); },
         .cgroups = 1,
         .depth = 1,
         .tasks = 2,
         .metrics = {{.title = "slab",
                      .unit = "files/s per slab task",
                      .value =
                          [](const RunMeasurement& m, int /*cgroups*/) {
                              return m.total_ops_per_sec /
                                     static_cast<double>(m.task_ops_per_sec.size());
                          }}},
         .collect =
             [&slab_miss_pct](Workload& /*w*/, std::size_t /*v*/,
                              const std::optional<Counters>& deltas) {
                 if (const auto pct = deltas ? objcg_vmstat_miss_pct_of(*deltas) : std::nullopt) {
                     slab_miss_pct.push_back(*pct);
                 }
             }},
        {.make =
             [] {
                 std::vector<std::unique_ptr<Workload>> parts;
                 parts.push_back(workload("slab", "anon", "/tmp"));
                 parts.push_back(workload("page-fault", "anon"));
                 return std::make_unique<CompositeWorkload>(
                     "slab+page-fault", std::move(parts),
                     [](std::size_t /*cgroup*/, std::size_t index) {
                         return index == 0 ? 0U : 1U;
                     });
             },
         .cgroups = 1,
         .depth = 1,
         .tasks = 2,
         .metrics = {{.title = "mixed",
                      .unit = "files/s per slab task",
                      .value = task_sum([](std::size_t t) { return t % 2 == 0; })}}},
    };
    const std::vector<Variant> one{{.label = "on"}};
    const auto reports = e.run("stock_hooks", jobs, one);
    const auto report = by_workload(reports[0][0], reports[1][0]);
    r.reports.push_back(report);
    if (reports[0].size() >= 2) {
        // Counted runs: the twin, slab files per 10^9 guest instructions (all vCPUs).
        r.reports.push_back(by_workload(reports[0][1], reports[1][1]));
    }
    const auto& rows = report.rows;
    ExtraTable t{"the obj-stock-vmstat table: objcg vmstat pushes (flushes) / mod_objcg_state "
                 "calls (updates), per run",
                 {"workload", "flushes", "updates", "%", "obj-stock hit %", "charge-stock hit %"},
                 {}};
    for (const auto& row : rows) {
        const auto get = [&](const char* n) {
            const auto v = row.mean_counter_deltas.get(n);
            return v ? std::to_string(*v) : std::string("-");
        };
        t.rows.push_back(
            {row.value, get("objcg_vmstat.flushes"), get("objcg_vmstat.updates"),
             format_or_dash(derived_value(row.derived, "objcg_vmstat_miss_pct"), "{:.1f}"),
             format_or_dash(derived_value(row.derived, "obj_stock_hit_pct"), "{:.1f}"),
             format_or_dash(derived_value(row.derived, "charge_stock_hit_pct"), "{:.1f}")});
    }
    r.extra.push_back(t);
    r.parameters.emplace_back("setup", "1 cgroup, 2 tasks: slab = 2 slab tasks; mixed = 1 slab "
                                       "task + 1 page-fault anon task");
    r.notes.emplace_back(
        "% = 100 x objcg_vmstat.flushes / objcg_vmstat.updates (the __mod_objcg_state / "
        "mod_objcg_state of docs/background.md#obj-stock-vmstat), from the summed deltas of "
        "all runs.");
    r.notes.emplace_back("the verdict's spread: the standard deviation of the slab miss rate "
                         "of each run on its own, in percentage points.");
    r.verdict = objstock_verdict(report, slab_miss_pct);
    r.measure = Measure::counters; // a ratio of counts: no clock in it
}

void run_readtwice(Experiment& e, ExperimentResult& r) {
    e.set_fixed("stock_hooks", "1");
    const auto dir = e.options().dir;
    const auto size = e.options().size_mib.value_or(32);
    std::vector<Job> jobs{
        {.make = [dir, size] { return workload("readtwice", "anon", dir, size); },
         .cgroups = 1,
         .depth = 1,
         .tasks = 2,
         .leaf_memory_max = size * mib / 2,
         .metrics = {{.title = "readtwice total", .unit = "pages/s", .value = total},
                     {.title = "readtwice per cgroup",
                      .unit = "pages/s per cgroup",
                      .value = [](const RunMeasurement& m, int cgroups) {
                          return m.total_ops_per_sec / cgroups;
                      }}}}};
    std::vector<Variant> variants;
    for (const int n : {1, 4, 16}) {
        variants.push_back({.label = std::to_string(n), .cgroups = n});
    }
    auto reports = e.run("cgroups", jobs, variants).front();
    r.reports = reports;
    ExtraTable t{
        "readtwice by cgroup count",
        {"cgroups", "total pages/s", "pages/s per cgroup", "charge-stock hit %", "obj-stock hit %"},
        {}};
    for (std::size_t i = 0; i < variants.size(); ++i) {
        const auto& row = reports[0].rows[i];
        t.rows.push_back(
            {row.value, fmt::format("{:.0f}", row.summary.mean),
             fmt::format("{:.0f}", reports[1].rows[i].summary.mean),
             format_or_dash(derived_value(row.derived, "charge_stock_hit_pct"), "{:.1f}"),
             format_or_dash(derived_value(row.derived, "obj_stock_hit_pct"), "{:.1f}")});
    }
    r.extra.push_back(t);
    r.parameters.emplace_back(
        "setup", fmt::format("N leaves at depth 1, 2 readers each over one sparse {} MiB file per "
                             "cgroup in {}, memory.max {} MiB per leaf (so pages cycle through "
                             "the LRU as in vm-scalability's file > memory)",
                             size, dir, size / 2));
    r.verdict = readtwice_verdict(Experiment::decisive(reports, 0, 2));
}

} // namespace memcg_statctl
