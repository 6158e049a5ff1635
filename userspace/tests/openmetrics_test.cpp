// The Prometheus text of `stats --openmetrics` and the textfile mode: names, HELP and TYPE,
// label escaping, memcg_statctl_up 0 without the module, the atomic file.
#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cli_runner.h"
#include "fake_debugfs.h"
#include "output/openmetrics.h"

namespace memcg_statctl {
namespace {

using testing::CliRunner;
using testing::FakeDebugfs;
using testing::TempDir;

bool has_line(const std::string& text, const std::string& line) {
    std::istringstream in(text);
    for (std::string l; std::getline(in, l);) {
        if (l == line) {
            return true;
        }
    }
    return false;
}

MetricsSnapshot sample_snapshot() {
    MetricsSnapshot s;
    s.kernel = "6.1.0-57-amd64";
    s.up = true;
    s.version = parse_version(testing::sample_version);
    s.counters = parse_stats("flush.requests 1234\nflush.performed 1200\nflush.ns_total "
                             "2400000\nflush.ns_max 15000\ncharge_stock.attempts 1000\n"
                             "charge_stock.misses 50\nnew.thing 7\n");
    s.derived = derive(s.counters, std::nullopt);
    s.knobs = {{"flush_mode", "never"}, {"flush_period_ms", "2000"}, {"flush_threshold", "128"}};
    return s;
}

constexpr const char* labels = R"({kernel="6.1.0-57-amd64",module_version="0.1.0"})";

TEST(OpenMetrics, CounterNamesFollowPrometheusConventions) {
    EXPECT_EQ(counter_metric_name("flush.requests"), "memcg_statctl_flush_requests_total");
    EXPECT_EQ(counter_metric_name("stat_updates"), "memcg_statctl_stat_updates_total");
    EXPECT_EQ(counter_metric_name("stat_updates.amount"),
              "memcg_statctl_stat_updates_amount_total");
    // Base units: nanoseconds become seconds; a maximum is a gauge, no _total.
    EXPECT_EQ(counter_metric_name("flush.ns_total"), "memcg_statctl_flush_seconds_total");
    EXPECT_EQ(counter_metric_name("flush.ns_max"), "memcg_statctl_flush_max_seconds");
    // A newer module's counters: dots and odd characters become underscores.
    EXPECT_EQ(counter_metric_name("new.thing"), "memcg_statctl_new_thing_total");
    EXPECT_EQ(counter_metric_name("new-x.y_total"), "memcg_statctl_new_x_y_total");
    EXPECT_EQ(counter_metric_name("new.peak_max"), "memcg_statctl_new_peak_max");
}

TEST(OpenMetrics, EveryFamilyHasHelpAndTypeAndCountersEndInTotal) {
    const auto text = format_metrics(sample_snapshot());
    EXPECT_TRUE(has_line(text, "# TYPE memcg_statctl_flush_requests_total counter")) << text;
    EXPECT_TRUE(has_line(text, "# HELP memcg_statctl_flush_requests_total Requests to flush the "
                               "memcg statistics that reached the module (flush.requests)."));
    EXPECT_TRUE(
        has_line(text, std::string("memcg_statctl_flush_requests_total") + labels + " 1234"));
    EXPECT_TRUE(has_line(text, std::string("memcg_statctl_new_thing_total") + labels + " 7"));
    EXPECT_TRUE(
        has_line(text, std::string("memcg_statctl_flush_seconds_total") + labels + " 0.0024"));
    EXPECT_TRUE(has_line(text, "# TYPE memcg_statctl_flush_max_seconds gauge"));
    EXPECT_TRUE(
        has_line(text, std::string("memcg_statctl_flush_max_seconds") + labels + " 1.5e-05"));
    EXPECT_TRUE(has_line(text, std::string("memcg_statctl_up") + labels + " 1"));

    // Each sample follows the HELP and TYPE of its own family; counters end in _total.
    std::istringstream in(text);
    std::string family;
    std::string type;
    int samples = 0;
    for (std::string l; std::getline(in, l);) {
        if (l.rfind("# HELP ", 0) == 0) {
            family = l.substr(7, l.find(' ', 7) - 7);
            type.clear();
        } else if (l.rfind("# TYPE ", 0) == 0) {
            EXPECT_EQ(l.substr(7, family.size() + 1), family + " ") << l;
            type = l.substr(8 + family.size());
        } else {
            ++samples;
            EXPECT_FALSE(type.empty()) << l;
            EXPECT_EQ(l.substr(0, family.size() + 1), family + "{") << l;
            // The common labels first, whatever a family adds after them.
            EXPECT_EQ(l.find(R"({kernel="6.1.0-57-amd64",module_version="0.1.0")"), family.size())
                << l;
            if (type == "counter") {
                EXPECT_TRUE(family.ends_with("_total")) << family;
            }
        }
    }
    EXPECT_GT(samples, 10);
}

TEST(OpenMetrics, DerivedValuesAreGaugesInBaseUnits) {
    auto s = sample_snapshot();
    const auto text = format_metrics(s);
    EXPECT_TRUE(has_line(text, "# TYPE memcg_statctl_charge_stock_hit_ratio gauge"));
    EXPECT_TRUE(
        has_line(text, std::string("memcg_statctl_charge_stock_hit_ratio") + labels + " 0.95"));
    EXPECT_TRUE(
        has_line(text, std::string("memcg_statctl_flush_mean_seconds") + labels + " 2e-06"));
    // Undefined (no flush yet): NaN, the series stays.
    s.counters = parse_stats("flush.performed 0\nflush.ns_total 0\n");
    s.derived = derive(s.counters, std::nullopt);
    EXPECT_TRUE(has_line(format_metrics(s),
                         std::string("memcg_statctl_flush_mean_seconds") + labels + " NaN"));
}

TEST(OpenMetrics, KnobsAreGaugesAndFlushModeIsAnEnum) {
    const auto text = format_metrics(sample_snapshot());
    EXPECT_TRUE(has_line(text, "# TYPE memcg_statctl_knob_flush_mode gauge"));
    const std::string common = R"(kernel="6.1.0-57-amd64",module_version="0.1.0")";
    EXPECT_TRUE(
        has_line(text, "memcg_statctl_knob_flush_mode{" + common + R"(,flush_mode="kernel"} 0)"));
    EXPECT_TRUE(
        has_line(text, "memcg_statctl_knob_flush_mode{" + common + R"(,flush_mode="never"} 1)"));
    EXPECT_TRUE(has_line(text, "memcg_statctl_knob_flush_threshold{" + common + "} 128"));
    EXPECT_TRUE(has_line(text, "memcg_statctl_knob_flush_period_seconds{" + common + "} 2"));
    EXPECT_TRUE(has_line(text, "memcg_statctl_module_info{" + common +
                                   R"(,abi="1",generation="6.1",flush_model="global",)"
                                   R"(stock_model="single",flush_control="available",)"
                                   R"(lockdown="none"} 1)"))
        << text;
}

TEST(OpenMetrics, LabelValuesAndHelpAreEscaped) {
    EXPECT_EQ(escape_label_value(R"(a"b\c)"
                                 "\nd"),
              R"(a\"b\\c\nd)");
    auto s = sample_snapshot();
    s.kernel = "6.1\"x\\y\nz";
    EXPECT_TRUE(has_line(format_metrics(s),
                         R"(memcg_statctl_up{kernel="6.1\"x\\y\nz",module_version="0.1.0"} 1)"));
    std::ostringstream out;
    write_metric_families(out, {{"m", "a\\b\nc", MetricType::gauge, {{"", {}, "1"}}}});
    EXPECT_EQ(out.str(), "# HELP m a\\\\b\\nc\n# TYPE m gauge\nm 1\n");
}

TEST(OpenMetrics, DownIsUpZeroAndNothingElse) {
    MetricsSnapshot s;
    s.kernel = "6.1.0-57-amd64";
    s.counters = parse_stats("flush.requests 1\n"); // ignored: not up
    EXPECT_EQ(format_metrics(s),
              "# HELP memcg_statctl_up 1 when the module's debugfs files could be read, 0 when "
              "not (module not loaded, debugfs not mounted, not root, another ABI).\n"
              "# TYPE memcg_statctl_up gauge\n"
              "memcg_statctl_up{kernel=\"6.1.0-57-amd64\"} 0\n");
}

TEST(OpenMetrics, AHistogramHasBucketsSumAndCount) {
    auto s = sample_snapshot();
    s.flush_latency = MetricHistogram{{{1e-06, 3}, {1e-05, 9}}, 4.5e-05, 10};
    const auto text = format_metrics(s);
    const std::string common = R"(kernel="6.1.0-57-amd64",module_version="0.1.0")";
    EXPECT_TRUE(has_line(text, "# TYPE memcg_statctl_flush_duration_seconds histogram"));
    EXPECT_TRUE(has_line(text, "memcg_statctl_flush_duration_seconds_bucket{" + common +
                                   R"(,le="1e-06"} 3)"));
    EXPECT_TRUE(has_line(text, "memcg_statctl_flush_duration_seconds_bucket{" + common +
                                   R"(,le="+Inf"} 10)"));
    EXPECT_TRUE(has_line(text, "memcg_statctl_flush_duration_seconds_sum{" + common + "} 4.5e-05"));
    EXPECT_TRUE(has_line(text, "memcg_statctl_flush_duration_seconds_count{" + common + "} 10"));
}

TEST(OpenMetrics, AtomicWriteLeavesOnlyTheProm) {
    TempDir dir;
    write_textfile_atomically(dir.path(), "a 1\n");
    write_textfile_atomically(dir.path(), "a 2\n");
    std::vector<std::string> names;
    for (const auto& e : std::filesystem::directory_iterator(dir.path())) {
        names.push_back(e.path().filename().string());
    }
    EXPECT_EQ(names, std::vector<std::string>{"memcg_statctl.prom"});
    std::ifstream in(dir.path() / "memcg_statctl.prom");
    std::string content((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_EQ(content, "a 2\n");
    const auto perms = std::filesystem::status(dir.path() / "memcg_statctl.prom").permissions();
    EXPECT_NE(perms & std::filesystem::perms::others_read, std::filesystem::perms::none);
}

TEST(OpenMetricsCli, PrintsUpOneWithTheModuleAndUpZeroWithout) {
    const FakeDebugfs fake;
    CliRunner cli;
    auto r = cli.run({"--debugfs", fake.root_string(), "stats", "--openmetrics"});
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("memcg_statctl_flush_requests_total{"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find(",module_version=\"0.1.0\"} 1\n"), std::string::npos) << r.out;

    r = cli.run({"--debugfs", (fake.root() / "gone").string(), "stats", "--openmetrics"});
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("memcg_statctl_up{kernel="), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("} 0\n"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("_total"), std::string::npos) << r.out;
}

TEST(OpenMetricsCli, OptionErrorsExit2WithOneLine) {
    const FakeDebugfs fake;
    const TempDir dir;
    const auto file = dir.path() / "f";
    std::ofstream(file) << "x";
    CliRunner cli;
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
        {{"stats", "--textfile-dir", "/nonexistent/x"},
         "--textfile-dir /nonexistent/x: no such "
         "directory"},
        {{"stats", "--textfile-dir", file.string()},
         "--textfile-dir " + file.string() + ": not a directory"},
        {{"stats", "--textfile-dir", dir.path().string(), "--interval", "0"},
         "--interval must be > 0"},
        {{"stats", "--textfile-dir", dir.path().string(), "--interval", "0.05"},
         "--interval must be at least 0.1 (100 ms)"},
    };
    for (const auto& [args, message] : cases) {
        auto full = args;
        full.insert(full.begin(), {"--debugfs", fake.root_string()});
        const auto r = cli.run(full);
        EXPECT_EQ(r.code, 2) << message;
        EXPECT_EQ(r.err, "memcg-statctl: " + message + "\n");
    }
    EXPECT_EQ(cli.run({"stats", "--interval", "1"}).code, 2); // needs --textfile-dir
    EXPECT_EQ(cli.run({"stats", "--openmetrics", "--json"}).code, 2);
    EXPECT_EQ(cli.run({"stats", "--openmetrics", "--watch", "1"}).code, 2);
}

TEST(OpenMetricsCli, TextfileModeFollowsUnloadAndStopsCleanly) {
    const FakeDebugfs fake;
    const TempDir dir;
    const auto prom = dir.path() / "memcg_statctl.prom";
    const auto read_prom = [&] {
        std::ifstream in(prom);
        return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    };
    CliRunner cli;
    int sleeps = 0;
    std::vector<std::string> seen;
    cli.on_sleep = [&] {
        // One sleep per interval, after each write.
        ++sleeps;
        if (sleeps == 1) {
            seen.push_back(read_prom());
            std::filesystem::rename(fake.root(), fake.root().string() + ".away");
        } else if (sleeps == 2) {
            seen.push_back(read_prom());
            std::filesystem::rename(fake.root().string() + ".away", fake.root());
        } else if (sleeps == 3) {
            seen.push_back(read_prom());
            (void)std::raise(SIGTERM);
        }
    };
    const auto r = cli.run({"--debugfs", fake.root_string(), "stats", "--textfile-dir",
                            dir.path().string(), "--interval", "1"});
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(sleeps, 3);
    ASSERT_EQ(seen.size(), 3U);
    EXPECT_NE(seen[0].find("memcg_statctl_flush_requests_total{"), std::string::npos);
    EXPECT_NE(seen[1].find("memcg_statctl_up{kernel="), std::string::npos);
    EXPECT_EQ(seen[1].find("_total"), std::string::npos) << seen[1];
    EXPECT_NE(seen[2].find("memcg_statctl_flush_requests_total{"), std::string::npos);
    EXPECT_NE(r.err.find("memcg_statctl_up 0"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("module readable again"), std::string::npos) << r.err;
    // Stopped: no temporary file, and no stale .prom.
    EXPECT_TRUE(std::filesystem::is_empty(dir.path()));
}

} // namespace
} // namespace memcg_statctl
