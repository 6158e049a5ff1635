// The order of the runs of `run` and `sweep`: warm-up runs (made, never kept), the
// measured runs in interleaved rounds, --prepare before and --cleanup after each, and what
// a failing --prepare or --cleanup says. The hooks are real /bin/sh commands.
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "exit_code.h"
#include "fake_debugfs.h"
#include "run/schedule.h"
#include "run/shell_hooks.h"
#include "run/sweep.h"

namespace memcg_statctl {
namespace {

using testing::TempDir;

std::string read_text(const std::filesystem::path& file) {
    std::ifstream in(file);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

void append(const std::filesystem::path& file, const std::string& line) {
    std::ofstream(file, std::ios::app) << line << '\n';
}

TEST(Schedule, WarmupRunsComeBeforeEachValuesFirstRunOnly) {
    EXPECT_EQ(run_schedule(2, 2, 1),
              (std::vector<ScheduledRun>{
                  {{0, 0}, 1}, {{0, 0}, 0}, {{0, 1}, 1}, {{0, 1}, 0}, {{1, 0}, 0}, {{1, 1}, 0}}));
    EXPECT_EQ(run_schedule(1, 1, 3),
              (std::vector<ScheduledRun>{{{0, 0}, 1}, {{0, 0}, 2}, {{0, 0}, 3}, {{0, 0}, 0}}));
    // No warm-up runs: the measured runs of sweep_order, nothing else.
    const auto plain = run_schedule(3, 2, 0);
    const auto order = sweep_order(3, 2);
    ASSERT_EQ(plain.size(), order.size());
    for (std::size_t i = 0; i < plain.size(); ++i) {
        EXPECT_EQ(plain[i], (ScheduledRun{order[i], 0}));
    }
}

// Steps that log every point of the schedule to `log`, as the hooks do, and keep the
// measured runs (their seconds number the runs in the order they were made).
struct LoggedSteps {
    explicit LoggedSteps(std::filesystem::path file) : log(std::move(file)) {
        steps.name = [](const ScheduledRun& s) {
            return s.warmup > 0 ? fmt::format("v{} warm-up run {}", s.step.value_index, s.warmup)
                                : fmt::format("v{} run {}", s.step.value_index, s.step.round + 1);
        };
        steps.start = [this](const ScheduledRun& s) { append(log, "start " + steps.name(s)); };
        steps.run = [this] {
            append(log, "run");
            RunResult r;
            r.seconds = ++made;
            return r;
        };
        steps.failure = [this](const ScheduledRun& s,
                               const RunResult& r) -> std::optional<std::string> {
            if (static_cast<int>(r.seconds) == fail_run) {
                return fmt::format("{} failed", steps.name(s));
            }
            return std::nullopt;
        };
        steps.keep = [this](const ScheduledRun& s, const RunResult& r) {
            kept.emplace_back(s, r.seconds);
        };
    }
    std::filesystem::path log;
    ScheduleSteps steps;
    int made = 0;
    int fail_run = 0; // the run (1-based, in the order made) whose failure() says it failed
    std::vector<std::pair<ScheduledRun, double>> kept;
};

ShellHooks logging_hooks(const std::filesystem::path& log) {
    return {fmt::format("echo prepare >> '{}'", log.string()),
            fmt::format("echo cleanup >> '{}'", log.string())};
}

TEST(Schedule, PrepareAndCleanupAroundEveryRunWarmupRunsMadeButNotKept) {
    const TempDir dir;
    LoggedSteps s(dir.path() / "log");
    run_scheduled(run_schedule(2, 2, 1), logging_hooks(s.log), s.steps);
    EXPECT_EQ(read_text(s.log), "start v0 warm-up run 1\nprepare\nrun\ncleanup\n"
                                "start v0 run 1\nprepare\nrun\ncleanup\n"
                                "start v1 warm-up run 1\nprepare\nrun\ncleanup\n"
                                "start v1 run 1\nprepare\nrun\ncleanup\n"
                                "start v0 run 2\nprepare\nrun\ncleanup\n"
                                "start v1 run 2\nprepare\nrun\ncleanup\n");
    // Six runs made, the 1st and 3rd (warm-up runs) not kept.
    EXPECT_EQ(s.made, 6);
    ASSERT_EQ(s.kept.size(), 4U);
    EXPECT_EQ(s.kept[0], std::make_pair(ScheduledRun{{0, 0}, 0}, 2.0));
    EXPECT_EQ(s.kept[1], std::make_pair(ScheduledRun{{0, 1}, 0}, 4.0));
    EXPECT_EQ(s.kept[2], std::make_pair(ScheduledRun{{1, 0}, 0}, 5.0));
    EXPECT_EQ(s.kept[3], std::make_pair(ScheduledRun{{1, 1}, 0}, 6.0));
}

TEST(Schedule, CartesianProductInterleavedInRounds) {
    const std::vector<KnobValues> knobs = {{"flush_mode", {"kernel", "never"}},
                                           {"update_flush_every", {"0", "128"}}};
    const auto combinations = knob_combinations(knobs);
    std::vector<std::string> names;
    for (const auto& e : run_schedule(combinations.size(), 2, 0)) {
        names.push_back(fmt::format(
            "{} run {}", setting_name(knobs, combinations[e.step.value_index]), e.step.round + 1));
    }
    EXPECT_EQ(names, (std::vector<std::string>{
                         "flush_mode=kernel update_flush_every=0 run 1",
                         "flush_mode=kernel update_flush_every=128 run 1",
                         "flush_mode=never update_flush_every=0 run 1",
                         "flush_mode=never update_flush_every=128 run 1",
                         "flush_mode=kernel update_flush_every=0 run 2",
                         "flush_mode=kernel update_flush_every=128 run 2",
                         "flush_mode=never update_flush_every=0 run 2",
                         "flush_mode=never update_flush_every=128 run 2",
                     }));
}

TEST(Schedule, FailingPrepareStopsNamingTheCommandItsStatusAndTheRun) {
    const TempDir dir;
    LoggedSteps s(dir.path() / "log");
    // Fails on its third call: before the second round's first run.
    const auto count = dir.path() / "count";
    ShellHooks hooks{fmt::format("echo x >> '{0}'; if [ $(wc -l < '{0}') -eq 3 ]; then "
                                 "echo 'cannot drop caches' >&2; exit 3; fi",
                                 count.string()),
                     ""};
    try {
        run_scheduled(run_schedule(2, 2, 0), hooks, s.steps);
        FAIL() << "no error";
    } catch (const ToolError& e) {
        EXPECT_EQ(e.code(), ExitCode::failure);
        EXPECT_EQ(std::string(e.what()),
                  fmt::format("--prepare '{}' exited with status 3 before v0 run 2\n"
                              "  cannot drop caches",
                              hooks.prepare));
    }
    // The runs before it finished and were kept; no run after it was made.
    EXPECT_EQ(s.made, 2);
    EXPECT_EQ(s.kept.size(), 2U);
}

TEST(Schedule, FailingCleanupKeepsTheRunItFollowed) {
    const TempDir dir;
    LoggedSteps s(dir.path() / "log");
    const ShellHooks hooks{"", "exit 1"};
    try {
        run_scheduled(run_schedule(1, 3, 1), hooks, s.steps);
        FAIL() << "no error";
    } catch (const ToolError& e) {
        EXPECT_EQ(std::string(e.what()),
                  "--cleanup 'exit 1' exited with status 1 after v0 warm-up run 1");
    }
    EXPECT_EQ(s.made, 1);
    EXPECT_TRUE(s.kept.empty()); // a warm-up run: never kept

    LoggedSteps t(dir.path() / "log2");
    const ShellHooks after_measured{"", "kill -9 $$"};
    try {
        run_scheduled(run_schedule(1, 3, 0), after_measured, t.steps);
        FAIL() << "no error";
    } catch (const ToolError& e) {
        // Killed by signal 9: 128 + 9, as a shell reports it.
        EXPECT_EQ(std::string(e.what()),
                  "--cleanup 'kill -9 $$' exited with status 137 after v0 run 1");
    }
    ASSERT_EQ(t.kept.size(), 1U); // the measured run it followed is kept
    EXPECT_EQ(t.kept[0].second, 1.0);
}

TEST(Schedule, AFailedRunIsCleanedUpAfterAndStops) {
    const TempDir dir;
    LoggedSteps s(dir.path() / "log");
    s.fail_run = 2;
    try {
        run_scheduled(run_schedule(2, 2, 0), logging_hooks(s.log), s.steps);
        FAIL() << "no error";
    } catch (const ToolError& e) {
        EXPECT_EQ(std::string(e.what()), "v1 run 1: v1 run 1 failed");
    }
    EXPECT_EQ(read_text(s.log), "start v0 run 1\nprepare\nrun\ncleanup\n"
                                "start v1 run 1\nprepare\nrun\ncleanup\n");
    EXPECT_EQ(s.kept.size(), 2U); // the failed run too, as a sweep always kept it

    // Its cleanup failing as well: both are said.
    LoggedSteps t(dir.path() / "log2");
    t.fail_run = 1;
    try {
        run_scheduled(run_schedule(1, 1, 0), ShellHooks{"", "echo busy; exit 2"}, t.steps);
        FAIL() << "no error";
    } catch (const ToolError& e) {
        EXPECT_EQ(std::string(e.what()),
                  "v0 run 1: v0 run 1 failed\n--cleanup 'echo busy; exit 2' exited with status 2 "
                  "after v0 run 1\n  busy");
    }
}

TEST(ShellHooks, RunWithShCapturingOutput) {
    const auto ok = run_shell("echo out; echo err >&2; read x || echo 'no stdin'");
    EXPECT_EQ(ok.status, 0);
    EXPECT_EQ(ok.output, "out\nerr\nno stdin\n");
    EXPECT_EQ(run_shell("exit 7").status, 7);
    EXPECT_EQ(run_shell("no-such-command-here 2>/dev/null").status, 127);
    // No hook: nothing runs, nothing fails.
    EXPECT_NO_THROW(ShellHooks{}.before("run 1"));
    EXPECT_NO_THROW(ShellHooks{}.after("run 1"));
    // Only the last 5 lines of a long output in the error.
    try {
        ShellHooks{"seq 1 8; exit 1", ""}.before("the run");
        FAIL() << "no error";
    } catch (const ToolError& e) {
        EXPECT_EQ(std::string(e.what()), "--prepare 'seq 1 8; exit 1' exited with status 1 before "
                                         "the run\n  4\n  5\n  6\n  7\n  8");
    }
}

} // namespace
} // namespace memcg_statctl
