#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "cli_runner.h"
#include "experiment/experiment.h"
#include "experiment/probe.h"
#include "experiment/recipes.h"
#include "experiment/runner.h"
#include "fake_debugfs.h"
#include "output/plot.h"
#include "run/sweep.h"
#include "text_util.h"

namespace memcg_statctl {
namespace {

// A report built the way the experiment builds it: compare() over hand-made runs.
ComparisonReport report(const std::string& knob, const std::string& workload,
                        const std::vector<std::pair<std::string, std::vector<double>>>& values,
                        const std::vector<Counters>& deltas = {}) {
    std::vector<ValueRuns> runs;
    for (std::size_t i = 0; i < values.size(); ++i) {
        ValueRuns v{values[i].first, values[i].second, {}, {}, {}, {}, {}};
        if (i < deltas.size()) {
            v.counter_deltas.assign(values[i].second.size(), deltas[i]);
            v.seconds.assign(values[i].second.size(), 2.0);
        }
        runs.push_back(v);
    }
    return compare(knob, workload, runs);
}

Counters counters(std::initializer_list<std::pair<const char*, std::uint64_t>> list) {
    Counters c;
    for (const auto& [n, v] : list) {
        c.add(n, v);
    }
    return c;
}

bool ends_with(const std::string& s, const std::string& tail) {
    return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

TEST(Experiment, RecipesNameTheirReports) {
    EXPECT_EQ(recipe_names(),
              (std::vector<std::string>{"update-flush", "reader-flush", "flush-threshold",
                                        "objstock", "readtwice", "staleness"}));
    ASSERT_NE(find_recipe("update-flush"), nullptr);
    EXPECT_EQ(find_recipe("update-flush")->report_id, "update-path-flush");
    EXPECT_EQ(find_recipe("reader-flush")->report_id, "flush-only-if-updated");
    EXPECT_EQ(find_recipe("flush-threshold")->report_id, "per-memcg-threshold");
    EXPECT_EQ(find_recipe("objstock")->report_id, "obj-stock-vmstat");
    EXPECT_EQ(find_recipe("readtwice")->report_id, "per-memcg-lru-lock");
    EXPECT_EQ(find_recipe("staleness")->report_id, "per-memcg-threshold");
    EXPECT_EQ(find_recipe("nope"), nullptr);
}

TEST(Experiment, EveryRecipeRowRunsItsOwnFunction) {
    std::vector<Recipe::Run> seen;
    for (const auto& r : recipes()) {
        ASSERT_NE(r.run, nullptr) << r.name;
        EXPECT_EQ(std::count(seen.begin(), seen.end(), r.run), 0) << r.name;
        seen.push_back(r.run);
    }
}

TEST(Experiment, RecipesStateTheReportAndItsClaimInNumbers) {
    for (const auto& r : recipes()) {
        EXPECT_FALSE(r.reference.empty()) << r.name;
        EXPECT_FALSE(r.claim.empty()) << r.name;
    }
    const auto claim = [](const char* name) { return find_recipe(name)->claim; };
    const auto reference = [](const char* name) { return find_recipe(name)->reference; };
    const auto has = [](const std::string& text, const std::string& part) {
        return text.find(part) != std::string::npos;
    };
    // The published figures each verdict is read against.
    EXPECT_TRUE(has(claim("update-flush"), "-9.2%")) << claim("update-flush");
    EXPECT_TRUE(has(claim("update-flush"), "every 128 updates")) << claim("update-flush");
    EXPECT_TRUE(has(claim("reader-flush"), "63%")) << claim("reader-flush");
    EXPECT_TRUE(has(claim("flush-threshold"), "NR_CPUS x MEMCG_CHARGE_BATCH"));
    EXPECT_TRUE(has(claim("objstock"), fmt::format("{}%", obj_stock_vmstat_miss_pct_before)));
    EXPECT_TRUE(has(claim("objstock"), fmt::format("{}%", obj_stock_vmstat_miss_pct_after)));
    EXPECT_TRUE(has(claim("readtwice"), "16 cgroups")) << claim("readtwice");
    EXPECT_TRUE(has(reference("update-flush"), "45208c9105"));
    EXPECT_TRUE(has(reference("reader-flush"), "memcg: flush stats only if updated"));
    EXPECT_TRUE(has(reference("flush-threshold"), "2023-10-18"));
    EXPECT_TRUE(has(reference("objstock"), "Waiman Long, 2021-04-20"));
    EXPECT_TRUE(has(reference("readtwice"), "per memcg lru_lock"));
}

TEST(Experiment, EachReportIsASectionOfBackgroundMdWithTheSameCommits) {
    // docs/background.md has a "## NAME" section per report that names the recipes testing
    // it and every commit id of the tool's reference.
    const auto doc = read_file(MEMCG_STATCTL_BACKGROUND_MD);
    const std::regex commit_id("\\b[0-9a-f]{10,12}\\b");
    for (const auto& r : recipes()) {
        const auto head = doc.find("\n## " + r.report_id + "\n");
        ASSERT_NE(head, std::string::npos) << r.report_id;
        const auto next = doc.find("\n## ", head + 1);
        const auto section =
            doc.substr(head, next == std::string::npos ? std::string::npos : next - head);
        EXPECT_NE(section.find("`" + r.name + "`"), std::string::npos) << r.name;
        int ids = 0;
        for (auto it = std::sregex_iterator(r.reference.begin(), r.reference.end(), commit_id);
             it != std::sregex_iterator(); ++it, ++ids) {
            EXPECT_NE(section.find(it->str()), std::string::npos)
                << r.name << ": " << it->str() << " is not in " << r.report_id;
        }
        EXPECT_GT(ids, 0) << r.name << ": no upstream commit in " << r.reference;
    }
}

TEST(Experiment, ListTextWrapsEachRecipesSummaryReferenceAndClaim) {
    const std::vector<Recipe> list{
        {"a", "update-path-flush", "one two three", "list, \"S\", X, 2020-01-02",
         "four five six seven"},
        {"b", "per-memcg-lru-lock", "s", "r", "averyveryverylongword c"},
    };
    EXPECT_EQ(recipe_list_text(list, 20), "a (docs/background.md#update-path-flush)\n"
                                          "  one two three\n"
                                          "  reference: list,\n"
                                          "    \"S\", X,\n"
                                          "    2020-01-02\n"
                                          "  claim: four five\n"
                                          "    six seven\n"
                                          "\n"
                                          "b (docs/background.md#per-memcg-lru-lock)\n"
                                          "  s\n"
                                          "  reference: r\n"
                                          "  claim:\n"
                                          "    averyveryverylongword\n"
                                          "    c\n");
    // The real table: every recipe, lines within 80 columns but for an unbreakable word.
    const auto text = recipe_list_text(recipes());
    for (const auto& r : recipes()) {
        EXPECT_NE(text.find(fmt::format("{} (docs/background.md#{})\n", r.name, r.report_id)),
                  std::string::npos);
    }
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) {
        EXPECT_LE(line.size(), 80U) << line;
    }
}

TEST(Experiment, ThresholdPointsAndBound) {
    EXPECT_EQ(threshold_points(128), (std::vector<std::uint64_t>{0, 128, 512, 2048}));
    EXPECT_EQ(staleness_bound(2, "global", 4), 128U);
    EXPECT_EQ(staleness_bound(2, "per-memcg", 4), 512U);
}

TEST(Experiment, UpdateFlushReproducedOnlyWhenEveryModeIsSignificantlySlower) {
    const std::vector<std::pair<std::string, std::vector<double>>> slower{
        {"0", {100, 101, 99, 100}}, {"128", {95, 94, 96, 95}}, {"32", {80, 81, 79, 80}}};
    const auto anon = report("update_flush_every", "page-fault anon", slower);
    auto v = update_flush_verdict({anon, anon});
    EXPECT_EQ(v.outcome, Outcome::reproduced);
    EXPECT_TRUE(ends_with(v.line, ": reproduced")) << v.line;
    EXPECT_NE(v.line.find("-20.0%"), std::string::npos) << v.line;
    EXPECT_NE(v.line.find("128 vs 0"), std::string::npos) << v.line;
    // The spread it rests on: 32's runs {80, 81, 79, 80}, sd 0.82 of 80.
    EXPECT_NE(v.line.find("sd 1.0%"), std::string::npos) << v.line;

    const auto noisy =
        report("update_flush_every", "page-fault file-shared",
               {{"0", {100, 130, 70, 100}}, {"128", {95, 94, 96, 95}}, {"32", {90, 120, 60, 90}}});
    v = update_flush_verdict({anon, noisy});
    EXPECT_EQ(v.outcome, Outcome::not_reproduced);
    EXPECT_TRUE(ends_with(v.line, ": not reproduced")) << v.line;

    const auto faster = report("update_flush_every", "page-fault anon",
                               {{"0", {80, 81, 79}}, {"32", {100, 101, 99}}});
    EXPECT_EQ(update_flush_verdict({faster}).outcome, Outcome::not_reproduced);
    EXPECT_EQ(update_flush_verdict({}).outcome, Outcome::not_measured);
}

TEST(Experiment, ReaderFlushWantsKernelSignificantlyFaster) {
    const auto refault =
        report("flush_mode", "refault", {{"always", {100, 102, 98}}, {"kernel", {200, 205, 195}}});
    const auto reader =
        report("flush_mode", "stat-reader", {{"always", {10, 11, 9}}, {"kernel", {10, 11, 9}}});
    auto v = reader_flush_verdict(refault, &reader);
    EXPECT_EQ(v.outcome, Outcome::reproduced);
    EXPECT_NE(v.line.find("+100.0%"), std::string::npos) << v.line;
    EXPECT_NE(v.line.find("read time -50.0%"), std::string::npos) << v.line;
    EXPECT_NE(v.line.find("stat-reader"), std::string::npos) << v.line;

    const auto same =
        report("flush_mode", "refault", {{"always", {100, 130, 70}}, {"kernel", {101, 131, 71}}});
    EXPECT_EQ(reader_flush_verdict(same, nullptr).outcome, Outcome::not_reproduced);
    const auto missing = report("flush_mode", "refault", {{"always", {1, 2}}});
    EXPECT_EQ(reader_flush_verdict(missing, nullptr).outcome, Outcome::not_measured);
}

TEST(Experiment, FlushThresholdNeedsCheaperAndBounded) {
    const auto reader = report("flush_threshold", "stat-reader",
                               {{"0", {100, 101, 99}},
                                {"128", {120, 121, 119}},
                                {"512", {125, 126, 124}},
                                {"2048", {130, 131, 129}}});
    std::vector<ThresholdPoint> points{
        {"0", 0, 1000, 900.0, 3, 10, 2},
        {"128", 128, 300, 900.0, 60, 10, 2},
        {"512", 512, 100, 900.0, 200, 10, 2},
        {"2048", 2048, 40, 900.0, 700, 10, 2},
    };
    auto v = flush_threshold_verdict(reader, points, 128, 128);
    EXPECT_EQ(v.outcome, Outcome::reproduced) << v.line;
    EXPECT_NE(v.line.find("+30.0%"), std::string::npos) << v.line;
    EXPECT_NE(v.line.find("60 pages"), std::string::npos) << v.line;

    points[1].staleness_pages = 129; // beyond the bound at the kernel default
    EXPECT_EQ(flush_threshold_verdict(reader, points, 128, 128).outcome, Outcome::not_reproduced);
    points[1].staleness_pages = 60;
    points[3].flushes_per_run = 2000; // more flushes at 16x
    EXPECT_EQ(flush_threshold_verdict(reader, points, 128, 128).outcome, Outcome::not_reproduced);
    points[3].flushes_per_run = 40;
    points[1].staleness_pages.reset(); // no valid sample
    EXPECT_EQ(flush_threshold_verdict(reader, points, 128, 128).outcome, Outcome::not_reproduced);
    points.pop_back();
    EXPECT_EQ(flush_threshold_verdict(reader, points, 128, 128).outcome, Outcome::not_measured);
}

// The staleness recipe's curve as made-up measurements: staleness (mean of runs) and
// flushes per run at 0, 1x, 4x, 16x, 64x, then the modes kernel, always and never.
std::vector<StalenessPoint> staleness_curve(const std::vector<double>& stale,
                                            const std::vector<double>& flushes) {
    const std::vector<std::string> labels{"0",   "1x",     "4x",     "16x",
                                          "64x", "kernel", "always", "never"};
    std::vector<StalenessPoint> points;
    for (std::size_t i = 0; i < labels.size(); ++i) {
        StalenessPoint p{.label = labels[i], .mode = i < 5 ? "threshold" : labels[i]};
        if (i < 5) {
            p.times_default = i == 0 ? 0 : std::uint64_t{1} << (2 * (i - 1));
        }
        p.staleness = {static_cast<std::int64_t>(stale[i]) + 5, stale[i], stale[i] / 10};
        p.flushes_per_run = flushes[i];
        p.flushes_stddev = flushes[i] / 20;
        p.reads_per_sec = 1000;
        p.faults_per_sec = 50000;
        p.flush_ns_per_read = 1234.4;
        points.push_back(p);
    }
    return points;
}

TEST(Experiment, StalenessThresholdPointsReach64x) {
    EXPECT_EQ(staleness_threshold_points(128),
              (std::vector<std::uint64_t>{0, 128, 512, 2048, 8192}));
    EXPECT_EQ(staleness_threshold_points(1), (std::vector<std::uint64_t>{0, 1, 4, 16, 64}));
}

TEST(Experiment, StalenessSummaryLeavesOutRunsWithoutSamples) {
    const auto s = summarize_staleness({10, std::nullopt, 30, 20});
    EXPECT_EQ(s.max_pages, 30);
    ASSERT_TRUE(s.mean_pages.has_value());
    EXPECT_DOUBLE_EQ(*s.mean_pages, 20.0);
    ASSERT_TRUE(s.stddev_pages.has_value()); // of 10, 30, 20: sqrt(200 / 2)
    EXPECT_DOUBLE_EQ(*s.stddev_pages, 10.0);
    const auto one = summarize_staleness({std::nullopt, 7});
    EXPECT_EQ(one.mean_pages, 7.0);
    EXPECT_FALSE(one.stddev_pages.has_value()); // one run: no spread
    const auto none = summarize_staleness({std::nullopt, std::nullopt});
    EXPECT_FALSE(none.max_pages.has_value());
    EXPECT_FALSE(none.mean_pages.has_value());
    EXPECT_FALSE(none.stddev_pages.has_value());
}

TEST(Experiment, StalenessReproducedWhenStalenessRisesAndFlushesFall) {
    const auto points = staleness_curve({3, 60, 200, 700, 2800, 50, 1, 9000},
                                        {841, 300, 100, 40, 12, 290, 30000, 2});
    const auto v = staleness_verdict(points);
    EXPECT_EQ(v.outcome, Outcome::reproduced) << v.line;
    EXPECT_TRUE(ends_with(v.line, ": reproduced")) << v.line;
    EXPECT_NE(v.line.find("staleness grows with flush_threshold while flushes per run fall"),
              std::string::npos)
        << v.line;
    EXPECT_NE(v.line.find("0 3, 1x 60, 4x 200, 16x 700, 64x 2800 pages"), std::string::npos)
        << v.line;
    EXPECT_NE(v.line.find("kernel 50, always 1, never 9000 pages"), std::string::npos) << v.line;
    // The figures it rests on and their spread over the runs come last.
    EXPECT_TRUE(ends_with(v.line, "0 vs 64x: staleness 3 -> 2800 pages (sd 0, sd 280), flushes "
                                  "per run 841 -> 12 (sd 42, sd 1): reproduced"))
        << v.line;
}

TEST(Experiment, StalenessNotReproducedWhenEitherSideOfTheTradeOffFails) {
    const std::vector<double> modes{50, 1, 9000};
    const auto curve = [&](std::vector<double> stale, std::vector<double> flushes) {
        stale.insert(stale.end(), modes.begin(), modes.end());
        flushes.insert(flushes.end(), {290, 30000, 2});
        return staleness_curve(stale, flushes);
    };
    // Accuracy not given up: staleness flat from 0 to 64x.
    auto v = staleness_verdict(curve({40, 40, 40, 40, 40}, {841, 300, 100, 40, 12}));
    EXPECT_EQ(v.outcome, Outcome::not_reproduced) << v.line;
    EXPECT_TRUE(ends_with(v.line, ": not reproduced")) << v.line;
    EXPECT_NE(v.line.find("staleness does not grow"), std::string::npos) << v.line;
    EXPECT_NE(v.line.find("staleness 40 -> 40 pages (sd 4, sd 4)"), std::string::npos) << v.line;
    // Nothing bought: as many flushes at 64x as at 0.
    v = staleness_verdict(curve({3, 60, 200, 700, 2800}, {841, 841, 841, 841, 841}));
    EXPECT_EQ(v.outcome, Outcome::not_reproduced) << v.line;
    EXPECT_NE(v.line.find("flushes per run do not fall"), std::string::npos) << v.line;
}

TEST(Experiment, StalenessNotMeasuredWithoutBothEnds) {
    auto points = staleness_curve({3, 60, 200, 700, 2800, 50, 1, 9000},
                                  {841, 300, 100, 40, 12, 290, 30000, 2});
    points[4].staleness = {}; // every read at 64x discarded
    EXPECT_EQ(staleness_verdict(points).outcome, Outcome::not_measured);
    points[4].staleness = {2800, 2800, std::nullopt}; // one run with samples: no spread
    points[4].flushes_stddev.reset();
    const auto v = staleness_verdict(points);
    EXPECT_EQ(v.outcome, Outcome::reproduced) << v.line;
    EXPECT_NE(v.line.find("(sd 0, sd n/a)"), std::string::npos) << v.line;
    points.erase(points.begin() + 4);
    EXPECT_EQ(staleness_verdict(points).outcome, Outcome::not_measured);
}

TEST(Experiment, StalenessTableHasOneRowPerVariant) {
    auto points = staleness_curve({3, 60, 200, 700, 2800, 50, 1, 9000},
                                  {841, 300, 100, 40, 12, 290, 30000, 2});
    points[3].pending_max = 150; // the kernel's own count, saturated at its trigger
    const auto t = staleness_table(points);
    EXPECT_EQ(t.header, (std::vector<std::string>{
                            "variant", "mode", "x default", "stale max", "stale mean", "stale sd",
                            "pending max", "samples", "reads/s", "faults/s", "flushes/run",
                            "flush ns/read", "flush ns/fault", "insns/read", "insns/fault"}));
    ASSERT_EQ(t.rows.size(), 8U);
    EXPECT_EQ(t.rows[3],
              (std::vector<std::string>{"16x", "threshold", "16", "705", "700.0", "70.0", "150",
                                        "0", "1000", "50000", "40", "1234", "-", "-", "-"}));
    EXPECT_EQ(t.rows[6][0], "always");
    EXPECT_EQ(t.rows[6][6], "-"); // no per-memcg count read
    EXPECT_EQ(t.rows[6][2], "-"); // the threshold plays no part outside threshold mode
}

TEST(Experiment, StalenessPlotScriptShowsStalenessAndCostAgainstTheThreshold) {
    auto points = staleness_curve({3, 60, 200, 700, 2800, 50, 1, 9000},
                                  {841, 300, 100, 40, 12, 290, 30000, 2});
    points[7].staleness = {};
    points[7].flush_ns_per_read.reset();
    for (auto& p : points) {
        p.flush_ns_per_fault = 25;
        p.insns_per_read = 400000;
        p.insns_per_fault = 9000;
    }
    const auto s = staleness_plot_script(points, "/tmp/s.svg");
    EXPECT_EQ(s.rfind("set encoding utf8\nset terminal svg size 1000,1000 dynamic noenhanced\n"
                      "set output '/tmp/s.svg'\n",
                      0),
              0U)
        << s;
    // index, label, stale max, stale mean, flushes/run, ns/read, ns/fault, insns/read, insns/fault
    EXPECT_NE(s.find("$threshold << EOD\n0 \"0\" 8 3 841 1234.4 25 400000 9000\n"
                     "1 \"1x\" 65 60 300 1234.4 25 400000 9000\n"),
              std::string::npos)
        << s;
    // The other modes after a gap at index 5; `never` without samples or flushes.
    EXPECT_NE(s.find("$modes << EOD\n6 \"kernel\" "), std::string::npos) << s;
    EXPECT_NE(s.find("8 \"never\" NaN NaN 2 NaN 25 400000 9000\nEOD\n"), std::string::npos) << s;
    EXPECT_NE(s.find("set multiplot layout 3,1"), std::string::npos) << s;
    EXPECT_NE(s.find("set xrange [-0.5:8.5]"), std::string::npos) << s;
    for (const char* title : {"'staleness of leaf0''s memory.stat'", "'flush cost per stat read'",
                              "'flush cost per page fault'"}) {
        EXPECT_NE(s.find(fmt::format("set title {}\n", title)), std::string::npos) << title;
    }
    EXPECT_NE(s.find("$threshold using 1:6:xtic(2) axes x1y1"), std::string::npos) << s;
    EXPECT_NE(s.find("$modes using 1:9:xtic(2) axes x1y2"), std::string::npos) << s;
    EXPECT_NE(s.find("set y2label 'guest insns per fault'"), std::string::npos) << s;

    // Threshold mode only, nothing counted: no modes block and no instruction axis.
    points.resize(5);
    for (auto& p : points) {
        p.insns_per_read.reset();
        p.insns_per_fault.reset();
    }
    const auto one = staleness_plot_script(points, "s.png");
    EXPECT_NE(one.find("pngcairo size 800,1000"), std::string::npos) << one;
    EXPECT_NE(one.find("set xrange [-0.5:4.5]"), std::string::npos) << one;
    EXPECT_EQ(one.find("$modes"), std::string::npos) << one;
    EXPECT_EQ(one.find("guest insns"), std::string::npos) << one;
    EXPECT_EQ(one.find("using 1:8"), std::string::npos) << one;
}

TEST(Experiment, GnuplotDrawsTheStalenessFigure) {
    auto points = staleness_curve({3, 60, 200, 700, 2800, 50, 1, 9000},
                                  {841, 300, 100, 40, 12, 290, 30000, 2});
    points[7].staleness = {};
    const testing::TempDir dir;
    const auto file = dir.path() / "staleness.svg";
    run_gnuplot(staleness_plot_script(points, file), file);
    // MEMCG_STATCTL_PLOT_DIR keeps a PNG of it there, to look at.
    if (const char* keep = std::getenv("MEMCG_STATCTL_PLOT_DIR")) { // NOLINT(concurrency-mt-unsafe)
        const auto png = std::filesystem::path(keep) / "staleness.png";
        run_gnuplot(staleness_plot_script(points, png), png);
    }
    std::ifstream svg(file);
    std::stringstream text;
    text << svg.rdbuf();
    EXPECT_NE(text.str().find("<svg"), std::string::npos);
    EXPECT_NE(text.str().find(">flushes per run<"), std::string::npos);
    EXPECT_NE(text.str().find(">flush ns per read<"), std::string::npos);
    EXPECT_NE(text.str().find(">never<"), std::string::npos);
}

TEST(Experiment, ObjstockComparesTheMissRateWithTheReport) {
    const auto low = counters({{"objcg_vmstat.updates", 1000},
                               {"objcg_vmstat.flushes", 150},
                               {"obj_stock.attempts", 1000},
                               {"obj_stock.misses", 20}});
    const auto high = counters({{"objcg_vmstat.updates", 1000}, {"objcg_vmstat.flushes", 300}});
    auto r = report("workload", "objstock", {{"slab", {5, 6}}, {"mixed", {4, 5}}}, {low, high});
    auto v = objstock_verdict(r, {14, 16});
    EXPECT_EQ(v.outcome, Outcome::reproduced) << v.line;
    EXPECT_NE(v.line.find("30.0% (mixed)"), std::string::npos) << v.line;
    EXPECT_NE(v.line.find("obj-stock hit 98.0%"), std::string::npos) << v.line;
    // The figure it rests on and its spread over the runs come last.
    EXPECT_TRUE(ends_with(v.line, "objcg vmstat miss rate 15.0% (slab, sd 1.4 points over 2 "
                                  "runs): reproduced"))
        << v.line;
    EXPECT_NE(objstock_verdict(r, {15}).line.find("(slab, no spread: fewer than 2 runs)"),
              std::string::npos);

    r = report("workload", "objstock", {{"slab", {5, 6}}}, {high});
    EXPECT_EQ(objstock_verdict(r, {30, 30}).outcome, Outcome::not_reproduced);
    r = report("workload", "objstock", {{"slab", {5, 6}}});
    EXPECT_EQ(objstock_verdict(r, {}).outcome, Outcome::not_measured);
}

TEST(Experiment, ObjcgMissRateOfOneRun) {
    EXPECT_EQ(objcg_vmstat_miss_pct_of(
                  counters({{"objcg_vmstat.updates", 400}, {"objcg_vmstat.flushes", 50}})),
              12.5);
    EXPECT_FALSE(objcg_vmstat_miss_pct_of(
                     counters({{"objcg_vmstat.updates", 0}, {"objcg_vmstat.flushes", 0}}))
                     .has_value());
    EXPECT_FALSE(objcg_vmstat_miss_pct_of(counters({{"flush.performed", 3}})).has_value());
}

TEST(Experiment, VerdictSaysWhatItRestsOn) {
    // A throughput verdict rests on the twins when the runs were counted, on wall time
    // otherwise; a verdict on counts keeps its measure either way.
    EXPECT_EQ(verdict_measure(Measure::wall_time, false), Measure::wall_time);
    EXPECT_EQ(verdict_measure(Measure::wall_time, true), Measure::guest_instructions);
    EXPECT_EQ(verdict_measure(Measure::counters, true), Measure::counters);
    EXPECT_EQ(verdict_measure(Measure::pages, true), Measure::pages);
    EXPECT_EQ(verdict_measure(Measure::pages, false), Measure::pages);
    EXPECT_EQ(measure_name(Measure::counters), "counters");
    EXPECT_EQ(measure_name(Measure::pages), "pages");
    EXPECT_EQ(verdict_line_on(Measure::guest_instructions, "x: reproduced"),
              "on guest instructions: x: reproduced");
    EXPECT_EQ(verdict_line_on(Measure::wall_time, "x"), "on wall time: x");
    EXPECT_EQ(verdict_line_on(Measure::counters, "x"), "on the module's counters: x");
    EXPECT_EQ(verdict_line_on(Measure::pages, "x"), "on memory.stat pages and flush counts: x");
}

TEST(Experiment, ReadtwiceReproducedUnlessTotalDropsSignificantly) {
    auto r = report("cgroups", "readtwice total",
                    {{"1", {100, 101, 99}}, {"4", {102, 101, 103}}, {"16", {98, 110, 95}}});
    EXPECT_EQ(readtwice_verdict(r).outcome, Outcome::reproduced);
    r = report("cgroups", "readtwice total",
               {{"1", {100, 101, 99}}, {"4", {90, 91, 89}}, {"16", {60, 61, 59}}});
    const auto v = readtwice_verdict(r);
    EXPECT_EQ(v.outcome, Outcome::not_reproduced);
    EXPECT_NE(v.line.find("16 cgroups -40.0%"), std::string::npos) << v.line;
}

TEST(Experiment, JsonShape) {
    ExperimentResult r;
    r.name = "reader-flush";
    r.report_id = "flush-only-if-updated";
    r.reference = "list, \"subject\", author, 2021-10-01";
    r.claim = "63% shorter";
    r.parameters = {{"runs", "3"}};
    r.reports.push_back(
        report("flush_mode", "refault", {{"always", {100, 102, 98}}, {"kernel", {200, 205, 195}}},
               {counters({{"flush.performed", 10}}), counters({{"flush.performed", 2}})}));
    r.extra.push_back({"t", {"a", "b"}, {{"1", "2"}}});
    r.notes = {"n"};
    r.verdict = reader_flush_verdict(r.reports[0], nullptr);
    const auto j = experiment_json(r);
    EXPECT_EQ(j["schema"], "memcg-statctl/experiment");
    EXPECT_EQ(j["complete"], true);
    EXPECT_EQ(j["experiment"], "reader-flush");
    EXPECT_EQ(j["schema_version"], 3);
    EXPECT_EQ(j["report_id"], "flush-only-if-updated");
    EXPECT_EQ(j["reference"], r.reference);
    EXPECT_EQ(j["claim"], r.claim);
    EXPECT_EQ(j["parameters"]["runs"], 3); // a number, as in every document
    ASSERT_EQ(j["reports"].size(), 1U);
    EXPECT_EQ(j["reports"][0]["knob"], "flush_mode");
    EXPECT_EQ(j["reports"][0]["rows"][1]["value"], "kernel");
    EXPECT_EQ(j["reports"][0]["rows"][1]["counters"]["flush.performed"], 2);
    EXPECT_TRUE(j["reports"][0]["rows"][1]["significant"].get<bool>());
    EXPECT_EQ(j["tables"][0]["rows"][0][1], "2");
    EXPECT_EQ(j["verdict"]["outcome"], "reproduced");
    EXPECT_TRUE(j["verdict"]["reproduced"].get<bool>());
    EXPECT_EQ(j["verdict"]["line"], r.verdict.line);
    EXPECT_EQ(j["verdict"]["measure"], "wall_time");
    r.measure = Measure::guest_instructions;
    EXPECT_EQ(experiment_json(r)["verdict"]["measure"], "guest_instructions");
}

TEST(Experiment, RatesPerGigaInstructions) {
    // 50000 faults/s over 2 s = 100000 faults in 4e9 instructions: 25000 per 1e9.
    EXPECT_DOUBLE_EQ(per_giga_instructions(50000, 2, 4000000000ULL), 25000);
    EXPECT_DOUBLE_EQ(per_giga_instructions(50000, 2, 0), 0);
    EXPECT_EQ(per_giga_instructions_unit("faults/s"), "faults per 1e9 guest insns");
    EXPECT_EQ(per_giga_instructions_unit("files/s per slab task"),
              "files per slab task per 1e9 guest insns");
    EXPECT_EQ(per_giga_instructions_unit("MiB"), "MiB per 1e9 guest insns");
    EXPECT_EQ(per_giga_instructions_unit("reads/run"), "reads per 1e9 guest insns");
}

TEST(Experiment, PlotPaths) {
    EXPECT_EQ(plot_path_for("out/x.svg", 0, 1, "refault"), "out/x.svg");
    EXPECT_EQ(plot_path_for("out/x.svg", 1, 2, "page-fault file-shared"),
              "out/x-page-fault-file-shared.svg");
    EXPECT_EQ(plot_path_for("x.png", 0, 2, ""), "x-0.png");
}

TEST(Experiment, ParsesMemoryStatAnon) {
    EXPECT_EQ(memory_stat_anon("anon 8192\nfile 4096\n"), 8192U);
    EXPECT_EQ(memory_stat_anon("file 1\nanon_thp 0\nanon 4096\n"), 4096U);
    EXPECT_EQ(memory_stat_anon("file 1\n"), std::nullopt);
}

TEST(Experiment, CliRejectsUnknownRecipeAndNeedsTheModule) {
    testing::CliRunner cli;
    auto r = cli.run({"experiment", "bogus"});
    EXPECT_EQ(r.code, 2) << r.err;
    r = cli.run({"experiment", "update-flush", "--plot", "x.txt"});
    EXPECT_EQ(r.code, 2) << r.err;
    const testing::TempDir empty;
    r = cli.run({"--debugfs", (empty.path() / "memcg_statctl").string(), "experiment", "objstock",
                 "--runs", "2"});
    EXPECT_EQ(r.code, 3) << r.err;
    r = cli.run({"experiment", "--help"});
    EXPECT_EQ(r.code, 0);
    EXPECT_NE(r.out.find("flush-threshold"), std::string::npos);
    EXPECT_NE(r.out.find("--list"), std::string::npos);
}

TEST(Experiment, CliListsWithoutTheModuleAndWantsNameOrList) {
    testing::CliRunner cli;
    const testing::TempDir empty;
    const auto debugfs = (empty.path() / "memcg_statctl").string();
    auto r = cli.run({"--debugfs", debugfs, "experiment", "--list"});
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out, recipe_list_text(recipes()));
    EXPECT_EQ(r.err, "");

    r = cli.run({"--debugfs", debugfs, "experiment"});
    EXPECT_EQ(r.code, 2);
    EXPECT_EQ(r.out, "");
    EXPECT_NE(r.err.find("needs a NAME"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("--list"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("readtwice"), std::string::npos) << r.err;

    r = cli.run({"--debugfs", debugfs, "experiment", "--list", "objstock"});
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_EQ(r.out, "");
}

} // namespace
} // namespace memcg_statctl
