// The parsers and decisions behind `run`/`sweep` over a user's command, --cgroup and --pid:
// --metric, memory.stat deltas, where the cgroups go (delegation), results files.
#include <filesystem>
#include <fstream>
#include <sys/xattr.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cgroup/memory_stat.h"
#include "cgroup/placement.h"
#include "cli_runner.h"
#include "exit_code.h"
#include "fake_cgroup.h"
#include "fake_debugfs.h"
#include "output/result_schema.h"
#include "workloads/command.h"

namespace memcg_statctl {
namespace {

TEST(CommandMetric, LastMatchingLineFirstGroup) {
    const CommandMetric m(R"(average:\s*([0-9.]+))");
    // will-it-scale prints a line per second, then the summary.
    EXPECT_EQ(m.find("min:1 max:2 total:3\naverage: 10\nmin:1\naverage:12.5\n"), 12.5);
    EXPECT_EQ(m.find("no figure here\n"), std::nullopt);
    EXPECT_EQ(m.find(""), std::nullopt);
}

TEST(CommandMetric, NonNumberCaptureIsNoFigure) {
    const CommandMetric m(R"(tps = (\S+))");
    EXPECT_EQ(m.find("tps = fast\n"), std::nullopt);
    EXPECT_EQ(m.find("tps = 1234.5 (without initial connection time)\n"), 1234.5);
}

TEST(CommandMetric, RejectsBadPatterns) {
    try {
        const CommandMetric m("average: [0-9");
        FAIL() << "accepted an invalid regex";
    } catch (const ToolError& e) {
        EXPECT_EQ(e.code(), ExitCode::usage);
        EXPECT_NE(std::string(e.what()).find("not a valid regular expression"), std::string::npos);
    }
    try {
        const CommandMetric m("average: [0-9]+");
        FAIL() << "accepted a regex without a group";
    } catch (const ToolError& e) {
        EXPECT_EQ(e.code(), ExitCode::usage);
        EXPECT_NE(std::string(e.what()).find("capture group"), std::string::npos);
    }
}

TEST(MemoryStat, ParsesTheReportedFieldsInOrder) {
    const auto s = parse_memory_stat("anon 8192\nfile 4096\nkernel 1\nslab 100\npgfault 7\n"
                                     "workingset_refault_anon 0\nworkingset_refault_file 3\n"
                                     "pgmajfault 1\nbogus x\n");
    const MemoryStat want = {{"pgfault", 7},
                             {"pgmajfault", 1},
                             {"workingset_refault_anon", 0},
                             {"workingset_refault_file", 3},
                             {"anon", 8192},
                             {"file", 4096},
                             {"slab", 100}};
    EXPECT_EQ(s, want);
}

TEST(MemoryStat, DeltaIsSignedAndSkipsMissingFields) {
    const MemoryStat before = {{"pgfault", 10}, {"anon", 8192}};
    const MemoryStat after = {{"pgfault", 25}, {"anon", 4096}, {"slab", 5}};
    const MemoryStat want = {{"pgfault", 15}, {"anon", -4096}};
    EXPECT_EQ(memory_stat_delta(before, after), want);
    const MemoryStat sum = {{"pgfault", 30}, {"anon", -8192}};
    EXPECT_EQ(memory_stat_sum(want, want), sum);
}

TEST(CgroupPlacement, OwnCgroupFromProc) {
    EXPECT_EQ(cgroup_v2_path("0::/system.slice/run-r1.scope\n"), "/system.slice/run-r1.scope");
    EXPECT_EQ(cgroup_v2_path("12:memory:/x\n0::/\n"), "/");
    EXPECT_EQ(cgroup_v2_path("12:memory:/x\n"), std::nullopt);
}

TEST(CgroupPlacement, ParentRelativeAcceptsBothSpellings) {
    const std::filesystem::path mount = "/sys/fs/cgroup";
    EXPECT_EQ(parent_relative(mount, "/sys/fs/cgroup/system.slice/x.scope"),
              "system.slice/x.scope");
    EXPECT_EQ(parent_relative(mount, "/system.slice/x.scope/"), "system.slice/x.scope");
    EXPECT_EQ(parent_relative(mount, "bench"), "bench");
    EXPECT_EQ(parent_relative(mount, "/"), "");
    EXPECT_EQ(parent_relative(mount, "/sys/fs/cgroup"), "");
    EXPECT_THROW(parent_relative(mount, "/sys/fs/cgroup/../etc"), ToolError);
}

TEST(CgroupPlacement, ChoosesParentDelegatedOrRoot) {
    // --parent wins; the tool steps aside only when it is its own group.
    auto c = choose_parent(std::string("bench"), "system.slice/x.scope", true);
    EXPECT_EQ(c.rel, "bench");
    EXPECT_FALSE(c.own_group);
    EXPECT_EQ(c.why, "--parent");
    c = choose_parent(std::string("system.slice/x.scope"), "system.slice/x.scope", false);
    EXPECT_TRUE(c.own_group);
    // A delegated own group (systemd-run --scope -p Delegate=yes).
    c = choose_parent(std::nullopt, "system.slice/x.scope", true);
    EXPECT_EQ(c.rel, "system.slice/x.scope");
    EXPECT_TRUE(c.own_group);
    EXPECT_EQ(c.why, "delegated");
    // Not delegated (a login session's scope): the root, as before.
    c = choose_parent(std::nullopt, "user.slice/session-1.scope", false);
    EXPECT_EQ(c.rel, "");
    EXPECT_FALSE(c.own_group);
    EXPECT_EQ(c.why, "root");
    // Already at the root (the guest's init): the root.
    c = choose_parent(std::nullopt, "", true);
    EXPECT_EQ(c.rel, "");
}

TEST(CgroupPlacement, ParentDirIsTheMountItselfForTheRoot) {
    // The results' "parent" is this directory: "/sys/fs/cgroup", not "/sys/fs/cgroup/".
    testing::FakeCgroupBackend fake;
    std::ofstream(fake.mount() / "cgroup.procs") << "";
    const CgroupParent root(fake, std::string("/"));
    EXPECT_EQ(root.why(), "--parent");
    EXPECT_EQ(root.dir().string(), fake.mount().string());
    std::ofstream(fake.mount() / "cgroup.subtree_control") << "memory\n";
    fake.create("bench");
    const CgroupParent bench(fake, std::string("bench/"));
    EXPECT_EQ(bench.dir().string(), (fake.mount() / "bench").string());
}

TEST(CgroupPlacement, DelegationMarkIsTheSystemdXattr) {
    const testing::TempDir dir;
    EXPECT_FALSE(is_delegated(dir.path()));
    // user.* xattrs work on ordinary files systems (tmpfs since 6.6, ext4): skip where not.
    if (::setxattr(dir.path().c_str(), "user.delegate", "1", 1, 0) != 0) {
        GTEST_SKIP() << "no user xattrs on " << dir.path();
    }
    EXPECT_TRUE(is_delegated(dir.path()));
    ASSERT_EQ(::setxattr(dir.path().c_str(), "user.delegate", "0", 1, 0), 0);
    EXPECT_FALSE(is_delegated(dir.path()));
}

TEST(ResultsFile, ChecksEarlyAndReplacesWhole) {
    const testing::TempDir dir;
    EXPECT_THROW(ResultsFile(dir.path() / "no-such-dir" / "r.json"), ToolError);
    EXPECT_THROW(ResultsFile(dir.path()), ToolError); // a directory
    const ResultsFile f(dir.path() / "r.json");
    EXPECT_FALSE(std::filesystem::exists(f.path())); // nothing written before a run
    f.write({{"runs", 1}});
    f.write({{"runs", 2}});
    std::ifstream in(f.path());
    EXPECT_EQ(nlohmann::json::parse(in)["runs"], 2);
    EXPECT_FALSE(std::filesystem::exists(dir.path() / "r.json.tmp"));
}

TEST(RunCli, KindsOfRunAreExclusive) {
    testing::CliRunner cli;
    // A workload and a command, or none, or --metric without a command: usage errors.
    auto r = cli.run({"run", "slab", "--", "true"});
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find("give one of"), std::string::npos) << r.err;
    EXPECT_EQ(cli.run({"run", "--cgroup", "/x", "--pid", "1"}).code, 2);
    r = cli.run({"run", "slab", "--metric", "x: (\\d+)"});
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find("--metric reads a command's output"), std::string::npos) << r.err;
    r = cli.run({"run", "--metric", "x: \\d+", "--", "true"});
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find("capture group"), std::string::npos) << r.err;
    r = cli.run({"run", "--warmup", "-1", "--", "true"});
    EXPECT_EQ(r.code, 2);
    EXPECT_EQ(r.err, "memcg-statctl: --warmup must be >= 0\n");
    r = cli.run({"run", "--pid", "12x"});
    EXPECT_EQ(r.code, 2);
    // An empty item is a typo, as in `sweep --values`, not a list of one pid.
    r = cli.run({"run", "--pid", "1,,2"});
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find("--pid must be process ids (got '')"), std::string::npos) << r.err;
    // Only run and sweep take a command.
    r = cli.run({"status", "--", "true"});
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find("status takes no command"), std::string::npos) << r.err;
}

TEST(RunCli, CommandWordsAreNotParsedAsOptions) {
    testing::CliRunner cli;
    // `--json` after `--` belongs to the command; the tool sees no workload conflict, only
    // that --metric needs a group: proof that parsing stopped at `--`.
    const auto r = cli.run({"run", "--metric", "(", "--", "cmd", "--json", "--cgroups", "0"});
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find("not a valid regular expression"), std::string::npos) << r.err;
}

TEST(RunCli, OutputFileIsCheckedBeforeRunning) {
    testing::CliRunner cli;
    const auto r = cli.run({"run", "--output", "/no/such/dir/r.json", "--", "true"});
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find("cannot write in /no/such/dir"), std::string::npos) << r.err;
}

} // namespace
} // namespace memcg_statctl
