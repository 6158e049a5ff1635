// get / set / reset through the CLI against a fake tree and a fake kernel writer.
#include <cerrno>
#include <cstring>

#include <fmt/format.h>
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

TEST(KnobsCli, GetUnknownKnobIsAUsageError) {
    const FakeDebugfs fake;
    CliRunner cli;
    const auto r = cli.run({"--debugfs", fake.root_string(), "get", "stats"});
    EXPECT_EQ(r.code, 2);
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
    EXPECT_EQ(r.err, "memcg-statctl: flush_period_ms rejects '-5': 0 (no periodic flush) or "
                     "10 .. 3600000\n");
    EXPECT_EQ(fake.read("flush_period_ms"), "2000\n");
}

// A fake kernel failing every knob write with `err`.
FileWriter failing_with(int err) {
    return [err](const std::filesystem::path&, std::string_view) { return err; };
}

TEST(KnobsCli, RejectedValueNamesWhatTheKnobAccepts) {
    const FakeDebugfs fake;
    using std::filesystem::perms;
    for (const auto* knob : {"flush_threshold", "update_flush_every", "stock_hooks", "new_knob"}) {
        fake.write(knob, "1\n", perms::owner_read | perms::owner_write);
    }
    CliRunner cli;
    cli.writer = failing_with(EINVAL);
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
        {{"flush_mode", "sometimes"},
         "flush_mode rejects 'sometimes': kernel, threshold, "
         "always or never"},
        {{"flush_mode", ""}, "flush_mode rejects '': kernel, threshold, always or never"},
        {{"flush_threshold", "12abc"},
         "flush_threshold rejects '12abc': 0 .. 2^62 pending "
         "updates"},
        {{"flush_period_ms", "5"},
         "flush_period_ms rejects '5': 0 (no periodic flush) or "
         "10 .. 3600000"},
        {{"update_flush_every", "-1"}, "update_flush_every rejects '-1': 0 (off) .. 2^24"},
        {{"stock_hooks", "2"}, "stock_hooks rejects '2': 0 or 1"},
        {{"new_knob", "x"}, "new_knob rejects 'x': see module/ABI.md for its values"},
    };
    for (const auto& [args, message] : cases) {
        const auto r = cli.run({"--debugfs", fake.root_string(), "set", args[0], args[1]});
        EXPECT_EQ(r.code, 1) << message;
        EXPECT_EQ(r.err, "memcg-statctl: " + message + "\n");
    }
}

TEST(KnobsCli, LockedDownDebugfsSaysToUseModuleParameters) {
    const FakeDebugfs fake;
    CliRunner cli;
    cli.writer = failing_with(EPERM);
    const auto r = cli.run({"--debugfs", fake.root_string(), "set", "flush_mode", "always"});
    EXPECT_EQ(r.code, 1);
    EXPECT_EQ(r.err, "memcg-statctl: debugfs refuses writes (kernel lockdown?): set knobs as "
                     "module parameters at load\n");
    EXPECT_EQ(fake.read("flush_mode"), "kernel\n");
}

TEST(KnobsCli, NoFlushControlSaysSoAndPointsToStatus) {
    const FakeDebugfs fake;
    CliRunner cli;
    cli.writer = failing_with(EOPNOTSUPP);
    const auto r = cli.run({"--debugfs", fake.root_string(), "set", "flush_mode", "always"});
    EXPECT_EQ(r.code, 1);
    EXPECT_EQ(r.err, "memcg-statctl: flush control is not available on this kernel (see "
                     "`memcg-statctl status`)\n");
}

TEST(KnobsCli, StockAttributionOnAKernelWithoutItSaysSo) {
    const FakeDebugfs fake;
    using std::filesystem::perms;
    fake.write("stock_attribution", "0\n", perms::owner_read | perms::owner_write);
    CliRunner cli;
    cli.writer = failing_with(EOPNOTSUPP);
    const auto r = cli.run({"--debugfs", fake.root_string(), "set", "stock_attribution", "1"});
    EXPECT_EQ(r.code, 1);
    EXPECT_EQ(r.err, "memcg-statctl: stock attribution is not available on this kernel (it "
                     "lacks something the counting needs; the kernel log says why)\n");
}

TEST(KnobsCli, OtherWriteErrorsNameValueKnobAndErrno) {
    const FakeDebugfs fake;
    CliRunner cli;
    cli.writer = failing_with(EIO);
    const auto r = cli.run({"--debugfs", fake.root_string(), "set", "flush_mode", "always"});
    EXPECT_EQ(r.code, 1);
    EXPECT_EQ(r.err, fmt::format("memcg-statctl: cannot write \"always\" to flush_mode: {}\n",
                                 std::strerror(EIO)));
}

TEST(KnobsCli, ResetWritesOne) {
    const FakeDebugfs fake;
    CliRunner cli;
    EXPECT_EQ(cli.run({"--debugfs", fake.root_string(), "reset"}).code, 0);
    EXPECT_EQ(fake.read("reset"), "1\n");
}

} // namespace
} // namespace memcg_statctl
