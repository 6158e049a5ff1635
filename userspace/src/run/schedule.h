// The runs of `run` and `sweep` in the order they happen: the warm-up runs (--warmup-runs),
// discarded, and the measured runs, each between --prepare and --cleanup.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "output/reports.h"
#include "run/shell_hooks.h"
#include "run/sweep.h"

namespace memcg_statctl {

struct ScheduledRun {
    SweepStep step; // the value and round it belongs to
    int warmup = 0; // 1 .. N: the value's N-th warm-up run, discarded; 0: a measured run
    friend bool operator==(const ScheduledRun&, const ScheduledRun&) = default;
};

// The measured runs in sweep_order's interleaved rounds; each value's first measured run
// (in the first round) comes right after its `warmup_runs` warm-up runs, as hyperfine warms
// up before each command's runs: the warm-up runs under that value's setting, the measured
// ones in every round find what the first round left behind.
std::vector<ScheduledRun> run_schedule(std::size_t values, int runs, int warmup_runs);

// What a command does at each point of its schedule.
struct ScheduleSteps {
    // "flush_mode=never run 2", "flush_mode=never warm-up run 1": the run in error messages.
    std::function<std::string(const ScheduledRun&)> name;
    std::function<void(const ScheduledRun&)> start; // before --prepare: knob writes, progress
    std::function<RunResult()> run;
    // Why a finished run failed (a copy of the command exited non-zero...), nullopt if not.
    std::function<std::optional<std::string>(const ScheduledRun&, const RunResult&)> failure;
    // A measured run, kept before its --cleanup runs (a failing cleanup keeps it).
    std::function<void(const ScheduledRun&, RunResult)> keep;
};

// Runs every entry: start, --prepare, run, then keeps a measured run (never a warm-up run),
// --cleanup, and throws ToolError "NAME: why" when the run failed. Throws Interrupted on
// SIGINT/SIGTERM between runs.
void run_scheduled(const std::vector<ScheduledRun>& schedule, const ShellHooks& hooks,
                   const ScheduleSteps& steps);

} // namespace memcg_statctl
