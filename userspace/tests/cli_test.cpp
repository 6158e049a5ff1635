// The CLI end to end against a fake debugfs tree: parsing, output and exit codes.
#include <algorithm>
#include <csignal>
#include <sys/stat.h>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "debugfs/client.h"
#include "experiment/experiment.h"
#include "fake_debugfs.h"

namespace memcg_statctl {
namespace {

using testing::CliRunner;
using testing::FakeDebugfs;

TEST(Cli, UsageErrorsExit2) {
    CliRunner cli;
    EXPECT_EQ(cli.run({}).code, 2);                         // no subcommand
    EXPECT_EQ(cli.run({"frobnicate"}).code, 2);             // unknown subcommand
    EXPECT_EQ(cli.run({"stats", "--bogus"}).code, 2);       // unknown option
    EXPECT_EQ(cli.run({"stats", "--watch", "-1"}).code, 2); // not positive
    EXPECT_EQ(cli.run({"stats", "--count", "3"}).code, 2);  // --count needs --watch
    EXPECT_EQ(cli.run({"set", "flush_mode"}).code, 2);      // missing VALUE
    EXPECT_EQ(cli.run({"stats", "--watch", "abc"}).code, 2);
    const auto r = cli.run({"stats", "--bogus"});
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find("--help"), std::string::npos);
}

TEST(Cli, MistypedCommandSaysWhichWasMeant) {
    CliRunner cli;
    auto r = cli.run({"stauts"});
    EXPECT_EQ(r.code, 2);
    EXPECT_EQ(r.err, "memcg-statctl: unknown command 'stauts'; did you mean 'status'?\n");
    r = cli.run({"--debugfs", "/x/memcg_statctl", "experimnet", "update-flush", "--runs", "3"});
    EXPECT_EQ(r.code, 2);
    EXPECT_EQ(r.err, "memcg-statctl: unknown command 'experimnet'; did you mean 'experiment'?\n");
    r = cli.run({"xet", "flush_mode"});
    EXPECT_EQ(r.err, "memcg-statctl: unknown command 'xet'; did you mean 'get' or 'set'?\n");
    r = cli.run({"frobnicate"});
    EXPECT_EQ(r.code, 2);
    EXPECT_EQ(r.err, "memcg-statctl: unknown command 'frobnicate'; the commands are: status, "
                     "stats, top, get, set, reset, run, sweep, experiment, compare\n");
    // An option the program lacks, before any command: said so, with the closest options.
    r = cli.run({"--versio"});
    EXPECT_EQ(r.code, 2);
    EXPECT_EQ(r.err, "memcg-statctl: unknown option '--versio'; did you mean '--version'?\n");
    r = cli.run({"--debugf=/x", "status"});
    EXPECT_EQ(r.code, 2);
    EXPECT_EQ(r.err, "memcg-statctl: unknown option '--debugf'; did you mean '--debugfs'?\n");
    r = cli.run({"stats", "--jsn"}); // a command's option: said so, not "not expected"
    EXPECT_EQ(r.code, 2);
    EXPECT_EQ(r.err, "memcg-statctl: unknown option '--jsn' of stats; did you mean '--json'?\n");
    r = cli.run({"--frobnicate"});
    EXPECT_EQ(r.code, 2);
    EXPECT_EQ(r.err.rfind("memcg-statctl: unknown option '--frobnicate'; the options before a "
                          "command are: ",
                          0),
              0U)
        << r.err;
    EXPECT_NE(r.err.find("--version"), std::string::npos) << r.err;
    // No word at all is still CLI11's "A subcommand is required", with the --help hint.
    r = cli.run({});
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find("A subcommand is required"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("--help"), std::string::npos) << r.err;
}

TEST(Cli, OptionValueErrorsAreOneShortLine) {
    CliRunner cli;
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
        {{"run", "page-fault", "--duration", "0"}, "--duration must be > 0"},
        {{"run", "page-fault", "--duration", "-1.5"}, "--duration must be > 0"},
        {{"run", "page-fault", "--duration", "soon"}, "--duration must be a number > 0"},
        {{"run", "page-fault", "--cgroups", "0"}, "--cgroups must be > 0"},
        {{"run", "page-fault", "--tasks", "-2"}, "--tasks must be > 0"},
        {{"run", "page-fault", "--tasks", "1.5"}, "--tasks must be an integer > 0"},
        {{"run", "refault", "--size", "0"}, "--size must be > 0"},
        {{"run", "refault", "--size", "-1"}, "--size must be > 0"},
        {{"run", "page-fault", "--depth", "33"}, "--depth must be between 1 and 32"},
        {{"run", "page-fault", "--depth", "x"}, "--depth must be an integer between 1 and 32"},
        {{"stats", "--watch", "-1"}, "--watch must be > 0"},
        {{"stats", "--watch", "abc"}, "--watch must be a number > 0"},
        {{"stats", "--watch", "inf"}, "--watch must be a number > 0"},
        {{"stats", "--watch", "1e-9"}, "--watch must be at least 0.01 (10 ms)"},
        {{"stats", "--watch", "0.009"}, "--watch must be at least 0.01 (10 ms)"},
        {{"stats", "--watch", "1", "--count", "0"}, "--count must be > 0"},
        {{"stats", "--watch", "1", "--count", "99999999999"},
         "--count must be between 1 and 2147483647"},
        {{"sweep", "--knob", "k", "--values", "1", "--workload", "slab", "--runs", "0"},
         "--runs must be > 0"},
        {{"experiment", "update-flush", "--runs", "1"}, "--runs must be between 2 and 1000"},
        {{"experiment", "update-flush", "--duration", "0"}, "--duration must be > 0"},
        {{"experiment", "readtwice", "--size", "1"}, "--size must be between 2 and 1048576"},
    };
    for (const auto& [args, message] : cases) {
        const auto r = cli.run(args);
        EXPECT_EQ(r.code, 2) << message;
        EXPECT_EQ(r.err, "memcg-statctl: " + message + "\n");
        EXPECT_EQ(r.out, "");
    }
}

TEST(Cli, OptionChecksAcceptGoodValues) {
    const FakeDebugfs fake;
    CliRunner cli;
    const auto r = cli.run(
        {"--debugfs", fake.root_string(), "stats", "--watch", "0.5", "--count", "1", "--json"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_DOUBLE_EQ(nlohmann::json::parse(r.out)["seconds"].get<double>(), 0.5);
}

TEST(Cli, HelpExits0) {
    CliRunner cli;
    const auto r = cli.run({"--help"});
    EXPECT_EQ(r.code, 0);
    EXPECT_NE(r.out.find("sweep"), std::string::npos);
    const auto s = cli.run({"stats", "--help"});
    EXPECT_EQ(s.code, 0);
    EXPECT_NE(s.out.find("--watch"), std::string::npos);
}

// The program's help ends with every exit code of exit_code.h.
TEST(Cli, HelpListsTheExitCodes) {
    CliRunner cli;
    const auto r = cli.run({"--help"});
    ASSERT_EQ(r.code, 0);
    const auto footer = r.out.find("Exit status:");
    ASSERT_NE(footer, std::string::npos) << r.out;
    for (const auto* code : {" 0 success", " 1 failure", " 2 usage error", " 3 module not loaded",
                             " 4 (status) module loaded but degraded", " 130, 143 stopped"}) {
        EXPECT_NE(r.out.find(code, footer), std::string::npos) << code;
    }
}

// Recipes are listed under `experiment --help` as recipes; the command list gives the
// command one line, naming none of them.
TEST(Cli, RecipesAreListedAsRecipesNotCommands) {
    CliRunner cli;
    const auto top = cli.run({"--help"});
    ASSERT_EQ(top.code, 0);
    const auto line = top.out.substr(top.out.find("\n  experiment "));
    const auto one_line = line.substr(0, line.find('\n', 1));
    EXPECT_EQ(one_line.find("update-flush"), std::string::npos) << one_line;
    for (const auto& name : recipe_names()) {
        EXPECT_EQ(top.out.find(name), std::string::npos) << name;
    }
    const auto exp = cli.run({"experiment", "--help"});
    ASSERT_EQ(exp.code, 0);
    const auto recipes = exp.out.find("Recipes (NAME");
    ASSERT_NE(recipes, std::string::npos) << exp.out;
    for (const auto& name : recipe_names()) {
        EXPECT_NE(exp.out.find("\n  " + name + " ", recipes), std::string::npos) << name;
    }
}

// `get --help` and `set --help` list every knob of module/ABI.md with what it accepts.
TEST(Cli, KnobCommandsListTheKnobsAndTheirValues) {
    CliRunner cli;
    for (const auto* command : {"get", "set"}) {
        const auto r = cli.run({command, "--help"});
        ASSERT_EQ(r.code, 0);
        for (const auto& knob : known_knobs()) {
            const auto at = r.out.find("\n  " + knob + " ");
            ASSERT_NE(at, std::string::npos) << command << ": " << knob;
            const auto line = r.out.substr(at + 1, r.out.find('\n', at + 1) - at - 1);
            EXPECT_NE(line.find(*knob_accepted_values(knob)), std::string::npos) << line;
        }
    }
}

TEST(Cli, VersionPrintsToolAndAbiVersionsAndExits0) {
    CliRunner cli;
    // No subcommand needed, and no module: the versions are the tool's own.
    const auto r = cli.run({"--debugfs", "/nonexistent/memcg_statctl", "--version"});
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out, "memcg-statctl " MEMCG_STATCTL_MODULE_VERSION "\n"
                     "debugfs ABI 1\n");
    EXPECT_EQ(r.err, "");
    EXPECT_NE(cli.run({"--help"}).out.find("--version"), std::string::npos);
}

TEST(Cli, ModuleNotLoadedExits3WithInstructions) {
    const testing::TempDir dir;
    CliRunner cli;
    for (const auto* cmd : {"status", "stats", "get", "reset"}) {
        const auto r = cli.run({"--debugfs", (dir.path() / "memcg_statctl").string(), cmd});
        EXPECT_EQ(r.code, 3) << cmd;
        EXPECT_NE(r.err.find("memcg_statctl module not loaded"), std::string::npos) << r.err;
        EXPECT_NE(r.err.find("insmod memcg_statctl.ko"), std::string::npos);
    }
    const auto r =
        cli.run({"--debugfs", (dir.path() / "absent" / "memcg_statctl").string(), "status"});
    EXPECT_EQ(r.code, 3);
    EXPECT_NE(r.err.find("debugfs not mounted"), std::string::npos) << r.err;
}

TEST(Cli, StatusShowsVersionHooksAndKnobs) {
    const FakeDebugfs fake;
    CliRunner cli;
    const auto r = cli.run({"--debugfs", fake.root_string(), "status"});
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("memcg_statctl: loaded"), std::string::npos);
    EXPECT_NE(r.out.find("kernel         6.1.0-57-amd64"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("flush_memcg_stats_dwork"), std::string::npos);
    EXPECT_NE(r.out.find("missing"), std::string::npos);
    EXPECT_NE(r.out.find("flush_period_ms  2000"), std::string::npos) << r.out;
}

// The global --debugfs also after the command.
TEST(Cli, GlobalOptionAfterTheCommand) {
    const FakeDebugfs fake;
    CliRunner cli;
    const auto r = cli.run({"status", "--debugfs", fake.root_string()});
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("memcg_statctl: loaded"), std::string::npos) << r.out;
    // An option neither the command nor the program has is still the command's mistake.
    const auto bad = cli.run({"stats", "--debugfs", fake.root_string(), "--jsn"});
    EXPECT_EQ(bad.code, 2);
    EXPECT_EQ(bad.err, "memcg-statctl: unknown option '--jsn' of stats; did you mean '--json'?\n");
}

// --csv means the same in status, stats and get as in run and sweep: CSV on stdout.
TEST(Cli, CsvInStatusStatsAndGet) {
    const FakeDebugfs fake;
    CliRunner cli;
    const auto status = cli.run({"--debugfs", fake.root_string(), "status", "--csv"});
    EXPECT_EQ(status.code, 0) << status.err;
    EXPECT_EQ(status.out.rfind("hook,target,caller,mechanism,state,hits\n", 0), 0U) << status.out;
    EXPECT_NE(status.out.find("flush_memcg_stats_dwork"), std::string::npos) << status.out;
    const auto stats = cli.run({"--debugfs", fake.root_string(), "stats", "--csv"});
    EXPECT_EQ(stats.code, 0) << stats.err;
    EXPECT_EQ(stats.out.rfind("name,value", 0), 0U) << stats.out;
    EXPECT_NE(stats.out.find("\nflush.requests,"), std::string::npos) << stats.out;
    const auto get = cli.run({"--debugfs", fake.root_string(), "get", "flush_period_ms", "--csv"});
    EXPECT_EQ(get.code, 0) << get.err;
    EXPECT_NE(get.out.find("flush_period_ms,2000"), std::string::npos) << get.out;
    const auto both = cli.run({"--debugfs", fake.root_string(), "get", "--csv", "--json"});
    EXPECT_EQ(both.code, 2);
}

TEST(Cli, StatusJson) {
    const FakeDebugfs fake;
    CliRunner cli;
    const auto r = cli.run({"--debugfs", fake.root_string(), "status", "--json"});
    ASSERT_EQ(r.code, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["version"]["flush_model"], "global");
    EXPECT_EQ(j["hooks"][0]["hits"], 1234);
    EXPECT_EQ(j["knobs"]["flush_mode"], "kernel");
    EXPECT_EQ(j["knobs"]["flush_period_ms"], 2000); // a number, as in `get --json`
    EXPECT_EQ(j["loaded"], true);
    EXPECT_EQ(j["debugfs"], fake.root_string());
}

TEST(Cli, StatusJsonWithoutTheModuleSaysLoadedFalseAndExits3) {
    const testing::TempDir dir;
    CliRunner cli;
    const auto root = (dir.path() / "memcg_statctl").string();
    auto r = cli.run({"--debugfs", root, "status", "--json"});
    EXPECT_EQ(r.code, 3);
    auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["loaded"], false);
    EXPECT_EQ(j["debugfs"], root);
    EXPECT_EQ(j["reason"], "module_not_loaded");
    EXPECT_NE(j["message"].get<std::string>().find("insmod memcg_statctl.ko"), std::string::npos);
    EXPECT_EQ(r.err, "memcg-statctl: " + j["message"].get<std::string>() + "\n");

    r = cli.run(
        {"--debugfs", (dir.path() / "absent" / "memcg_statctl").string(), "status", "--json"});
    EXPECT_EQ(r.code, 3);
    j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["loaded"], false);
    EXPECT_EQ(j["reason"], "debugfs_not_mounted");

    // Without --json, stdout stays empty as before.
    r = cli.run({"--debugfs", root, "status"});
    EXPECT_EQ(r.code, 3);
    EXPECT_EQ(r.out, "");
}

TEST(Cli, EveryDebugfsCommandRefusesAModuleOfAnotherAbi) {
    const FakeDebugfs fake;
    fake.write("version", "module 9.0.0\nabi 2\nkernel 6.1.0-57-amd64\n");
    CliRunner cli;
    const std::vector<std::vector<std::string>> commands = {
        {"status"},
        {"status", "--json"},
        {"get"},
        {"get", "flush_mode", "--json"},
        {"set", "flush_mode", "never"},
        {"reset"},
        {"stats"},
        {"stats", "--watch", "1", "--count", "1"},
        {"run", "stat-reader", "--duration", "1"},
        {"sweep", "--knob", "flush_mode", "--values", "kernel,never", "--workload", "stat-reader",
         "--runs", "1", "--duration", "1"},
        {"experiment", "reader-flush", "--runs", "2", "--duration", "1"},
    };
    for (auto args : commands) {
        const auto what = fmt::format("{}", fmt::join(args, " "));
        args.insert(args.begin(), {"--debugfs", fake.root_string()});
        const auto r = cli.run(args);
        EXPECT_EQ(r.code, 1) << what;
        EXPECT_EQ(r.err, "memcg-statctl: module speaks debugfs ABI 2, this tool speaks ABI 1: "
                         "use the memcg-statctl built with the module\n")
            << what;
        EXPECT_EQ(r.out, "") << what;
    }
    EXPECT_EQ(fake.read("flush_mode"), "kernel\n"); // nothing written
    EXPECT_EQ(fake.read("reset"), "");
}

TEST(Cli, MalformedStatsFileExits1) {
    const FakeDebugfs fake;
    fake.write("stats", "flush.requests lots\n");
    CliRunner cli;
    const auto r = cli.run({"--debugfs", fake.root_string(), "stats"});
    EXPECT_EQ(r.code, 1);
    EXPECT_NE(r.err.find("malformed stats line 1"), std::string::npos) << r.err;
}

TEST(Cli, StatsPrintsCountersAndDerived) {
    const FakeDebugfs fake;
    CliRunner cli;
    const auto r = cli.run({"--debugfs", fake.root_string(), "stats"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out, "COUNTER                  VALUE\n"
                     "flush.requests            1234\n"
                     "flush.performed           1200\n"
                     "flush.ns_total         2400000\n"
                     "charge_stock.attempts     1000\n"
                     "charge_stock.misses         50\n"
                     "DERIVED                    VALUE\n"
                     "ns_per_flush          2000.00 ns\n"
                     "flush.ns_p50          2633.14 ns\n"
                     "flush.ns_p90          4037.49 ns\n"
                     "flush.ns_p99          7700.48 ns\n"
                     "charge_stock_hit_pct     95.00 %\n"
                     "flush latency (ns; K = 2^10, M = 2^20, G = 2^30):\n"
                     "[1K, 2K)  400 |" +
                         std::string(28, '@') + std::string(22, ' ') +
                         "|\n"
                         "[2K, 4K)  700 |" +
                         std::string(50, '@') +
                         "|\n"
                         "[4K, 8K)  100 |" +
                         std::string(7, '@') + std::string(43, ' ') + "|\n");
}

TEST(Cli, StatsJsonIsAnObject) {
    const FakeDebugfs fake;
    CliRunner cli;
    const auto r = cli.run({"--debugfs", fake.root_string(), "stats", "--json"});
    ASSERT_EQ(r.code, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["counters"]["flush.performed"], 1200);
    EXPECT_DOUBLE_EQ(j["derived"]["charge_stock_hit_pct"].get<double>(), 95.0);
    EXPECT_FALSE(j["derived"].contains("flushes_per_sec"));
}

// The stock by cgroup: the ten with the most misses (named under the cgroup2 mount when it
// has them), `other`, and each cpu's occupancy as bars with its mean; JSON lists all.
TEST(Cli, StatsShowsTheStockByCgroup) {
    const FakeDebugfs fake;
    const testing::TempDir mount;
    std::filesystem::create_directories(mount.path() / "a/b");
    struct stat st {};
    ASSERT_EQ(::stat((mount.path() / "a/b").c_str(), &st), 0);
    std::string text = fmt::format("state on\ncgroup {} 5536 86 90 3 12 0\n", st.st_ino);
    for (int i = 1; i <= 11; ++i) { // ids no directory has: removed cgroups
        text += fmt::format("cgroup {} 100 {} 2 0 1 5\n", i, 20 - i);
    }
    text += "other 7 1 0 0 0 0\n"
            "occupancy 0 120 30 10 0 0 0 0 0\n"
            "occupancy 1 0 0 0 0 0 0 0 0\n";
    fake.write("stock_by_cgroup", text);
    CliRunner cli;
    const std::vector<std::string> args = {"--debugfs", fake.root_string(), "stats",
                                           "--cgroup-mount", mount.path().string()};
    auto r = cli.run(args);
    ASSERT_EQ(r.code, 0) << r.err;
    const auto table = r.out.find("STOCK BY CGROUP");
    ASSERT_NE(table, std::string::npos) << r.out;
    EXPECT_EQ(r.out.substr(table, r.out.find('\n', table) - table),
              "STOCK BY CGROUP  ATTEMPTS  MISSES  REFILLS  DRAINS  OBJ_MISSES  EVICTED  PATH");
    const auto first = r.out.find(fmt::format("\n{} ", st.st_ino), table); // most misses
    ASSERT_NE(first, std::string::npos) << r.out;
    const auto id_width = std::max<std::size_t>(15, std::to_string(st.st_ino).size());
    EXPECT_EQ(r.out.substr(first, r.out.find('\n', first + 1) - first).substr(id_width + 1),
              "      5536      86       90       3          12        0  /a/b")
        << r.out;
    EXPECT_NE(r.out.find("\n9                     100      11"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("\n10         "), std::string::npos) << r.out; // the eleventh and more
    EXPECT_NE(r.out.find("other                   7       1        0       0           0        0\n"
                         "  ... 2 more cgroups (--json lists all)\n"
                         "charge stock occupancy (memcgs in a cpu's stock, sampled every 100 ms):\n"
                         "cpu 0: 160 samples, mean 0.31 memcgs\n"
                         "0  120 |" +
                         std::string(30, '@') +
                         "|\n"
                         "1   30 |" +
                         std::string(7, '@') + std::string(23, ' ') +
                         "|\n"
                         "2   10 |" +
                         std::string(2, '@') + std::string(28, ' ') +
                         "|\n"
                         "cpu 1: no samples yet\n"),
              std::string::npos)
        << r.out;
    auto json_args = args;
    json_args.emplace_back("--json");
    r = cli.run(json_args);
    ASSERT_EQ(r.code, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out)["stock_attribution"];
    EXPECT_EQ(j["state"], "on");
    ASSERT_EQ(j["cgroups"].size(), 12U);
    EXPECT_EQ(j["cgroups"][0]["id"], st.st_ino);
    EXPECT_EQ(j["cgroups"][0]["cgroup"], "/a/b");
    EXPECT_EQ(j["cgroups"][0]["misses"], 86);
    EXPECT_EQ(j["cgroups"][0]["evicted"], 0);
    EXPECT_TRUE(j["cgroups"][1]["cgroup"].is_null()); // removed
    EXPECT_EQ(j["other"]["attempts"], 7);
    ASSERT_EQ(j["occupancy"].size(), 2U);
    EXPECT_EQ(j["occupancy"][0]["cpu"], 0);
    EXPECT_EQ(j["occupancy"][0]["samples"], nlohmann::json::parse("[120,30,10,0,0,0,0,0]"));
    EXPECT_DOUBLE_EQ(j["occupancy"][0]["mean"].get<double>(), 0.3125);
    EXPECT_TRUE(j["occupancy"][1]["mean"].is_null());
    auto csv_args = args;
    csv_args.emplace_back("--csv");
    r = cli.run(csv_args);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find(fmt::format("\nstock_attribution.cgroup.{0}.attempts,5536\n"
                                     "stock_attribution.cgroup.{0}.misses,86\n"
                                     "stock_attribution.cgroup.{0}.refills,90\n"
                                     "stock_attribution.cgroup.{0}.drains,3\n"
                                     "stock_attribution.cgroup.{0}.obj_misses,12\n"
                                     "stock_attribution.cgroup.{0}.evicted,0\n",
                                     st.st_ino)),
              std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("\nstock_attribution.cgroup.11.evicted,5\n"), std::string::npos)
        << r.out; // every cgroup, not only the ten of the text
    EXPECT_NE(r.out.find("\nstock_attribution.other.attempts,7\n"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("\nstock_attribution.occupancy.cpu0.1,30\n"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("\nstock_attribution.occupancy.cpu1.7,0\n"), std::string::npos) << r.out;
}

TEST(Cli, StatsSaysWhyTheStockByCgroupIsEmpty) {
    const FakeDebugfs fake;
    CliRunner cli;
    // 6.1, 6.12: EVICTED `-`, never 0; no occupancy.
    fake.write("stock_by_cgroup", testing::sample_stock_by_cgroup_single);
    auto r = cli.run({"--debugfs", fake.root_string(), "stats"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(
        r.out.find("other                   7       1        0       0           0        -\n"),
        std::string::npos)
        << r.out;
    EXPECT_EQ(r.out.find("occupancy"), std::string::npos) << r.out;
    r = cli.run({"--debugfs", fake.root_string(), "stats", "--json"});
    EXPECT_TRUE(nlohmann::json::parse(r.out)["stock_attribution"]["other"]["evicted"].is_null());
    r = cli.run({"--debugfs", fake.root_string(), "stats", "--csv"});
    EXPECT_NE(r.out.find("\nstock_attribution.cgroup.4219.obj_misses,12\n"), std::string::npos)
        << r.out;
    EXPECT_EQ(r.out.find(".evicted"), std::string::npos) << r.out; // `-`: not counted
    const std::vector<std::pair<std::string, std::string>> why = {
        {"state off\n",
         "charge stock by cgroup: not counted (memcg-statctl set stock_attribution 1)\n"},
        {"state missing\n", "charge stock by cgroup: not available on this kernel (the kernel "
                            "log says why)\n"},
    };
    for (const auto& [file, line] : why) {
        fake.write("stock_by_cgroup", file);
        r = cli.run({"--debugfs", fake.root_string(), "stats"});
        ASSERT_EQ(r.code, 0) << r.err;
        EXPECT_NE(r.out.find(line), std::string::npos) << r.out;
        EXPECT_EQ(r.out.find("STOCK BY CGROUP"), std::string::npos) << r.out;
        r = cli.run({"--debugfs", fake.root_string(), "stats", "--json"});
        const auto j = nlohmann::json::parse(r.out)["stock_attribution"];
        EXPECT_EQ(j["state"], file.substr(6, file.size() - 7));
        EXPECT_TRUE(j["cgroups"].empty());
        EXPECT_TRUE(j["other"].is_null());
        r = cli.run({"--debugfs", fake.root_string(), "stats", "--csv"});
        EXPECT_EQ(r.out.find("stock_attribution"), std::string::npos) << r.out;
    }
    // A module older than the file: nothing said, null in JSON.
    fake.remove("stock_by_cgroup");
    r = cli.run({"--debugfs", fake.root_string(), "stats"});
    EXPECT_EQ(r.out.find("charge stock by cgroup"), std::string::npos) << r.out;
    r = cli.run({"--debugfs", fake.root_string(), "stats", "--json"});
    EXPECT_TRUE(nlohmann::json::parse(r.out)["stock_attribution"].is_null());
    // Malformed: exit 1 naming the file.
    fake.write("stock_by_cgroup", "state on\ncgroup 1 2\nother 0 0 0 0 0 0\n");
    r = cli.run({"--debugfs", fake.root_string(), "stats"});
    EXPECT_EQ(r.code, 1);
    EXPECT_NE(r.err.find("malformed stock_by_cgroup line 2"), std::string::npos) << r.err;
}

TEST(Cli, WatchPrintsPerIntervalRates) {
    const FakeDebugfs fake;
    CliRunner cli;
    int step = 0;
    // Each fake second: +10 flushes costing 1000 ns each, 100 charges with 20 misses.
    cli.on_sleep = [&] {
        ++step;
        fake.write("stats", fmt::format("flush.performed {}\nflush.ns_total {}\n"
                                        "charge_stock.attempts {}\ncharge_stock.misses {}\n",
                                        10 * step, 10000 * step, 100 * step, 20 * step));
    };
    fake.write("stats", "flush.performed 0\nflush.ns_total 0\n"
                        "charge_stock.attempts 0\ncharge_stock.misses 0\n");
    const auto r = cli.run(
        {"--debugfs", fake.root_string(), "stats", "--watch", "1", "--count", "2", "--json"});
    ASSERT_EQ(r.code, 0) << r.err;
    std::istringstream lines(r.out);
    std::string line;
    int n = 0;
    while (std::getline(lines, line)) {
        const auto j = nlohmann::json::parse(line);
        ++n;
        EXPECT_EQ(j["interval"], n);
        EXPECT_DOUBLE_EQ(j["seconds"].get<double>(), 1.0);
        EXPECT_DOUBLE_EQ(j["requested_seconds"].get<double>(), 1.0);
        EXPECT_EQ(j["timestamp"].get<std::string>().size(), 24U); // 2026-12-01T06:00:00.000Z
        EXPECT_EQ(j["deltas"]["flush.performed"], 10);
        EXPECT_DOUBLE_EQ(j["per_second"]["charge_stock.attempts"].get<double>(), 100.0);
        EXPECT_DOUBLE_EQ(j["derived"]["flushes_per_sec"].get<double>(), 10.0);
        EXPECT_DOUBLE_EQ(j["derived"]["ns_per_flush"].get<double>(), 1000.0);
        EXPECT_DOUBLE_EQ(j["derived"]["charge_stock_hit_pct"].get<double>(), 80.0);
    }
    EXPECT_EQ(n, 2);
}

TEST(Cli, WatchEndsOnSigtermAfterWholeLines) {
    const FakeDebugfs fake;
    CliRunner cli;
    int sleeps = 0;
    fake.write("stats", "flush.performed 0\n");
    // The second sleep is interrupted: the first interval's line stands, no other.
    cli.on_sleep = [&] {
        if (++sleeps == 2) {
            std::raise(SIGTERM);
        }
        fake.write("stats", fmt::format("flush.performed {}\n", 10 * sleeps));
    };
    const auto r = cli.run({"--debugfs", fake.root_string(), "stats", "--watch", "1", "--json"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(sleeps, 2);
    std::istringstream lines(r.out);
    std::string line;
    int n = 0;
    while (std::getline(lines, line)) {
        EXPECT_EQ(nlohmann::json::parse(line)["deltas"]["flush.performed"], 10);
        ++n;
    }
    EXPECT_EQ(n, 1);
}

TEST(Cli, WatchTextHasFunccountShape) {
    const FakeDebugfs fake;
    fake.remove("flush_latency"); // a module without it: the histogram has its own tests
    CliRunner cli;
    fake.write("stats", "flush.performed 0\n");
    cli.on_sleep = [&] { fake.write("stats", "flush.performed 20\n"); };
    const auto r =
        cli.run({"--debugfs", fake.root_string(), "stats", "--watch", "2", "--count", "1"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out, "[interval 1: 2.00 s]\n"
                     "COUNTER          DELTA  PER-SEC\n"
                     "flush.performed     20    10.00\n"
                     "DERIVED             VALUE\n"
                     "flushes_per_sec  10.00 /s\n"
                     "\n");
}

} // namespace
} // namespace memcg_statctl
