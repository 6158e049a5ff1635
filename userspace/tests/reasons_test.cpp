// The flush requests by reason: the strict parser of `flush_reasons`, the difference of two
// reads, and what `stats` prints with the file (text, JSON, CSV, --watch) and without it.
#include <regex>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "debugfs/client.h"
#include "debugfs/reasons.h"
#include "exit_code.h"
#include "fake_debugfs.h"

namespace memcg_statctl {
namespace {

using testing::CliRunner;
using testing::FakeDebugfs;

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

std::string parse_error(std::string_view text) {
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
    EXPECT_EQ(parse_error("class reader 1 1\n"),
              "malformed flush_reasons line 1: expected `class NAME requests performed skipped` "
              "or `caller FUNCTION CLASS requests performed skipped` (decimal, requests = "
              "performed + skipped), got \"class reader 1 1\"");
    EXPECT_NE(parse_error("class reader 1 1 0\nclass reclaim 5 2 2\n").find("line 2"),
              std::string::npos); // 5 != 2 + 2
    EXPECT_NE(parse_error("class reader 1 1 0\ncaller f reader x 1 0\n").find("line 2"),
              std::string::npos);
    EXPECT_NE(parse_error("class reader 1 1 0\ncaller f 1 1 0\n").find("line 2"),
              std::string::npos); // a caller without its class
    EXPECT_EQ(parse_error(""), "malformed flush_reasons: no class lines");
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

} // namespace
} // namespace memcg_statctl
