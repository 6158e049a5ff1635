// The workloads for real, without cgroups: tasks are forked into plain directories that
// stand in for leaf cgroups (memory.stat and memory.reclaim are ordinary files there).
#include <chrono>
#include <csignal>
#include <fstream>
#include <sys/wait.h>
#include <thread>

#include <gtest/gtest.h>

#include "exit_code.h"
#include "fake_debugfs.h"
#include "run/signal_guard.h"
#include "workloads/command.h"
#include "workloads/runner.h"
#include "workloads/workload.h"

namespace memcg_statctl {
namespace {

class DirectoryPlacement final : public TaskPlacement {
public:
    explicit DirectoryPlacement(std::size_t groups) {
        for (std::size_t i = 0; i < groups; ++i) {
            const auto d = dir_.path() / ("leaf" + std::to_string(i));
            std::filesystem::create_directory(d);
            std::ofstream(d / "memory.stat") << "anon 0\nfile 0\n";
            std::ofstream(d / "memory.reclaim");
        }
    }
    std::size_t groups() const override { return count_; }
    std::filesystem::path group_dir(std::size_t g) const override {
        return dir_.path() / ("leaf" + std::to_string(g));
    }
    void attach(std::size_t g, pid_t /*pid*/) override { attached.push_back(g); }
    std::vector<std::size_t> attached;
    std::size_t count_ = 0;

private:
    testing::TempDir dir_;
};

RunPlan plan_for(int tasks, double seconds) {
    RunPlan p;
    p.tasks_per_cgroup = tasks;
    p.duration = seconds;
    return p;
}

RunMeasurement run(const WorkloadOptions& o, std::size_t groups, int tasks, double seconds) {
    DirectoryPlacement placement(groups);
    placement.count_ = groups;
    const auto w = make_workload(o);
    return run_workload(*w, plan_for(tasks, seconds), placement);
}

void expect_progress(const RunMeasurement& m, std::size_t tasks) {
    ASSERT_EQ(m.task_ops_per_sec.size(), tasks);
    double sum = 0;
    for (const auto v : m.task_ops_per_sec) {
        EXPECT_GT(v, 0);
        sum += v;
    }
    EXPECT_DOUBLE_EQ(m.total_ops_per_sec, sum);
    EXPECT_GT(m.seconds, 0.19);
    EXPECT_LT(m.seconds, 2.0);
}

TEST(Workloads, PageFaultAnon) {
    expect_progress(run({"page-fault", "anon", {}, 0}, 2, 1, 0.3), 2);
}

TEST(Workloads, PageFaultFileModes) {
    const testing::TempDir dir;
    expect_progress(run({"page-fault", "file-private", dir.path(), 0}, 1, 1, 0.3), 1);
    expect_progress(run({"page-fault", "file-shared", dir.path(), 0}, 1, 1, 0.3), 1);
    EXPECT_TRUE(std::filesystem::is_empty(dir.path())); // files were unlinked
}

TEST(Workloads, Slab) {
    const testing::TempDir dir;
    expect_progress(run({"slab", "anon", dir.path(), 0}, 1, 2, 0.3), 2);
    EXPECT_TRUE(std::filesystem::is_empty(dir.path()));
}

TEST(Workloads, StatReader) {
    expect_progress(run({"stat-reader", "anon", {}, 0}, 2, 1, 0.3), 2);
}

TEST(Workloads, Refault) {
    const testing::TempDir dir;
    expect_progress(run({"refault", "anon", dir.path(), 4}, 1, 1, 0.3), 1);
    EXPECT_TRUE(std::filesystem::is_empty(dir.path()));
}

TEST(Workloads, ReadTwiceRunsTwoReadersPerCgroup) {
    const testing::TempDir dir;
    expect_progress(run({"readtwice", "anon", dir.path(), 4}, 2, 1, 0.3), 4);
    EXPECT_TRUE(std::filesystem::is_empty(dir.path())); // cleanup() removed the files
}

TEST(Workloads, TasksAreAttachedToTheirGroupsBeforeTheStart) {
    DirectoryPlacement placement(3);
    placement.count_ = 3;
    const auto w = make_workload({"stat-reader", "anon", {}, 0});
    run_workload(*w, plan_for(2, 0.2), placement);
    EXPECT_EQ(placement.attached, (std::vector<std::size_t>{0, 0, 1, 1, 2, 2}));
}

TEST(Workloads, FailingTaskIsAnError) {
    // stat-reader in a "cgroup" without memory.stat: every task fails at once.
    const testing::TempDir dir;
    class Empty final : public TaskPlacement {
    public:
        explicit Empty(std::filesystem::path p) : p_(std::move(p)) {}
        std::size_t groups() const override { return 1; }
        std::filesystem::path group_dir(std::size_t /*g*/) const override { return p_; }
        void attach(std::size_t /*g*/, pid_t /*pid*/) override {}

    private:
        std::filesystem::path p_;
    } placement(dir.path());
    const auto w = make_workload({"stat-reader", "anon", {}, 0});
    try {
        run_workload(*w, plan_for(1, 5), placement);
        FAIL() << "expected ToolError";
    } catch (const ToolError& e) {
        EXPECT_NE(std::string(e.what()).find("workload task 0 failed"), std::string::npos)
            << e.what();
    }
}

TEST(Workloads, ThrowingCheckStopsTheRunAndReapsTasks) {
    DirectoryPlacement placement(2);
    placement.count_ = 2;
    const auto w = make_workload({"stat-reader", "anon", {}, 0});
    int calls = 0;
    RunPlan plan = plan_for(2, 30);
    plan.check = [&calls] {
        if (++calls == 4) {
            throw ToolError(ExitCode::unavailable, "module gone");
        }
    };
    const auto start = std::chrono::steady_clock::now();
    try {
        run_workload(*w, plan, placement);
        ADD_FAILURE() << "expected ToolError";
    } catch (const ToolError& e) {
        EXPECT_EQ(e.code(), ExitCode::unavailable);
        EXPECT_EQ(std::string(e.what()), "module gone");
    }
    EXPECT_EQ(calls, 4);
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
    int status = 0;
    EXPECT_EQ(::waitpid(-1, &status, WNOHANG), -1); // no child left behind
    EXPECT_EQ(errno, ECHILD);
}

TEST(Workloads, SigtermStopsTheRunAndReapsTasks) {
    DirectoryPlacement placement(1);
    placement.count_ = 1;
    const auto w = make_workload({"stat-reader", "anon", {}, 0});
    const SignalGuard guard;
    clear_stop_signal();
    std::thread killer([] {
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        ::kill(::getpid(), SIGTERM);
    });
    const auto start = std::chrono::steady_clock::now();
    try {
        run_workload(*w, plan_for(2, 30), placement);
        ADD_FAILURE() << "expected ToolError";
    } catch (const ToolError& e) {
        EXPECT_NE(std::string(e.what()).find("interrupted by SIGTERM"), std::string::npos)
            << e.what();
    }
    killer.join();
    clear_stop_signal();
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
    int status = 0;
    EXPECT_EQ(::waitpid(-1, &status, WNOHANG), -1); // no child left behind
    EXPECT_EQ(errno, ECHILD);
}

TEST(Workloads, FactoryRejectsBadInput) {
    EXPECT_THROW(make_workload({"nope", "anon", {}, 1}), ToolError);
    EXPECT_THROW(make_workload({"page-fault", "huge", {}, 1}), ToolError);
    EXPECT_THROW(make_workload({"readtwice", "anon", {}, 1}), ToolError); // needs --dir
    EXPECT_EQ(make_workload({"readtwice", "anon", "/tmp", 1})->tasks_per_cgroup(5), 2);
}

} // namespace
} // namespace memcg_statctl

namespace memcg_statctl {
namespace {

struct CommandRun {
    RunMeasurement m;
    std::vector<std::string> outputs;
};

CommandRun run_command(std::vector<std::string> argv, std::size_t groups, int tasks, double limit) {
    DirectoryPlacement placement(groups);
    placement.count_ = groups;
    CommandWorkload w(std::move(argv), groups * static_cast<std::size_t>(tasks));
    RunPlan plan;
    plan.tasks_per_cgroup = tasks;
    plan.duration = limit;
    CommandRun r{run_workload(w, plan, placement), {}};
    for (std::size_t t = 0; t < groups * static_cast<std::size_t>(tasks); ++t) {
        r.outputs.push_back(w.output(t));
    }
    return r;
}

TEST(CommandWorkload, RunsEveryCopyToCompletionAndCapturesItsOutput) {
    const auto r = run_command({"/bin/sh", "-c", "echo average: 5; echo err >&2; exit 3"}, 2, 2, 0);
    EXPECT_EQ(r.m.exit_statuses, (std::vector<int>{3, 3, 3, 3}));
    EXPECT_FALSE(r.m.stopped_at_duration);
    EXPECT_TRUE(r.m.task_ops_per_sec.empty());
    EXPECT_LT(r.m.seconds, 5.0);
    ASSERT_EQ(r.outputs.size(), 4U);
    EXPECT_EQ(r.outputs[3], "average: 5\nerr\n");
}

TEST(CommandWorkload, EndsWithTheLastCopy) {
    const auto r = run_command({"/bin/sh", "-c", "sleep 0.3"}, 1, 1, 0);
    EXPECT_EQ(r.m.exit_statuses, (std::vector<int>{0}));
    EXPECT_GT(r.m.seconds, 0.25);
    EXPECT_LT(r.m.seconds, 3.0);
}

TEST(CommandWorkload, TerminatedAtTheDuration) {
    const auto r = run_command({"sleep", "30"}, 1, 2, 0.3);
    EXPECT_TRUE(r.m.stopped_at_duration);
    EXPECT_EQ(r.m.exit_statuses, (std::vector<int>{128 + SIGTERM, 128 + SIGTERM}));
    EXPECT_NEAR(r.m.seconds, 0.3, 0.2);
}

TEST(CommandWorkload, MissingCommandIs127) {
    const auto r = run_command({"/no/such/program"}, 1, 1, 0);
    EXPECT_EQ(r.m.exit_statuses, (std::vector<int>{127}));
    EXPECT_NE(r.outputs[0].find("cannot run /no/such/program"), std::string::npos) << r.outputs[0];
}

TEST(CommandWorkload, WarmupOpensTheWindowLater) {
    DirectoryPlacement placement(1);
    placement.count_ = 1;
    // The command outlives the warm-up by far, so the window opens while
    // it runs even on a loaded machine.
    CommandWorkload w({"/bin/sh", "-c", "sleep 1.5"}, 1);
    RunPlan plan;
    plan.warmup = 0.3;
    int opened = 0;
    plan.window_open = [&] { ++opened; };
    const auto start = std::chrono::steady_clock::now();
    const auto m = run_workload(w, plan, placement);
    const std::chrono::duration<double> total = std::chrono::steady_clock::now() - start;
    EXPECT_EQ(opened, 1);
    EXPECT_GT(m.seconds, 0.0);
    // The window opens no earlier than the warm-up's end: whatever the
    // machine's load, it is at least the warm-up shorter than the whole run.
    EXPECT_LE(m.seconds, total.count() - plan.warmup);
}

} // namespace
} // namespace memcg_statctl
