// The flush latency histogram: the strict parser of `flush_latency`, deltas and sums, the
// percentile estimates (flush.ns_p50/p90/p99), the bpftrace-style bars, the JSON and CSV,
// the Prometheus histogram, and what `stats` prints with the file, without it and with a
// malformed one.
#include <algorithm>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "debugfs/client.h"
#include "debugfs/histogram.h"
#include "exit_code.h"
#include "fake_debugfs.h"
#include "output/histogram_text.h"
#include "output/openmetrics.h"
#include "output/output.h"
#include "output/result_schema.h"
#include "run/sweep.h"

namespace memcg_statctl {
namespace {

using testing::CliRunner;
using testing::FakeDebugfs;

LatencyHistogram three_buckets(std::uint64_t a, std::uint64_t b, std::uint64_t c) {
    return {{{1024, 2048, a}, {2048, 4096, b}, {4096, std::nullopt, c}}};
}

std::string parse_error(std::string_view text) {
    try {
        (void)parse_flush_latency(text);
    } catch (const ToolError& e) {
        return e.what();
    }
    return "(parsed)";
}

TEST(FlushLatency, ParsesTheModulesFile) {
    const auto h = parse_flush_latency(testing::sample_flush_latency());
    ASSERT_EQ(h.buckets.size(), 41U);
    EXPECT_EQ(h.buckets[0], (HistogramBucket{0, 1, 0}));
    EXPECT_EQ(h.buckets[1], (HistogramBucket{1, 2, 0}));
    EXPECT_EQ(h.buckets[11], (HistogramBucket{1024, 2048, 400}));
    EXPECT_EQ(h.buckets[39], (HistogramBucket{std::uint64_t{1} << 38, std::uint64_t{1} << 39, 0}));
    EXPECT_EQ(h.buckets[40], (HistogramBucket{std::uint64_t{1} << 39, std::nullopt, 0}));
    EXPECT_EQ(h.total(), 1200U);
}

TEST(FlushLatency, TakesAnyNumberOfBucketsFromTheirBounds) {
    // A module with other buckets: three of them, not starting at 0, a gap allowed.
    const auto h = parse_flush_latency("10 20 1\n20 40 2\n\n100 inf 3\n");
    EXPECT_EQ(h, (LatencyHistogram{{{10, 20, 1}, {20, 40, 2}, {100, std::nullopt, 3}}}));
    EXPECT_EQ(parse_flush_latency("0 inf 7\n").total(), 7U);
}

TEST(FlushLatency, RejectsMalformedLinesNamingThem) {
    const std::string expected = "expected `lo hi count`: decimal u64s, hi > lo or `inf`";
    EXPECT_EQ(parse_error("0 1 0\n1 2\n"),
              "malformed flush_latency line 2: expected `lo hi count`: decimal u64s, hi > lo or "
              "`inf`, got \"1 2\"");
    EXPECT_NE(parse_error("0 1 -3\n").find("line 1: " + expected), std::string::npos);
    EXPECT_NE(parse_error("0 1 0 9\n").find("line 1: " + expected), std::string::npos);
    EXPECT_NE(parse_error("2 1 0\n").find("line 1: " + expected), std::string::npos); // hi < lo
    EXPECT_NE(parse_error("1 1 0\n").find("line 1: " + expected), std::string::npos); // empty
    EXPECT_NE(parse_error("0 Inf 0\n").find("line 1: " + expected), std::string::npos);
    EXPECT_NE(parse_error("0x10 32 0\n").find("line 1: " + expected), std::string::npos);
    EXPECT_EQ(parse_error("0 2 0\n1 4 0\n"),
              "malformed flush_latency line 2: expected lo >= 2, the previous bucket's hi, got "
              "\"1 4 0\"");
    EXPECT_EQ(parse_error("0 inf 0\n8 16 0\n"),
              "malformed flush_latency line 2: expected no bucket after the one ending in "
              "`inf`, got \"8 16 0\"");
    EXPECT_EQ(parse_error(""), "malformed flush_latency: no buckets");
    EXPECT_EQ(parse_error("\n \n"), "malformed flush_latency: no buckets");
}

TEST(FlushLatency, DeltaAndSumMatchBucketsOrGiveUp) {
    const auto d = histogram_delta(three_buckets(1, 5, 2), three_buckets(4, 5, 9));
    EXPECT_EQ(d, three_buckets(3, 0, 7));
    // A reset in between: a count that went backwards is 0, not a wrapped u64.
    EXPECT_EQ(histogram_delta(three_buckets(4, 5, 9), three_buckets(1, 6, 0)),
              three_buckets(0, 1, 0));
    auto other = three_buckets(0, 0, 0);
    other.buckets.pop_back();
    EXPECT_EQ(histogram_delta(three_buckets(0, 0, 0), other), std::nullopt);
    EXPECT_EQ(histogram_delta(std::optional<LatencyHistogram>(), three_buckets(1, 1, 1)),
              std::nullopt);
    EXPECT_EQ(histogram_sum({three_buckets(1, 2, 3), three_buckets(10, 20, 30)}),
              three_buckets(11, 22, 33));
    EXPECT_EQ(histogram_sum({three_buckets(1, 2, 3), other}), std::nullopt);
    EXPECT_EQ(histogram_sum({}), std::nullopt);
}

TEST(FlushLatency, PercentilesInterpolateWithinTheBucket) {
    const auto h = parse_flush_latency(testing::sample_flush_latency()); // 400, 700, 100
    // p50: rank 600, 200 into [2048, 4096)'s 700: 2048 + 2048 * 200 / 700.
    EXPECT_DOUBLE_EQ(*histogram_quantile(h, 0.5), 2048.0 + (2048.0 * 200.0 / 700.0));
    // p90: rank 1080, 680 into the same bucket.
    EXPECT_DOUBLE_EQ(*histogram_quantile(h, 0.9), 2048.0 + (2048.0 * 680.0 / 700.0));
    // p99: rank 1188, 88 into [4096, 8192)'s 100: 4096 + 4096 * 0.88 = 7700.48.
    EXPECT_DOUBLE_EQ(*histogram_quantile(h, 0.99), 7700.48);
    // One bucket of 4: evenly spread over [1024, 2048).
    EXPECT_DOUBLE_EQ(*histogram_quantile(three_buckets(4, 0, 0), 0.5), 1536.0);
    EXPECT_DOUBLE_EQ(*histogram_quantile(three_buckets(4, 0, 0), 0.25), 1280.0);
    // A rank on a bucket's upper edge ends there, not in the next (empty or not) bucket.
    EXPECT_DOUBLE_EQ(*histogram_quantile(three_buckets(1, 1, 0), 0.5), 2048.0);
    // In the unbounded bucket: its lower bound, as Prometheus gives.
    EXPECT_DOUBLE_EQ(*histogram_quantile(three_buckets(1, 0, 9), 0.99), 4096.0);
    EXPECT_EQ(histogram_quantile(three_buckets(0, 0, 0), 0.5), std::nullopt);
}

TEST(FlushLatency, DerivedPercentilesOnlyWithAHistogram) {
    const auto counters = parse_stats(testing::sample_stats);
    const auto without = derive(counters, std::nullopt);
    EXPECT_EQ(derived_value(without, "flush.ns_p50"), std::nullopt);
    EXPECT_FALSE(std::any_of(without.begin(), without.end(),
                             [](const auto& d) { return d.name.starts_with("flush.ns_p"); }));
    const auto with =
        derive(counters, std::nullopt, parse_flush_latency(testing::sample_flush_latency()));
    EXPECT_DOUBLE_EQ(*derived_value(with, "flush.ns_p99"), 7700.48);
    // An empty histogram: the names are there, the values undefined (null, "-").
    const auto empty = derive(counters, 1.0, three_buckets(0, 0, 0));
    for (const auto* name : {"flush.ns_p50", "flush.ns_p90", "flush.ns_p99"}) {
        const auto it =
            std::find_if(empty.begin(), empty.end(), [&](const auto& d) { return d.name == name; });
        ASSERT_NE(it, empty.end()) << name;
        EXPECT_EQ(it->value, std::nullopt) << name;
        EXPECT_EQ(it->unit, "ns");
    }
}

TEST(FlushLatency, BoundLabelsAreBpftraces) {
    EXPECT_EQ(bound_label(0), "0");
    EXPECT_EQ(bound_label(1), "1");
    EXPECT_EQ(bound_label(512), "512");
    EXPECT_EQ(bound_label(1024), "1K");
    EXPECT_EQ(bound_label(3072), "3K");
    EXPECT_EQ(bound_label(1000), "1000");
    EXPECT_EQ(bound_label(std::uint64_t{1} << 20), "1M");
    EXPECT_EQ(bound_label(std::uint64_t{1} << 39), "512G");
    EXPECT_EQ(bound_label(std::uint64_t{1} << 40), "1T");
}

TEST(FlushLatency, BarsFromTheFirstToTheLastNonEmptyBucket) {
    LatencyHistogram h{{{0, 1, 0},
                        {1, 2, 0},
                        {512, 1024, 2},
                        {1024, 2048, 0},
                        {2048, 4096, 8},
                        {4096, 8192, 0},
                        {8192, std::nullopt, 0}}};
    EXPECT_EQ(histogram_bars(h, 8), "[512, 1K)  2 |@@      |\n"
                                    "[1K, 2K)   0 |        |\n"
                                    "[2K, 4K)   8 |@@@@@@@@|\n");
    h.buckets.back().count = 12;
    EXPECT_EQ(histogram_bars(h, 4), "[512, 1K)   2 |    |\n"
                                    "[1K, 2K)    0 |    |\n"
                                    "[2K, 4K)    8 |@@  |\n"
                                    "[4K, 8K)    0 |    |\n"
                                    "[8K, inf)  12 |@@@@|\n");
    EXPECT_EQ(histogram_bars(three_buckets(0, 0, 0)), "");
    EXPECT_EQ(latency_text(three_buckets(0, 0, 0)),
              "flush latency (ns; K = 2^10, M = 2^20, G = 2^30):\n(no flushes)\n");
}

TEST(FlushLatency, JsonHasEveryBucketAndNullForInf) {
    EXPECT_TRUE(latency_json(std::nullopt).is_null());
    const auto j = latency_json(three_buckets(1, 0, 2));
    EXPECT_EQ(j.dump(), R"([{"lo":1024,"hi":2048,"count":1},{"lo":2048,"hi":4096,"count":0},)"
                        R"({"lo":4096,"hi":null,"count":2}])");
}

TEST(FlushLatency, PrometheusBucketsAreCumulativeInSeconds) {
    const auto m = flush_duration_histogram(three_buckets(3, 5, 2), 25000);
    ASSERT_EQ(m.buckets.size(), 2U); // the unbounded bucket is +Inf, that is `count`
    EXPECT_DOUBLE_EQ(m.buckets[0].first, 2.048e-06);
    EXPECT_EQ(m.buckets[0].second, 3U);
    EXPECT_DOUBLE_EQ(m.buckets[1].first, 4.096e-06);
    EXPECT_EQ(m.buckets[1].second, 8U);
    EXPECT_EQ(m.count, 10U);
    EXPECT_DOUBLE_EQ(m.sum, 2.5e-05);
}

TEST(FlushLatency, ClientReadsItOrSaysItIsAbsent) {
    const FakeDebugfs fake;
    const DebugfsClient client(fake.root());
    ASSERT_TRUE(client.flush_latency().has_value());
    EXPECT_EQ(client.flush_latency()->total(), 1200U);
    fake.remove("flush_latency");
    EXPECT_EQ(client.flush_latency(), std::nullopt);
    // Not a knob: read-only, like stats.
    fake.write("flush_latency", testing::sample_flush_latency());
    EXPECT_FALSE(client.is_knob("flush_latency"));
}

TEST(FlushLatencyCli, StatsTextJsonAndCsv) {
    const FakeDebugfs fake;
    CliRunner cli;
    const auto text = cli.run({"--debugfs", fake.root_string(), "stats"});
    ASSERT_EQ(text.code, 0) << text.err;
    EXPECT_TRUE(std::regex_search(text.out, std::regex("\nflush\\.ns_p50 +2633\\.14 ns\n"
                                                       "flush\\.ns_p90 +4037\\.49 ns\n"
                                                       "flush\\.ns_p99 +7700\\.48 ns\n")))
        << text.out;
    const std::string at(50, '@');
    EXPECT_NE(text.out.find("flush latency (ns; K = 2^10, M = 2^20, G = 2^30):\n"
                            "[1K, 2K)  400 |" +
                            std::string(28, '@') + std::string(22, ' ') +
                            "|\n"
                            "[2K, 4K)  700 |" +
                            at +
                            "|\n"
                            "[4K, 8K)  100 |" +
                            std::string(7, '@') + std::string(43, ' ') + "|\n"),
              std::string::npos)
        << text.out;

    const auto json = cli.run({"--debugfs", fake.root_string(), "stats", "--json"});
    ASSERT_EQ(json.code, 0) << json.err;
    const auto j = nlohmann::json::parse(json.out);
    ASSERT_EQ(j["flush_latency"].size(), 41U);
    std::uint64_t sum = 0;
    for (const auto& b : j["flush_latency"]) {
        sum += b["count"].get<std::uint64_t>();
    }
    EXPECT_EQ(sum, j["counters"]["flush.performed"].get<std::uint64_t>());
    EXPECT_EQ(j["flush_latency"][11],
              nlohmann::json::parse(R"({"lo":1024,"hi":2048,"count":400})"));
    EXPECT_TRUE(j["flush_latency"][40]["hi"].is_null());
    EXPECT_DOUBLE_EQ(j["derived"]["flush.ns_p99"].get<double>(), 7700.48);

    const auto csv = cli.run({"--debugfs", fake.root_string(), "stats", "--csv"});
    ASSERT_EQ(csv.code, 0) << csv.err;
    EXPECT_NE(csv.out.find("\nflush.ns_p99,7700.48\n"), std::string::npos) << csv.out;
    EXPECT_NE(csv.out.find("\nflush_latency.0-1,0\n"), std::string::npos) << csv.out;
    EXPECT_NE(csv.out.find("\nflush_latency.1024-2048,400\n"), std::string::npos) << csv.out;
    EXPECT_TRUE(csv.out.ends_with("\nflush_latency.549755813888-inf,0\n")) << csv.out;
}

TEST(FlushLatencyCli, AbsentFileIsNoErrorAndNullInJson) {
    const FakeDebugfs fake;
    fake.remove("flush_latency");
    CliRunner cli;
    const auto text = cli.run({"--debugfs", fake.root_string(), "stats"});
    ASSERT_EQ(text.code, 0) << text.err;
    EXPECT_EQ(text.out.find("flush latency"), std::string::npos) << text.out;
    EXPECT_EQ(text.out.find("flush.ns_p50"), std::string::npos) << text.out;
    const auto json = cli.run({"--debugfs", fake.root_string(), "stats", "--json"});
    ASSERT_EQ(json.code, 0) << json.err;
    const auto j = nlohmann::json::parse(json.out);
    ASSERT_TRUE(j.contains("flush_latency"));
    EXPECT_TRUE(j["flush_latency"].is_null());
    EXPECT_FALSE(j["derived"].contains("flush.ns_p50"));
    const auto om = cli.run({"--debugfs", fake.root_string(), "stats", "--openmetrics"});
    ASSERT_EQ(om.code, 0) << om.err;
    EXPECT_EQ(om.out.find("flush_duration_seconds"), std::string::npos);
}

TEST(FlushLatencyCli, MalformedFileExits1) {
    const FakeDebugfs fake;
    fake.write("flush_latency", "0 1 0\n1 2 many\n");
    CliRunner cli;
    const auto r = cli.run({"--debugfs", fake.root_string(), "stats"});
    EXPECT_EQ(r.code, 1);
    EXPECT_NE(r.err.find("malformed flush_latency line 2"), std::string::npos) << r.err;
}

TEST(FlushLatencyCli, WatchShowsTheIntervalsHistogram) {
    const FakeDebugfs fake;
    CliRunner cli;
    int step = 0;
    fake.write("stats", "flush.performed 0\n");
    fake.write("flush_latency", testing::flush_latency_text({}));
    // Each fake second: 3 flushes in [1K, 2K), 1 in [4K, 8K).
    cli.on_sleep = [&] {
        ++step;
        fake.write("stats", fmt::format("flush.performed {}\n", 4 * step));
        fake.write("flush_latency", testing::flush_latency_text({{11, 3 * step}, {13, step}}));
    };
    const auto r = cli.run(
        {"--debugfs", fake.root_string(), "stats", "--watch", "1", "--count", "2", "--json"});
    ASSERT_EQ(r.code, 0) << r.err;
    std::istringstream lines(r.out);
    int n = 0;
    for (std::string line; std::getline(lines, line); ++n) {
        const auto j = nlohmann::json::parse(line);
        EXPECT_EQ(j["flush_latency"][11]["count"], 3) << line;
        EXPECT_EQ(j["flush_latency"][12]["count"], 0) << line;
        EXPECT_EQ(j["flush_latency"][13]["count"], 1) << line;
        // rank 2 of 4: 2 of the 3 in [1024, 2048).
        EXPECT_DOUBLE_EQ(j["derived"]["flush.ns_p50"].get<double>(), 1024.0 + (1024.0 * 2 / 3));
    }
    EXPECT_EQ(n, 2);
    step = 0;
    fake.write("stats", "flush.performed 0\n");
    fake.write("flush_latency", testing::flush_latency_text({}));
    const auto text =
        cli.run({"--debugfs", fake.root_string(), "stats", "--watch", "1", "--count", "1"});
    ASSERT_EQ(text.code, 0) << text.err;
    EXPECT_NE(text.out.find("[1K, 2K)  3 |" + std::string(50, '@') + "|\n[2K, 4K)  0 |"),
              std::string::npos)
        << text.out;
    step = 0;
    fake.write("stats", "flush.performed 0\n");
    fake.write("flush_latency", testing::flush_latency_text({}));
    const auto csv = cli.run(
        {"--debugfs", fake.root_string(), "stats", "--watch", "2", "--count", "1", "--csv"});
    ASSERT_EQ(csv.code, 0) << csv.err;
    // The count in `delta`, per second in `per_second`.
    EXPECT_NE(csv.out.find("\n1,2,flush_latency.1024-2048,3,1.5\n"), std::string::npos) << csv.out;
    EXPECT_NE(csv.out.find("\n1,2,flush_latency.549755813888-inf,0,0\n"), std::string::npos)
        << csv.out;
}

TEST(FlushLatency, RunCsvAndJsonCarryTheDelta) {
    RunReport run;
    run.result.seconds = 1;
    run.result.counters = parse_stats("flush.performed 10\n");
    run.result.flush_latency = three_buckets(3, 5, 2);
    std::ostringstream csv;
    make_output(OutputFormat::csv, csv)->run(run);
    EXPECT_TRUE(csv.str().ends_with("\nflush_latency.1024-2048,3\nflush_latency.2048-4096,5\n"
                                    "flush_latency.4096-inf,2\n"))
        << csv.str();
    const auto j = run_document(run);
    EXPECT_EQ(j["result"]["flush_latency"][1]["count"], 5);
    run.result.flush_latency.reset();
    EXPECT_TRUE(run_document(run)["result"]["flush_latency"].is_null());
}

TEST(FlushLatencyCli, OpenMetricsHistogram) {
    const FakeDebugfs fake;
    CliRunner cli;
    const auto r = cli.run({"--debugfs", fake.root_string(), "stats", "--openmetrics"});
    ASSERT_EQ(r.code, 0) << r.err;
    const std::string name = "memcg_statctl_flush_duration_seconds";
    EXPECT_NE(r.out.find("# TYPE " + name + " histogram\n"), std::string::npos);
    // Cumulative: 0 up to 1.024 us, 400 at 2.048 us, 1100 at 4.096 us, 1200 from 8.192 us.
    for (const auto& [le, count] : std::vector<std::pair<std::string, int>>{{"1e-09", 0},
                                                                            {"1.024e-06", 0},
                                                                            {"2.048e-06", 400},
                                                                            {"4.096e-06", 1100},
                                                                            {"8.192e-06", 1200},
                                                                            {"549.755813888", 1200},
                                                                            {"+Inf", 1200}}) {
        const std::regex line(name + R"(_bucket\{kernel="[^"]*",module_version="0\.1\.0",le=")" +
                              std::regex_replace(le, std::regex(R"([.+])"), R"(\$&)") + "\"\\} " +
                              std::to_string(count) + "\n");
        EXPECT_TRUE(std::regex_search(r.out, line)) << le << "\n" << r.out;
    }
    EXPECT_TRUE(std::regex_search(r.out, std::regex(name + R"(_sum\{[^}]*\} 0\.0024\n)")));
    EXPECT_TRUE(std::regex_search(r.out, std::regex(name + R"(_count\{[^}]*\} 1200\n)")));
    // No percentile gauges: histogram_quantile() computes them from the buckets.
    EXPECT_EQ(r.out.find("p50"), std::string::npos);
}

// A sweep of one value whose two runs flushed 4 times each, in [1K, 2K) and in [4K, inf).
ComparisonReport two_run_sweep(const std::string& value, std::vector<LatencyHistogram> latencies) {
    const auto counters = parse_stats("flush.performed 4\nflush.ns_total 10000\n");
    ValueRuns v{value, {10, 12}, {counters, counters}, {1, 1}, {}, latencies, {}};
    auto r = compare("flush_mode", "stat-reader", {v});
    for (std::size_t i = 0; i < latencies.size(); ++i) {
        RunResult run;
        run.seconds = 1;
        run.ops_per_sec = v.samples[i];
        run.counters = counters;
        run.flush_latency = latencies[i];
        run.derived = derive(counters, 1.0, run.flush_latency);
        r.runs.push_back({value, static_cast<int>(i) + 1, run});
    }
    return r;
}

TEST(FlushLatency, SweepRowsTakeThePercentilesOfTheRunsSummed) {
    const auto r = two_run_sweep("kernel", {three_buckets(4, 0, 0), three_buckets(0, 0, 4)});
    ASSERT_EQ(r.rows.size(), 1U);
    // 8 flushes: rank 4 ends [1K, 2K); ranks 7.2 and 7.92 fall in the unbounded bucket.
    EXPECT_DOUBLE_EQ(*derived_value(r.rows[0].derived, "flush.ns_p50"), 2048.0);
    EXPECT_DOUBLE_EQ(*derived_value(r.rows[0].derived, "flush.ns_p90"), 4096.0);
    EXPECT_DOUBLE_EQ(*derived_value(r.rows[0].derived, "flush.ns_p99"), 4096.0);
    const auto doc = sweep_document(r);
    EXPECT_DOUBLE_EQ(doc["rows"][0]["derived"]["flush.ns_p50"].get<double>(), 2048.0);
    EXPECT_EQ(doc["runs"][1]["flush_latency"][2]["count"], 4);
    EXPECT_DOUBLE_EQ(doc["runs"][0]["derived"]["flush.ns_p50"].get<double>(), 1536.0);
    // A run without the histogram: no honest percentile for the row.
    const auto partial = two_run_sweep("kernel", {three_buckets(4, 0, 0)});
    EXPECT_EQ(derived_value(partial.rows[0].derived, "flush.ns_p50"), std::nullopt);
    EXPECT_TRUE(derived_value(partial.rows[0].derived, "ns_per_flush").has_value());
}

TEST(FlushLatencyCli, ComparePutsThePercentilesSideBySide) {
    const testing::TempDir dir;
    const auto a = (dir.path() / "a.json").string();
    const auto b = (dir.path() / "b.json").string();
    std::ofstream(a) << sweep_document(two_run_sweep("kernel", {three_buckets(4, 0, 0),
                                                                three_buckets(4, 0, 0)}))
                            .dump(2);
    std::ofstream(b) << sweep_document(two_run_sweep("kernel", {three_buckets(0, 4, 0),
                                                                three_buckets(0, 4, 0)}))
                            .dump(2);
    CliRunner cli;
    const auto r = cli.run({"compare", "--json", "--metrics", "flush.ns_p50", a, b});
    ASSERT_EQ(r.code, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    const auto& rows = j["series"][0]["rows"];
    const auto row = std::find_if(rows.begin(), rows.end(),
                                  [](const auto& x) { return x["metric"] == "flush.ns_p50"; });
    ASSERT_NE(row, rows.end()) << r.out;
    EXPECT_DOUBLE_EQ((*row)["files"][0]["mean"].get<double>(), 1536.0);
    EXPECT_DOUBLE_EQ((*row)["files"][1]["mean"].get<double>(), 3072.0);
    EXPECT_DOUBLE_EQ((*row)["files"][1]["percent_change"].get<double>(), 100.0);
    const auto text = cli.run({"compare", "--metrics", "flush.ns_p50,flush.ns_p99", a, b});
    ASSERT_EQ(text.code, 0) << text.err;
    EXPECT_NE(text.out.find("\nflush.ns_p50 "), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("\nflush.ns_p99 "), std::string::npos) << text.out;
}

} // namespace
} // namespace memcg_statctl
