// The recipe table of `experiment NAME`: one row per recipe, each naming the report it
// reproduces, the claim it tests and the function that runs it. `experiment --list`, the
// help text and the dispatch all read this table.
#include "experiment/experiment.h"
#include "experiment/recipe_runs.h"

namespace memcg_statctl {

const std::vector<Recipe>& recipes() {
    static const std::vector<Recipe> list = {
        {
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
        },
        {
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
        },
        {
            .name = "flush-threshold",
            .report_id = "per-memcg-threshold",
            .summary = "flush_threshold 0..16x the kernel default: cost and staleness, stat-reader "
                       "beside page-fault, depth 2",
            .reference = "linux-mm, \"Re: [PATCH v2 3/5] mm: memcg: make stats flushing threshold "
                         "per-memcg\", Oliver Sang quoting Yosry Ahmed's commit log, 2023-10-18; "
                         "upstream 8d59d2214c23",
            .claim =
                "A per-memcg flush threshold cost netperf TCP_SENDFILE 3.9% (40198.0 to 38629.7 "
                "Mbps; 22 instances on 44 CPUs, 20 runs) and will-it-scale page_fault1/2/3 1.56% "
                "to 3.58% of per-process and per-thread ops (256 CPUs, 10 runs), in a 2-level "
                "cgroup. In exchange the stats error bound grows from NR_CPUS x MEMCG_CHARGE_BATCH "
                "to that x NR_MEMCGS, with the 2 s periodic flush as the backstop.",
            .run = run_flush_threshold,
        },
        {
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
        },
        {
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
        },
        {
            .name = "staleness",
            .report_id = "per-memcg-threshold",
            .summary = "staleness vs flush cost: flush_threshold 0..64x the kernel default and the "
                       "other flush_mode values, stat-reader beside page-fault, depth 2",
            .reference = "linux-mm, \"Re: [PATCH v2 3/5] mm: memcg: make stats flushing threshold "
                         "per-memcg\", Oliver Sang quoting Yosry Ahmed's commit log, 2023-10-18; "
                         "upstream 8d59d2214c23",
            .claim = "The thread weighed a higher flush threshold (fewer, cheaper flushes) against "
                     "staler stats in prose: the error bound is MEMCG_CHARGE_BATCH x NR_CPUS pages "
                     "(x NR_MEMCGS with per-memcg thresholds), with the 2 s periodic flush as the "
                     "backstop. It published no curve of staleness against threshold; this recipe "
                     "measures one.",
            .run = run_staleness,
        },
    };
    return list;
}

std::vector<std::string> recipe_names() {
    std::vector<std::string> names;
    for (const auto& r : recipes()) {
        names.push_back(r.name);
    }
    return names;
}

const Recipe* find_recipe(std::string_view name) {
    for (const auto& r : recipes()) {
        if (r.name == name) {
            return &r;
        }
    }
    return nullptr;
}

} // namespace memcg_statctl
