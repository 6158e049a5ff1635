#include <gtest/gtest.h>

#include "debugfs/attribution.h"
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

TEST(ParseStockAttribution, OnWithCgroupsOtherAndOccupancy) {
    const auto a = parse_stock_attribution(testing::sample_stock_by_cgroup);
    EXPECT_EQ(a.state, StockAttributionState::on);
    ASSERT_EQ(a.cgroups.size(), 2U);
    EXPECT_EQ(a.cgroups[0], (StockCgroup{4219, {5536, 86, 90, 3, 12, 0}}));
    EXPECT_EQ(a.cgroups[1].counts.evicted, 5U);
    EXPECT_EQ(a.other, (StockCounts{0, 0, 0, 0, 0, 0}));
    ASSERT_EQ(a.find(4301), &a.cgroups[1].counts);
    EXPECT_EQ(a.find(1), nullptr);
    EXPECT_EQ(a.total(), (StockCounts{5636, 88, 92, 3, 13, 5}));
    ASSERT_EQ(a.occupancy.size(), 2U);
    EXPECT_EQ(a.occupancy[0].cpu, 0U);
    EXPECT_EQ(a.occupancy[0].samples,
              (std::vector<std::uint64_t>{120, 30, 10, 0, 0, 0, 0, 0})); // N from the fields
    EXPECT_EQ(a.occupancy[0].total(), 160U);
    EXPECT_DOUBLE_EQ(*a.occupancy[0].mean(), 50.0 / 160); // (30 x 1 + 10 x 2) / 160
    EXPECT_EQ(StockOccupancy({3, {0, 0}}).mean(), std::nullopt);
}

TEST(ParseStockAttribution, EvictedDashIsNotAvailableNeverZero) {
    const auto a = parse_stock_attribution(testing::sample_stock_by_cgroup_single);
    ASSERT_EQ(a.cgroups.size(), 2U);
    EXPECT_EQ(a.cgroups[0].counts.evicted, std::nullopt);
    EXPECT_EQ(a.other.evicted, std::nullopt);
    EXPECT_EQ(a.other.attempts, 7U);
    EXPECT_EQ(a.total().evicted, std::nullopt);
    EXPECT_TRUE(a.occupancy.empty());
}

TEST(ParseStockAttribution, OffAndMissingAloneAndUnknownKindsSkipped) {
    EXPECT_EQ(parse_stock_attribution("state off\n").state, StockAttributionState::off);
    const auto m = parse_stock_attribution("state missing\n");
    EXPECT_EQ(m.state, StockAttributionState::missing);
    EXPECT_FALSE(m.on());
    EXPECT_TRUE(m.cgroups.empty());
    // Other first words: a newer module's (the module's own `occupancy_state failed`).
    const auto a = parse_stock_attribution("state on\nother 1 0 0 0 0 -\noccupancy_state failed\n"
                                           "newkind 1 2\ncgroup 9 1 1 0 0 0 -\n");
    EXPECT_EQ(a.cgroups.size(), 1U);
    EXPECT_TRUE(a.occupancy.empty());
    EXPECT_EQ(parse_stock_attribution("state off\nnewkind x\n").state, StockAttributionState::off);
}

TEST(ParseStockAttribution, RejectsMalformedLinesNamingThem) {
    const std::vector<std::pair<std::string, std::string>> bad = {
        {"", "no `state` line"},
        {"cgroup 1 1 1 1 1 1 1\nstate on\n", "line 1: expected `state on`"},
        {"state maybe\n", "line 1"},
        {"state on off\n", "line 1"},
        {"state on\n", "state on without an `other` line"},
        {"state on\nother 0 0 0 0 0 0\nstate on\n", "line 3: expected one `state` line"},
        {"state off\ncgroup 1 1 1 1 1 1 1\n", "`cgroup` line 2 after state off"},
        {"state missing\nother 0 0 0 0 0 -\n", "`other` line 2 after state missing"},
        {"state off\noccupancy 0 1 2\n", "`occupancy` line 2 after state off"},
        {"state on\ncgroup 1 1 1 1 1 1\nother 0 0 0 0 0 0\n", "line 2: expected `cgroup ID"},
        {"state on\ncgroup 1 1 1 1 1 1 1 1\nother 0 0 0 0 0 0\n", "line 2"},
        {"state on\ncgroup x 1 1 1 1 1 1\nother 0 0 0 0 0 0\n", "line 2"},
        {"state on\ncgroup 1 1 -1 1 1 1 1\nother 0 0 0 0 0 0\n", "line 2"},
        {"state on\ncgroup 1 - 1 1 1 1 1\nother 0 0 0 0 0 0\n", "line 2"}, // only EVICTED
        {"state on\ncgroup 1 1 1 1 1 1 x\nother 0 0 0 0 0 0\n", "line 2"},
        {"state on\ncgroup 1 1 1 1 1 1 99999999999999999999\nother 0 0 0 0 0 0\n", "line 2"},
        {"state on\ncgroup 7 1 1 1 1 1 1\ncgroup 7 1 1 1 1 1 1\nother 0 0 0 0 0 0\n",
         "line 3: expected cgroup 7 listed once"},
        {"state on\nother 0 0 0 0 0\n", "line 2: expected `other ATTEMPTS"},
        {"state on\nother 0 0 0 0 0 0\nother 0 0 0 0 0 0\n", "line 3: expected one `other`"},
        {"state on\ncgroup 1 1 1 1 1 1 -\nother 0 0 0 0 0 0\n",
         "EVICTED is `-` on some lines and a number on others"},
        {"state on\nother 0 0 0 0 0 0\noccupancy 0 5\n", "line 3: expected `occupancy CPU"},
        {"state on\nother 0 0 0 0 0 0\noccupancy 0 5 x\n", "line 3"},
        {"state on\nother 0 0 0 0 0 0\noccupancy\n", "line 3"},
        {"state on\nother 0 0 0 0 0 0\noccupancy 0 1 2\noccupancy 1 1 2 3\n",
         "line 4: expected 2 counts, as on the first `occupancy` line"},
        {"state on\nother 0 0 0 0 0 0\noccupancy 0 1 2\noccupancy 0 1 2\n",
         "line 4: expected cpu 0 listed once"},
    };
    for (const auto& [text, want] : bad) {
        try {
            parse_stock_attribution(text);
            ADD_FAILURE() << "accepted: " << text;
        } catch (const ToolError& e) {
            EXPECT_NE(std::string(e.what()).find(want), std::string::npos)
                << e.what() << " lacks " << want;
            EXPECT_NE(std::string(e.what()).find("stock_by_cgroup"), std::string::npos);
            EXPECT_EQ(e.code(), ExitCode::failure);
        }
    }
}

TEST(StockAttributionDelta, PerCgroupAndCpuWithResetsAndNewCgroups) {
    const auto before = parse_stock_attribution("state on\n"
                                                "cgroup 1 10 5 4 3 2 1\n"
                                                "cgroup 2 10 5 4 3 2 1\n"
                                                "other 1 1 1 1 1 1\n"
                                                "occupancy 0 10 5\n");
    const auto after = parse_stock_attribution("state on\n"
                                               "cgroup 3 7 7 0 0 0 2\n"
                                               "cgroup 1 15 6 4 3 2 1\n"
                                               "cgroup 2 1 0 0 0 0 0\n"
                                               "other 2 1 1 1 1 1\n"
                                               "occupancy 0 12 9\n"
                                               "occupancy 1 3 4\n");
    const auto d = attribution_delta(before, after);
    EXPECT_TRUE(d.on());
    ASSERT_EQ(d.cgroups.size(), 3U);                               // after's, in after's order
    EXPECT_EQ(d.cgroups[0], (StockCgroup{3, {7, 7, 0, 0, 0, 2}})); // new: from 0
    EXPECT_EQ(d.cgroups[1], (StockCgroup{1, {5, 1, 0, 0, 0, 0}})); // the interval
    EXPECT_EQ(d.cgroups[2], (StockCgroup{2, {0, 0, 0, 0, 0, 0}})); // went back: a reset
    EXPECT_EQ(d.other, (StockCounts{1, 0, 0, 0, 0, 0}));
    ASSERT_EQ(d.occupancy.size(), 2U);
    EXPECT_EQ(d.occupancy[0].samples, (std::vector<std::uint64_t>{2, 4}));
    EXPECT_EQ(d.occupancy[1].samples, (std::vector<std::uint64_t>{3, 4})); // new cpu
    // Turned on since the first read: the module started an empty table.
    const auto from_off = attribution_delta(parse_stock_attribution("state off\n"), after);
    EXPECT_EQ(from_off.cgroups[1].counts, after.cgroups[1].counts);
    EXPECT_EQ(from_off.other, after.other);
    // Off now: nothing to count.
    const auto to_off = attribution_delta(before, parse_stock_attribution("state off\n"));
    EXPECT_FALSE(to_off.on());
    EXPECT_TRUE(to_off.cgroups.empty());
    // EVICTED stays unknown where the kernel has none.
    const auto single = parse_stock_attribution(testing::sample_stock_by_cgroup_single);
    EXPECT_EQ(attribution_delta(single, single).cgroups[0].counts,
              (StockCounts{0, 0, 0, 0, 0, std::nullopt}));
    const auto z = attribution_zeroed(after);
    EXPECT_EQ(z.cgroups[0].counts, (StockCounts{0, 0, 0, 0, 0, 0}));
    EXPECT_EQ(z.occupancy[1].samples, (std::vector<std::uint64_t>{0, 0}));
}

} // namespace
} // namespace memcg_statctl
