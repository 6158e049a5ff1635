// The flush-policy recipes: update-flush (docs/background.md#update-path-flush) and reader-flush
// (docs/background.md#flush-only-if-updated).
#include <fmt/format.h>

#include "experiment/recipe_runs.h"
#include "experiment/runner.h"

namespace memcg_statctl {

void run_update_flush(Experiment& e, ExperimentResult& r) {
    std::vector<Job> jobs;
    for (const std::string mode : {"anon", "file-shared"}) {
        jobs.push_back(
            {.make = [mode] { return workload("page-fault", mode); },
             .cgroups = 1,
             .depth = 2,
             .tasks = 2,
             .metrics = {{.title = "page-fault " + mode, .unit = "faults/s", .value = total}}});
    }
    std::vector<Variant> variants;
    for (const std::string v : {"0", "128", "32"}) {
        variants.push_back({.label = v, .knobs = {{"update_flush_every", v}}});
    }
    std::vector<ComparisonReport> decisive;
    for (auto& per_job : e.run("update_flush_every", jobs, variants)) {
        r.reports.insert(r.reports.end(), per_job.begin(), per_job.end()); // and the twin
        decisive.push_back(Experiment::decisive(per_job, 0, 1));
    }
    r.parameters.emplace_back("setup", "1 leaf at depth 2, 2 page-fault tasks, THP off");
    r.notes.emplace_back(
        "update_flush_every=N queues an asynchronous full flush every N memcg stat "
        "updates on a cpu (the 5.15 mechanism of docs/background.md#update-path-flush); "
        "flush.async counts them.");
    r.verdict = update_flush_verdict(decisive);
}

void run_reader_flush(Experiment& e, ExperimentResult& r) {
    const auto dir = e.options().dir;
    // A refault cycle (reclaim, then read back) costs far more per page in its first half
    // than in its second, so a run must hold many cycles or its figure depends on where
    // the window cut the last one: a small file (32 MiB took 2-4 s a cycle in the 8-vCPU
    // TCG guest, and whole runs saw no read at all) and a longer run.
    const auto size = e.options().size_mib.value_or(4);
    std::vector<Job> jobs{
        {.make = [dir, size] { return workload("refault", "anon", dir, size); },
         .cgroups = 1,
         .depth = 1,
         .tasks = 1,
         .metrics = {{.title = "refault", .unit = "pages/s", .value = total}},
         .duration_factor = 4},
        {.make = [] { return workload("stat-reader"); },
         .cgroups = 1,
         .depth = 1,
         .tasks = 2,
         .metrics = {{.title = "stat-reader", .unit = "reads/s", .value = total}}},
    };
    const std::vector<Variant> variants{{.label = "always", .knobs = {{"flush_mode", "always"}}},
                                        {.label = "kernel", .knobs = {{"flush_mode", "kernel"}}}};
    const auto reports = e.run("flush_mode", jobs, variants);
    for (const auto& per_job : reports) {
        r.reports.insert(r.reports.end(), per_job.begin(), per_job.end());
    }
    r.parameters.emplace_back("refault", fmt::format("{} MiB file in {}, 1 task, 1 cgroup; "
                                                     "memory.reclaim then read back; runs 4x "
                                                     "--duration",
                                                     size, dir));
    r.parameters.emplace_back("stat-reader", "2 tasks reading memory.stat, 1 cgroup");
    r.notes.emplace_back("docs/background.md#flush-only-if-updated timed the read of a refaulting "
                         "file; here throughput (pages/s) is measured, "
                         "so a shorter read time shows as a positive %change of `kernel`.");
    r.verdict = reader_flush_verdict(Experiment::decisive(reports[0], 0, 1),
                                     &Experiment::decisive(reports[1], 0, 1));
}

} // namespace memcg_statctl
