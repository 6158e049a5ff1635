#include <gtest/gtest.h>

#include "cli_runner.h"
#include "exit_code.h"
#include "fake_debugfs.h"
#include "run/sweep.h"

namespace memcg_statctl {
namespace {

TEST(Sweep, RoundsRunEveryValueInOrder) {
    EXPECT_EQ(sweep_order(3, 2),
              (std::vector<SweepStep>{{0, 0}, {0, 1}, {0, 2}, {1, 0}, {1, 1}, {1, 2}}));
    EXPECT_TRUE(sweep_order(3, 0).empty());
    EXPECT_EQ(sweep_order(1, 3), (std::vector<SweepStep>{{0, 0}, {1, 0}, {2, 0}}));
}

TEST(Sweep, ParsesValues) {
    EXPECT_EQ(parse_sweep_values("kernel,never, always"),
              (std::vector<std::string>{"kernel", "never", "always"}));
    EXPECT_THROW(parse_sweep_values("a,,b"), ToolError);
    EXPECT_THROW(parse_sweep_values("a,b,a"), ToolError);
    EXPECT_THROW(parse_sweep_values(""), ToolError);
}

TEST(Sweep, KnobRestoredOnNormalExitAndOnError) {
    const testing::FakeDebugfs fake;
    const DebugfsClient client(fake.root());
    {
        const KnobRestorer restore(client, "flush_mode");
        client.write_knob("flush_mode", "never");
        EXPECT_EQ(fake.read("flush_mode"), "never\n");
    }
    EXPECT_EQ(fake.read("flush_mode"), "kernel\n");
    try {
        const KnobRestorer restore(client, "flush_mode");
        client.write_knob("flush_mode", "always");
        throw ToolError("run failed");
    } catch (const ToolError&) {
    }
    EXPECT_EQ(fake.read("flush_mode"), "kernel\n");
}

TEST(Sweep, KnobNotRestoredIntoAnUnloadedModule) {
    const testing::FakeDebugfs fake;
    const DebugfsClient client(fake.root());
    ::testing::internal::CaptureStderr();
    {
        const KnobRestorer restore(client, "flush_mode");
        client.write_knob("flush_mode", "never");
        std::filesystem::remove_all(fake.root()); // rmmod
    }
    EXPECT_EQ(::testing::internal::GetCapturedStderr(), ""); // no warning: nothing to restore
    EXPECT_FALSE(std::filesystem::exists(fake.root()));      // and nothing written
}

TEST(Sweep, CliValidation) {
    const testing::FakeDebugfs fake;
    testing::CliRunner cli;
    const auto base = std::vector<std::string>{"--debugfs", fake.root_string(), "sweep"};
    auto with = [&](std::vector<std::string> extra) {
        auto a = base;
        a.insert(a.end(), extra.begin(), extra.end());
        return cli.run(a);
    };
    EXPECT_EQ(with({"--values", "a,b", "--workload", "slab"}).code, 2); // no --knob
    EXPECT_EQ(with({"--knob", "flush_mode", "--values", "a", "--workload", "x"}).code, 2);
    EXPECT_EQ(with({"--knob", "k", "--values", "a", "--workload", "slab", "--json", "--csv"}).code,
              2);
    EXPECT_EQ(with({"--knob", "k", "--values", "a,,b", "--workload", "slab"}).code, 2);
    EXPECT_EQ(with({"--knob", "k", "--values", "a", "--workload", "slab", "--plot", "x.pdf"}).code,
              2);
    const auto r = with({"--knob", "nope", "--values", "a", "--workload", "slab"});
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find("unknown knob `nope`"), std::string::npos) << r.err;
    EXPECT_EQ(cli.run({"--debugfs", (fake.root() / "x").string(), "sweep", "--knob", "flush_mode",
                       "--values", "never", "--workload", "slab"})
                  .code,
              3);
}

TEST(Run, CliValidation) {
    testing::CliRunner cli;
    EXPECT_EQ(cli.run({"run"}).code, 2);
    EXPECT_EQ(cli.run({"run", "nope"}).code, 2);
    EXPECT_EQ(cli.run({"run", "slab", "--cgroups", "0"}).code, 2);
    EXPECT_EQ(cli.run({"run", "page-fault", "--mode", "huge"}).code, 2);
    EXPECT_EQ(cli.run({"run", "readtwice"}).code, 2); // needs --dir
}

} // namespace
} // namespace memcg_statctl
