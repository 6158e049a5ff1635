// Live staleness: the strict parser of `pending`, naming cgroups by id, the rows of `top`
// (order, limit, unknown ids, 6.1's one global row, the stock columns of `stock_by_cgroup`),
// its screen and JSON lines, and the command itself against a fake debugfs and a fake
// cgroup2 mount.
#include <array>
#include <csignal>
#include <filesystem>
#include <poll.h>
#include <pty.h>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "debugfs/attribution.h"
#include "debugfs/pending.h"
#include "exit_code.h"
#include "fake_debugfs.h"
#include "output/result_schema.h"
#include "text_util.h"
#include "top/top.h"

namespace memcg_statctl {
namespace {

using testing::CliRunner;
using testing::FakeDebugfs;
using testing::TempDir;
using Json = nlohmann::ordered_json;

constexpr std::string_view memcg_pending = "scope memcg\n"
                                           "batch 64\n"
                                           "trigger 128\n"
                                           "cgroup 1 130 58\n"
                                           "cgroup 4219 96 21\n"
                                           "cgroup 4300 0 3\n"
                                           "offline 3 0 5\n";

constexpr std::string_view global_pending = "scope global\n"
                                            "batch 64\n"
                                            "trigger 128\n"
                                            "global 192\n";

TEST(PendingParse, PerMemcg) {
    const auto p = parse_pending(memcg_pending);
    EXPECT_EQ(p.scope, "memcg");
    EXPECT_EQ(p.batch, 64U);
    EXPECT_EQ(p.trigger, 128U);
    EXPECT_FALSE(p.global.has_value());
    ASSERT_EQ(p.cgroups.size(), 3U);
    EXPECT_EQ(p.cgroups[1], (PendingCgroup{4219, 96, 21}));
    EXPECT_EQ(p.cgroups[1].total(), 117U);
    ASSERT_TRUE(p.offline.has_value());
    EXPECT_EQ(*p.offline, (PendingOffline{3, 0, 5}));
}

TEST(PendingParse, GlobalAndItsAbsenceUnderTheModulesPolicy) {
    const auto p = parse_pending(global_pending);
    EXPECT_EQ(p.scope, "global");
    ASSERT_TRUE(p.global.has_value());
    EXPECT_EQ(*p.global, 192U);
    // 6.1 under a flush mode other than kernel: the count is the module's gate, not shown.
    EXPECT_FALSE(parse_pending("scope global\nbatch 64\ntrigger 128\n").global.has_value());
}

TEST(PendingParse, SkipsUnknownKinds) {
    const auto p = parse_pending(std::string(memcg_pending) + "newkind 1 2 3\n");
    EXPECT_EQ(p.cgroups.size(), 3U);
}

TEST(PendingParse, RejectsMalformedLinesNamingThem) {
    const std::vector<std::pair<std::string, std::string>> bad = {
        {"scope memcg\nbatch 64\ntrigger 128\ncgroup 1 2\n", "line 4"},
        {"scope memcg\nbatch 64\ntrigger 128\ncgroup 1 2 x\n", "cgroup ID HANDED CPUS"},
        {"scope memcg\nbatch -1\ntrigger 128\n", "line 2"},
        {"scope weird\nbatch 64\ntrigger 128\n", "scope memcg"},
        {"scope memcg\nbatch 64\n", "no `scope`, `batch` or `trigger`"},
        {"batch 64\ntrigger 128\n", "no `scope`"},
        {"scope memcg\nbatch 64\ntrigger 128\nglobal 5\n", "scope memcg with `global` lines"},
        {"scope global\nbatch 64\ntrigger 128\nglobal 5\ncgroup 1 2 3\n",
         "scope global with `cgroup` or `offline` lines"},
        {"scope memcg\nbatch 64\ntrigger 128\noffline 1 2\n", "offline COUNT"},
    };
    for (const auto& [text, want] : bad) {
        try {
            parse_pending(text);
            ADD_FAILURE() << "accepted: " << text;
        } catch (const ToolError& e) {
            EXPECT_NE(std::string(e.what()).find(want), std::string::npos)
                << e.what() << " lacks " << want;
            EXPECT_NE(std::string(e.what()).find("pending"), std::string::npos);
        }
    }
}

TEST(TopRows, SortsByPendingThenPathAndNamesUnknownIds) {
    const auto p = parse_pending(memcg_pending);
    const std::map<std::uint64_t, std::string> paths = {{1, "/"}, {4219, "/a/b"}};
    const auto rows = top_rows(p, paths, TopSort::pending, 0);
    ASSERT_EQ(rows.size(), 3U);
    EXPECT_EQ(rows[0].path, "/");
    EXPECT_EQ(rows[0].pending(), 188U);
    EXPECT_TRUE(rows[0].due(p.trigger)); // handed 130 > trigger 128
    EXPECT_EQ(rows[1].path, "/a/b");
    EXPECT_FALSE(rows[1].due(p.trigger));
    EXPECT_EQ(rows[2].path, "(id 4300)");
    EXPECT_EQ(rows[1].bound_bytes(4096), 117U * 4096);
}

TEST(TopRows, OtherKeysAndLimit) {
    const auto p = parse_pending(memcg_pending);
    const std::map<std::uint64_t, std::string> paths = {{1, "/"}, {4219, "/b"}, {4300, "/a"}};
    EXPECT_EQ(top_rows(p, paths, TopSort::cpus, 0)[0].path, "/");
    EXPECT_EQ(top_rows(p, paths, TopSort::handed, 0)[2].path, "/a");
    const auto by_path = top_rows(p, paths, TopSort::path, 2);
    ASSERT_EQ(by_path.size(), 2U);
    EXPECT_EQ(by_path[0].path, "/");
    EXPECT_EQ(by_path[1].path, "/a");
    EXPECT_FALSE(parse_top_sort("bogus").has_value());
    EXPECT_EQ(parse_top_sort("cpus"), TopSort::cpus);
    EXPECT_EQ(parse_top_sort("stock_misses"), TopSort::stock_misses);
    EXPECT_EQ(parse_top_sort("stock_drains"), TopSort::stock_drains);
    EXPECT_EQ(parse_top_sort("stock_evicted"), TopSort::stock_evicted);
}

// An interval's stock events: cgroup 4300 missed most, 4219 drained most, 1 is not listed;
// 9999 is a removed cgroup (no directory names it).
StockAttribution stock_interval(bool evicted) {
    const std::string e1 = evicted ? "4" : "-";
    const std::string e2 = evicted ? "1" : "-";
    return parse_stock_attribution(fmt::format("state on\n"
                                               "cgroup 4300 50 40 1 2 0 {}\n"
                                               "cgroup 4219 20 10 5 9 3 {}\n"
                                               "cgroup 9999 1 1 0 0 0 {}\n"
                                               "other 3 2 0 1 0 {}\n",
                                               e1, e2, e2, e2));
}

TEST(TopRows, StockColumnsSortKeysAndUnlistedCgroups) {
    const auto p = parse_pending(memcg_pending);
    const std::map<std::uint64_t, std::string> paths = {{1, "/"}, {4219, "/b"}, {4300, "/a"}};
    const auto stock = std::optional(stock_interval(true));
    auto rows = top_rows(p, paths, TopSort::stock_misses, 0, stock);
    ASSERT_EQ(rows.size(), 3U); // the removed cgroup 9999 gets no row
    EXPECT_EQ(rows[0].path, "/a");
    EXPECT_EQ(rows[0].stock, (StockCounts{50, 40, 1, 2, 0, 4}));
    EXPECT_EQ(rows[2].path, "/");
    EXPECT_EQ(rows[2].stock, (StockCounts{0, 0, 0, 0, 0, 0})); // not listed: no event
    EXPECT_EQ(top_rows(p, paths, TopSort::stock_drains, 0, stock)[0].path, "/b");
    EXPECT_EQ(top_rows(p, paths, TopSort::stock_evicted, 0, stock)[0].path, "/a");
    // Not counted (off, or no file): unknown, never 0.
    for (const auto& off : {std::optional(parse_stock_attribution("state off\n")),
                            std::optional<StockAttribution>()}) {
        rows = top_rows(p, paths, TopSort::stock_misses, 0, off);
        ASSERT_EQ(rows.size(), 3U);
        EXPECT_EQ(rows[0].path, "/"); // every key 0: by path
        EXPECT_FALSE(rows[0].stock.has_value());
    }
    // 6.1, 6.12: no EVICTED, and a cgroup it does not list has none either.
    rows = top_rows(p, paths, TopSort::stock_misses, 0, stock_interval(false));
    EXPECT_EQ(rows[0].stock->evicted, std::nullopt);
    EXPECT_EQ(rows[2].stock, (StockCounts{0, 0, 0, 0, 0, std::nullopt}));
}

TEST(TopRows, GlobalScopeWithStockAddsTheNamedCgroups) {
    const std::map<std::uint64_t, std::string> paths = {{4219, "/b"}, {4300, "/a"}};
    const auto rows = top_rows(parse_pending(global_pending), paths, TopSort::stock_misses, 0,
                               stock_interval(false));
    ASSERT_EQ(rows.size(), 3U);
    EXPECT_EQ(rows[0].path, "(all memcgs)"); // every cgroup's and other's: 40 + 10 + 1 + 2
    EXPECT_TRUE(rows[0].has_pending);
    EXPECT_EQ(rows[0].stock->misses, 53U);
    EXPECT_EQ(rows[1].path, "/a");
    EXPECT_FALSE(rows[1].has_pending); // 6.1 keeps no count per cgroup
    EXPECT_EQ(rows[1].id, 4300U);
    EXPECT_EQ(rows[2].path, "/b");
    // Under the module's policy (no `global` line) the cgroups still have their rows.
    EXPECT_EQ(top_rows(parse_pending("scope global\nbatch 64\ntrigger 128\n"), paths,
                       TopSort::pending, 0, stock_interval(false))
                  .size(),
              2U);
}

TEST(TopRows, GlobalScopeIsOneRow) {
    const auto rows = top_rows(parse_pending(global_pending), {}, TopSort::pending, 0);
    ASSERT_EQ(rows.size(), 1U);
    EXPECT_EQ(rows[0].path, "(all memcgs)");
    EXPECT_EQ(rows[0].pending(), 192U);
    EXPECT_TRUE(rows[0].due(128));
    // Under the module's policy 6.1's count is not the kernel's: no row, and the screen
    // says why.
    TopFrame f;
    f.pending = parse_pending("scope global\nbatch 64\ntrigger 128\n");
    f.rows = top_rows(f.pending, {}, TopSort::pending, 0);
    EXPECT_TRUE(f.rows.empty());
    EXPECT_NE(top_screen(f, 0).find("not counted while flush_mode is not kernel"),
              std::string::npos);
}

TopFrame sample_frame() {
    TopFrame f;
    f.timestamp = "2026-12-03T12:00:00Z";
    f.seconds = 1.0;
    f.pending = parse_pending(memcg_pending);
    f.rows = top_rows(f.pending, {{1, "/"}, {4219, "/a/b"}}, TopSort::pending, 2);
    f.cgroups = 3;
    f.flush_mode = "never";
    f.reasons = parse_flush_reasons("class reader 5 4 1\nclass periodic 1 1 0\n"
                                    "class reclaim 0 0 0\n");
    return f;
}

TEST(TopJson, OneObjectPerLineWithEveryField) {
    const auto line = top_json_line(sample_frame());
    ASSERT_FALSE(line.empty());
    EXPECT_EQ(line.back(), '\n');
    EXPECT_EQ(line.find('\n'), line.size() - 1); // one line
    const auto j = Json::parse(line);
    EXPECT_EQ(j["scope"], "memcg");
    EXPECT_EQ(j["flush_mode"], "never");
    EXPECT_EQ(j["trigger"], 128);
    EXPECT_EQ(j["cgroups"], 3);
    EXPECT_EQ(j["offline"]["count"], 3);
    // As stats --json writes it.
    EXPECT_EQ(j["flush_reasons"], reasons_json(sample_frame().reasons));
    EXPECT_EQ(j["flush_reasons"]["classes"][0]["name"], "reader");
    EXPECT_EQ(j["flush_reasons"]["classes"][0]["requests"], 5);
    EXPECT_EQ(j["flush_reasons"]["classes"][0]["performed"], 4);
    ASSERT_EQ(j["rows"].size(), 2U);
    EXPECT_EQ(j["rows"][0]["cgroup"], "/");
    EXPECT_EQ(j["rows"][0]["id"], 1);
    EXPECT_EQ(j["rows"][0]["pending"], 188);
    EXPECT_EQ(j["rows"][0]["handed"], 130);
    EXPECT_EQ(j["rows"][0]["cpus"], 58);
    EXPECT_EQ(j["rows"][0]["bound_bytes"], 188 * 4096);
    EXPECT_EQ(j["rows"][0]["due"], true);
    EXPECT_EQ(j["rows"][1]["due"], false);
}

TEST(TopJson, StockFieldsAreTheIntervalsOrNull) {
    auto f = sample_frame();
    f.stock = stock_interval(true);
    f.rows = top_rows(f.pending, {{1, "/"}, {4219, "/a/b"}}, TopSort::pending, 0, f.stock);
    auto j = Json::parse(top_json_line(f));
    EXPECT_EQ(j["stock_attribution"], "on");
    EXPECT_EQ(j["stock_other"]["stock_misses"], 2);
    EXPECT_EQ(j["stock_other"]["stock_drains"], 1);
    EXPECT_EQ(j["stock_other"]["stock_evicted"], 1);
    ASSERT_EQ(j["rows"][1]["cgroup"], "/a/b");
    EXPECT_EQ(j["rows"][1]["stock_misses"], 10);
    EXPECT_EQ(j["rows"][1]["stock_drains"], 9);
    EXPECT_EQ(j["rows"][1]["stock_evicted"], 1);
    EXPECT_EQ(j["rows"][0]["stock_misses"], 0); // not listed: no event
    EXPECT_EQ(j["rows"][2]["cgroup"], "(id 4300)");
    EXPECT_EQ(j["rows"][2]["stock_misses"], 40);
    // 6.1, 6.12: EVICTED is not counted.
    f.stock = stock_interval(false);
    f.rows = top_rows(f.pending, {}, TopSort::pending, 0, f.stock);
    j = Json::parse(top_json_line(f));
    EXPECT_TRUE(j["stock_other"]["stock_evicted"].is_null());
    EXPECT_EQ(j["rows"][0]["stock_misses"], 0);
    EXPECT_TRUE(j["rows"][0]["stock_evicted"].is_null());
    // Off, missing, no file: every stock field null, and why at the top.
    for (const auto* state : {"off", "missing"}) {
        f.stock = parse_stock_attribution(fmt::format("state {}\n", state));
        f.rows = top_rows(f.pending, {}, TopSort::pending, 0, f.stock);
        j = Json::parse(top_json_line(f));
        EXPECT_EQ(j["stock_attribution"], state);
        EXPECT_FALSE(j.contains("stock_other"));
        EXPECT_TRUE(j["rows"][0]["stock_misses"].is_null());
        EXPECT_TRUE(j["rows"][0]["stock_drains"].is_null());
        EXPECT_TRUE(j["rows"][0]["stock_evicted"].is_null());
    }
    f.stock.reset();
    j = Json::parse(top_json_line(f));
    EXPECT_TRUE(j["stock_attribution"].is_null());
    EXPECT_TRUE(j["rows"][0]["stock_misses"].is_null());
}

TEST(TopJson, GlobalScopesCgroupRowsHaveNoPendingFigures) {
    TopFrame f;
    f.pending = parse_pending(global_pending);
    f.stock = stock_interval(false);
    f.rows = top_rows(f.pending, {{4300, "/a"}}, TopSort::pending, 0, f.stock);
    const auto j = Json::parse(top_json_line(f));
    ASSERT_EQ(j["rows"].size(), 2U);
    EXPECT_EQ(j["rows"][0]["pending"], 192);
    EXPECT_EQ(j["rows"][0]["stock_misses"], 53);
    EXPECT_EQ(j["rows"][1]["cgroup"], "/a");
    EXPECT_EQ(j["rows"][1]["id"], 4300);
    for (const auto* field : {"pending", "handed", "cpus", "bound_bytes", "due"}) {
        EXPECT_TRUE(j["rows"][1][field].is_null()) << field;
    }
    EXPECT_EQ(j["rows"][1]["stock_misses"], 40);
}

TEST(TopJson, NoFlushControlIsNull) {
    auto f = sample_frame();
    f.reasons.reset();
    EXPECT_TRUE(Json::parse(top_json_line(f))["flush_reasons"].is_null());
}

TEST(TopScreen, HeaderReasonsAndRowsWithinWidth) {
    const auto s = top_screen(sample_frame(), 80);
    EXPECT_NE(s.find("scope memcg"), std::string::npos);
    EXPECT_NE(s.find("flush_mode never"), std::string::npos);
    EXPECT_NE(s.find("reader 4/5"), std::string::npos);
    EXPECT_NE(s.find("periodic 1/1"), std::string::npos);
    EXPECT_EQ(s.find("reclaim"), std::string::npos); // no requests: not shown
    EXPECT_NE(s.find("3 cgroups, top 2 shown"), std::string::npos);
    EXPECT_NE(s.find("offline memcgs: 3, pending 5"), std::string::npos);
    EXPECT_NE(s.find("752K"), std::string::npos); // 188 pages
    for (const auto line : split_lines(s)) {
        EXPECT_LE(line.size(), 80U) << line;
    }
}

TEST(TopScreen, StockColumnsAndWhyTheyAreEmpty) {
    auto f = sample_frame();
    f.stock = stock_interval(true);
    f.rows = top_rows(f.pending, {{1, "/"}, {4219, "/a/b"}}, TopSort::pending, 0, f.stock);
    auto s = top_screen(f, 0);
    EXPECT_NE(s.find("stock in 1.0 s, all memcgs: 53 misses, 12 drains, 7 evicted; not "
                     "attributed (module's table full): 2 misses, 1 drains"),
              std::string::npos)
        << s;
    EXPECT_NE(s.find("DUE  ST-MISS ST-DRAIN    EVICT  CGROUP\n"), std::string::npos) << s;
    EXPECT_NE(s.find("       10        9        1  /a/b\n"), std::string::npos) << s;
    EXPECT_NE(s.find("        0        0        0  /\n"), std::string::npos) << s;
    // 6.1, 6.12: no EVICT column.
    f.stock = stock_interval(false);
    f.rows = top_rows(f.pending, {{1, "/"}, {4219, "/a/b"}}, TopSort::pending, 0, f.stock);
    s = top_screen(f, 0);
    EXPECT_EQ(s.find("EVICT"), std::string::npos) << s;
    EXPECT_NE(s.find(" ST-MISS ST-DRAIN  CGROUP\n"), std::string::npos) << s;
    EXPECT_NE(s.find("       10        9  /a/b\n"), std::string::npos) << s;
    // The first frame has no interval yet.
    f.seconds = 0;
    EXPECT_NE(top_screen(f, 0).find("stock attribution: counted from the next refresh"),
              std::string::npos);
    // Not counted: `-` in the columns, and the header says why.
    const std::vector<std::pair<std::optional<StockAttribution>, std::string>> why = {
        {parse_stock_attribution("state off\n"),
         "stock attribution off: memcg-statctl set stock_attribution 1"},
        {parse_stock_attribution("state missing\n"),
         "stock attribution: not available on this kernel (the kernel log says why)"},
        {std::nullopt, "stock attribution: not in this module (no `stock_by_cgroup` file)"},
    };
    for (const auto& [stock, hint] : why) {
        f.stock = stock;
        f.rows = top_rows(f.pending, {{1, "/"}, {4219, "/a/b"}}, TopSort::pending, 0, f.stock);
        s = top_screen(f, 0);
        EXPECT_NE(s.find(hint + "\n"), std::string::npos) << s;
        EXPECT_NE(s.find("        -        -  /a/b\n"), std::string::npos) << s;
        EXPECT_EQ(s.find("EVICT"), std::string::npos) << s;
    }
}

TEST(TopScreen, GlobalScopesCgroupRowsShowNoPendingFigures) {
    TopFrame f;
    f.seconds = 1;
    f.pending = parse_pending(global_pending);
    f.stock = stock_interval(false);
    f.rows = top_rows(f.pending, {{4300, "/a"}}, TopSort::pending, 0, f.stock);
    const auto s = top_screen(f, 0);
    EXPECT_NE(s.find("       192        192          0     768K  yes       53       12  (all "
                     "memcgs)\n"),
              std::string::npos)
        << s;
    EXPECT_NE(s.find("         -          -          -        -    -       40        2  /a\n"),
              std::string::npos)
        << s;
}

// A cgroup2 mount stand-in: directories whose inode numbers are the ids.
struct FakeMount {
    TempDir dir;
    std::uint64_t id(const std::string& rel) const {
        struct stat st {};
        EXPECT_EQ(::stat((dir.path() / rel).c_str(), &st), 0);
        return st.st_ino;
    }
};

TEST(CgroupPaths, ByInodeNumber) {
    FakeMount m;
    std::filesystem::create_directories(m.dir.path() / "a/b");
    const auto paths = cgroup_paths_by_id(m.dir.path());
    EXPECT_EQ(paths.at(m.id(".")), "/");
    EXPECT_EQ(paths.at(m.id("a")), "/a");
    EXPECT_EQ(paths.at(m.id("a/b")), "/a/b");
}

TEST(CgroupPaths, AWalkIsReusedUntilACgroupHasNoName) {
    FakeMount m;
    std::filesystem::create_directories(m.dir.path() / "a");
    const auto paths = cgroup_paths_by_id(m.dir.path());
    Pending p;
    p.scope = "memcg";
    p.cgroups = {{m.id("."), 1, 2}, {m.id("a"), 3, 4}};
    EXPECT_TRUE(names_every_cgroup(p, paths));
    std::filesystem::create_directories(m.dir.path() / "b");
    p.cgroups.push_back({m.id("b"), 0, 1});
    EXPECT_FALSE(names_every_cgroup(p, paths));
    EXPECT_TRUE(names_every_cgroup(p, cgroup_paths_by_id(m.dir.path())));
    p.scope = "global";
    p.cgroups.clear();
    EXPECT_TRUE(names_every_cgroup(p, {}));
    // A cgroup with stock events in the interval must be named too; one without (a removed
    // cgroup, listed until the knob goes off) does not make every refresh walk.
    auto stock = parse_stock_attribution(
        fmt::format("state on\ncgroup {} 1 1 0 0 0 -\ncgroup 999999999 0 0 0 0 0 -\n"
                    "other 0 0 0 0 0 -\n",
                    m.id("a")));
    EXPECT_TRUE(names_every_cgroup(p, paths, &stock));
    stock.cgroups[1].counts.drains = 1;
    EXPECT_FALSE(names_every_cgroup(p, paths, &stock));
}

TEST(TopCommand, JsonLinesWithIntervalReasons) {
    FakeDebugfs fake;
    FakeMount m;
    std::filesystem::create_directories(m.dir.path() / "work");
    fake.write("pending", fmt::format("scope memcg\nbatch 64\ntrigger 128\ncgroup {} 0 7\n"
                                      "cgroup {} 10 20\n",
                                      m.id("."), m.id("work")));
    fake.write("flush_reasons", "class reader 10 10 0\nclass periodic 1 1 0\n");
    CliRunner cli;
    cli.on_sleep = [&] {
        fake.write("flush_reasons", "class reader 13 12 1\nclass periodic 2 2 0\n");
    };
    const auto r = cli.run({"--debugfs", fake.root_string(), "top", "--json", "-n", "2",
                            "--cgroup-mount", m.dir.path().string()});
    ASSERT_EQ(r.code, 0) << r.err;
    const auto lines = split_lines(r.out);
    ASSERT_GE(lines.size(), 2U) << r.out;
    const auto first = Json::parse(lines[0]);
    const auto second = Json::parse(lines[1]);
    EXPECT_EQ(first["seconds"], 0.0);
    EXPECT_EQ(first["flush_reasons"]["classes"][0]["requests"], 0); // no interval yet
    EXPECT_EQ(second["seconds"], 1.0);
    EXPECT_EQ(second["flush_reasons"]["classes"][0]["name"], "reader");
    EXPECT_EQ(second["flush_reasons"]["classes"][0]["requests"], 3);
    EXPECT_EQ(second["flush_reasons"]["classes"][0]["performed"], 2);
    EXPECT_EQ(second["flush_mode"], "kernel"); // the fake's knob
    EXPECT_EQ(second["rows"][0]["cgroup"], "/work");
    EXPECT_EQ(second["rows"][0]["pending"], 30);
    EXPECT_EQ(second["rows"][1]["cgroup"], "/");
}

TEST(TopCommand, JsonLinesWithIntervalStockEvents) {
    FakeDebugfs fake;
    FakeMount m;
    std::filesystem::create_directories(m.dir.path() / "work");
    fake.write("pending", fmt::format("scope memcg\nbatch 64\ntrigger 128\ncgroup {} 0 7\n"
                                      "cgroup {} 10 20\n",
                                      m.id("."), m.id("work")));
    const auto stock = [&](int misses, int drains, int evicted) {
        return fmt::format("state on\ncgroup {} 500 {} 7 {} 0 {}\nother 0 0 0 0 0 0\n",
                           m.id("work"), misses, drains, evicted);
    };
    fake.write("stock_by_cgroup", stock(100, 10, 1));
    CliRunner cli;
    int sleeps = 0;
    cli.on_sleep = [&] {
        ++sleeps;
        fake.write("stock_by_cgroup", sleeps == 1 ? stock(130, 12, 4) : "state off\n");
    };
    const auto r = cli.run({"--debugfs", fake.root_string(), "top", "--json", "-n", "3", "--sort",
                            "stock_misses", "--cgroup-mount", m.dir.path().string()});
    ASSERT_EQ(r.code, 0) << r.err;
    const auto lines = split_lines(r.out);
    ASSERT_EQ(lines.size(), 3U) << r.out;
    const auto first = Json::parse(lines[0]);
    const auto second = Json::parse(lines[1]);
    const auto third = Json::parse(lines[2]);
    EXPECT_EQ(first["stock_attribution"], "on");
    for (const auto& row : first["rows"]) {
        EXPECT_EQ(row["stock_misses"], 0); // no interval yet
        EXPECT_EQ(row["stock_evicted"], 0);
    }
    EXPECT_EQ(first["rows"][0]["cgroup"], "/");      // every count 0: by path
    EXPECT_EQ(second["rows"][0]["cgroup"], "/work"); // most misses first
    EXPECT_EQ(second["rows"][0]["stock_misses"], 30);
    EXPECT_EQ(second["rows"][0]["stock_drains"], 2);
    EXPECT_EQ(second["rows"][0]["stock_evicted"], 3);
    EXPECT_EQ(second["rows"][1]["cgroup"], "/");
    EXPECT_EQ(second["rows"][1]["stock_misses"], 0);
    EXPECT_EQ(third["stock_attribution"], "off"); // turned off in between
    EXPECT_TRUE(third["rows"][0]["stock_misses"].is_null());
}

TEST(TopCommand, RefusesBadOptionsAndAMissingFile) {
    FakeDebugfs fake;
    CliRunner cli;
    auto r = cli.run({"--debugfs", fake.root_string(), "top", "--sort", "bogus"});
    EXPECT_EQ(r.code, static_cast<int>(ExitCode::usage));
    EXPECT_NE(r.err.find("--sort must be pending, handed, cpus, stock_misses, stock_drains, "
                         "stock_evicted or path"),
              std::string::npos)
        << r.err;
    // Usage errors come first, also without the module (exit 2, not 3).
    r = cli.run({"--debugfs", "/nonexistent", "top", "--sort", "bogus"});
    EXPECT_EQ(r.code, static_cast<int>(ExitCode::usage)) << r.err;
    r = cli.run({"--debugfs", fake.root_string(), "top", "--interval", "0.01"});
    EXPECT_EQ(r.code, static_cast<int>(ExitCode::usage));
    EXPECT_NE(r.err.find("--interval must be at least 0.1"), std::string::npos) << r.err;
    r = cli.run({"--debugfs", fake.root_string(), "top", "-n", "1"}); // no `pending` file
    EXPECT_EQ(r.code, static_cast<int>(ExitCode::failure));
    EXPECT_NE(r.err.find("no `pending` file"), std::string::npos) << r.err;
    fake.write("pending", global_pending);
    r = cli.run(
        {"--debugfs", fake.root_string(), "top", "-n", "1", "--cgroup-mount", "/nonexistent/dir"});
    EXPECT_EQ(r.code, static_cast<int>(ExitCode::usage));
    EXPECT_NE(r.err.find("--cgroup-mount must be a directory"), std::string::npos) << r.err;
}

// The program on a pseudo-terminal of 24 x 90: the refreshing screen, not JSON, each frame
// cleared first, cut to the terminal's width, with the header, the stock columns and the
// cgroups; SIGINT ends it with exit 0.
TEST(TopCommand, ScreenOnAPseudoTerminal) {
    FakeDebugfs fake;
    FakeMount m;
    const std::string long_name(100, 'x');
    std::filesystem::create_directories(m.dir.path() / long_name);
    fake.write("pending", fmt::format("scope memcg\nbatch 64\ntrigger 128\ncgroup {} 200 7\n"
                                      "cgroup {} 10 20\n",
                                      m.id("."), m.id(long_name)));
    fake.write("flush_reasons", "class reader 10 10 0\n");
    fake.write("stock_by_cgroup",
               fmt::format("state on\ncgroup {} 9 4 0 1 0 0\nother 0 0 0 0 0 0\n", m.id(".")));
    winsize ws{};
    ws.ws_row = 24;
    ws.ws_col = 90;
    int master = -1;
    const pid_t pid = ::forkpty(&master, nullptr, nullptr, &ws);
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        ::execl(MEMCG_STATCTL_BINARY, "memcg-statctl", "--debugfs", fake.root_string().c_str(),
                "top", "-d", "0.2", "--cgroup-mount", m.dir.path().c_str(),
                static_cast<char*>(nullptr));
        ::_exit(127);
    }
    // Read until three frames were drawn (or 20 s passed), then interrupt.
    std::string screen;
    for (int waited = 0; waited < 200; ++waited) {
        pollfd p{master, POLLIN, 0};
        if (::poll(&p, 1, 100) > 0) {
            std::array<char, 4096> buf{};
            const auto n = ::read(master, buf.data(), buf.size());
            if (n <= 0) {
                break;
            }
            screen.append(buf.data(), static_cast<std::size_t>(n));
        }
        std::size_t frames = 0;
        for (auto at = screen.find("\x1b[H\x1b[2J"); at != std::string::npos;
             at = screen.find("\x1b[H\x1b[2J", at + 1)) {
            ++frames;
        }
        if (frames >= 3) {
            break;
        }
    }
    ::kill(pid, SIGINT);
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    ::close(master);
    ASSERT_TRUE(WIFEXITED(status)) << screen;
    EXPECT_EQ(WEXITSTATUS(status), 0) << screen;
    EXPECT_EQ(screen.find('{'), std::string::npos) << "JSON on a terminal";
    const auto last = screen.substr(screen.rfind("\x1b[H\x1b[2J") + 7);
    EXPECT_NE(last.find("memcg-statctl top"), std::string::npos) << last;
    EXPECT_NE(last.find("PENDING"), std::string::npos) << last;
    EXPECT_NE(last.find("ST-MISS ST-DRAIN    EVICT  CGROUP"), std::string::npos) << last;
    EXPECT_NE(last.find("flush requests in"), std::string::npos) << last;
    EXPECT_NE(last.find("stock in "), std::string::npos) << last;
    EXPECT_NE(last.find("  /\r\n"), std::string::npos) << last; // the root, first by pending
    EXPECT_NE(last.find("/xxx"), std::string::npos) << last;
    for (const auto line : split_lines(last)) {
        EXPECT_LE(trim(line).size(), 90U) << line;
    }
}

} // namespace
} // namespace memcg_statctl
