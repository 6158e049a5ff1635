// A user's command as a workload: each task execs CMD ARGS... in its leaf after
// the start barrier, with stdout and stderr captured, and runs to completion.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "workloads/workload.h"

namespace memcg_statctl {

class CommandWorkload final : public Workload {
public:
    // `tasks`: how many copies will run (cgroups x tasks per cgroup), one capture each.
    CommandWorkload(std::vector<std::string> argv, std::size_t tasks);
    CommandWorkload(const CommandWorkload&) = delete;
    CommandWorkload& operator=(const CommandWorkload&) = delete;
    CommandWorkload(CommandWorkload&&) = delete;
    CommandWorkload& operator=(CommandWorkload&&) = delete;
    ~CommandWorkload() override;
    std::string name() const override { return "command"; }
    bool counts_ops() const override { return false; }
    void prepare(std::size_t cgroups) override;
    void run_task(const TaskContext& ctx) override; // execs; returns only by throwing
    const std::vector<std::string>& argv() const { return argv_; }
    // What task `t` wrote to stdout and stderr in the last run.
    std::string output(std::size_t t) const;

private:
    std::vector<std::string> argv_;
    std::size_t tasks_;
    void close_captures() noexcept;
    std::vector<int> captures_; // memfds, one per task
};

} // namespace memcg_statctl
