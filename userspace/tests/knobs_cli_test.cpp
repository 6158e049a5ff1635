// get / set / reset through the CLI against a fake tree and a fake kernel writer.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "fake_debugfs.h"

namespace memcg_statctl {
namespace {

using testing::CliRunner;
using testing::FakeDebugfs;

TEST(KnobsCli, GetAllAndOne) {
    const FakeDebugfs fake;
    CliRunner cli;
    auto r = cli.run({"--debugfs", fake.root_string(), "get"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out, "flush_mode       kernel\nflush_period_ms  2000\n");
    r = cli.run({"--debugfs", fake.root_string(), "get", "flush_mode"});
    EXPECT_EQ(r.out, "flush_mode  kernel\n");
    r = cli.run({"--debugfs", fake.root_string(), "get", "--json"});
    EXPECT_EQ(nlohmann::json::parse(r.out)["flush_period_ms"], 2000);
}

TEST(KnobsCli, GetJsonHasNumbersForNumericKnobs) {
    const FakeDebugfs fake;
    using std::filesystem::perms;
    fake.write("flush_threshold", "4611686018427387904\n", perms::owner_read | perms::owner_write);
    CliRunner cli;
    auto r = cli.run({"--debugfs", fake.root_string(), "get", "--json"});
    ASSERT_EQ(r.code, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_TRUE(j["flush_mode"].is_string());
    EXPECT_EQ(j["flush_mode"], "kernel");
    EXPECT_TRUE(j["flush_period_ms"].is_number_unsigned());
    EXPECT_EQ(j["flush_period_ms"], 2000);
    EXPECT_EQ(j["flush_threshold"].get<std::uint64_t>(), 4611686018427387904ULL); // 2^62, exact
    r = cli.run({"--debugfs", fake.root_string(), "get", "flush_period_ms", "--json"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(nlohmann::json::parse(r.out), nlohmann::json::parse(R"({"flush_period_ms": 2000})"));
}

TEST(KnobsCli, GetUnknownKnobExits1) {
    const FakeDebugfs fake;
    CliRunner cli;
    const auto r = cli.run({"--debugfs", fake.root_string(), "get", "stats"});
    EXPECT_EQ(r.code, 1);
    EXPECT_NE(r.err.find("unknown knob `stats`"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("flush_mode, flush_period_ms"), std::string::npos) << r.err;
}

TEST(KnobsCli, NewKnobNeedsNoToolChange) {
    const FakeDebugfs fake;
    using std::filesystem::perms;
    fake.write("stock_hooks", "1\n", perms::owner_read | perms::owner_write);
    CliRunner cli;
    EXPECT_EQ(cli.run({"--debugfs", fake.root_string(), "set", "stock_hooks", "0"}).code, 0);
    EXPECT_EQ(fake.read("stock_hooks"), "0\n");
}

TEST(KnobsCli, SetWritesValue) {
    const FakeDebugfs fake;
    CliRunner cli;
    const auto r = cli.run({"--debugfs", fake.root_string(), "set", "flush_mode", "never"});
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(fake.read("flush_mode"), "never\n");
}

TEST(KnobsCli, RejectedValueExits1AndKnobIsUnchanged) {
    const FakeDebugfs fake;
    CliRunner cli;
    // A fake kernel: flush_period_ms accepts decimals only, like kstrtouint.
    cli.writer = [](const std::filesystem::path& p, std::string_view data) {
        if (data.find_first_not_of("0123456789\n") != std::string_view::npos) {
            return EINVAL;
        }
        return write_whole_file(p, data);
    };
    const auto r = cli.run({"--debugfs", fake.root_string(), "set", "flush_period_ms", "-5"});
    EXPECT_EQ(r.code, 1);
    EXPECT_NE(r.err.find("flush_period_ms = \"-5\""), std::string::npos) << r.err;
    EXPECT_EQ(fake.read("flush_period_ms"), "2000\n");
}

TEST(KnobsCli, ResetWritesOne) {
    const FakeDebugfs fake;
    CliRunner cli;
    EXPECT_EQ(cli.run({"--debugfs", fake.root_string(), "reset"}).code, 0);
    EXPECT_EQ(fake.read("reset"), "1\n");
}

} // namespace
} // namespace memcg_statctl
