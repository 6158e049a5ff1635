// A user's command as a workload, and the figure it prints (--metric).
#pragma once

#include <cstddef>
#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

#include "workloads/workload.h"

namespace memcg_statctl {

// Each task execs CMD ARGS... in its leaf after the start barrier, with stdout and stderr
// captured, and runs to completion.
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

// `--metric REGEX`: the figure a user's command prints (will-it-scale's `average:` line, a
// database benchmark's tps) taken from its output by the first capture group of REGEX.
class CommandMetric {
public:
    // Throws ToolError(usage) for an invalid regular expression (ECMAScript syntax) or one
    // without a capture group.
    explicit CommandMetric(std::string pattern);
    const std::string& pattern() const { return pattern_; }

    // The number in the first capture group of the last output line that matches; nullopt
    // when no line matches or the group is not a number. The last line, because progress
    // lines printed while a benchmark runs come before its final summary.
    std::optional<double> find(std::string_view output) const;

private:
    std::string pattern_;
    std::regex regex_;
};

} // namespace memcg_statctl
