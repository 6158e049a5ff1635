// Runs a workload: forks the tasks, puts each into its leaf cgroup, starts them together
// through a barrier, measures for the duration, stops them and reports ops/s per task.
#pragma once

#include <cstddef>
#include <filesystem>
#include <functional>
#include <sys/types.h>
#include <vector>

#include "cgroup/hierarchy.h"
#include "workloads/workload.h"

namespace memcg_statctl {

// Where tasks go. The real one wraps a CgroupHierarchy; tests use plain directories.
class TaskPlacement {
public:
    TaskPlacement() = default;
    TaskPlacement(const TaskPlacement&) = delete;
    TaskPlacement& operator=(const TaskPlacement&) = delete;
    TaskPlacement(TaskPlacement&&) = delete;
    TaskPlacement& operator=(TaskPlacement&&) = delete;
    virtual ~TaskPlacement() = default;
    virtual std::size_t groups() const = 0;
    virtual std::filesystem::path group_dir(std::size_t group) const = 0;
    virtual void attach(std::size_t group, pid_t pid) = 0;
};

// Places a workload's task groups in the leaves of a CgroupHierarchy: group g is leaf g.
class HierarchyPlacement final : public TaskPlacement {
public:
    explicit HierarchyPlacement(CgroupHierarchy& h) : h_(h) {}
    std::size_t groups() const override { return h_.leaf_count(); }
    std::filesystem::path group_dir(std::size_t g) const override { return h_.leaf_dir(g); }
    void attach(std::size_t g, pid_t pid) override { h_.attach(g, pid); }

private:
    CgroupHierarchy& h_;
};

struct RunPlan {
    int tasks_per_cgroup = 1;
    // Seconds of measurement. For a workload that runs to completion (!counts_ops()), the
    // limit after which its tasks are terminated; 0 there means no limit.
    double duration = 5;
    // Called about every 50 ms while the tasks run (when set). What it throws ends the run
    // as a task failure does, e.g. the module found gone (DebugfsClient::require_still_module).
    std::function<void()> check;
    // Seconds the tasks run before the measured window opens (their start-up, page cache
    // warming); what happens in them counts neither in ops nor in the window's length.
    double warmup = 0;
    // Called when the measured window opens (after the warm-up) and when it closes (before
    // the tasks are stopped), e.g. to snapshot counters; what they throw ends the run.
    std::function<void()> window_open;
    std::function<void()> window_close;
};

// How a task of a to-completion workload ended: its exit code, or 128 + the signal that
// killed it (the shell's convention).
int exit_status_code(int wait_status);

struct RunMeasurement {
    double seconds = 0;                   // the measured window
    std::vector<double> task_ops_per_sec; // counts_ops() workloads
    double total_ops_per_sec = 0;
    std::vector<int> exit_statuses;   // !counts_ops(): one per task, see exit_status_code()
    bool stopped_at_duration = false; // !counts_ops(): tasks were terminated at the limit
};

// Throws ToolError if a counting task fails, Interrupted if a stop signal arrives, and what
// plan's callbacks throw (tasks are killed and reaped before it returns or throws, and
// workload.cleanup() has run). A to-completion task that exits non-zero is not an error
// here: its status is in the measurement.
RunMeasurement run_workload(Workload& workload, const RunPlan& plan, TaskPlacement& placement);

} // namespace memcg_statctl
