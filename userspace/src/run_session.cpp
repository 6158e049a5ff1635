#include "run_session.h"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "memcg_statctl/cgroup_hierarchy.h"

#include "hierarchy_placement.h"
#include "option_checks.h"

namespace memcg_statctl {

void add_run_options(CLI::App& sub, RunOptions& o) {
    sub.add_option("--cgroups", o.cgroups, "leaf cgroups (one memcg each)")
        ->capture_default_str()
        ->check(positive<int>());
    sub.add_option("--depth", o.depth, "levels below the tool's top group (leaves at D)")
        ->capture_default_str()
        ->check(between(1, 32));
    sub.add_option("--tasks", o.tasks, "tasks per cgroup (readtwice: always 2)")
        ->capture_default_str()
        ->check(positive<int>());
    sub.add_option("--duration", o.duration, "seconds to measure")
        ->type_name("S")
        ->capture_default_str()
        ->check(positive<double>());
    sub.add_option("--mode", o.workload.mode, "page-fault: anon | file-private | file-shared")
        ->capture_default_str()
        ->check(CLI::IsMember({"anon", "file-private", "file-shared"}));
    sub.add_option("--dir", o.workload.dir,
                   "scratch directory (slab: /dev/shm, refault: /var/tmp, page-fault: /tmp; "
                   "readtwice: required)");
    sub.add_option("--size", o.workload.size_mib, "refault/readtwice file size in MiB")
        ->capture_default_str()
        ->check(positive<std::uint64_t>());
}

NameValues run_parameters(const RunOptions& o, const Workload& w) {
    NameValues p{{"cgroups", std::to_string(o.cgroups)},
                 {"depth", std::to_string(o.depth)},
                 {"tasks", std::to_string(w.tasks_per_cgroup(o.tasks))},
                 {"duration", fmt::format("{:g}", o.duration)}};
    if (o.workload.name == "page-fault") {
        p.emplace_back("mode", o.workload.mode);
    }
    if (o.workload.name == "refault" || o.workload.name == "readtwice") {
        p.emplace_back("size_mib", std::to_string(o.workload.size_mib));
    }
    return p;
}

RunSession::RunSession(const Context& ctx, const RunOptions& options)
    : ctx_(ctx), options_(options), workload_(make_workload(options.workload)),
      backend_(std::make_unique<LibcgroupBackend>()),
      module_(ctx.client().availability() == Availability::available) {
    for (const auto& left : remove_leftover_groups(*backend_)) {
        if (left.removed) {
            fmt::print(ctx_.env.err, "removed leftover cgroup {} of dead process {}\n",
                       (backend_->mount() / left.name).string(), left.owner);
        } else {
            fmt::print(ctx_.env.err, "warning: cannot remove leftover cgroup {}: {}\n",
                       (backend_->mount() / left.name).string(), left.error);
        }
    }
}

RunOutcome RunSession::run_once() {
    const auto client = ctx_.client();
    if (module_) {
        client.require_still_module();
    }
    CgroupHierarchy hierarchy(*backend_, options_.cgroups, options_.depth);
    HierarchyPlacement placement(hierarchy);
    RunPlan plan{options_.tasks, options_.duration, {}};
    if (module_) {
        plan.check = [&client] { client.require_still_module(); };
    }
    const auto before = module_ ? std::optional<Counters>(client.stats()) : std::nullopt;
    RunOutcome outcome{run_workload(*workload_, plan, placement), std::nullopt};
    if (before) {
        outcome.counter_deltas = Counters::delta(*before, client.stats());
    }
    return outcome;
}

} // namespace memcg_statctl
