// What `run` and `sweep` share (internal): the run options, and one measured run in a
// fresh cgroup hierarchy with module counter snapshots around it.
#pragma once

#include <memory>
#include <optional>

#include <CLI/CLI.hpp>

#include "memcg_statctl/cgroup_backend.h"
#include "memcg_statctl/counters.h"
#include "memcg_statctl/workload.h"
#include "memcg_statctl/workload_runner.h"

#include "command.h"

namespace memcg_statctl {

struct RunOptions {
    WorkloadOptions workload;
    int cgroups = 1;
    int depth = 1;
    int tasks = 1;
    double duration = 5;
};

// Registers --cgroups --depth --tasks --duration --mode --dir --size on `sub`.
void add_run_options(CLI::App& sub, RunOptions& o);

NameValues run_parameters(const RunOptions& o, const Workload& w);

struct RunOutcome {
    RunMeasurement measurement;
    std::optional<Counters> counter_deltas; // when the module is loaded
};

class RunSession {
public:
    // Sets up libcgroup and removes leftover groups of dead earlier runs (reported on err).
    // Whether the module is loaded now decides for every run of the session: with it, a
    // run measures counter deltas and fails (exit 3, tasks stopped, cgroups removed) as
    // soon as the module is unloaded or debugfs unmounted; without it, runs have no deltas.
    RunSession(const Context& ctx, const RunOptions& options);
    const Workload& workload() const { return *workload_; }
    RunOutcome run_once();

private:
    const Context& ctx_;
    RunOptions options_;
    std::unique_ptr<Workload> workload_;
    std::unique_ptr<CgroupBackend> backend_;
    bool module_ = false;
};

} // namespace memcg_statctl
