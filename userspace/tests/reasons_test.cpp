// The flush requests by reason: the strict parser of `flush_reasons`, the difference of two
// reads and their sum, what `stats` prints with the file (text, JSON, CSV, --watch) and
// without it, what a run and a sweep carry, and `compare` of them.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "debugfs/client.h"
#include "debugfs/reasons.h"
#include "exit_code.h"
#include "fake_debugfs.h"
#include "output/output.h"
#include "output/result_schema.h"
#include "run/session.h"
#include "run/sweep.h"
#include "text_util.h"

namespace memcg_statctl {
namespace {

using testing::CliRunner;
using testing::FakeDebugfs;
using Json = nlohmann::ordered_json;

// As the module writes it: the seven classes, then the callers in no particular order.
constexpr std::string_view sample_reasons =
    "class reader 120 100 20\n"
    "class reclaim 3 3 0\n"
    "class refault 10 2 8\n"
    "class periodic 5 5 0\n"
    "class async 0 0 0\n"
    "class forced 0 0 0\n"
    "class unattributed 0 0 0\n"
    "caller shrink_node reclaim 3 3 0\n"
    "caller memory_stat_format.constprop.0 reader 120 100 20\n"
    "caller workingset_refault refault 10 2 8\n";

std::string reasons_parse_error(std::string_view text) {
    try {
        (void)parse_flush_reasons(text);
    } catch (const ToolError& e) {
        return e.what();
    }
    return "(parsed)";
}

TEST(FlushReasons, ParsesClassesAndCallersMostRequestsFirst) {
    const auto r = parse_flush_reasons(sample_reasons);
    ASSERT_EQ(r.classes.size(), 7U);
    EXPECT_EQ(r.classes[0], (FlushReason{"reader", "", 120, 100}));
    EXPECT_EQ(r.classes[2].skipped(), 8U);
    ASSERT_EQ(r.callers.size(), 3U);
    EXPECT_EQ(r.callers[0], (FlushReason{"memory_stat_format.constprop.0", "reader", 120, 100}));
    EXPECT_EQ(r.callers[1].name, "workingset_refault");
    EXPECT_EQ(r.callers[2], (FlushReason{"shrink_node", "reclaim", 3, 3}));
    // a line kind of a newer module is skipped
    EXPECT_EQ(parse_flush_reasons("class reader 1 1 0\nsite x 1\n").classes.size(), 1U);
}

TEST(FlushReasons, RejectsMalformedLinesNamingThem) {
    EXPECT_EQ(reasons_parse_error("class reader 1 1\n"),
              "malformed flush_reasons line 1: expected `class NAME requests performed skipped` "
              "or `caller FUNCTION CLASS requests performed skipped` (decimal, requests = "
              "performed + skipped), got \"class reader 1 1\"");
    EXPECT_NE(reasons_parse_error("class reader 1 1 0\nclass reclaim 5 2 2\n").find("line 2"),
              std::string::npos); // 5 != 2 + 2
    EXPECT_NE(reasons_parse_error("class reader 1 1 0\ncaller f reader x 1 0\n").find("line 2"),
              std::string::npos);
    EXPECT_NE(reasons_parse_error("class reader 1 1 0\ncaller f 1 1 0\n").find("line 2"),
              std::string::npos); // a caller without its class
    EXPECT_EQ(reasons_parse_error(""), "malformed flush_reasons: no class lines");
}

TEST(FlushReasons, DeltaKeepsEveryClassAndTheCallersThatAsked) {
    const auto before = parse_flush_reasons("class reader 10 8 2\nclass periodic 4 4 0\n"
                                            "caller a reader 6 6 0\ncaller b reader 4 2 2\n");
    const auto after = parse_flush_reasons("class reader 15 9 6\nclass periodic 4 4 0\n"
                                           "caller a reader 6 6 0\ncaller b reader 8 3 5\n"
                                           "caller c reader 1 0 1\n");
    const auto d = reasons_delta(before, after);
    ASSERT_TRUE(d);
    EXPECT_EQ(d->classes, (std::vector<FlushReason>{{"reader", "", 5, 1}, {"periodic", "", 0, 0}}));
    EXPECT_EQ(d->callers, (std::vector<FlushReason>{{"b", "reader", 4, 1}, {"c", "reader", 1, 0}}));
    // a reset in between: no negative counts
    const auto back = reasons_delta(after, before);
    ASSERT_TRUE(back);
    EXPECT_EQ(back->classes[0].requests, 0U);
    EXPECT_EQ(reasons_delta(std::nullopt, after), std::nullopt);
}

TEST(FlushReasons, ClientReadsItOrSaysItIsAbsent) {
    const FakeDebugfs fake;
    const DebugfsClient client(fake.root());
    EXPECT_EQ(client.flush_reasons(), std::nullopt); // an older module
    fake.write("flush_reasons", std::string(sample_reasons));
    ASSERT_TRUE(client.flush_reasons());
    EXPECT_EQ(client.flush_reasons()->callers.size(), 3U);
    EXPECT_FALSE(client.is_knob("flush_reasons"));
}

TEST(FlushReasonsCli, StatsTextJsonAndCsv) {
    const FakeDebugfs fake;
    fake.write("flush_reasons", std::string(sample_reasons));
    CliRunner cli;
    const auto text = cli.run({"--debugfs", fake.root_string(), "stats"});
    ASSERT_EQ(text.code, 0) << text.err;
    // the classes that asked, then the callers, most first
    EXPECT_NE(
        text.out.find("FLUSH REQUESTS BY                          REQUESTS  PERFORMED  SKIPPED\n"
                      "reader                                          120        100       20\n"
                      "reclaim                                           3          3        0\n"
                      "refault                                          10          2        8\n"
                      "periodic                                          5          5        0\n"
                      "  memory_stat_format.constprop.0 (reader)       120        100       20\n"
                      "  workingset_refault (refault)                   10          2        8\n"
                      "  shrink_node (reclaim)                           3          3        0\n"),
        std::string::npos)
        << text.out;

    const auto json = cli.run({"--debugfs", fake.root_string(), "stats", "--json"});
    ASSERT_EQ(json.code, 0) << json.err;
    const auto j = nlohmann::json::parse(json.out);
    ASSERT_EQ(j["flush_reasons"]["classes"].size(), 7U);
    EXPECT_EQ(
        j["flush_reasons"]["classes"][2],
        nlohmann::json::parse(R"({"name":"refault","requests":10,"performed":2,"skipped":8})"));
    EXPECT_EQ(j["flush_reasons"]["callers"][2],
              nlohmann::json::parse(R"({"function":"shrink_node","class":"reclaim",)"
                                    R"("requests":3,"performed":3,"skipped":0})"));

    const auto csv = cli.run({"--debugfs", fake.root_string(), "stats", "--csv"});
    ASSERT_EQ(csv.code, 0) << csv.err;
    EXPECT_NE(csv.out.find("\nflush_reasons.refault.requests,10\n"
                           "flush_reasons.refault.performed,2\n"
                           "flush_reasons.refault.skipped,8\n"),
              std::string::npos)
        << csv.out;
    EXPECT_NE(csv.out.find("\nflush_reasons.caller.shrink_node.performed,3\n"), std::string::npos)
        << csv.out;
}

TEST(FlushReasonsCli, OpenMetricsCountersPerClass) {
    const FakeDebugfs fake;
    fake.write("flush_reasons", std::string(sample_reasons));
    CliRunner cli;
    const auto om = cli.run({"--debugfs", fake.root_string(), "stats", "--openmetrics"});
    ASSERT_EQ(om.code, 0) << om.err;
    EXPECT_NE(om.out.find("# TYPE memcg_statctl_flush_reason_requests_total counter\n"),
              std::string::npos)
        << om.out;
    EXPECT_TRUE(std::regex_search(
        om.out,
        std::regex("\nmemcg_statctl_flush_reason_requests_total\\{[^}]*class=\"refault\"\\} 10\n")))
        << om.out;
    EXPECT_TRUE(std::regex_search(
        om.out,
        std::regex("\nmemcg_statctl_flush_reason_performed_total\\{[^}]*class=\"refault\"\\} 2\n")))
        << om.out;
    EXPECT_EQ(om.out.find("shrink_node"), std::string::npos) << om.out; // no caller labels
}

TEST(FlushReasonsCli, AbsentFileIsNoErrorAndNullInJson) {
    const FakeDebugfs fake;
    CliRunner cli;
    const auto text = cli.run({"--debugfs", fake.root_string(), "stats"});
    ASSERT_EQ(text.code, 0) << text.err;
    EXPECT_EQ(text.out.find("FLUSH REQUESTS BY"), std::string::npos) << text.out;
    const auto json = cli.run({"--debugfs", fake.root_string(), "stats", "--json"});
    const auto j = nlohmann::json::parse(json.out);
    ASSERT_TRUE(j.contains("flush_reasons"));
    EXPECT_TRUE(j["flush_reasons"].is_null());
}

TEST(FlushReasonsCli, MalformedFileExits1) {
    const FakeDebugfs fake;
    fake.write("flush_reasons", "class reader 1 1 1\n");
    CliRunner cli;
    const auto r = cli.run({"--debugfs", fake.root_string(), "stats"});
    EXPECT_EQ(r.code, 1);
    EXPECT_NE(r.err.find("malformed flush_reasons line 1"), std::string::npos) << r.err;
}

TEST(FlushReasons, SumMergesClassesAndCallersByName) {
    const auto a = parse_flush_reasons("class reader 5 4 1\nclass periodic 1 1 0\n"
                                       "caller x reader 3 3 0\ncaller y reader 2 1 1\n");
    const auto b = parse_flush_reasons("class reader 10 2 8\nclass periodic 0 0 0\n"
                                       "class refault 4 4 0\n"
                                       "caller y reader 9 1 8\ncaller z refault 4 4 0\n");
    const auto sum = reasons_sum({a, b});
    ASSERT_TRUE(sum);
    // classes in first-seen order, a class only one run has counted from 0
    EXPECT_EQ(sum->classes,
              (std::vector<FlushReason>{
                  {"reader", "", 15, 6}, {"periodic", "", 1, 1}, {"refault", "", 4, 4}}));
    // callers most requests first
    EXPECT_EQ(sum->callers,
              (std::vector<FlushReason>{
                  {"y", "reader", 11, 2}, {"z", "refault", 4, 4}, {"x", "reader", 3, 3}}));
    EXPECT_EQ(reasons_sum({a}), a);
    EXPECT_EQ(reasons_sum({}), std::nullopt);
}

// A run's module figures as `run` takes them: a sample of the fake before the window, the
// fake's files moved on, a sample after.
RunReport run_over_fake(const FakeDebugfs& fake, std::string_view reasons_after) {
    const DebugfsClient client(fake.root());
    const auto before = read_module_sample(client);
    // as many requests and flushes as later_reasons adds to sample_reasons
    fake.write("stats", "flush.requests 1286\nflush.performed 1222\nflush.ns_total 2444000\n");
    if (!reasons_after.empty()) {
        fake.write("flush_reasons", std::string(reasons_after));
    }
    const auto after = read_module_sample(client);
    RunReport run;
    run.workload = "stat-reader";
    run.parameters = {{"cgroups", 1}};
    run.result.seconds = 2;
    run.result.ops_per_sec = 100;
    set_module_deltas(run.result, before, after);
    return run;
}

std::string render_run(OutputFormat f, const RunReport& run) {
    std::ostringstream out;
    make_output(f, out)->run(run);
    return out.str();
}

// sample_reasons 5 s later: the reader asked 50 more times (20 flushed), periodic twice;
// a new caller; shrink_node asked nothing.
constexpr std::string_view later_reasons =
    "class reader 170 120 50\n"
    "class reclaim 3 3 0\n"
    "class refault 10 2 8\n"
    "class periodic 7 7 0\n"
    "class async 0 0 0\n"
    "class forced 0 0 0\n"
    "class unattributed 0 0 0\n"
    "caller shrink_node reclaim 3 3 0\n"
    "caller memory_stat_format.constprop.0 reader 160 112 48\n"
    "caller mem_cgroup_wb_stats reader 10 8 2\n"
    "caller workingset_refault refault 10 2 8\n";

TEST(FlushReasonsRun, DeltaOverTheWindowInJsonCsvAndText) {
    const FakeDebugfs fake;
    fake.write("flush_reasons", std::string(sample_reasons));
    const auto run = run_over_fake(fake, later_reasons);
    ASSERT_TRUE(run.result.counters);
    EXPECT_EQ(run.result.counters->get("flush.requests"), 52U); // the counters moved too

    const auto j = run_document(run)["result"]["flush_reasons"];
    ASSERT_EQ(j["classes"].size(), 7U); // every class, as stats --json has them
    EXPECT_EQ(j["classes"][0], Json::parse(R"({"name": "reader", "requests": 50,
                                               "performed": 20, "skipped": 30})"));
    EXPECT_EQ(j["classes"][3]["requests"], 2);
    EXPECT_EQ(j["classes"][1]["requests"], 0);
    // only the callers that asked in the window, most first
    EXPECT_EQ(j["callers"], Json::parse(R"([
        {"function": "memory_stat_format.constprop.0", "class": "reader", "requests": 40,
         "performed": 12, "skipped": 28},
        {"function": "mem_cgroup_wb_stats", "class": "reader", "requests": 10,
         "performed": 8, "skipped": 2}])"));

    const auto csv = render_run(OutputFormat::csv, run);
    EXPECT_NE(csv.find("\nflush_reasons.reader.requests,50\n"
                       "flush_reasons.reader.performed,20\n"
                       "flush_reasons.reader.skipped,30\n"),
              std::string::npos)
        << csv;
    EXPECT_NE(csv.find("\nflush_reasons.periodic.performed,2\n"), std::string::npos) << csv;
    EXPECT_NE(csv.find("\nflush_reasons.caller.mem_cgroup_wb_stats.requests,10\n"),
              std::string::npos)
        << csv;
    EXPECT_EQ(csv.find("flush_reasons.caller.shrink_node"), std::string::npos) << csv;

    // text: stats' table after the counters, the classes and callers that asked
    const auto text = render_run(OutputFormat::text, run);
    EXPECT_NE(
        text.find("FLUSH REQUESTS BY                          REQUESTS  PERFORMED  SKIPPED\n"
                  "reader                                           50         20       30\n"
                  "periodic                                          2          2        0\n"
                  "  memory_stat_format.constprop.0 (reader)        40         12       28\n"
                  "  mem_cgroup_wb_stats (reader)                   10          8        2\n"),
        std::string::npos)
        << text;
    EXPECT_LT(text.find("COUNTER"), text.find("FLUSH REQUESTS BY")) << text;
}

TEST(FlushReasonsRun, NoRequestsInTheWindowNoTable) {
    const FakeDebugfs fake;
    fake.write("flush_reasons", std::string(sample_reasons));
    const auto run = run_over_fake(fake, sample_reasons);
    EXPECT_EQ(render_run(OutputFormat::text, run).find("FLUSH REQUESTS BY"), std::string::npos);
    // JSON still has every class, at 0
    const auto j = run_document(run)["result"]["flush_reasons"];
    ASSERT_EQ(j["classes"].size(), 7U);
    EXPECT_EQ(j["classes"][0]["requests"], 0);
    EXPECT_TRUE(j["callers"].empty());
}

TEST(FlushReasonsRun, WithoutTheFileNullAndNoColumns) {
    const FakeDebugfs fake; // no flush_reasons: an older module
    const auto run = run_over_fake(fake, "");
    ASSERT_TRUE(run.result.counters);
    const auto doc = run_document(run);
    ASSERT_TRUE(doc["result"].contains("flush_reasons"));
    EXPECT_TRUE(doc["result"]["flush_reasons"].is_null());
    EXPECT_EQ(render_run(OutputFormat::csv, run).find("flush_reasons"), std::string::npos);
    EXPECT_EQ(render_run(OutputFormat::text, run).find("FLUSH REQUESTS BY"), std::string::npos);
}

// One value of a sweep: two runs, each with `reasons` (none: the module has no file).
ValueRuns value_with_reasons(const std::string& value, std::vector<FlushReasons> reasons) {
    ValueRuns v;
    v.value = value;
    v.samples = {10, 12};
    v.counter_deltas = {parse_stats("flush.requests 5\n"), parse_stats("flush.requests 7\n")};
    v.seconds = {1, 1};
    v.flush_reasons = std::move(reasons);
    return v;
}

// A sweep of flush_mode kernel and never, each run's reasons given, as `sweep` makes it.
ComparisonReport sweep_with_reasons(const std::vector<std::string>& kernel_runs,
                                    const std::vector<std::string>& never_runs) {
    std::vector<ValueRuns> values;
    for (const auto& [value, texts] : {std::pair{std::string("kernel"), kernel_runs},
                                       std::pair{std::string("never"), never_runs}}) {
        std::vector<FlushReasons> reasons;
        for (const auto& t : texts) {
            reasons.push_back(parse_flush_reasons(t));
        }
        values.push_back(value_with_reasons(value, reasons));
    }
    auto r = compare("flush_mode", "stat-reader", values);
    for (const auto& v : values) {
        for (std::size_t i = 0; i < v.samples.size(); ++i) {
            RunResult run;
            run.seconds = 1;
            run.ops_per_sec = v.samples[i];
            run.counters = v.counter_deltas[i];
            if (i < v.flush_reasons.size()) {
                run.flush_reasons = v.flush_reasons[i];
            }
            r.runs.push_back({v.value, static_cast<int>(i) + 1, run});
        }
    }
    return r;
}

const std::string kernel_run = "class reader 4 4 0\nclass periodic 1 1 0\ncaller f reader 4 4 0\n";
const std::string never_run = "class reader 6 0 6\nclass periodic 1 1 0\ncaller f reader 6 0 6\n";

std::string render_sweep(OutputFormat f, const ComparisonReport& r) {
    std::ostringstream out;
    make_output(f, out)->comparison(r);
    return out.str();
}

TEST(FlushReasonsSweep, RowsSumTheRunsInJsonCsvAndText) {
    const auto r = sweep_with_reasons({kernel_run, kernel_run}, {never_run, never_run});
    ASSERT_TRUE(r.rows[1].flush_reasons);
    EXPECT_EQ(r.rows[1].flush_reasons->classes[0], (FlushReason{"reader", "", 12, 0}));

    const auto doc = sweep_document(r);
    EXPECT_EQ(doc["rows"][0]["flush_reasons"]["classes"][0],
              Json::parse(R"({"name": "reader", "requests": 8, "performed": 8, "skipped": 0})"));
    EXPECT_EQ(doc["rows"][1]["flush_reasons"]["callers"][0]["skipped"], 12);
    EXPECT_EQ(doc["runs"][3]["flush_reasons"]["classes"][0]["requests"], 6); // each run's own

    // CSV: the classes' columns, as stats' CSV names them; no caller columns
    const auto csv = render_sweep(OutputFormat::csv, r);
    const auto header = split_commas(csv.substr(0, csv.find('\n')));
    const auto column = [&](const std::string& name) {
        return std::find(header.begin(), header.end(), name) - header.begin();
    };
    const auto reader = column("flush_reasons.reader.requests");
    ASSERT_LT(reader, static_cast<std::ptrdiff_t>(header.size())) << csv;
    EXPECT_EQ(column("flush_reasons.reader.performed"), reader + 1);
    EXPECT_EQ(column("flush_reasons.reader.skipped"), reader + 2);
    EXPECT_LT(column("flush_reasons.periodic.requests"),
              static_cast<std::ptrdiff_t>(header.size()));
    EXPECT_EQ(csv.find("caller"), std::string::npos) << csv;
    std::istringstream lines(csv);
    std::string line;
    std::getline(lines, line);
    std::getline(lines, line);
    std::getline(lines, line); // never
    const auto cells = split_commas(line);
    EXPECT_EQ(cells.at(static_cast<std::size_t>(reader)), "12") << csv;
    EXPECT_EQ(cells.at(static_cast<std::size_t>(reader + 2)), "12") << csv;

    // text: the classes that asked, requests/performed per value
    const auto text = render_sweep(OutputFormat::text, r);
    EXPECT_NE(text.find("\nflush requests by class, requests/performed (sum over runs)\n"
                        "flush_mode  kernel  never\n"
                        "reader         8/8   12/0\n"
                        "periodic       2/2    2/2\n"),
              std::string::npos)
        << text;
}

TEST(FlushReasonsSweep, ARunWithoutThemLeavesTheRowWithout) {
    // kernel's second run had no file (the module was reloaded older in between)
    const auto r = sweep_with_reasons({kernel_run}, {never_run, never_run});
    EXPECT_EQ(r.rows[0].flush_reasons, std::nullopt);
    EXPECT_TRUE(r.rows[1].flush_reasons);
    const auto doc = sweep_document(r);
    EXPECT_TRUE(doc["rows"][0]["flush_reasons"].is_null());
    EXPECT_TRUE(doc["runs"][1]["flush_reasons"].is_null());
    // its cells are empty, the other value's are not
    EXPECT_NE(render_sweep(OutputFormat::csv, r).find(",12,0,12,"), std::string::npos);
    const auto text = render_sweep(OutputFormat::text, r);
    EXPECT_NE(text.find("\nreader           -   12/0\n"), std::string::npos) << text;
    // none at all: no columns, no table
    const auto none = sweep_with_reasons({}, {});
    EXPECT_EQ(render_sweep(OutputFormat::csv, none).find("flush_reasons"), std::string::npos);
    EXPECT_EQ(render_sweep(OutputFormat::text, none).find("flush requests"), std::string::npos);
}

// The compare rows of `metric` in `compare --json` output, one per value.
std::vector<Json> compare_rows(const std::string& out, const std::string& metric) {
    const auto j = Json::parse(out);
    std::vector<Json> rows;
    for (const auto& row : j["series"][0]["rows"]) {
        if (row["metric"] == metric) {
            rows.push_back(row);
        }
    }
    return rows;
}

TEST(FlushReasonsCompare, ClassRowsFromTheRunsAndTheMetricsGroup) {
    const testing::TempDir dir;
    const auto a = (dir.path() / "a.json").string();
    const auto b = (dir.path() / "b.json").string();
    std::ofstream(a) << sweep_document(
                            sweep_with_reasons({kernel_run, kernel_run}, {never_run, never_run}))
                            .dump(2);
    const std::string more = "class reader 12 6 6\nclass periodic 1 1 0\n";
    std::ofstream(b)
        << sweep_document(sweep_with_reasons({kernel_run, more}, {never_run, more})).dump(2);
    CliRunner cli;
    const auto r = cli.run({"compare", "--json", "--all", "--metrics", "flush_reasons", a, b});
    ASSERT_EQ(r.code, 0) << r.err;
    const auto requests = compare_rows(r.out, "flush_reasons.reader.requests");
    ASSERT_EQ(requests.size(), 2U) << r.out; // kernel, never
    EXPECT_EQ(requests[0]["value"], "kernel");
    EXPECT_EQ(requests[0]["files"][0]["n"], 2); // per run, with a t-test
    EXPECT_DOUBLE_EQ(requests[0]["files"][0]["mean"].get<double>(), 4.0);
    EXPECT_DOUBLE_EQ(requests[0]["files"][1]["mean"].get<double>(), 8.0);
    EXPECT_DOUBLE_EQ(requests[0]["files"][1]["percent_change"].get<double>(), 100.0);
    const auto performed = compare_rows(r.out, "flush_reasons.reader.performed");
    ASSERT_EQ(performed.size(), 2U);
    EXPECT_DOUBLE_EQ(performed[1]["files"][1]["mean"].get<double>(), 3.0); // never: (0 + 6) / 2
    EXPECT_EQ(compare_rows(r.out, "flush_reasons.periodic.requests").size(), 2U);
    EXPECT_TRUE(compare_rows(r.out, "flush.requests").empty()); // the group only
    // one row by its name
    const auto one = cli.run(
        {"compare", "--json", "--all", "--metrics", "flush_reasons.reader.performed", a, b});
    ASSERT_EQ(one.code, 0) << one.err;
    EXPECT_EQ(compare_rows(one.out, "flush_reasons.reader.performed").size(), 2U);
    EXPECT_TRUE(compare_rows(one.out, "flush_reasons.reader.requests").empty());
}

TEST(FlushReasonsCompare, RowsWithoutRunsGiveTheMeanPerRun) {
    // An experiment's reports keep rows only: their sum over n runs is a mean per run.
    const testing::TempDir dir;
    auto doc = sweep_document(sweep_with_reasons({kernel_run, kernel_run}, {never_run, never_run}));
    doc["runs"] = Json::array();
    const auto a = (dir.path() / "a.json").string();
    std::ofstream(a) << doc.dump(2);
    CliRunner cli;
    const auto r = cli.run({"compare", "--json", "--all", "--metrics", "flush_reasons", a, a});
    ASSERT_EQ(r.code, 0) << r.err;
    const auto requests = compare_rows(r.out, "flush_reasons.reader.requests");
    ASSERT_EQ(requests.size(), 2U) << r.out;
    EXPECT_EQ(requests[1]["files"][0]["n"], 0); // a mean, no samples
    EXPECT_DOUBLE_EQ(requests[1]["files"][0]["mean"].get<double>(), 6.0);
}

TEST(FlushReasonsCompare, OlderFilesWithoutTheFieldCompare) {
    const testing::TempDir dir;
    auto doc = sweep_document(sweep_with_reasons({kernel_run, kernel_run}, {never_run, never_run}));
    for (auto& run : doc["runs"]) {
        run.erase("flush_reasons");
    }
    for (auto& row : doc["rows"]) {
        row.erase("flush_reasons");
    }
    const auto a = (dir.path() / "a.json").string();
    std::ofstream(a) << doc.dump(2);
    CliRunner cli;
    const auto r = cli.run({"compare", "--json", "--all", a, a});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(compare_rows(r.out, "flush_reasons.reader.requests").empty());
    EXPECT_FALSE(compare_rows(r.out, "flush.requests").empty());
}

} // namespace
} // namespace memcg_statctl
