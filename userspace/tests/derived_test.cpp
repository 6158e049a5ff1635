#include <gtest/gtest.h>

#include "debugfs/counters.h"

namespace memcg_statctl {
namespace {

std::optional<double> find(const std::vector<DerivedValue>& d, const std::string& name) {
    for (const auto& v : d) {
        if (v.name == name) {
            return v.value;
        }
    }
    ADD_FAILURE() << "no derived value " << name;
    return std::nullopt;
}

bool has(const std::vector<DerivedValue>& d, const std::string& name) {
    return std::any_of(d.begin(), d.end(), [&](const auto& v) { return v.name == name; });
}

TEST(Derived, ComputesEveryValueFromItsInputs) {
    const auto c = parse_stats("flush.performed 10\nflush.ns_total 5000\n"
                               "charge_stock.attempts 200\ncharge_stock.misses 50\n"
                               "obj_stock.attempts 1000\nobj_stock.misses 10\n"
                               "objcg_vmstat.updates 1000\nobjcg_vmstat.flushes 196\n");
    const auto d = derive(c, 2.0);
    EXPECT_DOUBLE_EQ(*find(d, "flushes_per_sec"), 5.0);
    EXPECT_DOUBLE_EQ(*find(d, "ns_per_flush"), 500.0);
    EXPECT_DOUBLE_EQ(*find(d, "charge_stock_hit_pct"), 75.0);
    EXPECT_DOUBLE_EQ(*find(d, "obj_stock_hit_pct"), 99.0);
    EXPECT_DOUBLE_EQ(*find(d, "objcg_vmstat_miss_pct"), 19.6);
}

TEST(Derived, OmitsValuesWhoseInputsAreAbsent) {
    const auto d = derive(parse_stats("charge_stock.attempts 200\nflush.performed 3\n"), 1.0);
    EXPECT_FALSE(has(d, "charge_stock_hit_pct")); // misses absent: hook missing
    EXPECT_FALSE(has(d, "ns_per_flush"));
    EXPECT_FALSE(has(d, "obj_stock_hit_pct"));
    EXPECT_TRUE(has(d, "flushes_per_sec"));
}

TEST(Derived, RetriesBeyondAttemptsMakeHitRateUnknown) {
    // Charges retried under memory.max miss again: 30 misses in 20 attempts.
    const auto d = derive(parse_stats("charge_stock.attempts 20\ncharge_stock.misses 30\n"), 1.0);
    EXPECT_TRUE(has(d, "charge_stock_hit_pct"));
    EXPECT_FALSE(find(d, "charge_stock_hit_pct").has_value());
}

TEST(Derived, NoRatesWithoutTimeBase) {
    const auto d = derive(parse_stats("flush.performed 3\nflush.ns_total 30\n"), std::nullopt);
    EXPECT_FALSE(has(d, "flushes_per_sec"));
    EXPECT_DOUBLE_EQ(*find(d, "ns_per_flush"), 10.0);
}

TEST(Derived, ZeroDenominatorIsUndefinedNotZero) {
    const auto d = derive(parse_stats("flush.performed 0\nflush.ns_total 0\n"), 1.0);
    EXPECT_FALSE(find(d, "ns_per_flush").has_value());
    EXPECT_DOUBLE_EQ(*find(d, "flushes_per_sec"), 0.0);
}

} // namespace
} // namespace memcg_statctl
