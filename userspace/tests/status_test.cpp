// `status` on a degraded module: which states are problems (debugfs/status.h), the lines
// on stderr, the "problems" array of --json and exit 4; against the fake debugfs tree.
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "debugfs/counters.h"
#include "debugfs/status.h"
#include "exit_code.h"
#include "fake_debugfs.h"

namespace memcg_statctl {
namespace {

using testing::CliRunner;
using testing::FakeDebugfs;

// The fake's `version` with other values of flush_control and lockdown.
std::string version_with(const std::string& flush_control, const std::string& lockdown) {
    return fmt::format("module 0.1.0\nabi 1\nkernel 6.1.0-57-amd64\ngeneration 6.1\n"
                       "flush_model global\nstock_model single\nflush_control {}\nlockdown {}\n",
                       flush_control, lockdown);
}

std::vector<StatusProblem> problems(const std::string& version, const std::string& hooks) {
    return find_status_problems(parse_version(version), parse_hooks(hooks));
}

std::vector<ProblemKind> kinds(const std::vector<StatusProblem>& ps) {
    std::vector<ProblemKind> k;
    k.reserve(ps.size());
    for (const auto& p : ps) {
        k.push_back(p.kind);
    }
    return k;
}

// As the 6.1 module shows its hooks when it loaded cleanly.
constexpr std::string_view healthy_hooks =
    "flush __mem_cgroup_flush_stats - redirect attached 1234\n"
    "update.memcg_state __mod_memcg_state - direct off 0\n"
    "charge_stock.attempts try_charge_memcg - direct attached 5536\n"
    "charge_stock.misses page_counter_try_charge try_charge_memcg direct attached 86\n";

TEST(StatusProblems, HealthyModuleHasNone) {
    EXPECT_TRUE(problems(version_with("available", "none"), std::string(healthy_hooks)).empty());
    EXPECT_TRUE(find_status_problems(parse_version(testing::sample_version),
                                     parse_hooks(testing::sample_hooks))
                    .empty());
}

TEST(StatusProblems, FailedCountingHook) {
    const auto ps = problems(version_with("available", "none"),
                             "flush __mem_cgroup_flush_stats - redirect attached 1\n"
                             "charge_stock.attempts try_charge_memcg - direct failed 0\n"
                             "charge_stock.misses page_counter_try_charge try_charge_memcg "
                             "direct off 0\n");
    ASSERT_EQ(ps.size(), 1U);
    EXPECT_EQ(ps[0].kind, ProblemKind::hook_failed);
    EXPECT_EQ(ps[0].message,
              "hook charge_stock.attempts on try_charge_memcg failed to attach (see dmesg): it "
              "counts nothing, so its counter stays 0 or counts short; reload memcg_statctl to "
              "try again");
}

TEST(StatusProblems, FailedRedirectNamesFlushControl) {
    // What the module reports when a livepatch holds the flush choke point at load.
    const auto ps = problems(version_with("failed", "none"),
                             "flush __mem_cgroup_flush_stats - redirect failed 0\n");
    ASSERT_EQ(ps.size(), 1U);
    EXPECT_EQ(ps[0].kind, ProblemKind::hook_failed);
    EXPECT_EQ(ps[0].message,
              "hook flush on __mem_cgroup_flush_stats failed to attach (see dmesg): flush "
              "control is off for this load (its knobs refuse writes) and the flush.* counters "
              "are absent; reload memcg_statctl once no livepatch or kprobe with a "
              "post_handler holds __mem_cgroup_flush_stats");
}

TEST(StatusProblems, OneProblemPerHookName) {
    // 7.x's two obj_stock.misses rows on one function, both failed: one line.
    const auto ps = problems(version_with("available", "none"),
                             "obj_stock.misses obj_cgroup_charge_pages obj_cgroup_charge direct "
                             "failed 0\n"
                             "obj_stock.misses obj_cgroup_charge_pages "
                             "__memcg_slab_post_alloc_hook direct failed 0\n"
                             "obj_stock.attempts obj_cgroup_charge - direct failed 0\n"
                             "obj_stock.attempts __account_obj_stock "
                             "__memcg_slab_post_alloc_hook direct failed 0\n");
    ASSERT_EQ(ps.size(), 2U);
    EXPECT_NE(ps[0].message.find("hook obj_stock.misses on obj_cgroup_charge_pages failed"),
              std::string::npos)
        << ps[0].message;
    EXPECT_NE(ps[1].message.find("hook obj_stock.attempts on obj_cgroup_charge or "
                                 "__account_obj_stock failed"),
              std::string::npos)
        << ps[1].message;
}

TEST(StatusProblems, MissingHookIsAProblemOnlyWhenItsNameHasNoOtherRow) {
    // The only row of charge_stock.drains: its counter is absent from stats.
    auto ps = problems(version_with("available", "none"),
                       "charge_stock.drains drain_stock - direct missing 0\n"
                       "objcg_vmstat.flushes __mod_memcg_lruvec_state mod_objcg_state direct "
                       "missing 0\n"
                       "objcg_vmstat.flushes __mod_memcg_lruvec_state drain_obj_stock direct "
                       "attached 3\n");
    ASSERT_EQ(ps.size(), 1U);
    EXPECT_EQ(ps[0].kind, ProblemKind::hook_missing);
    EXPECT_EQ(ps[0].message,
              "hook charge_stock.drains is missing (this kernel lacks drain_stock): nothing "
              "counts what it feeds, and its counter is absent from stats; use a kernel listed "
              "under Supported kernels in the README");
    // A caller range the kernel may lack is named too; a redirect speaks of flush control.
    ps = problems(version_with("available", "none"),
                  "charge_stock.misses page_counter_try_charge try_charge_memcg direct "
                  "missing 0\n"
                  "flush.ratelimited mem_cgroup_flush_stats_ratelimited - redirect missing 0\n");
    ASSERT_EQ(ps.size(), 2U);
    EXPECT_NE(ps[0].message.find("(this kernel lacks page_counter_try_charge or "
                                 "try_charge_memcg)"),
              std::string::npos)
        << ps[0].message;
    EXPECT_EQ(ps[1].message,
              "hook flush.ratelimited is missing (this kernel lacks "
              "mem_cgroup_flush_stats_ratelimited): flush control and the flush.* counters "
              "miss the calls it would redirect; use a kernel listed under Supported kernels in "
              "the README");
}

TEST(StatusProblems, MissingAttributionHookIsNotAProblem) {
    // Its absence shows in stock_by_cgroup (`state missing`); a failed one still counts.
    const auto ps = problems(version_with("available", "none"),
                             "attr.evicted drain_stock refill_stock direct missing 0\n"
                             "attr.drains drain_stock - direct failed 0\n");
    ASSERT_EQ(ps.size(), 1U);
    EXPECT_EQ(ps[0].kind, ProblemKind::hook_failed);
    EXPECT_NE(ps[0].message.find("attr.drains"), std::string::npos) << ps[0].message;
}

TEST(StatusProblems, FlushControlMissingStandsForItsMissingHooks) {
    const auto ps = problems(version_with("missing", "none"),
                             "flush __mem_cgroup_flush_stats - redirect missing 0\n"
                             "update.memcg_state __mod_memcg_state - direct missing 0\n"
                             "charge_stock.attempts try_charge_memcg - direct attached 5\n");
    ASSERT_EQ(ps.size(), 1U);
    EXPECT_EQ(ps[0].kind, ProblemKind::flush_control_missing);
    EXPECT_EQ(ps[0].message,
              "flush control is missing on this kernel (dmesg names the kernel object it "
              "lacks): flush_mode, flush_period_ms and update_flush_every cannot be set, "
              "flush_threshold does nothing and the flush.* counters are absent; use a kernel "
              "listed under Supported kernels in the README");
}

TEST(StatusProblems, FlushControlOffIsWhatTheUserAskedFor) {
    // flush_hooks=0: the redirect is resolved but off.
    EXPECT_TRUE(
        problems(version_with("off", "none"), "flush __mem_cgroup_flush_stats - redirect off 0\n")
            .empty());
}

TEST(StatusProblems, DebugfsLockedDown) {
    const auto ps = problems(version_with("available", "debugfs"), std::string(healthy_hooks));
    ASSERT_EQ(ps.size(), 1U);
    EXPECT_EQ(ps[0].kind, ProblemKind::debugfs_locked_down);
    EXPECT_EQ(ps[0].message,
              "debugfs is locked down (kernel lockdown): writes to the knobs and to reset "
              "fail; set knobs as module parameters at load (modprobe memcg_statctl "
              "flush_mode=never) and reload the module to change them");
}

TEST(StatusProblems, UnknownStatesValuesAndKeysAreNotProblems) {
    // A newer module's words, or an older one without the keys.
    EXPECT_TRUE(problems(version_with("partial", "integrity"),
                         "x f - direct sleeping 0\nflush f - redirect pending 0\n")
                    .empty());
    EXPECT_TRUE(problems("module 0.1.0\nabi 1\n", std::string(healthy_hooks)).empty());
}

TEST(StatusProblems, AllAtOnceInAFixedOrder) {
    const auto ps = problems(version_with("missing", "debugfs"),
                             "flush __mem_cgroup_flush_stats - redirect missing 0\n"
                             "charge_stock.drains drain_stock - direct missing 0\n"
                             "charge_stock.attempts try_charge_memcg - direct failed 0\n");
    EXPECT_EQ(kinds(ps), (std::vector<ProblemKind>{ProblemKind::hook_failed,
                                                   ProblemKind::flush_control_missing,
                                                   ProblemKind::debugfs_locked_down}));
}

TEST(StatusProblems, PartialHook) {
    const auto ps = problems(version_with("available", "none"),
                             std::string(healthy_hooks) +
                                 "obj_stock.misses try_charge_memcg obj_cgroup_charge direct "
                                 "partial 5\n");
    ASSERT_EQ(kinds(ps), (std::vector<ProblemKind>{ProblemKind::hook_partial}));
    EXPECT_EQ(ps[0].message.rfind("hook obj_stock.misses on try_charge_memcg is partial: the "
                                  "compiler made a copy",
                                  0),
              0U)
        << ps[0].message;
}

TEST(StatusProblems, UnattributedCallsAboveZero) {
    const auto version = parse_version(version_with("available", "none"));
    const auto hooks = parse_hooks(std::string(healthy_hooks));
    EXPECT_TRUE(find_status_problems(version, hooks, 0).empty());
    EXPECT_TRUE(find_status_problems(version, hooks, std::nullopt).empty());
    const auto ps = find_status_problems(version, hooks, 7);
    ASSERT_EQ(kinds(ps), (std::vector<ProblemKind>{ProblemKind::callers_unattributed}));
    EXPECT_EQ(ps[0].message.rfind("7 calls since the last reset could not be attributed to "
                                  "their caller (caller.unattributed)",
                                  0),
              0U)
        << ps[0].message;
}

TEST(StatusProblems, KindNames) {
    EXPECT_EQ(problem_kind_name(ProblemKind::hook_failed), "hook_failed");
    EXPECT_EQ(problem_kind_name(ProblemKind::hook_missing), "hook_missing");
    EXPECT_EQ(problem_kind_name(ProblemKind::hook_partial), "hook_partial");
    EXPECT_EQ(problem_kind_name(ProblemKind::callers_unattributed), "callers_unattributed");
    EXPECT_EQ(problem_kind_name(ProblemKind::flush_control_missing), "flush_control_missing");
    EXPECT_EQ(problem_kind_name(ProblemKind::debugfs_locked_down), "debugfs_locked_down");
}

// ---- the CLI ---------------------------------------------------------------------------

constexpr int degraded = static_cast<int>(ExitCode::degraded);

// The lines of `err` without the program-name prefix each must have.
std::vector<std::string> error_lines(const std::string& err) {
    std::vector<std::string> lines;
    std::size_t start = 0;
    while (start < err.size()) {
        const auto end = err.find('\n', start);
        const auto line = err.substr(start, end - start);
        EXPECT_EQ(line.rfind("memcg-statctl: ", 0), 0U) << line;
        lines.push_back(line.substr(std::string("memcg-statctl: ").size()));
        start = end == std::string::npos ? err.size() : end + 1;
    }
    return lines;
}

// Text and JSON against the same tree: exit 4, the usual status on stdout, one line per
// problem on stderr, and the same problems in the JSON with their kinds.
void expect_degraded(const FakeDebugfs& fake, const std::vector<std::string>& want_kinds,
                     const std::vector<std::string>& want_substrings) {
    CliRunner cli;
    const auto text = cli.run({"--debugfs", fake.root_string(), "status"});
    EXPECT_EQ(text.code, degraded) << text.err;
    EXPECT_EQ(text.out.rfind("memcg_statctl: loaded (" + fake.root_string() + ")\n", 0), 0U)
        << text.out;
    EXPECT_NE(text.out.find("hooks:\n"), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("knobs:\n"), std::string::npos) << text.out;
    const auto lines = error_lines(text.err);
    ASSERT_EQ(lines.size(), want_kinds.size()) << text.err;
    for (std::size_t i = 0; i < lines.size(); ++i) {
        EXPECT_NE(lines[i].find(want_substrings[i]), std::string::npos) << lines[i];
    }

    const auto json = cli.run({"--debugfs", fake.root_string(), "status", "--json"});
    EXPECT_EQ(json.code, degraded) << json.err;
    EXPECT_EQ(json.err, text.err);
    const auto j = nlohmann::json::parse(json.out);
    EXPECT_EQ(j["loaded"], true);
    ASSERT_TRUE(j["problems"].is_array());
    ASSERT_EQ(j["problems"].size(), want_kinds.size());
    for (std::size_t i = 0; i < want_kinds.size(); ++i) {
        EXPECT_EQ(j["problems"][i]["kind"], want_kinds[i]);
        EXPECT_EQ(j["problems"][i]["message"], lines[i]); // the same words as on stderr
    }
}

TEST(StatusCli, HealthyExits0WithNoProblems) {
    const FakeDebugfs fake;
    CliRunner cli;
    auto r = cli.run({"--debugfs", fake.root_string(), "status"});
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.err, "");
    r = cli.run({"--debugfs", fake.root_string(), "status", "--json"});
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.err, "");
    const auto j = nlohmann::json::parse(r.out);
    ASSERT_TRUE(j.contains("problems"));
    EXPECT_TRUE(j["problems"].is_array());
    EXPECT_TRUE(j["problems"].empty());
}

// docs/output.md: numbers are JSON numbers, in the version as in the knobs; a version
// string such as 6.1 stays a string (as a number it would equal 6.10).
TEST(StatusCli, JsonVersionNumbersAreNumbers) {
    const FakeDebugfs fake;
    CliRunner cli;
    const auto r = cli.run({"--debugfs", fake.root_string(), "status", "--json"});
    ASSERT_EQ(r.code, 0) << r.err;
    const auto v = nlohmann::json::parse(r.out)["version"];
    ASSERT_TRUE(v["abi"].is_number_unsigned()) << v.dump();
    EXPECT_EQ(v["abi"], 1);
    EXPECT_EQ(v["module"], "0.1.0");
    EXPECT_EQ(v["generation"], "6.1");
    EXPECT_EQ(v["kernel"], "6.1.0-57-amd64");
    EXPECT_EQ(v["flush_control"], "available");
}

TEST(StatusCli, FailedHookExits4AndNamesIt) {
    const FakeDebugfs fake;
    fake.write("hooks", "flush __mem_cgroup_flush_stats - redirect attached 1234\n"
                        "charge_stock.attempts try_charge_memcg - direct failed 0\n"
                        "charge_stock.misses page_counter_try_charge try_charge_memcg direct "
                        "off 0\n");
    expect_degraded(fake, {"hook_failed"},
                    {"hook charge_stock.attempts on try_charge_memcg failed to attach (see "
                     "dmesg)"});
    // The status itself still shows the hook's state.
    CliRunner cli;
    const auto r = cli.run({"--debugfs", fake.root_string(), "status"});
    EXPECT_NE(r.out.find("failed"), std::string::npos) << r.out;
}

TEST(StatusCli, MissingHookWithoutAnotherRowExits4) {
    const FakeDebugfs fake;
    fake.write("hooks", "flush __mem_cgroup_flush_stats - redirect attached 1234\n"
                        "charge_stock.drains drain_stock - direct missing 0\n");
    expect_degraded(fake, {"hook_missing"},
                    {"hook charge_stock.drains is missing (this kernel lacks drain_stock)"});
}

TEST(StatusCli, UnattributedCallsExit4) {
    const FakeDebugfs fake;
    fake.write("stats",
               std::string(testing::sample_stats) + "caller.recovered 12\ncaller.unattributed 3\n");
    expect_degraded(fake, {"callers_unattributed"},
                    {"3 calls since the last reset could not be attributed to their caller"});
}

TEST(StatusCli, FlushControlMissingExits4) {
    const FakeDebugfs fake;
    fake.write("version", version_with("missing", "none"));
    fake.write("hooks", "flush __mem_cgroup_flush_stats - redirect missing 0\n"
                        "update.memcg_state __mod_memcg_state - direct missing 0\n");
    expect_degraded(fake, {"flush_control_missing"}, {"flush control is missing on this kernel"});
}

TEST(StatusCli, FlushControlOffExits0) {
    const FakeDebugfs fake;
    fake.write("version", version_with("off", "none"));
    fake.write("hooks", "flush __mem_cgroup_flush_stats - redirect off 0\n");
    CliRunner cli;
    const auto r = cli.run({"--debugfs", fake.root_string(), "status", "--json"});
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(nlohmann::json::parse(r.out)["problems"].empty());
}

TEST(StatusCli, DebugfsLockedDownExits4) {
    const FakeDebugfs fake;
    fake.write("version", version_with("available", "debugfs"));
    expect_degraded(fake, {"debugfs_locked_down"},
                    {"debugfs is locked down (kernel lockdown): writes to the knobs and to "
                     "reset fail; set knobs as module parameters at load"});
}

TEST(StatusCli, EveryProblemHasItsLine) {
    const FakeDebugfs fake;
    fake.write("version", version_with("missing", "debugfs"));
    fake.write("hooks", "flush __mem_cgroup_flush_stats - redirect missing 0\n"
                        "charge_stock.attempts try_charge_memcg - direct failed 0\n");
    expect_degraded(
        fake, {"hook_failed", "flush_control_missing", "debugfs_locked_down"},
        {"hook charge_stock.attempts", "flush control is missing", "debugfs is locked down"});
}

TEST(StatusCli, OtherCommandsDoNotCheckForProblems) {
    // Exit 4 is status's: get still reads the knobs of a degraded module.
    const FakeDebugfs fake;
    fake.write("version", version_with("missing", "debugfs"));
    CliRunner cli;
    const auto r = cli.run({"--debugfs", fake.root_string(), "get", "flush_mode"});
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.err, "");
}

} // namespace
} // namespace memcg_statctl
