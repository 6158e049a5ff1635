// Golden-string tests of the three Output implementations (bpftrace's output tests style).
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "memcg_statctl/abi_parsers.h"
#include "memcg_statctl/comparison.h"
#include "memcg_statctl/output.h"

namespace memcg_statctl {
namespace {

ComparisonReport sample_comparison() {
    const std::vector<ValueRuns> runs = {
        {"kernel",
         {100, 101, 99},
         {parse_stats("flush.performed 10\nflush.ns_total 1000\n"),
          parse_stats("flush.performed 20\nflush.ns_total 2000\n"),
          parse_stats("flush.performed 30\nflush.ns_total 3000\n")},
         {1, 1, 1}},
        {"never", {120, 121, 119}, {}, {}},
        {"always", {100, 102, 98}, {}, {}},
    };
    return compare("flush_mode", "page-fault", runs);
}

std::string render(OutputFormat f, const ComparisonReport& r) {
    std::ostringstream out;
    make_output(f, out)->comparison(r);
    return out.str();
}

TEST(Comparison, StatisticsPerValue) {
    const auto r = sample_comparison();
    ASSERT_EQ(r.rows.size(), 3U);
    EXPECT_DOUBLE_EQ(r.rows[0].summary.mean, 100.0);
    EXPECT_FALSE(r.rows[0].percent_change);
    EXPECT_DOUBLE_EQ(*r.rows[1].percent_change, 20.0);
    EXPECT_TRUE(r.rows[1].significant);
    EXPECT_FALSE(r.rows[2].significant);
    EXPECT_EQ(r.rows[0].mean_counter_deltas.get("flush.performed"), 20U);
}

TEST(OutputText, ComparisonGolden) {
    EXPECT_EQ(render(OutputFormat::text, sample_comparison()),
              "page-fault ops/s by flush_mode (3 runs per value)\n"
              "flush_mode    mean  median  stddev  %change  sig\n"
              "kernel      100.00  100.00    1.00        -\n"
              "never       120.00  120.00    1.00  +20.00%  *\n"
              "always      100.00  100.00    2.00   +0.00%\n"
              "\n"
              "module counters per run (mean)\n"
              "flush_mode          kernel  never  always\n"
              "flush.performed         20      -       -\n"
              "flush.ns_total        2000      -       -\n"
              "flushes_per_sec   20.00 /s      -       -\n"
              "ns_per_flush     100.00 ns      -       -\n");
}

TEST(OutputCsv, ComparisonGolden) {
    // p for "never": t = 20 / sqrt(2/3), df = 4; 1.64831e-05 checked by numeric
    // integration of the t density.
    EXPECT_EQ(render(OutputFormat::csv, sample_comparison()),
              "knob,value,runs,mean,median,stddev,pct_change,p_value,significant,"
              "flush.performed,flush.ns_total,flushes_per_sec,ns_per_flush\n"
              "flush_mode,kernel,3,100,100,1,,,0,20,2000,20,100\n"
              "flush_mode,never,3,120,120,1,20,1.64831e-05,1,,,,\n"
              "flush_mode,always,3,100,100,2,0,1,0,,,,\n");
}

TEST(OutputJson, ComparisonFields) {
    const auto j = nlohmann::json::parse(render(OutputFormat::json, sample_comparison()));
    EXPECT_EQ(j["knob"], "flush_mode");
    EXPECT_EQ(j["rows"][0]["percent_change"], nullptr);
    EXPECT_DOUBLE_EQ(j["rows"][1]["percent_change"].get<double>(), 20.0);
    EXPECT_EQ(j["rows"][1]["significant"], true);
    EXPECT_EQ(j["rows"][0]["counter_deltas"]["flush.performed"], 20);
    EXPECT_DOUBLE_EQ(j["rows"][0]["derived"]["ns_per_flush"].get<double>(), 100.0);
    EXPECT_EQ(j["rows"][2]["samples"].size(), 3U);
}

TEST(OutputCsv, QuotesFieldsWithCommas) {
    ComparisonReport r{"k", "w", "ops/s", {}};
    ComparisonRow row;
    row.value = "a,b";
    row.summary.n = 1;
    r.rows.push_back(row);
    EXPECT_NE(render(OutputFormat::csv, r).find("k,\"a,b\",1,"), std::string::npos);
}

TEST(OutputText, RunReportGolden) {
    RunReport r;
    r.workload = "slab";
    r.parameters = {{"cgroups", "2"}, {"tasks", "1"}};
    r.seconds = 5;
    r.task_ops_per_sec = {1000, 1500};
    r.total_ops_per_sec = 2500;
    std::ostringstream out;
    make_output(OutputFormat::text, out)->run(r);
    EXPECT_EQ(out.str(), "workload slab: cgroups=2 tasks=1 (5.00 s)\n"
                         "TASK     OPS/S\n"
                         "0      1000.00\n"
                         "1      1500.00\n"
                         "total  2500.00\n"
                         "(module not loaded: no counter deltas)\n");
}

TEST(OutputJson, StatsNullForUndefinedDerived) {
    StatsReport r{parse_stats("flush.performed 0\nflush.ns_total 0\n"),
                  {{"ns_per_flush", "ns", std::nullopt}}};
    std::ostringstream out;
    make_output(OutputFormat::json, out)->stats(r);
    const auto j = nlohmann::json::parse(out.str());
    EXPECT_EQ(j["derived"]["ns_per_flush"], nullptr);
    EXPECT_EQ(j["counters"]["flush.performed"], 0);
}

} // namespace
} // namespace memcg_statctl
