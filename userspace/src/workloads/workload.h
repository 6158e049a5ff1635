// The workloads of `run` and `sweep`. Each runs in forked tasks, each task inside one leaf
// cgroup, looping until told to stop and publishing its operation count as it goes.
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace memcg_statctl {

struct WorkloadOptions {
    std::string name;             // page-fault | slab | stat-reader | refault | readtwice
    std::string mode = "anon";    // page-fault: anon | file-private | file-shared
    std::filesystem::path dir;    // scratch directory; empty = the workload's default
    std::uint64_t size_mib = 256; // refault / readtwice file size
};

// What one task knows about itself. `ops` and `stop` live in memory shared with the parent.
struct TaskContext {
    std::size_t task = 0;             // 0 .. total tasks - 1
    std::size_t cgroup = 0;           // leaf index
    std::size_t index_in_cgroup = 0;  // 0 .. tasks per cgroup - 1
    std::filesystem::path cgroup_dir; // the leaf's directory (memory.stat, memory.reclaim)
    std::atomic<std::uint64_t>* ops = nullptr;
    const std::atomic<bool>* stop = nullptr;

    bool stopping() const { return stop->load(std::memory_order_relaxed); }
    void publish(std::uint64_t count) const { ops->store(count, std::memory_order_relaxed); }
};

class Workload {
public:
    Workload() = default;
    Workload(const Workload&) = delete;
    Workload& operator=(const Workload&) = delete;
    Workload(Workload&&) = delete;
    Workload& operator=(Workload&&) = delete;
    virtual ~Workload() = default;

    virtual std::string name() const = 0;
    // readtwice always runs two readers per cgroup; the others run what was asked.
    virtual int tasks_per_cgroup(int requested) const { return requested; }
    // true: run_task loops until told to stop and publishes an operation count; a task
    // that exits before the end of the run is a failure. false (a user's command): the
    // tasks run to completion, their exit statuses are the result and the run ends when
    // the last one exits (or at the duration, if one is set, when they are terminated).
    virtual bool counts_ops() const { return true; }
    // In the parent before forking (e.g. create the files every task reads).
    virtual void prepare(std::size_t /*cgroups*/) {}
    // In the child, after it joined its cgroup and passed the start barrier. Loops until
    // ctx.stopping(); throws on failure (the child then exits non-zero).
    virtual void run_task(const TaskContext& ctx) = 0;
    // In the parent after all tasks ended (also on errors): remove what prepare() made.
    virtual void cleanup() noexcept {}
};

// Throws ToolError(usage) for an unknown workload, mode or missing required option.
std::unique_ptr<Workload> make_workload(const WorkloadOptions& options);

// The names accepted by make_workload, for --help and error messages.
std::vector<std::string> workload_names();

// The built-in workloads, one file each.
std::unique_ptr<Workload> make_page_fault_workload(const WorkloadOptions& o);
std::unique_ptr<Workload> make_slab_workload(const WorkloadOptions& o);
std::unique_ptr<Workload> make_stat_reader_workload(const WorkloadOptions& o);
std::unique_ptr<Workload> make_refault_workload(const WorkloadOptions& o);
std::unique_ptr<Workload> make_readtwice_workload(const WorkloadOptions& o);

} // namespace memcg_statctl
