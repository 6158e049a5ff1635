#include <gtest/gtest.h>

#include "debugfs/counters.h"
#include "exit_code.h"
#include "fake_debugfs.h"

namespace memcg_statctl {
namespace {

// Expects a ToolError whose message contains `needle`.
template <typename F>
void expect_error(F&& f, const std::string& needle) {
    try {
        f();
        ADD_FAILURE() << "no error, expected one containing: " << needle;
    } catch (const ToolError& e) {
        EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
        EXPECT_EQ(e.code(), ExitCode::failure);
    }
}

TEST(ParseStats, ReadsCountersInOrder) {
    const auto c = parse_stats(testing::sample_stats);
    ASSERT_EQ(c.entries().size(), 5U);
    EXPECT_EQ(c.entries()[0].first, "flush.requests");
    EXPECT_EQ(c.get("flush.performed"), 1200U);
    EXPECT_FALSE(c.get("obj_stock.attempts")); // absent, never 0
}

TEST(ParseStats, AcceptsUnknownCountersAndEmptyFile) {
    const auto c = parse_stats("some.future_counter 7\n");
    EXPECT_EQ(c.get("some.future_counter"), 7U);
    EXPECT_TRUE(parse_stats("").empty());
}

TEST(ParseStats, RejectsMalformedLines) {
    expect_error([] { parse_stats("flush.requests\n"); }, "malformed stats line 1");
    expect_error([] { parse_stats("a 1\nflush.requests 12x\n"); }, "malformed stats line 2");
    expect_error([] { parse_stats("a -1\n"); }, "decimal u64");
    expect_error([] { parse_stats("a 1 2\n"); }, "`name value`");
    expect_error([] { parse_stats("a 99999999999999999999\n"); }, "line 1");
    expect_error([] { parse_stats("a 1\na 2\n"); }, "only once");
    expect_error([] { parse_stats("a/b 1\n"); }, "line 1");
}

TEST(CounterDelta, CountsDifferAndMaximaKeepTheirValue) {
    const auto first = parse_stats("flush.requests 10\nflush.ns_max 700\nflush.ns_total 90\n");
    const auto second = parse_stats("flush.requests 25\nflush.ns_max 700\nflush.ns_total 40\n"
                                    "stock.new 3\n");
    const auto d = Counters::delta(first, second);
    EXPECT_EQ(d.get("flush.requests"), 15U);
    EXPECT_EQ(d.get("flush.ns_total"), 0U); // went backwards: a reset in between
    EXPECT_EQ(d.get("flush.ns_max"), 700U); // a maximum, not a difference (which is 0)
    EXPECT_FALSE(d.get("stock.new"));       // not in both reads
    const auto later = parse_stats("flush.requests 26\nflush.ns_max 900\nflush.ns_total 50\n");
    EXPECT_EQ(Counters::delta(second, later).get("flush.ns_max"), 900U); // not 200
    EXPECT_TRUE(Counters::is_maximum("flush.ns_max"));
    EXPECT_FALSE(Counters::is_maximum("flush.ns_total"));
}

TEST(ParseHooks, ReadsSixFields) {
    const auto h = parse_hooks(testing::sample_hooks);
    ASSERT_EQ(h.size(), 4U);
    EXPECT_EQ(h[1], (HookEntry{"flush.periodic", "__mem_cgroup_flush_stats",
                               "flush_memcg_stats_dwork", "ftrace", "attached", 12}));
    EXPECT_EQ(h[2].state, "missing");
}

TEST(ParseHooks, AcceptsHeaderLineAndUnknownState) {
    const auto h = parse_hooks("NAME TARGET CALLER MECHANISM STATE HITS\n"
                               "x f - ftrace sleeping 0\n");
    ASSERT_EQ(h.size(), 1U);
    EXPECT_EQ(h[0].state, "sleeping");
}

TEST(ParseHooks, RejectsMalformedLines) {
    expect_error([] { parse_hooks("x f - ftrace attached\n"); }, "malformed hooks line 1");
    expect_error([] { parse_hooks("x f - ftrace attached 1 extra\n"); }, "line 1");
    expect_error([] { parse_hooks("x f - ftrace attached 1\nx f - ftrace attached many\n"); },
                 "malformed hooks line 2");
}

TEST(ParseVersion, ReadsKeysAndKeepsUnknownOnes) {
    const auto v = parse_version(std::string(testing::sample_version) + "future_key a b c\n");
    EXPECT_EQ(v.get("module"), "0.1.0");
    EXPECT_EQ(v.get("flush_model"), "global");
    EXPECT_EQ(v.get("future_key"), "a b c"); // values run to end of line
    EXPECT_EQ(v.get("absent"), "");
}

TEST(ParseVersion, RejectsMalformedAndWrongAbi) {
    expect_error([] { parse_version("module\nabi 1\n"); }, "malformed version line 1");
    expect_error([] { parse_version("module 1\n"); }, "no valid `abi`");
    expect_error([] { parse_version("abi 2\n"); }, "ABI 2");
    expect_error([] { parse_version("abi 1\nabi 1\n"); }, "only once");
}

TEST(ParseVersion, ToolSpeaksTheAbiOfTheModuleInThisTree) {
    // MCS_ABI of module/version.h: bumping it means updating the parsers and supported_abi.
    EXPECT_EQ(supported_abi, MEMCG_STATCTL_MODULE_ABI);
}

} // namespace
} // namespace memcg_statctl
