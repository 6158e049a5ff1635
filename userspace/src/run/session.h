// What `run` and `sweep` share: the run options, and one measured run with counter and
// memory.stat snapshots around it. A run is one of
//   - a built-in workload (WORKLOAD / --workload) in a fresh cgroup hierarchy,
//   - a user's command (`-- CMD ARGS...`) in a fresh cgroup hierarchy, N copies,
//   - an observation of existing cgroups (--cgroup) or processes (--pid): nothing started.
#pragma once

#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <sys/types.h>
#include <vector>

#include <CLI/CLI.hpp>

#include "cgroup/backend.h"
#include "cgroup/placement.h"
#include "commands/cli.h"
#include "debugfs/client.h"
#include "output/reports.h"
#include "run/shell_hooks.h"
#include "workloads/command.h"
#include "workloads/workload.h"

namespace memcg_statctl {

struct RunOptions {
    WorkloadOptions workload;                 // name empty: a command or an observation
    std::vector<std::string> command;         // after `--`
    std::string metric;                       // --metric REGEX (commands only)
    std::vector<std::string> observe_cgroups; // --cgroup PATH
    std::vector<std::string> observe_pids;    // --pid PID[,PID], split at commas by CLI11
    int cgroups = 1;
    int depth = 1;
    int tasks = 1;
    std::optional<double> duration; // default: 5 s; a command: until it exits
    double warmup = 0;              // --warmup S: inside each run, before its measured window
    int warmup_runs = 0; // --warmup-runs N: whole runs before the measured ones, discarded
    ShellHooks hooks;    // --prepare, --cleanup: around every run, warm-up runs included
    std::optional<std::string> parent;
};

// Registers --cgroups --depth --tasks --duration --warmup --warmup-runs --prepare --cleanup
// --parent --metric --mode --dir --size on `sub`.
void add_run_options(CLI::App& sub, RunOptions& o);
// Registers --cgroup and --pid (run only: a sweep needs something it starts itself).
void add_observe_options(CLI::App& sub, RunOptions& o);

// The checks of RunSession's constructor that need neither the module nor cgroups, all
// usage errors: one kind of run, --metric's regex and capture group, a workload's options,
// --pid's ids. A sweep makes them before it requires the module.
void check_run_options(const RunOptions& o);

class RunSession {
public:
    // Checks that exactly one kind of run was asked for (usage error otherwise), sets up
    // libcgroup, chooses the parent group (cgroup/placement.h) and removes leftover groups
    // of dead earlier runs there (reported on err). Whether the module is loaded now
    // decides for every run of the session: with it, a run measures counter deltas and
    // fails (exit 3, tasks stopped, cgroups removed) as soon as the module is unloaded or
    // debugfs unmounted; without it, runs have no deltas.
    RunSession(const Context& ctx, RunOptions options);
    RunSession(const RunSession&) = delete;
    RunSession& operator=(const RunSession&) = delete;
    RunSession(RunSession&&) = delete;
    RunSession& operator=(RunSession&&) = delete;
    ~RunSession();

    // A built-in workload's name, "command", "cgroup" or "pid".
    const std::string& kind() const { return kind_; }
    bool module_loaded() const { return module_; }
    // Every option that shaped the runs, typed, for the JSON documents.
    Parameters parameters() const;
    // What each copy of the command printed in the last run (commands only).
    std::vector<std::string> command_outputs() const;

    // Throws Interrupted on SIGINT/SIGTERM and ToolError on failures, after cleaning up.
    RunResult run_once();

private:
    RunResult run_in_hierarchy();
    RunResult observe();

    const Context& ctx_;
    RunOptions options_;
    std::string kind_;
    std::unique_ptr<Workload> workload_;
    CommandWorkload* command_ = nullptr; // workload_, when it is a command
    std::optional<CommandMetric> metric_;
    std::vector<pid_t> pids_;
    std::unique_ptr<CgroupBackend> backend_;
    std::unique_ptr<CgroupParent> parent_;
    bool module_ = false;
};

// A run's module figures: r's counters, flush_latency and flush_reasons become their deltas
// over the window between the two samples, and r.derived comes from them over r.seconds
// (set it first).
void set_module_deltas(RunResult& r, const ModuleSample& before, const ModuleSample& after);

// What `run` and `sweep` tell about a user's command: its output on stderr, and whether a
// copy failed.
// Each copy's output, prefixed "[copy N] " when there is more than one copy.
void print_command_outputs(std::ostream& err, const std::vector<std::string>& outputs);

// "copy 2 of the command exited with status 1: <its last output lines>" for the first copy
// that failed; nullopt when all exited 0 or were terminated by the tool at --duration.
std::optional<std::string> command_failure(const RunResult& r,
                                           const std::vector<std::string>& outputs);

} // namespace memcg_statctl
