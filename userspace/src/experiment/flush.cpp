// The flush-policy recipes: update-flush (docs/background.md#update-path-flush) and
// reader-flush (docs/background.md#flush-only-if-updated).
#include <fmt/format.h>

#include "experiment/recipes.h"
#include "experiment/runner.h"

namespace memcg_statctl {
namespace {

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

} // namespace

Recipe update_flush_recipe() {
    return {
        .name = "update-flush",
        .report_id = "update-path-flush",
        .summary =
            "update_flush_every = 0, 128, 32 on page-fault (anon, file-shared), 2-level cgroup",
        .reference =
            "kernel test robot, \"[memcg] 45208c9105: aim7.jobs-per-min -14.0% regression\" "
            "(45208c9105: \"memcg: infrastructure to flush memcg stats\", upstream "
            "aa48e47e3906), replies by Shakeel Butt and Feng Tang, 2021-09-05 to "
            "2021-09-10; the update-path flush went again with upstream 1f828223b799",
        .claim =
            "The commit queued an async stats flush every 32 stat updates: the robot measured "
            "will-it-scale page_fault3 -9.2% and page_fault2 -6.4% per_process_ops (48-thread "
            "2-socket Xeon E5-2697 v2) and aim7 -14.0% (128-thread Xeon Gold 6338). Flushing "
            "every 128 updates instead halved the page_fault1/2/3 slowdown, from around 10% to "
            "5% (Shakeel Butt), but left aim7 at about -12% (Feng Tang).",
        .run = run_update_flush,
    };
}

Recipe reader_flush_recipe() {
    return {
        .name = "reader-flush",
        .report_id = "flush-only-if-updated",
        .summary = "flush_mode = always vs kernel on refault and stat-reader",
        .reference = "\"Re: [PATCH 1/2] memcg: flush stats only if updated\", Shakeel Butt, "
                     "replying to Johannes Weiner's ack of 2021-10-01; upstream 11192d9c124d",
        .claim = "The kernel flushed the memcg stats on every refault; flushing only once the "
                 "pending updates exceed nr_cpus x CHARGE_BATCH cut the time to read back an 8 "
                 "GiB tmpfs file pushed to swap-on-zram (memory.force_empty) by 63%. The "
                 "report names no machine.",
        .run = run_reader_flush,
    };
}

Verdict update_flush_verdict(const std::vector<ComparisonReport>& modes) {
    if (modes.empty()) {
        return finish_verdict(Outcome::not_measured, "update-path-flush: no page-fault results");
    }
    std::vector<std::string> at32;
    std::vector<std::string> at128;
    bool all = true;
    for (const auto& m : modes) {
        const auto* r32 = find_row(m, "32");
        const auto* r128 = find_row(m, "128");
        if (r32 == nullptr || find_row(m, "0") == nullptr) {
            return finish_verdict(
                Outcome::not_measured,
                fmt::format("update-path-flush: {} lacks the values 0 and 32", m.workload));
        }
        at32.push_back(fmt::format("{} {} ({})", m.workload, percent_text(r32->percent_change),
                                   p_value_text(*r32)));
        if (r128 != nullptr) {
            at128.push_back(fmt::format("{} {}", m.workload, percent_text(r128->percent_change)));
        }
        all = all && r32->significant && r32->percent_change && *r32->percent_change < 0;
    }
    auto body =
        fmt::format("update-path-flush: update_flush_every=32 vs 0: {}", fmt::join(at32, ", "));
    if (!at128.empty()) {
        body += fmt::format("; 128 vs 0: {}", fmt::join(at128, ", "));
    }
    body += " (report: page_fault around -10% at 32, around -5% at 128)";
    return finish_verdict(all ? Outcome::reproduced : Outcome::not_reproduced, body);
}

Verdict reader_flush_verdict(const ComparisonReport& refault, const ComparisonReport* reader) {
    const auto* k = find_row(refault, "kernel");
    if (k == nullptr || find_row(refault, "always") == nullptr) {
        return finish_verdict(Outcome::not_measured,
                              "flush-only-if-updated: refault lacks flush_mode always/kernel");
    }
    // Throughput change -> read-time change: time = 1 / throughput.
    std::string time;
    if (k->percent_change && *k->percent_change > -100) {
        time = fmt::format(", read time {:+.1f}%", 100 * (1 / (1 + *k->percent_change / 100) - 1));
    }
    auto body =
        fmt::format("flush-only-if-updated: refault with flush_mode=kernel vs always: {} {} ({}){}",
                    percent_text(k->percent_change), refault.metric, p_value_text(*k), time);
    if (reader != nullptr) {
        if (const auto* rk = find_row(*reader, "kernel")) {
            body += fmt::format("; stat-reader {} ({})", percent_text(rk->percent_change),
                                p_value_text(*rk));
        }
    }
    body += " (report: needless flushes skipped, 63% shorter read time)";
    const bool ok = k->significant && k->percent_change && *k->percent_change > 0;
    return finish_verdict(ok ? Outcome::reproduced : Outcome::not_reproduced, body);
}

} // namespace memcg_statctl
