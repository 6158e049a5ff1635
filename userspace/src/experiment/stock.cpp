// The stock recipes: objstock (docs/background.md#obj-stock-vmstat, the object stock's objcg
// vmstat miss rate) and readtwice (docs/background.md#per-memcg-lru-lock, throughput by
// cgroup count).
#include <functional>
#include <memory>

#include <fmt/format.h>

#include "experiment/recipes.h"
#include "experiment/runner.h"
#include "statistics.h"
#include "text_util.h"
#include "workloads/io.h"

namespace memcg_statctl {
namespace {

// A workload whose task (cgroup c, index i) runs parts[pick(c, i)], such as slab beside
// page-fault in one leaf. prepare() and cleanup() reach every part.
class CompositeWorkload final : public Workload {
public:
    using Pick = std::function<std::size_t(std::size_t cgroup, std::size_t index)>;
    CompositeWorkload(std::string name, std::vector<std::unique_ptr<Workload>> parts, Pick pick)
        : name_(std::move(name)), parts_(std::move(parts)), pick_(std::move(pick)) {}
    std::string name() const override { return name_; }
    void prepare(std::size_t cgroups) override;
    void run_task(const TaskContext& ctx) override;
    void cleanup() noexcept override;

private:
    std::string name_;
    std::vector<std::unique_ptr<Workload>> parts_;
    Pick pick_;
};

void CompositeWorkload::prepare(std::size_t cgroups) {
    for (auto& p : parts_) {
        p->prepare(cgroups);
    }
}

void CompositeWorkload::run_task(const TaskContext& ctx) {
    parts_.at(pick_(ctx.cgroup, ctx.index_in_cgroup))->run_task(ctx);
}

void CompositeWorkload::cleanup() noexcept {
    for (auto& p : parts_) {
        p->cleanup();
    }
}

// One report with a row per workload (slab, mixed), from the one-row reports of the two
// jobs. Mixed is compared against slab as compare() does for a sweep.
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

void run_objstock(Experiment& e, ExperimentResult& r) {
    e.set_fixed("stock_hooks", "1");
    // objcg_vmstat.flushes is opt-in (its hook runs on every page-state update); the
    // previous value comes back at the end, like every fixed knob's.
    e.set_fixed("objcg_flush_hooks", "1");
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

} // namespace

Recipe objstock_recipe() {
    return {
        .name = "objstock",
        .report_id = "obj-stock-vmstat",
        .summary = "obj-stock hit % and objcg vmstat miss rate, slab and slab+page-fault",
        .reference = "linux-mm, \"Re: [PATCH v4 4/5] mm/memcg: Save both reclaimable & "
                     "unreclaimable bytes in object stock\", Waiman Long, 2021-04-20; upstream "
                     "as part of 68ac5b3c8db2 (\"mm/memcg: cache vmstat data in percpu "
                     "memcg_stock_pcp\")",
        .claim = "On an instrumented 2-socket Cascade Lake server, caching reclaimable and "
                 "unreclaimable slab bytes together in the object stock lowered the objcg "
                 "vmstat miss rate (__mod_objcg_state / mod_objcg_state calls) after boot from "
                 "19.6% to 13.2%; during a parallel kernel build it stayed at 17.1% vs 16.9%.",
        .run = run_objstock,
    };
}

Recipe readtwice_recipe() {
    return {
        .name = "readtwice",
        .report_id = "per-memcg-lru-lock",
        .summary = "readtwice in 1, 4, 16 cgroups: throughput per cgroup, stock hit %",
        .reference = "linux-mm, \"Re: [PATCH v18 00/32] per memcg lru_lock\", Alex Shi quoting "
                     "Daniel Jordan, 2020-08-26; a later version upstream, 6168d0da2b47 "
                     "(\"mm/lru: replace pgdat lru_lock with lruvec lock\")",
        .claim = "With the per-memcg lru_lock series (v18 against 5.9-rc2), a memcg version of "
                 "vm-scalability's readtwice read 11% more data in 30 s runs with 16 cgroups "
                 "(32 dd tasks) on a 40-CPU 2-socket machine (Daniel Jordan); one readtwice "
                 "per container in 80 containers ran at 252% of 5.9-rc2 on a 2-socket, "
                 "20-core, 2-thread machine (Alex Shi).",
        .run = run_readtwice,
    };
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
        return finish_verdict(Outcome::not_measured,
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
    return finish_verdict(*miss <= obj_stock_vmstat_miss_pct_before ? Outcome::reproduced
                                                                    : Outcome::not_reproduced,
                          body);
}

Verdict readtwice_verdict(const ComparisonReport& total) {
    const auto* r16 = find_row(total, "16");
    const auto* r1 = find_row(total, "1");
    if (r1 == nullptr || r16 == nullptr) {
        return finish_verdict(Outcome::not_measured,
                              "per-memcg-lru-lock: readtwice lacks 1 or 16 cgroups");
    }
    std::vector<std::string> changes;
    for (const auto& row : total.rows) {
        if (row.percent_change) {
            changes.push_back(fmt::format("{} cgroups {} ({})", row.value,
                                          percent_text(row.percent_change), p_value_text(row)));
        }
    }
    const bool collapsed = r16->significant && r16->percent_change && *r16->percent_change < 0;
    auto body =
        fmt::format("per-memcg-lru-lock: readtwice total {} vs 1 cgroup: {} (report: per-memcg "
                    "lru_lock, +11% data read at 16 cgroups; reproduced = no significant "
                    "drop at 16)",
                    total.metric, fmt::join(changes, ", "));
    return finish_verdict(collapsed ? Outcome::not_reproduced : Outcome::reproduced, body);
}

} // namespace memcg_statctl
