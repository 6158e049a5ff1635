// One name per counter: the tool's lists (counter_names(), derived_names()) are the
// module's and docs/output.md's, every counter is printed under that name in text, JSON and
// CSV, and `compare --metrics` takes it; any other name is a usage error.
#include <algorithm>
#include <fstream>
#include <functional>
#include <regex>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "compare/table.h"
#include "debugfs/counters.h"
#include "fake_debugfs.h"
#include "output/output.h"
#include "output/result_schema.h"
#include "run/sweep.h"
#include "text_util.h"

namespace memcg_statctl {
namespace {

using Json = nlohmann::ordered_json;

std::vector<std::string> strings(const std::vector<std::string_view>& names) {
    return {names.begin(), names.end()};
}

// The backquoted names in the first column of the markdown table whose header row starts
// with `| HEADING |`.
std::vector<std::string> table_names(const std::string& md, const std::string& heading) {
    std::vector<std::string> names;
    std::istringstream in(md);
    bool inside = false;
    const std::regex first_cell(R"(^\| `([^`]+)` \|)");
    for (std::string line; std::getline(in, line);) {
        if (line.starts_with("| " + heading + " |")) {
            inside = true;
        } else if (inside && !line.starts_with("|")) {
            break;
        } else if (std::smatch m; inside && std::regex_search(line, m, first_cell)) {
            names.push_back(m[1]);
        }
    }
    return names;
}

TEST(Names, CountersAreTheModules) {
    const auto source = read_file(MEMCG_STATCTL_COUNTERS_C);
    const std::regex entry(R"re(\[MCS_[A-Z_]+\]\s*=\s*"([^"]+)")re");
    std::vector<std::string> module;
    for (std::sregex_iterator it(source.begin(), source.end(), entry), end; it != end; ++it) {
        module.push_back((*it)[1]);
    }
    EXPECT_EQ(module, strings(counter_names()));
}

TEST(Names, DocsListTheCountersAndDerivedValues) {
    const auto md = read_file(MEMCG_STATCTL_OUTPUT_MD);
    EXPECT_EQ(table_names(md, "counter"), strings(counter_names()));
    EXPECT_EQ(table_names(md, "derived value"), strings(derived_names()));
}

// A flush latency histogram with flushes in it: every percentile is defined.
LatencyHistogram some_latency() {
    return parse_flush_latency(testing::sample_flush_latency());
}

TEST(Names, DeriveGivesEveryDerivedName) {
    Counters all;
    for (const auto name : counter_names()) {
        all.add(std::string(name), 10);
    }
    std::vector<std::string> derived;
    for (const auto& d : derive(all, 1.0, some_latency())) {
        derived.push_back(d.name);
    }
    EXPECT_EQ(derived, strings(derived_names()));
}

// Every counter, with values 1000, 999, ... (fewer misses than attempts: every derived
// value is defined).
Counters every_counter() {
    Counters c;
    std::uint64_t v = 1000;
    for (const auto name : counter_names()) {
        c.add(std::string(name), v--);
    }
    return c;
}

std::string render(const std::function<void(Output&)>& write, OutputFormat format) {
    std::ostringstream out;
    write(*make_output(format, out));
    return out.str();
}

ComparisonReport every_counter_sweep() {
    ValueRuns a{"kernel", {1, 2}, {every_counter(), every_counter()},
                {1, 1},   {},     {some_latency(), some_latency()},
                {}};
    ValueRuns b{"never", {3, 4}, {every_counter(), every_counter()},
                {1, 1},  {},     {some_latency(), some_latency()},
                {}};
    auto r = compare("flush_mode", "stat-reader", {a, b});
    r.environment.kernel = "6.1.0-57-amd64";
    for (const auto* v : {&a, &b}) {
        for (std::size_t i = 0; i < v->samples.size(); ++i) {
            RunResult run;
            run.seconds = 1;
            run.ops_per_sec = v->samples[i];
            run.counters = v->counter_deltas[i];
            run.flush_latency = v->flush_latencies[i];
            run.derived = derive(*run.counters, 1.0, run.flush_latency);
            r.runs.push_back({v->value, static_cast<int>(i) + 1, run});
        }
    }
    return r;
}

TEST(Names, EveryDocumentedCounterInTextJsonAndCsv) {
    const auto documented = table_names(read_file(MEMCG_STATCTL_OUTPUT_MD), "counter");
    ASSERT_FALSE(documented.empty());
    const auto counters = every_counter();
    const testing::FakeDebugfs fake;
    std::string stats;
    for (const auto& [name, value] : counters.entries()) {
        stats += fmt::format("{} {}\n", name, value);
    }
    fake.write("stats", stats);
    testing::CliRunner cli;
    const auto text = cli.run({"--debugfs", fake.root_string(), "stats"});
    ASSERT_EQ(text.code, 0) << text.err << text.out;
    const auto json = cli.run({"--debugfs", fake.root_string(), "stats", "--json"});
    ASSERT_EQ(json.code, 0) << json.err;
    const auto stats_json = Json::parse(json.out);

    RunReport run;
    run.result.counters = every_counter();
    const auto run_csv = render([&](Output& o) { o.run(run); }, OutputFormat::csv);
    const auto run_json = run_document(run);
    const auto sweep = every_counter_sweep();
    const auto sweep_csv = render([&](Output& o) { o.comparison(sweep); }, OutputFormat::csv);
    const auto sweep_header = split_commas(sweep_csv.substr(0, sweep_csv.find('\n')));
    const auto sweep_json = sweep_document(sweep);
    IntervalReport interval;
    interval.index = 1;
    interval.seconds = 1;
    for (const auto& [name, value] : counters.entries()) {
        interval.rates.push_back({name, value, 1.0});
    }
    const auto watch_csv = render([&](Output& o) { o.interval(interval); }, OutputFormat::csv);
    const auto watch_json =
        Json::parse(render([&](Output& o) { o.interval(interval); }, OutputFormat::json));

    for (const auto& name : documented) {
        EXPECT_TRUE(std::regex_search(
            text.out, std::regex("\n" + std::regex_replace(name, std::regex(R"(\.)"), R"(\.)") +
                                 " +[0-9]+\n")))
            << name;
        EXPECT_TRUE(stats_json["counters"].contains(name)) << name;
        EXPECT_NE(run_csv.find("\n" + name + ","), std::string::npos) << name;
        EXPECT_TRUE(run_json["result"]["counters"].contains(name)) << name;
        EXPECT_EQ(std::count(sweep_header.begin(), sweep_header.end(), name), 1) << name;
        EXPECT_TRUE(sweep_json["rows"][0]["counters"].contains(name)) << name;
        EXPECT_TRUE(sweep_json["runs"][0]["counters"].contains(name)) << name;
        EXPECT_NE(watch_csv.find(",1," + name + ","), std::string::npos) << name;
        EXPECT_TRUE(watch_json["deltas"].contains(name)) << name;
    }
}

TEST(Names, MetricsTakesEveryDocumentedCounter) {
    const testing::TempDir dir;
    const auto file = (dir.path() / "sweep.json").string();
    std::ofstream(file) << sweep_document(every_counter_sweep()).dump(2);
    testing::CliRunner cli;
    for (const auto& name : table_names(read_file(MEMCG_STATCTL_OUTPUT_MD), "counter")) {
        // --all: a file compared with itself differs nowhere.
        const auto r = cli.run({"compare", "--csv", "--all", "--metrics", name, file, file});
        ASSERT_EQ(r.code, 0) << name << ": " << r.err;
        EXPECT_NE(r.out.find(",stat-reader,flush_mode," + name + ",kernel,"), std::string::npos)
            << name << "\n"
            << r.out;
        const auto text = cli.run({"compare", "--all", "--metrics", name, file, file});
        EXPECT_NE(text.out.find("\n" + name + " "), std::string::npos) << text.out;
    }
    // A group keeps its members only.
    const auto r = cli.run({"compare", "--json", "--all", "--metrics", "derived", file, file});
    ASSERT_EQ(r.code, 0) << r.err;
    const auto j = Json::parse(r.out);
    std::set<std::string> metrics;
    for (const auto& row : j["series"][0]["rows"]) {
        metrics.insert(row["metric"].get<std::string>());
    }
    std::set<std::string> expected{"ops_per_sec"};
    expected.insert(derived_names().begin(), derived_names().end());
    EXPECT_EQ(metrics, expected);
}

constexpr auto every_metric =
    "ops_per_sec, metric, seconds, counters, derived, memory_stat, flush_reasons, "
    "flush.requests, "
    "flush.performed, flush.skipped, flush.periodic, flush.async, flush.async_queued, "
    "flush.ns_total, flush.ns_max, charge_stock.attempts, charge_stock.misses, "
    "charge_stock.refills, charge_stock.drains, obj_stock.attempts, obj_stock.misses, "
    "obj_stock.refills, obj_stock.drains, objcg_vmstat.updates, objcg_vmstat.flushes, "
    "stat_updates, stat_updates.amount, caller.recovered, caller.unattributed, "
    "flushes_per_sec, ns_per_flush, flush.ns_p50, flush.ns_p90, flush.ns_p99, "
    "charge_stock_hit_pct, obj_stock_hit_pct, "
    "objcg_vmstat_miss_pct, pgfault, pgmajfault, workingset_refault_anon, "
    "workingset_refault_file, anon, file, slab, flush_reasons.reader.requests, "
    "flush_reasons.reader.performed, flush_reasons.reclaim.requests, "
    "flush_reasons.reclaim.performed, flush_reasons.refault.requests, "
    "flush_reasons.refault.performed, flush_reasons.periodic.requests, "
    "flush_reasons.periodic.performed, flush_reasons.async.requests, "
    "flush_reasons.async.performed, flush_reasons.forced.requests, "
    "flush_reasons.forced.performed, flush_reasons.unattributed.requests, "
    "flush_reasons.unattributed.performed";

TEST(Names, UnknownMetricIsAUsageErrorListingTheNames) {
    const std::string data = MEMCG_STATCTL_TEST_DATA "/compare/";
    const auto a = data + "sweep-stat-reader-6.1.json";
    const auto b = data + "sweep-stat-reader-6.12.json";
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"nosuch", "unknown metric 'nosuch'"},
        {"flush_requests", "unknown metric 'flush_requests' (did you mean 'flush.requests'?)"},
        {"counters.flush_requests", "unknown metric 'counters.flush_requests'"},
        {"flush.requests,", "unknown metric ''"},
    };
    testing::CliRunner cli;
    for (const auto& [metrics, message] : cases) {
        const auto r = cli.run({"compare", "--metrics", metrics, a, b});
        EXPECT_EQ(r.code, 2) << metrics;
        EXPECT_EQ(r.err, fmt::format("memcg-statctl: --metrics: {}; the metrics are: {}\n", message,
                                     every_metric));
        EXPECT_EQ(r.out, "");
    }
    // Before any file is read: a missing file does not hide the usage error.
    EXPECT_EQ(cli.run({"compare", "--metrics", "nosuch", "/nonexistent/a", b}).code, 2);
    EXPECT_EQ(fmt::format("{}", fmt::join(metric_names(), ", ")), every_metric);
}

TEST(Names, OldFilesCompareWithNewOnes) {
    // A sweep file as this tool writes it now: the old 6.12 file with its counter keys
    // renamed, at schema version 2.
    const auto old_file = std::string(MEMCG_STATCTL_TEST_DATA) + "/compare/sweep-stat-reader-";
    Json doc;
    std::ifstream(old_file + "6.12.json") >> doc;
    ASSERT_EQ(doc["schema_version"], 1);
    doc["schema_version"] = result_schema_version;
    const auto rename = [](Json& counters) {
        Json renamed = Json::object();
        for (const auto& [key, value] : counters.items()) {
            auto name = key;
            for (const auto known : counter_names()) {
                auto underscored = std::string(known);
                std::replace(underscored.begin(), underscored.end(), '.', '_');
                if (underscored == key) {
                    name = known;
                }
            }
            renamed[name] = value;
        }
        counters = renamed;
    };
    for (auto& run : doc["runs"]) {
        rename(run["counters"]);
    }
    for (auto& row : doc["rows"]) {
        rename(row["counters"]);
    }
    ASSERT_TRUE(doc["rows"][0]["counters"].contains("flush.requests"));
    const testing::TempDir dir;
    const auto new_file = (dir.path() / "new.json").string();
    std::ofstream(new_file) << doc.dump(2);
    testing::CliRunner cli;
    const auto r = cli.run({"compare", "--json", "--all", "--metrics", "flush.requests",
                            old_file + "6.1.json", new_file});
    ASSERT_EQ(r.code, 0) << r.err; // no difference: the versions read the same
    const auto j = Json::parse(r.out);
    EXPECT_TRUE(j["differences"].empty());
    int rows = 0;
    for (const auto& row : j["series"][0]["rows"]) {
        if (row["metric"] == "flush.requests") {
            ++rows;
            EXPECT_FALSE(row["files"][0].is_null());
            EXPECT_FALSE(row["files"][1].is_null());
        }
    }
    EXPECT_EQ(rows, 3); // kernel, always, never
}

} // namespace
} // namespace memcg_statctl
