// Runs a workload: forks the tasks, puts each into its leaf cgroup, starts them together
// through a barrier, measures for the duration, stops them and reports ops/s per task.
#pragma once

#include <cstddef>
#include <filesystem>
#include <functional>
#include <sys/types.h>
#include <vector>

#include "memcg_statctl/workload.h"

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

struct RunPlan {
    int tasks_per_cgroup = 1;
    double duration = 5; // seconds of measurement
    // Called about every 50 ms while the tasks run (when set). What it throws ends the run
    // as a task failure does, e.g. the module found gone (DebugfsClient::require_still_module).
    std::function<void()> check;
};

struct RunMeasurement {
    double seconds = 0; // measured
    std::vector<double> task_ops_per_sec;
    double total_ops_per_sec = 0;
};

// Throws ToolError if a task fails or a stop signal arrives, and what plan.check throws
// (tasks are killed and reaped before it returns or throws, and workload.cleanup() has run).
RunMeasurement run_workload(Workload& workload, const RunPlan& plan, TaskPlacement& placement);

} // namespace memcg_statctl
