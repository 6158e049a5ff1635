// Golden-string tests of the three Output implementations (bpftrace's output tests style).
#include <algorithm>
#include <sstream>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "debugfs/counters.h"
#include "output/output.h"
#include "run/sweep.h"

namespace memcg_statctl {
namespace {

ValueRuns value_runs(std::string value, std::vector<double> samples,
                     std::vector<Counters> deltas = {}, std::vector<double> seconds = {}) {
    ValueRuns v;
    v.value = std::move(value);
    v.samples = std::move(samples);
    v.counter_deltas = std::move(deltas);
    v.seconds = std::move(seconds);
    return v;
}

ComparisonReport sample_comparison() {
    auto kernel = value_runs("kernel", {100, 101, 99},
                             {parse_stats("flush.performed 10\nflush.ns_total 1000\n"),
                              parse_stats("flush.performed 20\nflush.ns_total 2000\n"),
                              parse_stats("flush.performed 30\nflush.ns_total 3000\n")},
                             {1, 1, 1});
    kernel.memory_stats = {{{"pgfault", 10}, {"anon", -4096}}, {{"pgfault", 20}, {"anon", 0}}};
    const std::vector<ValueRuns> runs = {
        kernel,
        value_runs("never", {120, 121, 119}),
        value_runs("always", {100, 102, 98}),
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
              "page-fault ops_per_sec (ops/s) by flush_mode (3 runs per value)\n"
              "flush_mode  n  mean ops/s  median  stddev  %change  sig\n"
              "kernel      3      100.00  100.00    1.00        -\n"
              "never       3      120.00  120.00    1.00  +20.00%  *\n"
              "always      3      100.00  100.00    2.00   +0.00%\n"
              "sig: * where Welch's t-test finds the mean differs from kernel's (p < 0.05); "
              "empty where it does\n"
              "     not, or where a value has fewer than 2 runs (no test)\n"
              "\n"
              "module counters per run (mean; system-wide)\n"
              "flush_mode          kernel  never  always\n"
              "flush.performed         20      -       -\n"
              "flush.ns_total        2000      -       -\n"
              "flushes_per_sec   20.00 /s      -       -\n"
              "ns_per_flush     100.00 ns      -       -\n"
              "\n"
              "memory.stat of the measured cgroups per run (mean)\n"
              "flush_mode  kernel  never  always\n"
              "pgfault         15      -       -\n"
              "anon         -2048      -       -\n");
}

TEST(OutputCsv, ComparisonGolden) {
    // p for "never": t = 20 / sqrt(2/3), df = 4; 1.64831e-05 checked by numeric
    // integration of the t density.
    EXPECT_EQ(render(OutputFormat::csv, sample_comparison()),
              "knob,value,n,mean,median,stddev,percent_change,p_value,significant,"
              "flush.performed,flush.ns_total,flushes_per_sec,ns_per_flush,pgfault,anon\n"
              "flush_mode,kernel,3,100,100,1,,,false,20,2000,20,100,15,-2048\n"
              "flush_mode,never,3,120,120,1,20,1.64831e-05,true,,,,,,\n"
              "flush_mode,always,3,100,100,2,0,1,false,,,,,,\n");
}

// The field of a JSON row that a CSV column names: the row's own, or one of its counters,
// derived or memory_stat objects' (no name is in two of them); nullptr when absent.
const nlohmann::json* row_field(const nlohmann::json& row, const std::string& column) {
    for (const auto* object : {&row, &row["counters"], &row["derived"], &row["memory_stat"]}) {
        if (object->contains(column)) {
            return &object->at(column);
        }
    }
    return nullptr;
}

// Scripts switch between --csv and --json: every CSV column (but `knob`, the document's
// own field) is a field of the rows in the JSON document, or of their counters, derived or
// memory_stat objects, under the same name.
TEST(OutputCsv, ColumnsAreTheJsonRowFields) {
    const auto report = sample_comparison();
    const auto csv = render(OutputFormat::csv, report);
    const auto j = nlohmann::json::parse(render(OutputFormat::json, report));
    const auto header = csv.substr(0, csv.find('\n'));
    std::size_t at = 0;
    int checked = 0;
    while (at <= header.size()) {
        const auto comma = std::min(header.find(',', at), header.size());
        const auto column = header.substr(at, comma - at);
        at = comma + 1;
        if (column == "knob") {
            EXPECT_EQ(j["knob"], "flush_mode");
            continue;
        }
        const auto& row = j["rows"][0];
        const auto in = [&](const char* group) { return row[group].contains(column); };
        EXPECT_EQ(row.contains(column) + in("counters") + in("derived") + in("memory_stat"), 1)
            << column;
        ++checked;
    }
    EXPECT_EQ(checked, 14);
}

// The CSV row of every value: its cells split at the commas (no quoted fields here).
std::vector<std::vector<std::string>> csv_cells(const std::string& csv) {
    std::vector<std::vector<std::string>> rows;
    std::istringstream in(csv);
    for (std::string l; std::getline(in, l);) {
        std::vector<std::string> cells;
        std::size_t at = 0;
        for (auto comma = l.find(','); comma != std::string::npos; comma = l.find(',', at)) {
            cells.push_back(l.substr(at, comma - at));
            at = comma + 1;
        }
        cells.push_back(l.substr(at));
        rows.push_back(cells);
    }
    return rows;
}

// Where JSON has null (stddev of one run, no statistics without a run, the baseline's
// %change and p, a ratio over zero) or lacks a field, CSV has an empty cell; elsewhere
// neither is empty.
TEST(OutputCsv, EmptyCellWhereJsonIsNull) {
    const std::vector<ValueRuns> runs = {
        value_runs("one", {5}, {parse_stats("flush.performed 0\nflush.ns_total 0\n")}, {1}),
        value_runs("two", {6, 7}, {}, {1, 1}),
        value_runs("none", {}),
    };
    const auto report = compare("flush_mode", "page-fault", runs);
    const auto csv = csv_cells(render(OutputFormat::csv, report));
    const auto j = nlohmann::json::parse(render(OutputFormat::json, report));
    ASSERT_EQ(csv.size(), 4U);
    const auto& header = csv[0];
    int nulls = 0;
    for (std::size_t row = 0; row < 3; ++row) {
        ASSERT_EQ(csv[row + 1].size(), header.size()) << row;
        for (std::size_t col = 1; col < header.size(); ++col) { // 0: the knob
            const auto* field = row_field(j["rows"][row], header[col]);
            const bool null = field == nullptr || field->is_null();
            nulls += null ? 1 : 0;
            EXPECT_EQ(csv[row + 1][col].empty(), null) << header[col] << " of row " << row;
        }
    }
    EXPECT_GT(nulls, 0);
    // n == 1: a mean, but no stddev (as in JSON, and not 0).
    EXPECT_EQ(j["rows"][0]["stddev"], nullptr);
    EXPECT_EQ(csv[1][5], "");
    EXPECT_EQ(csv[1][3], "5");
    EXPECT_EQ(csv[2][5], "0.707107");
    EXPECT_EQ(j["rows"][0]["derived"]["ns_per_flush"], nullptr);
}

TEST(OutputJson, ComparisonFields) {
    const auto j = nlohmann::json::parse(render(OutputFormat::json, sample_comparison()));
    EXPECT_EQ(j["schema"], "memcg-statctl/sweep");
    EXPECT_EQ(j["schema_version"], 2);
    EXPECT_EQ(j["knob"], "flush_mode");
    EXPECT_EQ(j["metric"], "ops_per_sec");
    EXPECT_EQ(j["complete"], true);
    EXPECT_EQ(j["rows"][0]["n"], 3);
    EXPECT_EQ(j["rows"][0]["percent_change"], nullptr);
    EXPECT_DOUBLE_EQ(j["rows"][1]["percent_change"].get<double>(), 20.0);
    EXPECT_EQ(j["rows"][1]["significant"], true);
    EXPECT_EQ(j["rows"][0]["counters"]["flush.performed"], 20);
    EXPECT_EQ(j["rows"][0]["memory_stat"]["pgfault"], 15);
    EXPECT_DOUBLE_EQ(j["rows"][0]["derived"]["ns_per_flush"].get<double>(), 100.0);
    EXPECT_EQ(j["rows"][2]["samples"].size(), 3U);
}

TEST(OutputCsv, QuotesFieldsWithCommas) {
    ComparisonReport r;
    r.knob = "k";
    r.workload = "w";
    ComparisonRow row;
    row.value = "a,b";
    row.summary.n = 1;
    r.rows.push_back(row);
    EXPECT_NE(render(OutputFormat::csv, r).find("k,\"a,b\",1,"), std::string::npos);
}

RunReport sample_run() {
    RunReport r;
    r.environment.tool_version = "9.9.9";
    r.environment.abi = 1;
    r.environment.kernel = "6.1.0-57-amd64";
    r.environment.cpus = 2;
    r.environment.memory_bytes = 1U << 30U;
    r.environment.started = "2026-12-01T06:00:00.000Z";
    r.workload = "slab";
    r.parameters = {{"cgroups", 2}, {"tasks", 1}, {"parent", "/sys/fs/cgroup"}};
    r.result.seconds = 5;
    r.result.task_ops_per_sec = {1000, 1500};
    r.result.ops_per_sec = 2500;
    r.result.memory_stat = {{"/sys/fs/cgroup/memcg-statctl.1", {{"pgfault", 7}}}};
    return r;
}

TEST(OutputText, RunReportGolden) {
    std::ostringstream out;
    make_output(OutputFormat::text, out)->run(sample_run());
    EXPECT_EQ(out.str(), "workload slab: cgroups=2 tasks=1 parent=/sys/fs/cgroup (5.00 s)\n"
                         "TASK   ops_per_sec (ops/s)\n"
                         "0                  1000.00\n"
                         "1                  1500.00\n"
                         "total              2500.00\n"
                         "(module not loaded: no counter deltas)\n"
                         "memory.stat of /sys/fs/cgroup/memcg-statctl.1:\n"
                         "FIELD    DELTA\n"
                         "pgfault      7\n");
}

TEST(OutputJson, RunDocumentCarriesEnvironmentParametersAndResult) {
    auto r = sample_run();
    r.result.counters = parse_stats("flush.requests 3\nstat_updates 4\nstat_updates.amount 9\n");
    std::ostringstream out;
    make_output(OutputFormat::json, out)->run(r);
    const auto j = nlohmann::json::parse(out.str());
    EXPECT_EQ(j["schema"], "memcg-statctl/run");
    EXPECT_EQ(j["schema_version"], 2);
    EXPECT_EQ(j["environment"]["kernel"], "6.1.0-57-amd64");
    EXPECT_EQ(j["environment"]["module_version"], nullptr);
    EXPECT_EQ(j["environment"]["cpus"], 2);
    EXPECT_EQ(j["parameters"]["cgroups"], 2); // a number, not "2"
    EXPECT_EQ(j["complete"], true);
    EXPECT_DOUBLE_EQ(j["result"]["ops_per_sec"].get<double>(), 2500.0);
    // Counters under the module's names, and a counter that is a prefix of another
    // (stat_updates, stat_updates.amount) stays a number.
    EXPECT_EQ(j["result"]["counters"]["flush.requests"], 3);
    EXPECT_EQ(j["result"]["counters"]["stat_updates"], 4);
    EXPECT_EQ(j["result"]["counters"]["stat_updates.amount"], 9);
    EXPECT_EQ(j["result"]["memory_stat"][0]["delta"]["pgfault"], 7);
}

TEST(OutputJson, InterruptedRunHasNoResult) {
    auto r = sample_run();
    r.interrupted_by = "SIGINT";
    std::ostringstream out;
    make_output(OutputFormat::json, out)->run(r);
    const auto j = nlohmann::json::parse(out.str());
    EXPECT_EQ(j["complete"], false);
    EXPECT_EQ(j["interrupted_by"], "SIGINT");
    EXPECT_EQ(j["result"], nullptr);
}

TEST(OutputJson, WatchIntervalCarriesTimestampAndInterval) {
    IntervalReport r;
    r.index = 2;
    r.timestamp = "2026-12-01T06:00:01.000Z";
    r.requested = 1;
    r.seconds = 1.01;
    r.rates = {{"flush.requests", 5, 4.95}};
    std::ostringstream out;
    make_output(OutputFormat::json, out)->interval(r);
    const auto j = nlohmann::json::parse(out.str());
    EXPECT_EQ(j["timestamp"], "2026-12-01T06:00:01.000Z");
    EXPECT_EQ(j["requested_seconds"], 1.0);
    EXPECT_EQ(j["deltas"]["flush.requests"], 5);
    EXPECT_DOUBLE_EQ(j["per_second"]["flush.requests"].get<double>(), 4.95);
}

// A maximum has a value, never a rate: text marks it, JSON gives no per_second.
TEST(OutputWatch, MaximumIsAValueNotARate) {
    IntervalReport r;
    r.index = 1;
    r.seconds = 2;
    r.rates = {{"flush.performed", 10, 5.0}, {"flush.ns_max", 7000, std::nullopt}};
    std::ostringstream json;
    make_output(OutputFormat::json, json)->interval(r);
    const auto j = nlohmann::json::parse(json.str());
    EXPECT_EQ(j["deltas"]["flush.ns_max"], 7000);
    EXPECT_FALSE(j["per_second"].contains("flush.ns_max"));
    EXPECT_DOUBLE_EQ(j["per_second"]["flush.performed"].get<double>(), 5.0);
    std::ostringstream text;
    make_output(OutputFormat::text, text)->interval(r);
    EXPECT_NE(text.str().find("flush.ns_max"), std::string::npos);
    EXPECT_NE(text.str().find("(max)"), std::string::npos);
    EXPECT_EQ(text.str().find("3500"), std::string::npos) << text.str();
}

TEST(OutputJson, StatsNullForUndefinedDerived) {
    StatsReport r{parse_stats("flush.performed 0\nflush.ns_total 0\n"),
                  {{"ns_per_flush", "ns", std::nullopt}},
                  std::nullopt,
                  std::nullopt,
                  std::nullopt,
                  {}};
    std::ostringstream out;
    make_output(OutputFormat::json, out)->stats(r);
    const auto j = nlohmann::json::parse(out.str());
    EXPECT_EQ(j["derived"]["ns_per_flush"], nullptr);
    EXPECT_EQ(j["counters"]["flush.performed"], 0);
}

} // namespace
} // namespace memcg_statctl
